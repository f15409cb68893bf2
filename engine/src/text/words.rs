//! Word boundaries for the scripts that write words without spaces between them: Thai, Lao,
//! Khmer and Myanmar. UAX #14 gives these characters (line break class SA) no break
//! opportunities of their own and leaves them to "complex context analysis"; this is that
//! analysis, as ICU4X's dictionary line segmenter does it, with the same dictionaries
//! (`fonts/words/`, named by the catalogue's `wordBreak`): the longest dictionary word at each
//! point, ending on a grapheme boundary. The dictionaries are data, not code, so a browser
//! loads one only when a line of its script is wrapped, as it loads faces.

use std::sync::Arc;

use icu_collections::char16trie::Char16TrieCursor;
use unicode_linebreak::{BreakClass, break_property};
use zerovec::ZeroSlice;

use super::error::TextError;
use super::fonts::{FontBook, FontError};

/// A script whose lines break between dictionary words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordScript {
    Thai,
    Lao,
    Khmer,
    Myanmar,
}

impl WordScript {
    /// The script a catalogue's `wordBreak` names (`thai`, `lao`, `khmer`, `myanmar`).
    pub fn named(name: &str) -> Result<WordScript, FontError> {
        Ok(match name {
            "thai" => WordScript::Thai,
            "lao" => WordScript::Lao,
            "khmer" => WordScript::Khmer,
            "myanmar" => WordScript::Myanmar,
            _ => {
                return Err(FontError(format!(
                    "wordBreak: {name:?} is not a script with word lists (thai, lao, khmer or myanmar)"
                )));
            }
        })
    }

    /// The script of `c` as ICU's segmenter divides a run of SA characters into languages.
    fn of(c: char) -> Option<WordScript> {
        Some(match u32::from(c) {
            0x0E01..=0x0E7F => WordScript::Thai,
            0x0E80..=0x0EFF => WordScript::Lao,
            0x1780..=0x17FF | 0x19E0..=0x19FF => WordScript::Khmer,
            0x1000..=0x109F | 0xA9E0..=0xA9FF | 0xAA60..=0xAA7F => WordScript::Myanmar,
            _ => return None,
        })
    }
}

/// A word list: ICU's UCharsTrie of the words, as 16-bit little-endian units, read in place.
/// Walking a damaged trie only finds fewer words (every read is checked).
#[derive(Debug, Clone)]
pub struct Dictionary(Arc<[u8]>);

impl Dictionary {
    pub fn new(name: &str, bytes: Arc<[u8]>) -> Result<Dictionary, FontError> {
        if bytes.len() < 2 || ZeroSlice::<u16>::parse_bytes(&bytes).is_err() {
            return Err(FontError(format!(
                "word-break dictionary {name:?} is not a trie of 16-bit units ({} bytes)",
                bytes.len()
            )));
        }
        Ok(Dictionary(bytes))
    }

    fn trie(&self) -> &ZeroSlice<u16> {
        ZeroSlice::parse_bytes(&self.0).expect("checked when made")
    }
}

/// Break opportunities inside runs of SA characters (byte offsets, ascending), which UAX #14
/// leaves to this: between dictionary words, and (mostly) where one script of a run gives way
/// to another. A run's own ends are UAX #14's to decide. A script without a word list gets
/// none inside it.
pub fn word_breaks(book: &FontBook, text: &str) -> Result<Vec<usize>, TextError> {
    let mut breaks = Vec::new();
    // Every SA character is at U+0E01 or above: three bytes or more, led by 0xE0 or higher.
    if !text.bytes().any(|b| b >= 0xE0) {
        return Ok(breaks);
    }
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if break_property(u32::from(c)) != BreakClass::ComplexContext {
            continue;
        }
        let mut end = start + c.len_utf8();
        while let Some(&(i, c)) = chars.peek() {
            if break_property(u32::from(c)) != BreakClass::ComplexContext {
                break;
            }
            end = i + c.len_utf8();
            chars.next();
        }
        run_breaks(book, text, start..end, &mut breaks)?;
    }
    Ok(breaks)
}

