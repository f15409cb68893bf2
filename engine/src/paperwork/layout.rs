//! A [`Paper`]'s blocks laid out on A4 pages, top to bottom: each block measured with the
//! service's faces and placed where it fits, else on the next page (a table's headings again
//! on each page it reaches), as scenes the press file's PDF writer draws.

use std::collections::HashMap;

use super::{Block, MAX_PAGES, Paper, code128};
use crate::layout::{Scene, SceneGlyph, SceneItem};
use crate::model::{BoundingBox, Colour, FontSubstitution, Point};
use crate::render::EngineError;
use crate::text::{FaceId, FontBook, TextRequest, layout_text};

/// A4, mm.
pub(super) const PAGE_WIDTH: f64 = 210.0;
pub(super) const PAGE_HEIGHT: f64 = 297.0;
/// The margin round every page, mm.
const MARGIN: f64 = 16.0;
const CONTENT_WIDTH: f64 = PAGE_WIDTH - 2.0 * MARGIN;
/// Em sizes, mm: body text (10 pt), small print (8 pt), headings (16 pt).
const BODY: f64 = 3.53;
const SMALL: f64 = 2.82;
const HEADING: f64 = 5.64;
/// Space after a block, mm.
const BLOCK_GAP: f64 = 4.0;
/// Space between a table's cells, mm.
const CELL_GAP: f64 = 2.5;
/// Narrowest barcode module a hand scanner reads from paper, mm (13 mil).
const MODULE: f64 = 0.33;
const BARCODE_HEIGHT: f64 = 14.0;
/// A thumbnail's largest box, mm, and the room between thumbnails.
const THUMB_WIDTH: f64 = 54.0;
const THUMB_HEIGHT: f64 = 40.0;
const THUMB_GAP: f64 = 8.0;
/// Width of rules, mm (0.5 pt).
const RULE_WIDTH: f64 = 0.18;

/// Black in the press's black ink alone: sharp text and bars on any printer.
const INK: Colour = Colour::Cmyk {
    c: 0.0,
    m: 0.0,
    y: 0.0,
    k: 100.0,
};

/// The pages being filled, top to bottom.
struct Pages<'b> {
    book: &'b FontBook,
    plain: FaceId,
    bold: FaceId,
    done: Vec<Scene>,
    items: Vec<SceneItem>,
    /// Where the next thing goes, mm from the page's top.
    y: f64,
}

impl<'b> Pages<'b> {
    fn new(book: &'b FontBook) -> Self {
        Pages {
            book,
            plain: book.plain_face(),
            bold: book.plain_bold_face(),
            done: Vec::new(),
            items: Vec::new(),
            y: MARGIN,
        }
    }

    fn room(&self) -> f64 {
        PAGE_HEIGHT - MARGIN - self.y
    }

    /// Starts a new page unless `height` fits on this one (or this one is still empty: what
    /// is taller than a page is cut by the page's edge, not lost).
    fn make_room(&mut self, height: f64) -> Result<(), EngineError> {
        if height > self.room() && !self.items.is_empty() {
            self.done.push(Scene {
                width: PAGE_WIDTH,
                height: PAGE_HEIGHT,
                items: std::mem::take(&mut self.items),
            });
            self.y = MARGIN;
            if self.done.len() >= MAX_PAGES {
                return Err(EngineError::Request(format!(
                    "the document is longer than {MAX_PAGES} pages"
                )));
            }
        }
        Ok(())
    }

