//! The sheet round a press page: crop marks and the slug line in the room outside the bleed,
//! placed so that neither touches the other and nothing leaves the sheet. Laid out here, in
//! page millimetres; [`super::pdf`] only draws them.

use crate::layout::SceneGlyph;
use crate::model::FontSubstitution;
use crate::raster::ViewArea;
use crate::text::{FontBook, Line, TextError, TextRequest, layout_text};

/// Room round the bleed box for crop marks and the slug, mm.
pub const MARKS_ROOM: f64 = 10.0;
/// Crop marks start this far outside the bleed box (the printers' usual 3 mm), mm.
pub const MARK_OFFSET: f64 = 3.0;
/// Length of a crop mark, mm.
pub const MARK_LENGTH: f64 = 5.0;
/// Width of crop marks and die lines: 0.25 pt, in mm.
pub const MARK_WIDTH: f64 = 0.25 * 25.4 / 72.0;
/// Em size of the slug line, mm (5 pt).
pub const SLUG_SIZE: f64 = 1.76;
/// Space the slug keeps from the crop marks, the bleed and the sheet's edge, mm.
const SLUG_CLEARANCE: f64 = 1.0;
/// What a slug that does not fit ends with.
const ELLIPSIS: char = '…';

/// A straight line on the page, mm: from, to.
pub type Segment = [(f64, f64); 2];

/// Two marks at each corner of the trim box, in the line of its edges, starting
/// [`MARK_OFFSET`] outside the bleed.
pub fn crop_marks(trim: &ViewArea, bleed: &ViewArea) -> Vec<Segment> {
    let (left, right) = (trim.left, trim.left + trim.width);
    let (top, bottom) = (trim.top, trim.top + trim.height);
    let (outer_left, outer_right) = (
        bleed.left - MARK_OFFSET,
        bleed.left + bleed.width + MARK_OFFSET,
    );
    let (outer_top, outer_bottom) = (
        bleed.top - MARK_OFFSET,
        bleed.top + bleed.height + MARK_OFFSET,
    );
    let mut marks = Vec::with_capacity(8);
    for y in [top, bottom] {
        marks.push([(outer_left, y), (outer_left - MARK_LENGTH, y)]);
        marks.push([(outer_right, y), (outer_right + MARK_LENGTH, y)]);
    }
    for x in [left, right] {
        marks.push([(x, outer_top), (x, outer_top - MARK_LENGTH)]);
        marks.push([(x, outer_bottom), (x, outer_bottom + MARK_LENGTH)]);
    }
    marks
}

