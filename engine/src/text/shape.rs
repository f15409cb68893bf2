//! Shaping: a paragraph's characters to positioned glyphs, as HarfBuzz shapes them (the
//! harfrust port, the same code in every build): ligatures, kerning and mark positioning,
//! Arabic joining, Indic reordering and conjuncts, Thai marks.
//!
//! A paragraph is cut into runs of one face, one script and one bidi level, and each run is
//! shaped with its neighbours as context. The face of each cluster of characters (a base and
//! what attaches to it: marks, joiners, selectors) is the requested one if it has all of them,
//! else the first fallback face that does, as a browser chooses from a list of fonts.
//! Bidi levels come from UAX #9 (unicode-bidi), the paragraph's direction from its first
//! strong character; text with no right-to-left character skips that analysis.
//!
//! The result is kept in logical order, as clusters, for line breaking; each cluster holds its
//! glyphs in the order they are drawn.

use std::ops::Range;

use harfrust::{Buffer, BufferFlags, Direction, Script, ShapeOptions, ShaperFont};
use unicode_bidi::{Level, ParagraphBidiInfo};

use super::error::TextError;
use super::fonts::{Face, FaceId, FontBook};

/// A shaped paragraph.
pub(crate) struct Paragraph<'t> {
    pub text: &'t str,
    /// Bidi levels, when any character is right-to-left (else every level is 0).
    pub bidi: Option<ParagraphBidiInfo<'t>>,
    /// In logical order.
    pub clusters: Vec<Cluster>,
    /// Each cluster's glyphs, in drawing order within the cluster.
    pub glyphs: Vec<Glyph>,
    /// A cluster was set in a face other than the requested one.
    pub substituted: bool,
    /// Characters no face has (drawn as the face's missing-glyph box).
    pub missing: Vec<char>,
}

/// Characters shaped as one unit: a line never breaks inside one.
#[derive(Debug, Clone)]
pub(crate) struct Cluster {
    /// Bytes of the paragraph.
    pub text: Range<usize>,
    /// Into [`Paragraph::glyphs`].
    pub glyphs: Range<usize>,
    /// Advance of its glyphs, mm.
    pub advance: f64,
    pub white_space: bool,
}

/// A glyph with its advance and its offset from the pen, mm (`dy` upwards).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Glyph {
    pub face: FaceId,
    pub glyph: u16,
    pub advance: f64,
    pub dx: f64,
    pub dy: f64,
}

/// A run of clusters in one face, script and level, as it is shaped.
struct Run {
    text: Range<usize>,
    face: FaceId,
    script: Script,
    level: Level,
}

/// Characters that need a glyph (white space and controls are drawn as space or not at all).
pub(crate) fn needs_glyph(c: char) -> bool {
    !c.is_whitespace() && !c.is_control() && !is_default_ignorable(c)
}

/// Characters a face need not have: joiners, direction marks and controls, variation
/// selectors (the shaper hides them; a face lacking them lacks nothing).
fn is_default_ignorable(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{E0000}'..='\u{E0FFF}')
}

/// Whether `c` belongs to the character before it when choosing a face: a mark, a joiner, a
/// selector or an emoji modifier (a face that draws the base must draw it too).
fn attaches(c: char, previous: char) -> bool {
    previous == '\u{200D}'
        || matches!(c, '\u{200C}' | '\u{200D}' | '\u{FE00}'..='\u{FE0F}' | '\u{1F3FB}'..='\u{1F3FF}'
            | '\u{E0020}'..='\u{E007F}' | '\u{E0100}'..='\u{E01EF}')
        || harfrust::unicode::combining_class(c as u32) != 0
        || harfrust::unicode::script(c as u32) == Script::INHERITED
}

/// The script of `c` for itemising: `None` for characters of any script (spaces,
/// punctuation, digits, marks), which take the script around them.
fn script_of(c: char) -> Option<Script> {
    match harfrust::unicode::script(c as u32) {
        Script::COMMON | Script::INHERITED | Script::UNKNOWN => None,
        script => Some(script),
    }
}

/// Whether the text has a character that can make any of it right-to-left: a right-to-left
/// letter or Arabic number (the blocks below) or an explicit direction control. Without one,
/// every level is 0 and no analysis is needed (Latin, Indic, Thai and CJK text skip it).
fn may_be_bidi(text: &str) -> bool {
    text.chars().any(may_turn_right_to_left)
}

fn may_turn_right_to_left(c: char) -> bool {
    matches!(c,
        // Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic, Arabic Extended (ALM too).
        '\u{0590}'..='\u{08FF}'
        // The marks and the embeddings, overrides and isolates (RLM, LRE..RLO, LRI..PDI).
        | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        // Hebrew and Arabic presentation forms.
        | '\u{FB1D}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFF}'
        // The right-to-left scripts of the supplementary planes and Arabic mathematics.
        | '\u{10800}'..='\u{10FFF}' | '\u{1E800}'..='\u{1EFFF}')
}