    /// `text` laid out `width` wide: the scene item for its top-left corner at (`left`,
    /// `top`) and its height.
    fn text(
        &self,
        text: &str,
        bold: bool,
        size: f64,
        width: f64,
        right: bool,
        (left, top): (f64, f64),
    ) -> Result<(SceneItem, f64), EngineError> {
        let layout = layout_text(
            self.book,
            &TextRequest {
                text,
                face: if bold { self.bold } else { self.plain },
                size,
                wrap_width: Some(width),
                substitution: FontSubstitution::LineByLine,
            },
        )
        .map_err(EngineError::Text)?;
        let height = layout.lines.len().max(1) as f64 * layout.line_height;
        let mut glyphs = Vec::new();
        for (index, line) in layout.lines.iter().enumerate() {
            let shift = if right { width - line.width } else { 0.0 };
            let baseline = layout.ascent + index as f64 * layout.line_height;
            glyphs.extend(line.glyphs.iter().map(|g| SceneGlyph {
                face: g.face,
                glyph: g.glyph,
                text: g.text,
                x: g.x + shift,
                baseline: baseline - g.rise,
            }));
        }
        let item = SceneItem::Text {
            link_id: String::new(),
            area: upright(left, top, width, height),
            colour: INK,
            size,
            text: text.to_owned(),
            glyphs,
        };
        Ok((item, height))
    }

    /// One line of cells (a table's row or heading) laid out from the left margin: their
    /// items, to be [`Pages::place`]d, and the height of the tallest.
    fn row(
        &self,
        cells: &[(&str, f64, bool)],
        bold: bool,
    ) -> Result<(Vec<SceneItem>, f64), EngineError> {
        let mut items = Vec::with_capacity(cells.len());
        let (mut left, mut height) = (MARGIN, 0.0);
        for (text, width, right) in cells {
            let (item, cell_height) = self.text(text, bold, BODY, *width, *right, (left, 0.0))?;
            items.push(item);
            height = f64::max(height, cell_height);
            left += width + CELL_GAP;
        }
        Ok((items, height))
    }

    /// Items laid out at the top put at the cursor, on this page or the next.
    fn place(&mut self, (items, height): (Vec<SceneItem>, f64)) -> Result<(), EngineError> {
        self.make_room(height)?;
        let y = self.y;
        self.items
            .extend(items.into_iter().map(|item| moved(item, y)));
        self.y += height;
        Ok(())
    }

    /// `text` across the page's width at the cursor.
    fn paragraph(&mut self, text: &str, bold: bool, size: f64) -> Result<(), EngineError> {
        let (item, height) = self.text(text, bold, size, CONTENT_WIDTH, false, (MARGIN, 0.0))?;
        self.place((vec![item], height))
    }

    fn rule(&mut self, left: f64, width: f64) {
        self.items.push(SceneItem::Fill {
            area: upright(left, self.y, width, RULE_WIDTH),
            colour: INK,
        });
    }

    fn finish(mut self) -> Vec<Scene> {
        if !self.items.is_empty() || self.done.is_empty() {
            self.done.push(Scene {
                width: PAGE_WIDTH,
                height: PAGE_HEIGHT,
                items: self.items,
            });
        }
        self.done
    }
}

