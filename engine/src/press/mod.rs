//! Press files: the sides of a pack laid out exactly as for the PNG, checked (preflight) and
//! written as a PDF/X-4 document ([`pdf`]) for the press, or as a small proof.
//!
//! parse (pack, template) -> lay out ([`crate::layout`]) -> preflight ([`preflight`]) and
//! write ([`pdf::write_pdf`]): the same scene the rasteriser draws.

pub mod colour;
pub mod icc;
pub mod pdf;
pub mod sheet;

use std::collections::HashMap;
use std::io::Cursor;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::ingest::facts::{Format, raster_facts};
use crate::ingest::renditions::Pixels;
use crate::layout::{LayoutReport, Scene, SceneGlyph, SceneItem, layout_side};
pub use crate::model::PreflightLimits;
use crate::model::{BoundingBox, ItemKind, Pack, Side, Template, effective_dpi};
use crate::raster::{ImageError, RasterError, ViewArea, decode_image};
use crate::render::{Engine, EngineError, ImageInput};
use crate::text::FontBook;
use colour::{FOGRA39, InkSettings, PressInks, PrintingCondition};
use pdf::{DocumentInfo, JpegSpace, PdfImage, PdfImageData, PdfPage};

/// At most this many pages in one press file (a pack's sides).
pub const MAX_PAGES: usize = crate::model::MAX_SIDES;
/// Longest slug line, in characters.
pub const MAX_SLUG_CHARS: usize = 200;
/// The corner radius of the rounded-corner finish, mm.
pub const ROUNDED_CORNER_RADIUS: f64 = 3.0;
/// JPEG quality of images the press file must re-encode (enhanced photos, proofs).
const REENCODED_JPEG_QUALITY: u8 = 92;

/// One page of a press file: a side and how many cards of the pack print it.
#[derive(Debug, Clone)]
pub struct PressPage {
    pub side: Side,
    pub copies: u32,
}

/// The distinct sides of a pack in card order, each with the number of cards that print it.
/// A pack that lists no cards prints each side on every card.
pub fn press_pages(pack: &Pack) -> Vec<PressPage> {
    let mut pages: Vec<PressPage> = Vec::new();
    for card_side in pack.cards.iter().flat_map(|card| &card.card_sides) {
        let Some(side) = pack
            .sides
            .iter()
            .find(|s| s.side_type == card_side.side_type && s.side_num == card_side.side_num)
        else {
            continue;
        };
        match pages.iter_mut().find(|page| page.side == *side) {
            Some(page) => page.copies += 1,
            None => pages.push(PressPage {
                side: side.clone(),
                copies: 1,
            }),
        }
    }
    if pages.is_empty() {
        pages = pack
            .sides
            .iter()
            .map(|side| PressPage {
                side: side.clone(),
                copies: pack.num_cards,
            })
            .collect();
    }
    pages
}

/// How a press file is made.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PressOptions {
    /// The document title (the order and pack it prints).
    pub title: String,
    /// Seconds since 1970 (UTC) the document was made: the engine has no clock.
    pub created: i64,
    /// Crop marks and the slug line outside the bleed (press files); a proof has none.
    #[serde(default)]
    pub marks: bool,
    /// The slug line's own part (order number, pack); page, cards and preflight follow.
    #[serde(default)]
    pub slug: Option<String>,
    /// The finish's rounded corners: a die line of this radius round the cut box.
    #[serde(default)]
    pub die_line_radius: Option<f64>,
    /// A proof: images at no more than this resolution at their printed size, dots per inch.
    #[serde(default)]
    pub proof_dpi: Option<f64>,
    /// The cut line and safe area drawn as the editor draws them, on a layer named as not
    /// printed (a customer's proof).
    #[serde(default)]
    pub guides: bool,
    /// The name of the operator's printing condition (`press_condition`), whose profile the
    /// call carries (`press_profile`); without one, FOGRA39.
    #[serde(default)]
    pub condition_name: Option<String>,
    /// That condition, built from the profile the call carries (not itself on the wire).
    #[serde(skip)]
    pub condition: Option<Arc<PrintingCondition>>,
    #[serde(default)]
    pub limits: PreflightLimits,
    /// The most ink, and rich black for large black areas.
    #[serde(default)]
    pub ink: InkSettings,
}

