//! What can go wrong laying out text, shared by the shaper and the layout.

use std::fmt;

/// Longest text laid out in one piece, in characters.
pub const MAX_TEXT_CHARS: usize = 10_000;

/// Why a text could not be laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextError {
    TooLong {
        chars: usize,
    },
    BadSize(String),
    /// The text needs a face (or, to wrap, a word list) whose bytes a partial
    /// [`FontBook`](super::FontBook) has not been given yet.
    FaceNotLoaded(String),
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextError::TooLong { chars } => {
                write!(f, "text has {chars} characters, more than {MAX_TEXT_CHARS}")
            }
            TextError::BadSize(why) => f.write_str(why),
            TextError::FaceNotLoaded(name) => {
                write!(f, "font file {name:?} is needed and not loaded yet")
            }
        }
    }
}

impl std::error::Error for TextError {}