/// The paper's blocks on pages. `sizes` are the pictures' pixel sizes.
pub(super) fn lay_out(
    book: &FontBook,
    paper: &Paper,
    sizes: &HashMap<&str, (u32, u32)>,
) -> Result<Vec<Scene>, EngineError> {
    let mut pages = Pages::new(book);
    for block in &paper.blocks {
        match block {
            Block::Heading { text } => pages.paragraph(text, true, HEADING)?,
            Block::Text { text, bold, small } => {
                pages.paragraph(text, *bold, if *small { SMALL } else { BODY })?
            }
            Block::Columns { texts } => {
                let width =
                    (CONTENT_WIDTH - CELL_GAP * (texts.len() - 1) as f64) / texts.len() as f64;
                let cells: Vec<(&str, f64, bool)> =
                    texts.iter().map(|t| (t.as_str(), width, false)).collect();
                let row = pages.row(&cells, false)?;
                pages.place(row)?;
            }
            Block::Table { columns, rows } => {
                let shares: f64 = columns.iter().map(|c| c.share).sum();
                let free = CONTENT_WIDTH - CELL_GAP * (columns.len() - 1) as f64;
                let widths: Vec<f64> = columns.iter().map(|c| free * c.share / shares).collect();
                let heading: Vec<(&str, f64, bool)> = columns
                    .iter()
                    .zip(&widths)
                    .map(|(c, w)| (c.heading.as_str(), *w, c.right))
                    .collect();
                let headings = pages.row(&heading, true)?;
                // The page the headings were last put on.
                let mut headed = None;
                for row in rows {
                    let cells: Vec<(&str, f64, bool)> = row
                        .iter()
                        .zip(&heading)
                        .map(|(cell, (_, w, right))| (cell.as_str(), *w, *right))
                        .collect();
                    let row = pages.row(&cells, false)?;
                    // The headings again on every page the table reaches, never alone at
                    // the foot of a page.
                    pages.make_room(row.1)?;
                    if headed != Some(pages.done.len()) {
                        pages.make_room(headings.1 + 2.0 + row.1)?;
                        pages.place(headings.clone())?;
                        pages.y += 0.8;
                        pages.rule(MARGIN, CONTENT_WIDTH);
                        pages.y += 1.2;
                        headed = Some(pages.done.len());
                    }
                    pages.place(row)?;
                    pages.y += 1.0;
                }
                if rows.is_empty() {
                    pages.place(headings)?;
                }
            }
            Block::Totals { rows } => {
                let (label_width, amount_width) = (60.0, 35.0);
                let left = MARGIN + CONTENT_WIDTH - label_width - amount_width - CELL_GAP;
                pages.make_room(rows.len() as f64 * BODY * 1.5 + 2.0)?;
                pages.rule(left, label_width + amount_width + CELL_GAP);
                pages.y += 1.5;
                for (index, (label, amount)) in rows.iter().enumerate() {
                    let bold = index + 1 == rows.len();
                    let y = pages.y;
                    let (label, height) =
                        pages.text(label, bold, BODY, label_width, false, (left, y))?;
                    let amount_left = left + label_width + CELL_GAP;
                    let (amount, _) =
                        pages.text(amount, bold, BODY, amount_width, true, (amount_left, y))?;
                    pages.items.extend([label, amount]);
                    pages.y += height;
                }
            }
            Block::Barcode { value } => {
                let widths = code128::encode(value).map_err(EngineError::Request)?;
                let (caption, caption_height) =
                    pages.text(value, false, SMALL, CONTENT_WIDTH, false, (MARGIN, 0.0))?;
                pages.make_room(BARCODE_HEIGHT + 1.0 + caption_height)?;
                let mut x = MARGIN + f64::from(code128::QUIET_ZONE) * MODULE;
                for (index, width) in widths.iter().enumerate() {
                    let width = f64::from(*width) * MODULE;
                    if index % 2 == 0 {
                        pages.items.push(SceneItem::Fill {
                            area: upright(x, pages.y, width, BARCODE_HEIGHT),
                            colour: INK,
                        });
                    }
                    x += width;
                }
                pages.y += BARCODE_HEIGHT + 1.0;
                let caption = moved(caption, pages.y);
                pages
                    .items
                    .push(shifted(caption, f64::from(code128::QUIET_ZONE) * MODULE));
                pages.y += caption_height;
            }
            Block::PageBreak => {
                pages.make_room(f64::INFINITY)?;
                continue;
            }
            Block::Thumbnails { images } => {
                let per_row = ((CONTENT_WIDTH + THUMB_GAP) / (THUMB_WIDTH + THUMB_GAP)) as usize;
                for row in images.chunks(per_row.max(1)) {
                    let mut captions = Vec::with_capacity(row.len());
                    for (index, thumb) in row.iter().enumerate() {
                        let left = MARGIN + index as f64 * (THUMB_WIDTH + THUMB_GAP);
                        captions.push(pages.text(
                            &thumb.caption,
                            false,
                            SMALL,
                            THUMB_WIDTH,
                            false,
                            (left, 0.0),
                        )?);
                    }
                    let caption_height = captions.iter().map(|(_, h)| *h).fold(0.0, f64::max);
                    // Each picture fitted into its box; the captions under the tallest.
                    let fitted: Vec<(f64, f64)> = (row.iter())
                        .map(|thumb| {
                            let (w, h) = sizes
                                .get(thumb.resource_uri.as_str())
                                .map_or((1.0, 1.0), |&(w, h)| {
                                    (f64::from(w.max(1)), f64::from(h.max(1)))
                                });
                            let scale = f64::min(THUMB_WIDTH / w, THUMB_HEIGHT / h);
                            (w * scale, h * scale)
                        })
                        .collect();
                    let row_height = fitted.iter().map(|(_, h)| *h).fold(0.0, f64::max);
                    pages.make_room(row_height + 1.5 + caption_height)?;
                    for (index, (thumb, (width, height))) in row.iter().zip(fitted).enumerate() {
                        let left = MARGIN + index as f64 * (THUMB_WIDTH + THUMB_GAP);
                        let placement = upright(left, pages.y, width, height);
                        pages.items.push(SceneItem::Image {
                            link_id: String::new(),
                            resource_uri: thumb.resource_uri.clone(),
                            placement,
                            clip: placement,
                        });
                        pages.items.push(SceneItem::Outline {
                            area: placement,
                            colour: INK,
                            width: RULE_WIDTH,
                        });
                    }
                    pages.y += row_height + 1.5;
                    let y = pages.y;
                    pages
                        .items
                        .extend(captions.into_iter().map(|(item, _)| moved(item, y)));
                    pages.y += caption_height + THUMB_GAP / 2.0;
                }
            }
        }
        pages.y += BLOCK_GAP;
    }
    Ok(pages.finish())
}