/// What a press file holds and what preflight found, page by page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PressReport {
    pub verdict: Verdict,
    pub pages: Vec<PageReport>,
    /// The file's colour facts (reports of files made before they were kept have none).
    #[serde(default)]
    pub colour: Option<ColourFacts>,
}

/// What a press file's colours are made for, for the operator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ColourFacts {
    /// The printing condition of its output intent (`FOGRA39`).
    pub condition: String,
    /// The most ink (C + M + Y + K, percent) any colour it writes in CMYK is printed with;
    /// photos keep their own colour space and are separated by the RIP through the
    /// condition's profile, within that profile's own limit.
    pub max_ink: f64,
    /// The operator's limit the file's colours were held to (`press_max_ink`).
    #[serde(default)]
    pub ink_limit: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Nothing found.
    Pass,
    /// Printable; someone should look.
    Warn,
    /// Not printable as it is.
    Block,
}

impl Verdict {
    /// The verdict as the report's JSON spells it.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Warn => "warn",
            Verdict::Block => "block",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageReport {
    /// `image.1`, `details.1`: the side's type and number.
    pub side: String,
    pub copies: u32,
    pub images: Vec<PlacedImage>,
    pub findings: Vec<Finding>,
}

/// An image as placed on a page: its pixels and their resolution at the printed size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacedImage {
    pub link_id: String,
    pub resource_uri: String,
    pub width: u32,
    pub height: u32,
    pub dpi: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub severity: Severity,
    pub code: FindingCode,
    /// The template item (linkId) it concerns.
    pub link_id: String,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Blocking,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FindingCode {
    LowResolution,
    TextOutsideSafeArea,
    TextOverflow,
    EmptyImageSlot,
    FontSubstituted,
    MissingGlyph,
}

impl Engine {
    /// Lays out every page, preflights it and writes the PDF. `images` holds the print
    /// rendition of every image the pages draw, by resource URI.
    pub fn press(
        &self,
        pages: &[PressPage],
        options: &PressOptions,
        images: &HashMap<String, ImageInput<'_>>,
    ) -> Result<(Vec<u8>, PressReport), EngineError> {
        if pages.is_empty() || pages.len() > MAX_PAGES {
            return Err(EngineError::Request(format!(
                "a press file has 1 to {MAX_PAGES} pages, not {}",
                pages.len()
            )));
        }
        if let Some(slug) = &options.slug
            && slug.chars().count() > MAX_SLUG_CHARS
        {
            return Err(EngineError::Request(format!(
                "the slug line is longer than {MAX_SLUG_CHARS} characters"
            )));
        }
        let limits = options
            .limits
            .checked()
            .map_err(|problem| EngineError::Request(problem.into()))?;
        let book = self.fonts();
        let condition: &PrintingCondition = options.condition.as_deref().unwrap_or(&FOGRA39);
        let inks = PressInks {
            condition,
            settings: options
                .ink
                .checked()
                .map_err(|error| EngineError::Request(error.to_string()))?,
        };
        let mut laid_out = Vec::with_capacity(pages.len());
        for page in pages {
            let template = self.template(&page.side.template_code)?;
            let mut report = LayoutReport::default();
            let scene = layout_side(book, template, &page.side, false, &mut report)
                .map_err(EngineError::Layout)?;
            laid_out.push((page, template, scene, report));
        }

        // Each image once, as the PDF embeds it, with the pixels preflight judges.
        let mut embedded: Vec<(&str, PdfImage)> = Vec::new();
        let mut print_sizes: HashMap<&str, (u32, u32)> = HashMap::new();
        for (_, _, scene, _) in &laid_out {
            for item in &scene.items {
                let SceneItem::Image { resource_uri, .. } = item else {
                    continue;
                };
                if print_sizes.contains_key(resource_uri.as_str()) {
                    continue;
                }
                let input = images.get(resource_uri).ok_or_else(|| {
                    EngineError::Raster(RasterError::MissingImage(resource_uri.clone()))
                })?;
                let largest = largest_placement(&laid_out, resource_uri);
                let image = pdf_image(*input, options.proof_dpi.map(|dpi| (dpi, largest)))
                    .map_err(|error| EngineError::Image {
                        resource_uri: resource_uri.clone(),
                        error,
                    })?;
                print_sizes.insert(resource_uri, image.print_size);
                embedded.push((resource_uri, image.image));
            }
        }

        let mut reports = Vec::with_capacity(pages.len());
        for (page, template, scene, layout_report) in &laid_out {
            reports.push(PageReport {
                side: format!("{}.{}", page.side.side_type.as_str(), page.side.side_num),
                copies: page.copies,
                images: placed_images(scene, &print_sizes),
                findings: preflight(book, template, scene, layout_report, &print_sizes, limits),
            });
        }
        let verdict = verdict(reports.iter().flat_map(|r| &r.findings));

        let mut pdf_pages: Vec<PdfPage<'_>> = Vec::with_capacity(laid_out.len());
        for ((_, template, scene, _), report) in laid_out.iter().zip(&reports) {
            let trim = ViewArea::of_box(&template.cut_box);
            let bleed = ViewArea::of_box(&template.bleed_box);
            let slug = options
                .marks
                .then(|| {
                    let text = slug_text(options.slug.as_deref(), report);
                    sheet::slug(book, &text, &trim, &bleed)
                })
                .transpose()
                .map_err(EngineError::Text)?;
            pdf_pages.push(PdfPage {
                scene,
                trim,
                bleed,
                safe: ViewArea::of_box(&template.safe_area_box),
                die_lines: die_lines(template, scene, options.die_line_radius),
                slug,
            });
        }
        let info = DocumentInfo {
            title: &options.title,
            created: options.created,
            marks: options.marks,
            guides: options.guides,
            inks: &inks,
        };
        let bytes = pdf::write_pdf(book, &pdf_pages, &embedded, &info)
            .map_err(|e| EngineError::Raster(RasterError::Encode(e)))?;
        Ok((
            bytes,
            PressReport {
                verdict,
                pages: reports,
                colour: Some(ColourFacts {
                    condition: condition.identifier.clone(),
                    max_ink: max_ink(&inks, laid_out.iter().map(|(_, _, scene, _)| scene)),
                    ink_limit: Some(inks.settings.max_ink),
                }),
            },
        ))
    }
}

/// The most ink any colour of `scenes` is printed with, percent.
fn max_ink<'s>(inks: &PressInks<'_>, scenes: impl Iterator<Item = &'s Scene>) -> f64 {
    scenes
        .flat_map(|scene| &scene.items)
        .filter_map(|item| Some(inks.of_item(item)?.iter().sum::<f64>()))
        .fold(0.0, |most: f64, ink| {
            most.max(libm::round(ink * 10.0) / 10.0)
        })
}