/// The breaks inside one run of SA characters: between its scripts, and between the words of
/// each script's part.
fn run_breaks(
    book: &FontBook,
    text: &str,
    run: std::ops::Range<usize>,
    breaks: &mut Vec<usize>,
) -> Result<(), TextError> {
    let mut start = run.start;
    while start < run.end {
        let script = text[start..].chars().next().and_then(WordScript::of);
        let end = text[start..run.end]
            .char_indices()
            .find(|&(_, c)| WordScript::of(c) != script)
            .map_or(run.end, |(i, _)| start + i);
        let dictionary = match script {
            Some(script) => book.dictionary(script).map_err(TextError::FaceNotLoaded)?,
            None => None,
        };
        let ends = match dictionary {
            Some(dictionary) => segment(dictionary.trie(), &text[start..end]),
            // A script without a word list is one segment.
            None => vec![end - start],
        };
        breaks.extend(ends.into_iter().map(|i| start + i).filter(|&i| i < run.end));
        start = end;
    }
    Ok(())
}

/// The segment ends of `text` (one script's part of a run) as ICU4X 1.5's dictionary line
/// segmenter gives them, its end included when it does. A walk that reaches the end of the
/// text inside a word gives up after the last word it found, so the segmenter walks again from
/// there.
fn segment(trie: &ZeroSlice<u16>, text: &str) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut from = 0;
    while from < text.len() {
        let walked = walk(trie, &text[from..]);
        ends.extend(walked.iter().map(|end| from + end));
        match walked.last() {
            Some(&end) if from + end < text.len() => from += end,
            _ => break,
        }
    }
    ends
}

/// One walk of ICU4X 1.5's dictionary segmenter over `text`: from each point the longest word
/// whose end is a grapheme boundary; where no word starts there, the characters up to the
/// first that continues no word. As in ICU4X, the grapheme boundaries are read once, in
/// order, across the walk: a look past a word end that fails comes back to it, but word ends
/// inside the boundaries it read no longer count (fewer breaks, never a wrong one).
fn walk(trie: &ZeroSlice<u16>, text: &str) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut graphemes = GraphemeBoundaries { text, last: None };
    let mut start = 0;
    loop {
        let mut cursor = Char16TrieCursor::new(trie);
        let mut word_end = None;
        let mut prefix = false;
        let mut boundary = 0;
        let mut at = start;
        let end = loop {
            let Some(c) = text[at..].chars().next() else {
                // The text ends inside a word or the start of one: the last word found ends the
                // walk's last segment, or else the whole rest does.
                if let Some(end) = word_end {
                    ends.push(end);
                } else if prefix {
                    ends.push(text.len());
                }
                return ends;
            };
            at += c.len_utf8();
            cursor.step(c);
            match (cursor.value(), cursor.is_empty()) {
                // A word, and no longer one.
                (Some(_), true) => break at,
                // A word, and maybe a longer one.
                (Some(_), false) => {
                    while boundary < at {
                        boundary = graphemes.next().unwrap_or(text.len());
                        if boundary == text.len() {
                            break;
                        }
                    }
                    if boundary == at {
                        word_end = Some(at);
                    }
                }
                // No word goes on this way: the longest one found, else up to here.
                (None, true) => break word_end.unwrap_or(at),
                // The start of a word only.
                (None, false) => prefix = true,
            }
        };
        ends.push(end);
        start = end;
    }
}

/// The grapheme cluster boundaries of a text of one script, in order, its start included.
struct GraphemeBoundaries<'a> {
    text: &'a str,
    last: Option<usize>,
}

impl Iterator for GraphemeBoundaries<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let next = match self.last {
            None => 0,
            Some(last) if last >= self.text.len() => return None,
            Some(last) => {
                let mut at = last;
                loop {
                    at += self.text[at..].chars().next().map_or(1, char::len_utf8);
                    if grapheme_boundary(self.text, at) {
                        break at;
                    }
                }
            }
        };
        self.last = Some(next);
        Some(next)
    }
}

/// Whether a grapheme cluster may end at byte `at` of `text` (all of one script): at its end,
/// or before a character that is not a combining or spacing mark (UAX #29's Extend and
/// SpacingMark in these scripts, Unicode 15.1).
fn grapheme_boundary(text: &str, at: usize) -> bool {
    let Some(next) = text[at..].chars().next() else {
        return true;
    };
    !matches!(
        u32::from(next),
        0x0E31
            | 0x0E33..=0x0E3A
            | 0x0E47..=0x0E4E
            | 0x0EB1
            | 0x0EB3..=0x0EBC
            | 0x0EC8..=0x0ECE
            | 0x102D..=0x1037
            | 0x1039..=0x103E
            | 0x1056..=0x1059
            | 0x105E..=0x1060
            | 0x1071..=0x1074
            | 0x1082
            | 0x1084..=0x1086
            | 0x108D
            | 0x109D
            | 0x17B4..=0x17D3
            | 0x17DD
            | 0xA9E5
            | 0xAA7C
    )
}