/// Shapes `text` (one paragraph: no line breaks in it) in `primary`, falling back to
/// `fallbacks` in order, at `size` mm to the em.
pub(crate) fn shape_paragraph<'t>(
    book: &FontBook,
    text: &'t str,
    primary: FaceId,
    fallbacks: &[FaceId],
    size: f64,
) -> Result<Paragraph<'t>, TextError> {
    let bidi = may_be_bidi(text)
        .then(|| ParagraphBidiInfo::new(text, None))
        .filter(|bidi| bidi.has_rtl());
    let mut paragraph = Paragraph {
        text,
        bidi,
        clusters: Vec::new(),
        glyphs: Vec::new(),
        substituted: false,
        missing: Vec::new(),
    };
    let runs = itemise(book, &mut paragraph, primary, fallbacks)?;
    let mut buffer = Buffer::new();
    for run in &runs {
        buffer = shape_run(book, &mut paragraph, run, size, buffer);
    }
    Ok(paragraph)
}

/// Cuts the paragraph into runs of one face, script and level.
fn itemise(
    book: &FontBook,
    paragraph: &mut Paragraph,
    primary: FaceId,
    fallbacks: &[FaceId],
) -> Result<Vec<Run>, TextError> {
    let text = paragraph.text;
    let mut runs: Vec<Run> = Vec::new();
    let mut script = None;
    let mut start = 0;
    while start < text.len() {
        // One unit of face choice: a character and what attaches to it.
        let mut chars = text[start..].char_indices();
        let (_, first) = chars.next().expect("start is inside the text");
        let mut end = text.len();
        let mut last = first;
        for (offset, c) in chars {
            if !attaches(c, last) {
                end = start + offset;
                break;
            }
            last = c;
        }
        let unit = &text[start..end];
        let unit_script = unit.chars().find_map(script_of);
        let face = choose_face(book, paragraph, unit, primary, fallbacks)?;
        // Characters of any script take the script of the run they are in (or the next one).
        let resolved = unit_script.or(script);
        script = resolved.or(script);
        let level = paragraph
            .bidi
            .as_ref()
            .map_or(Level::ltr(), |bidi| bidi.levels[start]);
        match runs.last_mut() {
            Some(run)
                if run.face == face
                    && run.level == level
                    && (resolved.is_none()
                        || Some(run.script) == resolved
                        || run.script == Script::COMMON) =>
            {
                if run.script == Script::COMMON
                    && let Some(resolved) = resolved
                {
                    run.script = resolved;
                }
                run.text.end = end;
            }
            _ => runs.push(Run {
                text: start..end,
                face,
                script: resolved.unwrap_or(Script::COMMON),
                level,
            }),
        }
        start = end;
    }
    // A run of only spaces and punctuation before any script takes the next run's script.
    let mut next = Script::COMMON;
    for run in runs.iter_mut().rev() {
        if run.script == Script::COMMON {
            run.script = next;
        } else {
            next = run.script;
        }
    }
    Ok(runs)
}

/// The face of one unit: the requested face if it has every character, else the first
/// fallback that does, else the requested face (its missing-glyph box; the characters are
/// reported).
fn choose_face(
    book: &FontBook,
    paragraph: &mut Paragraph,
    unit: &str,
    primary: FaceId,
    fallbacks: &[FaceId],
) -> Result<FaceId, TextError> {
    if let Some(face) = covering_face(book, unit, primary, fallbacks)? {
        paragraph.substituted |= face != primary;
        return Ok(face);
    }
    for c in unit.chars().filter(|&c| needs_glyph(c)) {
        let mut has = false;
        for &face in std::iter::once(&primary).chain(fallbacks) {
            has |= loaded(book, face)?.glyph(c).is_some();
        }
        if !has && !paragraph.missing.contains(&c) {
            paragraph.missing.push(c);
        }
    }
    paragraph.substituted = true;
    Ok(primary)
}

/// The first of `primary` and then `fallbacks` that has every character of `text`, if any.
pub(crate) fn covering_face(
    book: &FontBook,
    text: &str,
    primary: FaceId,
    fallbacks: &[FaceId],
) -> Result<Option<FaceId>, TextError> {
    for &face in std::iter::once(&primary).chain(fallbacks) {
        let loaded = loaded(book, face)?;
        if text
            .chars()
            .filter(|&c| needs_glyph(c))
            .all(|c| loaded.glyph(c).is_some())
        {
            return Ok(Some(face));
        }
    }
    Ok(None)
}

