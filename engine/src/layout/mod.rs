//! Template + side data -> [`Scene`]: what to draw, in millimetres, in paint order, with
//! every default, constraint and font decision already made. Drawing never sees a template
//! or a datum.

use std::fmt;

use crate::model::{
    Alignment, BoundingBox, Colour, Datum, FixedImageSource, ItemKind, Side, Template,
    TemplateItem, TextDatum, TextItem, VerticalAlignment,
};
use crate::text::{FaceId, FontBook, Line, TextError, TextRequest, layout_text};

/// At most this many data in one side (templates have at most 256 items too).
pub const MAX_SIDE_DATA: usize = 256;

/// Thickness of the outline drawn for an unfilled `Box`, mm.
pub const OUTLINE_WIDTH: f64 = 0.25;

/// A side ready to draw: print-area size and items in paint order.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    pub width: f64,
    pub height: f64,
    pub items: Vec<SceneItem>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SceneItem {
    Fill {
        area: BoundingBox,
        colour: Colour,
    },
    Outline {
        area: BoundingBox,
        colour: Colour,
        width: f64,
    },
    /// An image scaled into `placement` (centre, size, clockwise angle) and clipped to `clip`.
    Image {
        /// The template item it fills (preflight findings name it).
        link_id: String,
        resource_uri: String,
        placement: BoundingBox,
        clip: BoundingBox,
    },
    /// Glyphs positioned in the frame of `area` (origin at its unrotated top-left corner,
    /// baselines in mm), clipped to it and rotated with it.
    Text {
        link_id: String,
        area: BoundingBox,
        /// As the pack gives it: a press file keeps CMYK, a canvas shows its RGB.
        colour: Colour,
        size: f64,
        /// The text as laid out, which the glyphs' `text` ranges are of.
        text: String,
        glyphs: Vec<SceneGlyph>,
    },
    /// Everything drawn so far becomes transparent outside this rounded rectangle.
    RoundedCornerMask {
        area: BoundingBox,
        radius: f64,
    },
}

/// One step of an outline in a box's own frame (origin at its centre), millimetres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PathStep {
    MoveTo(f32, f32),
    LineTo(f32, f32),
    /// Two control points, then the end point.
    CubicTo([f32; 6]),
    Close,
}

