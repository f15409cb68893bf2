//! Paperwork that travels with an order (a job ticket, an invoice): a [`Paper`] of blocks
//! (headings, text, tables, a barcode, thumbnails) laid out on A4 pages in the service's own
//! faces, then written by the press files' PDF writer, so the same glyphs print everywhere.
//!
//! parse ([`Paper`], checked by [`Paper::checked`]) -> lay out (layout.rs: scenes) -> write
//! ([`crate::press::pdf::write_pdf`]). What a document says is the host's; how it looks is
//! decided here.

pub mod code128;
mod layout;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::press::colour::{FOGRA39, InkSettings, PressInks};
use crate::press::pdf::{self, DocumentInfo, PdfImage, PdfPage};
use crate::press::pdf_image;
use crate::raster::{RasterError, ViewArea};
use crate::render::{Engine, EngineError, ImageInput};
use layout::{PAGE_HEIGHT, PAGE_WIDTH, lay_out};

/// Bounds on what one document may ask for: counted before anything is laid out.
pub const MAX_BLOCKS: usize = 2_000;
pub const MAX_TEXT_CHARS: usize = 4_000;
pub const MAX_COLUMNS: usize = 8;
pub const MAX_ROWS: usize = 2_000;
pub const MAX_THUMBNAILS: usize = 200;
pub const MAX_PAGES: usize = 250;

/// A document to print: its title (the PDF's), when it was made (the engine has no clock)
/// and its blocks, top to bottom.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Paper {
    pub title: String,
    pub created: i64,
    pub blocks: Vec<Block>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", deny_unknown_fields)]