/// The largest box (mm) an image is placed in anywhere in the document.
fn largest_placement(
    laid_out: &[(&PressPage, &Template, Scene, LayoutReport)],
    uri: &str,
) -> (f64, f64) {
    laid_out
        .iter()
        .flat_map(|(_, _, scene, _)| &scene.items)
        .filter_map(|item| match item {
            SceneItem::Image {
                resource_uri,
                placement,
                ..
            } if resource_uri == uri => Some((placement.width, placement.height)),
            _ => None,
        })
        .fold((0.0, 0.0), |(w, h), (pw, ph)| {
            (f64::max(w, pw), f64::max(h, ph))
        })
}

/// An image ready to embed, and the pixel size of the print rendition it came from.
pub(crate) struct PreparedImage<'a> {
    pub(crate) image: PdfImage<'a>,
    print_size: (u32, u32),
}

/// The print rendition as the PDF embeds it: a plain JPEG as it is (its own compressed
/// bytes, no generation loss); an enhanced or PNG image decoded, and a proof's pixels shrunk
/// to `proof` (dpi, largest placement in mm).
pub(crate) fn pdf_image<'a>(
    input: ImageInput<'a>,
    proof: Option<(f64, (f64, f64))>,
) -> Result<PreparedImage<'a>, ImageError> {
    let format = Format::sniff(input.bytes);
    let facts = format
        .filter(|f| *f != Format::Pdf)
        .and_then(|f| raster_facts(f, input.bytes).ok());
    let needed = proof.map(|(dpi, (width, height))| {
        let pixels = |mm: f64| libm::ceil(mm / 25.4 * dpi).max(1.0) as u32;
        (pixels(width), pixels(height))
    });
    if let Some(facts) = &facts
        && format == Some(Format::Jpeg)
        && matches!(facts.components, 1 | 3 | 4)
        && !input.enhance
        && needed.is_none_or(|(w, h)| facts.width <= w.max(h) && facts.height <= w.max(h))
    {
        return Ok(PreparedImage {
            image: PdfImage {
                width: facts.width,
                height: facts.height,
                data: PdfImageData::Jpeg {
                    bytes: std::borrow::Cow::Borrowed(input.bytes),
                    space: match facts.components {
                        1 => JpegSpace::Grey,
                        3 => JpegSpace::Rgb,
                        _ => JpegSpace::Cmyk {
                            inverted: facts.adobe,
                        },
                    },
                },
                // A picture's own profile stays with its pixels: embedded as they are
                // (RGB or CMYK), or decoded (RGB, below) and encoded again.
                profile: facts.stored_profile().map(<[u8]>::to_vec),
            },
            print_size: (facts.width, facts.height),
        });
    }
    let decoded = decode_image(input.bytes)?;
    let decoded = if input.enhance {
        decoded.enhanced()
    } else {
        decoded
    };
    let print_size = (decoded.width(), decoded.height());
    let opaque = decoded.pixmap().pixels().iter().all(|p| p.alpha() == 255);
    let straight: Vec<u8> = decoded
        .pixmap()
        .pixels()
        .iter()
        .flat_map(|p| {
            let c = p.demultiply();
            [c.red(), c.green(), c.blue(), c.alpha()]
        })
        .collect();
    let rgba = image::RgbaImage::from_raw(print_size.0, print_size.1, straight)
        .expect("a pixmap's size matches its pixels");
    let mut pixels = Pixels::from_image(image::DynamicImage::ImageRgba8(rgba), !opaque);
    if let Some((w, h)) = needed
        && let Some(shrunk) = pixels.shrunk_to(w.max(h))
    {
        pixels = shrunk;
    }
    let (width, height) = pixels.dimensions();
    let lossy = format == Some(Format::Jpeg) || proof.is_some();
    let data = match &pixels {
        Pixels::Rgb(rgb) if lossy => {
            let mut bytes = Vec::new();
            image::ImageEncoder::write_image(
                image::codecs::jpeg::JpegEncoder::new_with_quality(
                    Cursor::new(&mut bytes),
                    REENCODED_JPEG_QUALITY,
                ),
                rgb.as_raw(),
                width,
                height,
                image::ExtendedColorType::Rgb8,
            )
            .map_err(|e| ImageError::Undecodable(e.to_string()))?;
            PdfImageData::Jpeg {
                bytes: std::borrow::Cow::Owned(bytes),
                space: JpegSpace::Rgb,
            }
        }
        Pixels::Rgb(rgb) => PdfImageData::Flate {
            rgb: pdf::deflate(rgb.as_raw()),
            alpha: None,
        },
        Pixels::Rgba(rgba) => {
            let (rgb, alpha): (Vec<[u8; 3]>, Vec<u8>) =
                rgba.pixels().map(|p| ([p[0], p[1], p[2]], p[3])).unzip();
            PdfImageData::Flate {
                rgb: pdf::deflate(rgb.as_flattened()),
                alpha: Some(pdf::deflate(&alpha)),
            }
        }
    };
    Ok(PreparedImage {
        image: PdfImage {
            width,
            height,
            data,
            profile: facts
                .as_ref()
                .and_then(|facts| facts.rgb_profile())
                .map(<[u8]>::to_vec),
        },
        print_size,
    })
}