/// A face's parsed data; a fallback face is asked for only when a character needs it, so a
/// browser loads only the faces a text uses.
pub(crate) fn loaded(book: &FontBook, face: FaceId) -> Result<&Face, TextError> {
    book.loaded(face).map_err(TextError::FaceNotLoaded)
}

/// Shapes one run and appends its clusters and glyphs in logical order; gives the buffer back
/// for the next run.
fn shape_run(
    book: &FontBook,
    paragraph: &mut Paragraph,
    run: &Run,
    size: f64,
    mut buffer: Buffer,
) -> Buffer {
    let text = paragraph.text;
    let face = book.face(run.face);
    let direction = if run.level.is_rtl() {
        Direction::RightToLeft
    } else {
        Direction::LeftToRight
    };
    buffer.clear();
    buffer.push_str(&text[run.text.clone()]);
    buffer.set_pre_context(&text[..run.text.start]);
    buffer.set_post_context(&text[run.text.end..]);
    buffer.set_direction(direction);
    buffer.set_script(Some(run.script));
    let mut flags = BufferFlags::empty();
    if run.text.start == 0 {
        flags |= BufferFlags::BEGINNING_OF_TEXT;
    }
    if run.text.end == text.len() {
        flags |= BufferFlags::END_OF_TEXT;
    }
    buffer.set_flags(flags);
    let plan = face.plan(run.script, direction);
    let font = ShaperFont::new(face.shaping_font());
    let shaped = harfrust::shape(&font, &mut buffer, ShapeOptions::new().plan(Some(&plan)));
    let glyph_buffer = match shaped {
        Ok(()) => buffer,
        // A plan made for this very script and direction matches; should shaping still
        // refuse, the run is set glyph by glyph from the character map.
        Err(_) => {
            let mut plain = Buffer::new();
            for (offset, c) in text[run.text.clone()].char_indices() {
                plain.push(u32::from(face.glyph(c).unwrap_or(0)), offset as u32);
            }
            plain
        }
    };
    let scale = size / face.units_per_em;
    let infos = glyph_buffer.glyph_infos();
    let positions = glyph_buffer.glyph_positions();
    // Groups of glyphs of one cluster, in drawing order; logical order is their reverse in a
    // right-to-left run.
    let mut groups: Vec<(u32, Range<usize>)> = Vec::new();
    for (index, info) in infos.iter().enumerate() {
        match groups.last_mut() {
            Some((cluster, glyphs)) if *cluster == info.cluster => glyphs.end = index + 1,
            _ => groups.push((info.cluster, index..index + 1)),
        }
    }
    if run.level.is_rtl() {
        groups.reverse();
    }
    for (i, (cluster, glyphs)) in groups.iter().enumerate() {
        let start = run.text.start + *cluster as usize;
        let end = groups
            .get(i + 1)
            .map_or(run.text.end, |(next, _)| run.text.start + *next as usize);
        let first = paragraph.glyphs.len();
        let mut advance = 0.0;
        for index in glyphs.clone() {
            let position = &positions[index];
            let glyph = Glyph {
                face: run.face,
                glyph: u16::try_from(infos[index].glyph_id).unwrap_or(0),
                advance: f64::from(position.x_advance) * scale,
                dx: f64::from(position.x_offset) * scale,
                dy: f64::from(position.y_offset) * scale,
            };
            advance += glyph.advance;
            paragraph.glyphs.push(glyph);
        }
        let cluster_text = &text[start.min(end)..end.max(start)];
        paragraph.clusters.push(Cluster {
            text: start.min(end)..end.max(start),
            glyphs: first..paragraph.glyphs.len(),
            advance,
            white_space: !cluster_text.chars().any(needs_glyph),
        });
    }
    let mut buffer = glyph_buffer;
    buffer.clear();
    buffer
}

#[cfg(test)]
mod tests {
    use super::may_turn_right_to_left;
    use unicode_bidi::BidiClass::{AL, AN, FSI, LRE, LRI, LRO, PDF, PDI, R, RLE, RLI, RLO};
    use unicode_bidi::bidi_class;

    /// The shortcut past bidi analysis is safe: every character that can give text another
    /// level than 0 is one it looks for (against unicode-bidi's own table, all of Unicode).
    #[test]
    fn every_character_that_can_change_a_level_is_looked_for() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let class = bidi_class(c);
            if matches!(
                class,
                R | AL | AN | RLE | RLO | LRE | LRO | PDF | RLI | LRI | FSI | PDI
            ) {
                assert!(may_turn_right_to_left(c), "U+{:04X} ({class:?})", c as u32);
            }
        }
    }
}
