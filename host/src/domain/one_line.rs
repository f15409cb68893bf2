//! One-line text that people type (names, addresses, carriers, pack names): the one check
//! every such field passes, so nothing typed can break a line of an e-mail or a page, or
//! reorder the text around it there.
//!
//! Refused: control characters (line breaks, tabs), the line and paragraph separators
//! (U+2028, U+2029), and the bidirectional embeddings, overrides and isolates (U+202A to
//! U+202E, U+2066 to U+2069), which reorder what follows them up to the end of a paragraph.
//! Kept: the joiners (U+200C, U+200D) that Persian, Indic and emoji text need, and the
//! direction marks (U+200E, U+200F, U+061C), which change no order but their own.

/// Why a value is not one line of text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineProblem {
    #[error("must not be empty")]
    Empty,
    #[error("at most {0} characters")]
    TooLong(usize),
    #[error("must be on one line (no line breaks, tabs or separators)")]
    Breaks,
    #[error("must not contain bidirectional controls (U+202A to U+202E, U+2066 to U+2069)")]
    Reorders,
    #[error("only printable ASCII: letters, digits, spaces and punctuation")]
    NotPrintableAscii,
}

/// Whether `c` breaks a line.
fn breaks_line(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Whether `c` reorders text beyond itself (UAX #9's explicit embeddings and isolates).
fn reorders(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `value`, trimmed, if it is at most `max` characters of one line; empty allowed.
pub fn optional(value: &str, max: usize) -> Result<&str, LineProblem> {
    let value = value.trim();
    if value.chars().any(breaks_line) {
        Err(LineProblem::Breaks)
    } else if value.chars().any(reorders) {
        Err(LineProblem::Reorders)
    } else if value.chars().count() > max {
        Err(LineProblem::TooLong(max))
    } else {
        Ok(value)
    }
}

/// `value`, trimmed, if it is 1 to `max` characters of one line.
pub fn required(value: &str, max: usize) -> Result<&str, LineProblem> {
    match optional(value, max)? {
        "" => Err(LineProblem::Empty),
        value => Ok(value),
    }
}

/// An identifier such as a tracking number: [`required`], in printable ASCII only, so no
/// look-alike character (a full-width digit, a Cyrillic letter) can pass for another.
pub fn identifier(value: &str, max: usize) -> Result<&str, LineProblem> {
    let value = required(value, max)?;
    if value.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        Ok(value)
    } else {
        Err(LineProblem::NotPrintableAscii)
    }
}

/// `text` with its first letter in upper case, for a message that starts a sentence.
pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_joiners_and_marks_and_lose_breaks_and_overrides() {
        for kept in [
            "Ann Example",
            "\u{645}\u{6cc}\u{200c}\u{62e}\u{648}\u{627}\u{647}\u{645}",
            "\u{1F469}\u{200D}\u{1F4BB}",
            "\u{5e9}\u{5dc}\u{5d5}\u{5dd}\u{200f} 42",
        ] {
            assert_eq!(required(kept, 100), Ok(kept));
        }
        for broken in ["a\nb", "a\tb", "a\u{2028}b", "a\u{2029}b", "a\u{85}b"] {
            assert_eq!(
                required(broken, 100),
                Err(LineProblem::Breaks),
                "{broken:?}"
            );
        }
        for reordering in [
            '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}',
            '\u{2068}', '\u{2069}',
        ] {
            let value = format!("a{reordering}b");
            assert_eq!(required(&value, 100), Err(LineProblem::Reorders));
        }
        assert_eq!(required("  ", 10), Err(LineProblem::Empty));
        assert_eq!(optional("  ", 10), Ok(""));
        assert_eq!(required(" abc ", 3), Ok("abc"));
        assert_eq!(required("abcd", 3), Err(LineProblem::TooLong(3)));
        assert_eq!(identifier("JD 0146-x/9", 20), Ok("JD 0146-x/9"));
        assert_eq!(
            identifier("JD\u{ff10}", 20),
            Err(LineProblem::NotPrintableAscii)
        );
    }
}
