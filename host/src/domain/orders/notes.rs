//! Operators' notes on an order: who wrote what, when. For the floor only: no customer page,
//! e-mail or webhook shows them. Kept in a record of their own beside the order, so writing
//! one never races a move of the order.

use serde::{Deserialize, Serialize};

use crate::domain::ids::OrderNumber;
use crate::infra::clock::Clock;
use crate::infra::store::{self, Kind, Records, StoreError};

/// Record kind: an order's notes, by order number.
pub const NOTES: Kind = Kind::new("order-notes");

/// Longest note, in characters, and most notes on one order.
pub const MAX_NOTE: usize = 2000;
pub const MAX_NOTES: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    /// `admin:<name>`, as the order's history names operators.
    pub by: String,
    /// Seconds since 1970.
    pub at: u64,
    pub text: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct OrderNotes {
    notes: Vec<Note>,
}

#[derive(Debug, thiserror::Error)]
pub enum NoteError {
    #[error("note: {0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// `text` as a note keeps it: trimmed, with lines (no other control characters or bidi
/// controls, which could make it read otherwise than it was written).
fn checked(text: &str) -> Result<&str, NoteError> {
    let text = text.trim();
    let invalid = |problem: &str| Err(NoteError::Invalid(problem.to_owned()));
    if text.is_empty() {
        return invalid("write something");
    }
    if text.chars().count() > MAX_NOTE {
        return invalid(&format!("at most {MAX_NOTE} characters"));
    }
    let bidi = |c: char| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    if text
        .chars()
        .any(|c| (c.is_control() && c != '\n' && c != '\r') || bidi(c))
    {
        return invalid("only text and line breaks");
    }
    Ok(text)
}

/// Adds a note by `by` to order `number` (which the caller found placed).
pub async fn add(
    store: &dyn Records,
    clock: &Clock,
    number: &OrderNumber,
    by: &str,
    text: &str,
) -> Result<(), NoteError> {
    let note = Note {
        by: by.to_owned(),
        at: clock.unix_seconds(),
        text: checked(text)?.replace("\r\n", "\n"),
    };
    let fresh = serde_json::to_vec(&OrderNotes::default())
        .map_err(|e| StoreError::corrupt(e.to_string()))?;
    store.insert(NOTES, number, &fresh).await?;
    store::modify(store, NOTES, number, |notes: &mut OrderNotes| {
        if notes.notes.len() >= MAX_NOTES {
            return Err(NoteError::Invalid(format!(
                "an order keeps at most {MAX_NOTES} notes"
            )));
        }
        notes.notes.push(note.clone());
        Ok(())
    })
    .await?;
    Ok(())
}

/// The notes on order `number`, oldest first.
pub async fn of(store: &dyn Records, number: &OrderNumber) -> Result<Vec<Note>, StoreError> {
    Ok(store::load::<OrderNotes>(store, NOTES, number)
        .await?
        .map(|(record, _)| record.notes)
        .unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_is_text_with_lines_and_bounded() {
        assert_eq!(
            checked("  call the shop\r\nfirst ").unwrap(),
            "call the shop\r\nfirst"
        );
        assert!(checked(" ").is_err());
        assert!(checked(&"x".repeat(MAX_NOTE + 1)).is_err());
        assert!(checked(&"x".repeat(MAX_NOTE)).is_ok());
        assert!(checked("a\u{0007}bell").is_err());
        assert!(checked("evil \u{202e}txt.exe").is_err());
    }
}