/// An upright box from its top-left corner and size.
fn upright(left: f64, top: f64, width: f64, height: f64) -> BoundingBox {
    BoundingBox {
        center: Point {
            x: left + width / 2.0,
            y: top + height / 2.0,
        },
        width,
        height,
        angle: 0.0,
    }
}

/// A text item laid out at the top moved down to `top`.
fn moved(item: SceneItem, top: f64) -> SceneItem {
    match item {
        SceneItem::Text {
            link_id,
            mut area,
            colour,
            size,
            text,
            glyphs,
        } => {
            area.center.y += top;
            SceneItem::Text {
                link_id,
                area,
                colour,
                size,
                text,
                glyphs,
            }
        }
        other => other,
    }
}

/// A text item moved right by `by`.
fn shifted(mut item: SceneItem, by: f64) -> SceneItem {
    if let SceneItem::Text { area, .. } = &mut item {
        area.center.x += by;
    }
    item
}

#[cfg(all(test, feature = "builtin-fonts"))]
pub(super) mod tests {
    use super::*;
    use crate::paperwork::Column;

    pub(in crate::paperwork) fn table(rows: usize) -> Paper {
        Paper {
            title: "Test".into(),
            created: 0,
            blocks: vec![Block::Table {
                columns: vec![
                    Column {
                        heading: "Pack".into(),
                        share: 3.0,
                        right: false,
                    },
                    Column {
                        heading: "Amount".into(),
                        share: 1.0,
                        right: true,
                    },
                ],
                rows: (0..rows)
                    .map(|n| vec![format!("Pack {n}"), format!("{n}.00")])
                    .collect(),
            }],
        }
    }

    #[test]
    fn a_long_table_goes_on_over_pages_with_its_headings_on_each() {
        let book = FontBook::builtin();
        let scenes = lay_out(&book, &table(150), &HashMap::new()).unwrap();
        assert!(scenes.len() >= 3, "{} pages", scenes.len());
        for scene in &scenes {
            let texts: Vec<&str> = scene
                .items
                .iter()
                .filter_map(|item| match item {
                    SceneItem::Text { text, area, .. } => {
                        // Nothing crosses the bottom margin.
                        assert!(area.center.y + area.height / 2.0 <= PAGE_HEIGHT - MARGIN + 1e-9);
                        Some(text.as_str())
                    }
                    _ => None,
                })
                .collect();
            assert_eq!(texts[0], "Pack", "{texts:?}");
        }
    }
}