fn placed_images(scene: &Scene, print_sizes: &HashMap<&str, (u32, u32)>) -> Vec<PlacedImage> {
    scene
        .items
        .iter()
        .filter_map(|item| match item {
            SceneItem::Image {
                link_id,
                resource_uri,
                placement,
                ..
            } => {
                let (width, height) = print_sizes[resource_uri.as_str()];
                Some(PlacedImage {
                    link_id: link_id.clone(),
                    resource_uri: resource_uri.clone(),
                    width,
                    height,
                    dpi: effective_dpi((width, height), placement),
                })
            }
            _ => None,
        })
        .collect()
}

/// What keeps a page from printing as the customer expects.
fn preflight(
    book: &FontBook,
    template: &Template,
    scene: &Scene,
    report: &LayoutReport,
    print_sizes: &HashMap<&str, (u32, u32)>,
    limits: PreflightLimits,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut add = |severity, code, link_id: &str, message: String| {
        findings.push(Finding {
            severity,
            code,
            link_id: link_id.to_owned(),
            message,
        });
    };
    for image in placed_images(scene, print_sizes) {
        let severity = if image.dpi < limits.block_dpi {
            Severity::Blocking
        } else if image.dpi < limits.warn_dpi {
            Severity::Warning
        } else {
            continue;
        };
        add(
            severity,
            FindingCode::LowResolution,
            &image.link_id,
            format!(
                "{} x {} pixels print at {} dpi; {} dpi is needed for a sharp print",
                image.width, image.height, image.dpi, limits.warn_dpi
            ),
        );
    }
    for item in &template.items {
        if matches!(item.kind, ItemKind::Image { .. })
            && !scene.items.iter().any(
                |drawn| matches!(drawn, SceneItem::Image { link_id, .. } if *link_id == item.link_id),
            )
        {
            // A warning: templates do not say which image slots are required, and a card of
            // one colour on an image template is a design of its own.
            add(
                Severity::Warning,
                FindingCode::EmptyImageSlot,
                &item.link_id,
                "the template has room for an image here but the side gives none; it prints \
                 without"
                    .into(),
            );
        }
    }
    let safe = ViewArea::of_box(&template.safe_area_box);
    for drawn in &scene.items {
        let SceneItem::Text {
            link_id,
            area,
            size,
            text,
            glyphs,
            ..
        } = drawn
        else {
            continue;
        };
        if glyphs.iter().any(|g| g.glyph == 0) {
            let missing: String = glyphs
                .iter()
                .filter(|g| g.glyph == 0)
                .filter_map(|g| text.get(g.text.0 as usize..g.text.1 as usize))
                .collect();
            add(
                Severity::Blocking,
                FindingCode::MissingGlyph,
                link_id,
                format!("no font has a glyph for {missing:?}; it would print as a box"),
            );
        }
        if !inside(&ink_corners(book, area, *size, glyphs), &safe) {
            add(
                Severity::Warning,
                FindingCode::TextOutsideSafeArea,
                link_id,
                "text reaches outside the safe area and may be cut off".into(),
            );
        }
    }
    for overflow in &report.overflows {
        add(
            Severity::Warning,
            FindingCode::TextOverflow,
            &overflow.link_id,
            format!(
                "the text is {:.1} mm wider and {:.1} mm taller than its box",
                overflow.width, overflow.height
            ),
        );
    }
    for link_id in &report.font_substituted {
        add(
            Severity::Warning,
            FindingCode::FontSubstituted,
            link_id,
            "some characters are set in a fallback font".into(),
        );
    }
    findings
}