pub enum Block {
    Heading {
        text: String,
    },
    /// Text wrapped to the page's width; line breaks are kept.
    Text {
        text: String,
        #[serde(default)]
        bold: bool,
        #[serde(default)]
        small: bool,
    },
    /// Texts side by side in equal columns (the shop's address beside the invoice's facts).
    Columns {
        texts: Vec<String>,
    },
    /// Rows under bold headings; each column a share of the width, aligned as it says.
    /// Rows continue on the next page under the headings again.
    Table {
        columns: Vec<Column>,
        rows: Vec<Vec<String>>,
    },
    /// Label and amount pairs at the right, the last in bold (an invoice's totals).
    Totals {
        rows: Vec<(String, String)>,
    },
    /// `value` as a Code 128 barcode with the value under it.
    Barcode {
        value: String,
    },
    /// Pictures (by resource URI) in rows, each fitted into its box with its caption below.
    Thumbnails {
        images: Vec<Thumbnail>,
    },
    /// What follows starts on a new page (the next order's ticket).
    PageBreak,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Column {
    pub heading: String,
    /// This column's part of the width, against the other columns' (1 to 100).
    pub share: f64,
    #[serde(default)]
    pub right: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Thumbnail {
    pub resource_uri: String,
    pub caption: String,
}

impl Paper {
    /// The document, if every bound holds; else what is wrong, naming the block.
    pub fn checked(self) -> Result<Paper, String> {
        let text = |what: &str, text: &str| match text.chars().count() > MAX_TEXT_CHARS {
            true => Err(format!("{what} is longer than {MAX_TEXT_CHARS} characters")),
            false => Ok(()),
        };
        text("the title", &self.title)?;
        if self.blocks.len() > MAX_BLOCKS {
            return Err(format!("a document has at most {MAX_BLOCKS} blocks"));
        }
        for (index, block) in self.blocks.iter().enumerate() {
            let at = format!("blocks[{index}]");
            match block {
                Block::Heading { text: t } | Block::Text { text: t, .. } => text(&at, t)?,
                Block::Columns { texts } => {
                    if texts.is_empty() || texts.len() > MAX_COLUMNS {
                        return Err(format!("{at} has 1 to {MAX_COLUMNS} columns"));
                    }
                    texts.iter().try_for_each(|t| text(&at, t))?;
                }
                Block::Table { columns, rows } => {
                    if columns.is_empty() || columns.len() > MAX_COLUMNS {
                        return Err(format!("{at} has 1 to {MAX_COLUMNS} columns"));
                    }
                    if rows.len() > MAX_ROWS {
                        return Err(format!("{at} has at most {MAX_ROWS} rows"));
                    }
                    if let Some(column) = columns.iter().find(|c| !(1.0..=100.0).contains(&c.share))
                    {
                        return Err(format!(
                            "{at}: column {:?} has a share outside 1 to 100",
                            column.heading
                        ));
                    }
                    if rows.iter().any(|row| row.len() != columns.len()) {
                        return Err(format!("{at}: every row has one cell per column"));
                    }
                    columns.iter().try_for_each(|c| text(&at, &c.heading))?;
                    rows.iter().flatten().try_for_each(|cell| text(&at, cell))?;
                }
                Block::Totals { rows } => {
                    if rows.len() > MAX_COLUMNS {
                        return Err(format!("{at} has at most {MAX_COLUMNS} rows"));
                    }
                    rows.iter()
                        .try_for_each(|(label, amount)| text(&at, label).and(text(&at, amount)))?;
                }
                Block::Barcode { value } => {
                    code128::encode(value).map_err(|problem| format!("{at}: {problem}"))?;
                }
                Block::Thumbnails { images } => {
                    if images.len() > MAX_THUMBNAILS {
                        return Err(format!("{at} has at most {MAX_THUMBNAILS} images"));
                    }
                    images.iter().try_for_each(|i| text(&at, &i.caption))?;
                }
                Block::PageBreak => {}
            }
        }
        Ok(self)
    }

    /// Every picture the document shows, once each.
    fn images(&self) -> Vec<&str> {
        let mut uris: Vec<&str> = Vec::new();
        for block in &self.blocks {
            if let Block::Thumbnails { images } = block {
                for image in images {
                    if !uris.contains(&image.resource_uri.as_str()) {
                        uris.push(&image.resource_uri);
                    }
                }
            }
        }
        uris
    }
}

impl Engine {
    /// `paper` as a PDF of A4 pages. `images` holds every picture its thumbnails show.
    pub fn paperwork(
        &self,
        paper: Paper,
        images: &HashMap<String, ImageInput<'_>>,
    ) -> Result<Vec<u8>, EngineError> {
        let paper = paper.checked().map_err(EngineError::Request)?;
        let book = self.fonts();
        let mut embedded: Vec<(&str, PdfImage)> = Vec::new();
        let mut sizes: HashMap<&str, (u32, u32)> = HashMap::new();
        for uri in paper.images() {
            let input = images
                .get(uri)
                .ok_or_else(|| EngineError::Raster(RasterError::MissingImage(uri.to_owned())))?;
            let prepared = pdf_image(*input, None).map_err(|error| EngineError::Image {
                resource_uri: uri.to_owned(),
                error,
            })?;
            sizes.insert(uri, (prepared.image.width, prepared.image.height));
            embedded.push((uri, prepared.image));
        }
        let scenes = lay_out(book, &paper, &sizes)?;
        let page = ViewArea {
            left: 0.0,
            top: 0.0,
            width: PAGE_WIDTH,
            height: PAGE_HEIGHT,
        };
        let pages: Vec<PdfPage> = scenes
            .iter()
            .map(|scene| PdfPage {
                scene,
                trim: page,
                bleed: page,
                safe: page,
                die_lines: Vec::new(),
                slug: None,
            })
            .collect();
        let inks = PressInks {
            condition: &FOGRA39,
            // Black ink alone everywhere: an office printer prints the same.
            settings: InkSettings {
                rich_black: None,
                ..InkSettings::default()
            },
        };
        let info = DocumentInfo {
            title: &paper.title,
            created: paper.created,
            marks: false,
            guides: false,
            inks: &inks,
        };
        pdf::write_pdf(book, &pages, &embedded, &info)
            .map_err(|e| EngineError::Raster(RasterError::Encode(e)))
    }
}

#[cfg(all(test, feature = "builtin-fonts"))]
mod tests {
    use super::*;
    use crate::paperwork::layout::tests::table;

    #[test]
    fn bounds_name_the_block() {
        let mut paper = table(1);
        paper.blocks.push(Block::Barcode {
            value: "PP-Ω".into(),
        });
        assert!(paper.checked().unwrap_err().starts_with("blocks[1]"));
        let mut paper = table(1);
        if let Block::Table { rows, .. } = &mut paper.blocks[0] {
            rows.push(vec!["one cell".into()]);
        }
        assert!(paper.checked().unwrap_err().contains("one cell per column"));
    }
}