/// The outline of a `width` x `height` rectangle centred on the origin with corners of
/// `radius` (at most half a side): cubic arcs with the usual 0.5523 handle. The rasteriser's
/// rounded-corner mask and the press file's die line are both this path.
pub fn rounded_rect(width: f64, height: f64, radius: f64) -> [PathStep; 10] {
    let (w, h) = (width as f32, height as f32);
    let r = (radius as f32).min(w / 2.0).min(h / 2.0);
    let (l, t, rt, b) = (-w / 2.0, -h / 2.0, w / 2.0, h / 2.0);
    let k = r * 0.552_284_8;
    [
        PathStep::MoveTo(l + r, t),
        PathStep::LineTo(rt - r, t),
        PathStep::CubicTo([rt - r + k, t, rt, t + r - k, rt, t + r]),
        PathStep::LineTo(rt, b - r),
        PathStep::CubicTo([rt, b - r + k, rt - r + k, b, rt - r, b]),
        PathStep::LineTo(l + r, b),
        PathStep::CubicTo([l + r - k, b, l, b - r + k, l, b - r]),
        PathStep::LineTo(l, t + r),
        PathStep::CubicTo([l, t + r - k, l + r - k, t, l + r, t]),
        PathStep::Close,
    ]
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SceneGlyph {
    pub face: FaceId,
    pub glyph: u16,
    /// The text it shows, as a byte range of its item's text: its cluster's bytes on the
    /// cluster's first glyph, empty on the others (see [`crate::text::PlacedGlyph`]).
    pub text: (u32, u32),
    pub x: f64,
    /// Where the glyph's origin sits, mm down from the top: its line's baseline, less what
    /// shaping raised it by.
    pub baseline: f64,
}

/// What layout found that the pack warnings report (PVT001, PVT002, PVT003, fixed
/// properties).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutReport {
    pub overflows: Vec<TextOverflow>,
    /// linkIds of texts with a character drawn in a fallback face.
    pub font_substituted: Vec<String>,
    /// Texts with characters no face has (they would print as a missing-glyph box).
    #[serde(default)]
    pub missing_characters: Vec<MissingCharacters>,
    /// Datum properties ignored because the template fixes them.
    pub ignored_fixed: Vec<IgnoredProperty>,
    /// Resource URIs of every image the scene draws.
    pub images: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingCharacters {
    pub link_id: String,
    /// Each character no face has, once, in order of first use.
    pub characters: String,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextOverflow {
    pub link_id: String,
    /// How far the text is wider than its box, mm (0 when it fits).
    pub width: f64,
    /// How far the text is taller than its box, mm (0 when it fits).
    pub height: f64,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IgnoredProperty {
    pub link_id: String,
    pub property: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum LayoutError {
    /// A datum's type does not suit the template item its linkId names.
    DatumMismatch {
        link_id: String,
        datum: &'static str,
        item: &'static str,
    },
    TooManyData(usize),
    Font {
        link_id: String,
        message: String,
    },
    Text {
        link_id: String,
        error: TextError,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::DatumMismatch {
                link_id,
                datum,
                item,
            } => write!(
                f,
                "datum {link_id:?} is {datum} but the template item {link_id:?} is a {item}"
            ),
            LayoutError::TooManyData(n) => {
                write!(f, "side has {n} data, more than {MAX_SIDE_DATA}")
            }
            LayoutError::Font { link_id, message } => write!(f, "datum {link_id:?}: {message}"),
            LayoutError::Text { link_id, error } => write!(f, "datum {link_id:?}: {error}"),
        }
    }
}

impl std::error::Error for LayoutError {}

/// Lays out `side` on `template`. With `partial`, only items the side has data for are
/// drawn (no template defaults).
pub fn layout_side(
    book: &FontBook,
    template: &Template,
    side: &Side,
    partial: bool,
    report: &mut LayoutReport,
) -> Result<Scene, LayoutError> {
    if side.data.len() > MAX_SIDE_DATA {
        return Err(LayoutError::TooManyData(side.data.len()));
    }
    let mut scene = Scene {
        width: template.print_area.width,
        height: template.print_area.height,
        items: Vec::with_capacity(template.items.len()),
    };
    for item in &template.items {
        let datum = side.data.iter().find(|d| d.link_id() == item.link_id);
        if let Some(datum) = datum {
            check_kind(item, datum)?;
        } else if partial {
            continue;
        }
        if let Some(scene_item) = lay_out_item(book, template, item, datum, report)? {
            scene.items.push(scene_item);
        }
    }
    Ok(scene)
}

fn datum_name(datum: &Datum) -> &'static str {
    match datum {
        Datum::Text(_) => "textData",
        Datum::MultiLineText(_) => "multiLineTextData",
        Datum::Image(_) => "imageData",
        Datum::FixedImage(_) => "fixedImageData",
        Datum::Box(_) => "boxData",
    }
}

fn check_kind(item: &TemplateItem, datum: &Datum) -> Result<(), LayoutError> {
    let fits = match (&item.kind, datum) {
        (ItemKind::Box { .. }, Datum::Box(_)) => true,
        (ItemKind::Image { .. }, Datum::Image(_)) => true,
        (ItemKind::FixedImage(_), Datum::FixedImage(_)) => true,
        (ItemKind::Text(text), Datum::Text(_)) => text.multi_line.is_none(),
        (ItemKind::Text(text), Datum::MultiLineText(_)) => text.multi_line.is_some(),
        _ => false,
    };
    if fits {
        Ok(())
    } else {
        Err(LayoutError::DatumMismatch {
            link_id: item.link_id.clone(),
            datum: datum_name(datum),
            item: item.kind.name(),
        })
    }
}

fn lay_out_item(
    book: &FontBook,
    template: &Template,
    item: &TemplateItem,
    datum: Option<&Datum>,
    report: &mut LayoutReport,
) -> Result<Option<SceneItem>, LayoutError> {
    let scene_item = match &item.kind {
        ItemKind::Box { colour, filled } => {
            let colour = match datum {
                Some(Datum::Box(d)) => d.colour,
                _ => *colour,
            };
            if *filled {
                SceneItem::Fill {
                    area: item.clipping_box,
                    colour,
                }
            } else {
                SceneItem::Outline {
                    area: item.clipping_box,
                    colour,
                    width: OUTLINE_WIDTH,
                }
            }
        }
        ItemKind::Image { .. } => {
            let Some(Datum::Image(image)) = datum else {
                return Ok(None);
            };
            // PVI002 reports a box without a URI or the reverse; neither draws.
            let (Some(placement), Some(uri)) = (image.image_box, &image.resource_uri) else {
                return Ok(None);
            };
            image_item(item, uri, placement, report)
        }
        ItemKind::FixedImage(fixed) => {
            let datum_uri = match datum {
                Some(Datum::FixedImage(d)) => d.resource_uri.as_deref(),
                _ => None,
            };
            match (&fixed.source, datum_uri) {
                (_, Some(uri)) => image_item(item, uri, fixed.image_box, report),
                (FixedImageSource::Resource(uri), None) => {
                    image_item(item, uri, fixed.image_box, report)
                }
                (FixedImageSource::RoundedCornerMask { radius }, None) => {
                    SceneItem::RoundedCornerMask {
                        area: item.clipping_box,
                        radius: *radius,
                    }
                }
                (FixedImageSource::None, None) => return Ok(None),
            }
        }
        ItemKind::Text(text_item) => {
            let datum = match datum {
                Some(Datum::Text(d) | Datum::MultiLineText(d)) => Some(d),
                _ => None,
            };
            text(book, template, item, text_item, datum, report)?
        }
    };
    Ok(Some(scene_item))
}

fn image_item(
    item: &TemplateItem,
    uri: &str,
    placement: BoundingBox,
    report: &mut LayoutReport,
) -> SceneItem {
    if !report.images.iter().any(|u| u == uri) {
        report.images.push(uri.to_owned());
    }
    SceneItem::Image {
        link_id: item.link_id.clone(),
        resource_uri: uri.to_owned(),
        placement,
        clip: item.clipping_box,
    }
}

/// The value of one text property: the datum's unless absent or fixed by the template (then
/// the template's, and a fixed one that was given is reported).
fn property<T: Copy>(
    template_value: T,
    datum_value: Option<T>,
    fixed: bool,
    link_id: &str,
    name: &'static str,
    report: &mut LayoutReport,
) -> T {
    match datum_value {
        Some(_) if fixed => {
            report.ignored_fixed.push(IgnoredProperty {
                link_id: link_id.to_owned(),
                property: name.to_owned(),
            });
            template_value
        }
        Some(value) => value,
        None => template_value,
    }
}

fn text(
    book: &FontBook,
    template: &Template,
    item: &TemplateItem,
    text_item: &TextItem,
    datum: Option<&TextDatum>,
    report: &mut LayoutReport,
) -> Result<SceneItem, LayoutError> {
    let link_id = item.link_id.as_str();
    let fixed = text_item.constraints;
    let template_face = (
        text_item.font.family.as_str(),
        text_item.font.bold,
        text_item.font.italic,
    );
    let datum_face = datum
        .and_then(|d| d.font.as_ref())
        .map(|f| (f.font_family.as_str(), f.bold, f.italic));
    let (family, bold, italic) = property(
        template_face,
        datum_face,
        fixed.font_fixed,
        link_id,
        "font",
        report,
    );
    let face: FaceId = book
        .resolve(family, bold, italic)
        .map_err(|e| LayoutError::Font {
            link_id: link_id.to_owned(),
            message: e.0,
        })?;
    let size = property(
        text_item.point_size,
        datum.and_then(|d| d.point_size),
        fixed.point_size_fixed,
        link_id,
        "pointSize",
        report,
    );
    let colour: Colour = property(
        text_item.colour,
        datum.and_then(|d| d.colour),
        fixed.colour_fixed,
        link_id,
        "colour",
        report,
    );
    let alignment = property(
        text_item.alignment,
        datum.and_then(|d| d.alignment),
        fixed.alignment_fixed,
        link_id,
        "alignment",
        report,
    );
    let content = datum.map_or(text_item.default_text.as_str(), |d| d.text.as_str());
    let area = item.clipping_box;
    let laid_out = layout_text(
        book,
        &TextRequest {
            text: content,
            face,
            size,
            wrap_width: text_item.multi_line.map(|_| area.width),
            substitution: template.font_substitution,
        },
    )
    .map_err(|error| LayoutError::Text {
        link_id: link_id.to_owned(),
        error,
    })?;
    if laid_out.font_substituted {
        report.font_substituted.push(link_id.to_owned());
    }
    if !laid_out.missing.is_empty() {
        report.missing_characters.push(MissingCharacters {
            link_id: link_id.to_owned(),
            characters: laid_out.missing.iter().collect(),
        });
    }
    let (pitch, baseline_offset, vertical) = match text_item.multi_line {
        Some(m) => (
            laid_out.line_height * m.leading,
            m.baseline_offset,
            m.vertical_alignment,
        ),
        // A single-line text is centred vertically in its box.
        None => (laid_out.line_height, 0.0, VerticalAlignment::Middle),
    };
    let block = pitch * laid_out.lines.len() as f64;
    let top = match vertical {
        VerticalAlignment::Top => 0.0,
        VerticalAlignment::Middle => (area.height - block) / 2.0,
        VerticalAlignment::Bottom => area.height - block,
    };
    let overflow = TextOverflow {
        link_id: link_id.to_owned(),
        width: (laid_out.width() - area.width).max(0.0),
        height: (block - area.height).max(0.0),
    };
    if overflow.width > 1e-6 || overflow.height > 1e-6 {
        report.overflows.push(overflow);
    }
    let mut glyphs = Vec::new();
    for (index, line) in laid_out.lines.iter().enumerate() {
        // Each line sits in the middle of its slot; leading adds equal space above and below.
        let baseline = top
            + index as f64 * pitch
            + (pitch - laid_out.line_height) / 2.0
            + laid_out.ascent
            + baseline_offset;
        let start = line_start(line, area.width, alignment);
        glyphs.extend(line.glyphs.iter().map(|g| SceneGlyph {
            face: g.face,
            glyph: g.glyph,
            text: g.text,
            x: start + g.x,
            baseline: baseline - g.rise,
        }));
    }
    Ok(SceneItem::Text {
        link_id: link_id.to_owned(),
        area,
        colour,
        size,
        text: content.to_owned(),
        glyphs,
    })
}

fn line_start(line: &Line, width: f64, alignment: Alignment) -> f64 {
    match alignment {
        Alignment::Left => 0.0,
        Alignment::Center => (width - line.width) / 2.0,
        Alignment::Right => width - line.width,
    }
}

#[cfg(all(test, feature = "builtin-fonts"))]
mod tests {
    use super::*;
    use crate::model::{Catalogue, FromJson, Template};
    use std::sync::LazyLock;

    static BOOK: LazyLock<FontBook> = LazyLock::new(FontBook::builtin);
    const SAMPLE: &str = include_str!("../../tests/scenes/templates/sample_all_items.xml");

    fn side(data: serde_json::Value) -> Side {
        let _ = Catalogue::builtin();
        Side::from_json(
            serde_json::json!({"type": "image", "sideNum": 1, "templateCode": "sample_all_items", "data": data}),
            "side",
        )
        .unwrap()
    }

    fn lay_out(data: serde_json::Value, partial: bool) -> (Scene, LayoutReport) {
        let template = Template::parse(SAMPLE).unwrap();
        let mut report = LayoutReport::default();
        let scene = layout_side(&BOOK, &template, &side(data), partial, &mut report).unwrap();
        (scene, report)
    }

    #[test]
    fn defaults_fill_every_item_without_data() {
        let (scene, report) = lay_out(serde_json::json!([]), false);
        let kinds: Vec<&str> = scene
            .items
            .iter()
            .map(|i| match i {
                SceneItem::Fill { .. } => "fill",
                SceneItem::Outline { .. } => "outline",
                SceneItem::Image { .. } => "image",
                SceneItem::Text { .. } => "text",
                SceneItem::RoundedCornerMask { .. } => "mask",
            })
            .collect();
        // The image item has no datum, so nothing to draw; texts show their default text.
        assert_eq!(kinds, ["fill", "fill", "text", "text", "mask"]);
        assert!(report.images.is_empty());
        let SceneItem::Fill { colour, .. } = scene.items[1] else {
            panic!()
        };
        assert_eq!(colour.to_rgb(), [255, 0, 0], "CMYK 0/100/100/0 is red");
    }

    #[test]
    fn partial_draws_only_the_supplied_data() {
        let (scene, _) = lay_out(
            serde_json::json!([{"type": "textData", "linkId": "title", "text": "Hi"}]),
            true,
        );
        assert_eq!(scene.items.len(), 1);
        assert!(matches!(scene.items[0], SceneItem::Text { .. }));
    }

    #[test]
    fn right_aligned_text_ends_at_the_box_edge() {
        let (scene, _) = lay_out(
            serde_json::json!([{"type": "textData", "linkId": "title", "text": "Hi"}]),
            true,
        );
        let SceneItem::Text {
            area, glyphs, size, ..
        } = &scene.items[0]
        else {
            panic!()
        };
        let face = BOOK.face(glyphs[1].face);
        let end = glyphs[1].x + face.advance(glyphs[1].glyph) * size / face.units_per_em;
        assert!((end - area.width).abs() < 1e-9, "{end} vs {}", area.width);
    }

    #[test]
    fn fixed_properties_are_kept_and_reported() {
        let (scene, report) = lay_out(
            serde_json::json!([{"type": "multiLineTextData", "linkId": "body", "text": "x",
                "pointSize": 9.0, "colour": {"type": "RGB", "r": 255, "g": 0, "b": 0}}]),
            true,
        );
        let SceneItem::Text { size, colour, .. } = &scene.items[0] else {
            panic!()
        };
        assert_eq!(*size, 2.8222, "pointSizeFixed keeps the template's size");
        assert_eq!(colour.to_rgb(), [255, 0, 0], "colour is not fixed");
        assert_eq!(
            report.ignored_fixed,
            [IgnoredProperty {
                link_id: "body".into(),
                property: "pointSize".into()
            }]
        );
    }

    #[test]
    fn overflow_and_substitution_are_reported() {
        let (_, report) = lay_out(
            serde_json::json!([
                {"type": "textData", "linkId": "title", "text": "A title far too long for its little box"},
                {"type": "multiLineTextData", "linkId": "body", "text": "\u{2620} ahoy"}]),
            true,
        );
        assert_eq!(report.overflows.len(), 1);
        assert_eq!(report.overflows[0].link_id, "title");
        assert!(report.overflows[0].width > 10.0);
        assert_eq!(report.font_substituted, ["body"]);
    }

    /// An override or isolate left open in one datum reorders only that datum's text: each
    /// datum is a paragraph of its own.
    #[test]
    fn bidi_controls_reorder_nothing_outside_their_datum() {
        let (scene, _) = lay_out(
            serde_json::json!([
                {"type": "textData", "linkId": "title", "text": "\u{202E}abc\u{2067}"},
                {"type": "multiLineTextData", "linkId": "body", "text": "def"}]),
            true,
        );
        let order = |item: &SceneItem| {
            let SceneItem::Text { text, glyphs, .. } = item else {
                panic!()
            };
            glyphs
                .iter()
                .map(|g| &text[g.text.0 as usize..g.text.1 as usize])
                .collect::<String>()
        };
        assert_eq!(order(&scene.items[0]), "cba", "overridden to right to left");
        assert_eq!(order(&scene.items[1]), "def", "untouched");
    }

    #[test]
    fn images_need_both_box_and_uri_and_are_listed() {
        let image = serde_json::json!({"type": "imageData", "linkId": "photo",
            "resourceUri": "store://a", "imageBox": {"center": {"x": 20, "y": 30}, "width": 40, "height": 30, "angle": 10}});
        let (scene, report) = lay_out(serde_json::json!([image]), true);
        assert_eq!(report.images, ["store://a"]);
        let SceneItem::Image {
            placement, clip, ..
        } = &scene.items[0]
        else {
            panic!()
        };
        assert_eq!(placement.angle, 10.0);
        assert_eq!(clip.width, 32.0);
        let no_box = serde_json::json!([{"type": "imageData", "linkId": "photo", "resourceUri": "store://a"}]);
        assert!(lay_out(no_box, true).0.items.is_empty());
    }

    #[test]
    fn a_datum_of_the_wrong_kind_is_an_error_and_unknown_link_ids_draw_nothing() {
        let template = Template::parse(SAMPLE).unwrap();
        let mut report = LayoutReport::default();
        let wrong = side(serde_json::json!([{"type": "textData", "linkId": "body", "text": "x"}]));
        let err = layout_side(&BOOK, &template, &wrong, false, &mut report).unwrap_err();
        assert!(matches!(err, LayoutError::DatumMismatch { .. }), "{err}");
        assert!(err.to_string().contains("MultiLineText"), "{err}");
        let unknown =
            side(serde_json::json!([{"type": "textData", "linkId": "nope", "text": "x"}]));
        let scene = layout_side(&BOOK, &template, &unknown, true, &mut report).unwrap();
        assert!(scene.items.is_empty());
        let bad_font = side(
            serde_json::json!([{"type": "textData", "linkId": "title", "text": "x",
            "font": {"fontFamily": "wingdings", "bold": false, "italic": false}}]),
        );
        let err = layout_side(&BOOK, &template, &bad_font, false, &mut report).unwrap_err();
        assert!(err.to_string().contains("wingdings"), "{err}");
    }
}