/// The slug `text` laid out in the plain face on the page (mm): wrapped between the vertical
/// crop marks, first in the room below the bleed, then in the room above it. Text beyond
/// both ends in "…" on the last line. Returns the text the glyphs show (their `text` ranges
/// are of it) and the glyphs.
pub fn slug(
    book: &FontBook,
    text: &str,
    trim: &ViewArea,
    bleed: &ViewArea,
) -> Result<(String, Vec<SceneGlyph>), TextError> {
    let width = (trim.width - 2.0 * SLUG_CLEARANCE).max(SLUG_SIZE);
    let lay_out = |text: &str, wrap_width| {
        layout_text(
            book,
            &TextRequest {
                text,
                face: book.plain_face(),
                size: SLUG_SIZE,
                wrap_width,
                substitution: FontSubstitution::LineByLine,
            },
        )
    };
    let layout = lay_out(text, Some(width))?;
    let band = MARKS_ROOM - 2.0 * SLUG_CLEARANCE;
    let per_band = ((band / layout.line_height) as usize).max(1);
    // Each line's first baseline: below the bleed, then above it.
    let baselines: Vec<f64> = (0..2 * per_band)
        .map(|index| {
            let (band_top, row) = if index < per_band {
                (bleed.top + bleed.height + SLUG_CLEARANCE, index)
            } else {
                (bleed.top - MARKS_ROOM + SLUG_CLEARANCE, index - per_band)
            };
            band_top + layout.ascent + row as f64 * layout.line_height
        })
        .collect();
    let left = trim.left + SLUG_CLEARANCE;
    let mut glyphs = Vec::new();
    // `line` at `baseline`, its text ranges `offset` further into the slug's text.
    let mut place = |line: &Line, baseline: f64, offset: u32| {
        glyphs.extend(line.glyphs.iter().map(|g| SceneGlyph {
            face: g.face,
            glyph: g.glyph,
            text: (g.text.0 + offset, g.text.1 + offset),
            x: left + g.x,
            baseline: baseline - g.rise,
        }));
    };
    if layout.lines.len() <= baselines.len() {
        for (line, baseline) in layout.lines.iter().zip(&baselines) {
            place(line, *baseline, 0);
        }
        return Ok((text.to_owned(), glyphs));
    }
    // Too long: every line that fits but the last as laid out, then the last line's text cut
    // short until it and "…" fit.
    let last = baselines.len() - 1;
    for (line, baseline) in layout.lines.iter().zip(&baselines).take(last) {
        place(line, *baseline, 0);
    }
    let start = layout.lines[last]
        .glyphs
        .iter()
        .map(|g| g.text.0 as usize)
        .min()
        .unwrap_or(text.len());
    let mut end = layout.lines[last]
        .glyphs
        .iter()
        .map(|g| g.text.1 as usize)
        .max()
        .unwrap_or(start);
    loop {
        // (never cut into the line's start: its glyph offsets are from there)
        let kept = text[..end].trim_end();
        let kept = if kept.len() < start {
            &text[..start]
        } else {
            kept
        };
        let shown = format!("{kept}{ELLIPSIS}");
        let tail = lay_out(&shown[start..], None)?;
        let fits = tail.lines.first().is_none_or(|line| line.width <= width);
        if fits || end <= start {
            if let Some(line) = tail.lines.first() {
                place(line, baselines[last], start as u32);
            }
            return Ok((shown, glyphs));
        }
        end = text[..end].char_indices().last().map_or(start, |(i, _)| i);
    }
}

#[cfg(all(test, feature = "builtin-fonts"))]
mod tests {
    use super::*;

    #[test]
    fn a_slug_too_long_for_a_sticker_ends_in_an_ellipsis_on_the_sheet() {
        let book = FontBook::builtin();
        // A 24 mm sticker with 2 mm of bleed.
        let trim = ViewArea {
            left: 2.0,
            top: 2.0,
            width: 24.0,
            height: 24.0,
        };
        let bleed = ViewArea {
            left: 0.0,
            top: 0.0,
            width: 28.0,
            height: 28.0,
        };
        let text = "Order PP-7 pack 3 | side image.1 | 50 cards | ".repeat(8);
        let (shown, glyphs) = slug(&book, &text, &trim, &bleed).unwrap();
        assert!(
            shown.ends_with(ELLIPSIS) && shown.len() < text.len(),
            "{shown}"
        );
        assert!(text.starts_with(shown.trim_end_matches(ELLIPSIS)));
        for glyph in &glyphs {
            let face = book.face(glyph.face);
            let right = glyph.x + face.advance(glyph.glyph) * SLUG_SIZE / face.units_per_em;
            assert!(glyph.x >= trim.left + SLUG_CLEARANCE - 1e-9, "{glyph:?}");
            assert!(
                right <= trim.left + trim.width - SLUG_CLEARANCE + 1e-6,
                "{glyph:?}"
            );
            let outside_bleed =
                glyph.baseline > bleed.top + bleed.height || glyph.baseline < bleed.top;
            let on_sheet = glyph.baseline > bleed.top - MARKS_ROOM
                && glyph.baseline < bleed.top + bleed.height + MARKS_ROOM;
            assert!(outside_bleed && on_sheet, "{glyph:?}");
        }
        // Every glyph's text is a part of what is shown.
        assert!(glyphs.iter().all(|g| (g.text.1 as usize) <= shown.len()));
    }
}