/// The corners of each glyph's box (advance by ascender to descender) on the page.
fn ink_corners(
    book: &FontBook,
    area: &BoundingBox,
    size: f64,
    glyphs: &[SceneGlyph],
) -> Vec<(f64, f64)> {
    let radians = area.angle.to_radians();
    let (sin, cos) = (libm::sin(radians), libm::cos(radians));
    let to_page = |x: f64, y: f64| {
        let (x, y) = (x - area.width / 2.0, y - area.height / 2.0);
        (
            area.center.x + cos * x - sin * y,
            area.center.y + sin * x + cos * y,
        )
    };
    let mut corners = Vec::with_capacity(glyphs.len() * 4);
    for glyph in glyphs {
        let face = book.face(glyph.face);
        let scale = size / face.units_per_em;
        let right = glyph.x + face.advance(glyph.glyph) * scale;
        let top = glyph.baseline - face.ascender * scale;
        let bottom = glyph.baseline - face.descender * scale;
        for (x, y) in [
            (glyph.x, top),
            (right, top),
            (right, bottom),
            (glyph.x, bottom),
        ] {
            corners.push(to_page(x, y));
        }
    }
    corners
}

fn inside(points: &[(f64, f64)], area: &ViewArea) -> bool {
    // A hundredth of a millimetre: layout's own rounding, not a design.
    const TOLERANCE: f64 = 0.01;
    points.iter().all(|&(x, y)| {
        x >= area.left - TOLERANCE
            && x <= area.left + area.width + TOLERANCE
            && y >= area.top - TOLERANCE
            && y <= area.top + area.height + TOLERANCE
    })
}

fn verdict<'a>(findings: impl Iterator<Item = &'a Finding>) -> Verdict {
    findings.fold(Verdict::Pass, |verdict, finding| match finding.severity {
        Severity::Blocking => Verdict::Block,
        Severity::Warning if verdict == Verdict::Pass => Verdict::Warn,
        Severity::Warning => verdict,
    })
}

/// The slug line of a page: what the press reads beside the marks.
fn slug_text(own: Option<&str>, page: &PageReport) -> String {
    let preflight = match verdict(page.findings.iter()) {
        Verdict::Pass => "preflight passed".to_owned(),
        verdict => {
            let mut codes: Vec<String> = Vec::new();
            for code in page.findings.iter().map(|f| wire_name(f.code)) {
                if !codes.contains(&code) {
                    codes.push(code);
                }
            }
            format!("preflight {}: {}", verdict.name(), codes.join(", "))
        }
    };
    let mut parts: Vec<String> = own.map(str::to_owned).into_iter().collect();
    parts.push(format!("side {}", page.side));
    parts.push(format!("{} cards", page.copies));
    parts.push(preflight);
    parts.join(" | ")
}

/// A unit enum's name as the report's JSON spells it.
fn wire_name(value: impl Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The die lines of a page: the finish's rounded corners round the cut box, and the
/// template's own rounded-corner masks (a sticker's cut line).
fn die_lines(template: &Template, scene: &Scene, radius: Option<f64>) -> Vec<(BoundingBox, f64)> {
    let mut lines: Vec<(BoundingBox, f64)> = scene
        .items
        .iter()
        .filter_map(|item| match item {
            SceneItem::RoundedCornerMask { area, radius } => Some((*area, *radius)),
            _ => None,
        })
        .collect();
    if let Some(radius) = radius {
        lines.push((template.cut_box, radius));
    }
    lines
}
