//! A page's content stream: the scene's items in the press's inks, the slug, the proof's
//! guides and the crop marks.

use std::collections::HashMap;

use pdf_writer::types::{ColorSpaceOperand, LineCapStyle};
use pdf_writer::{Content, Finish, Name, Ref, Str, TextStr};

use crate::layout::{PathStep, SceneGlyph, SceneItem};
use crate::model::BoundingBox;
use crate::raster::ViewArea;
use crate::text::{FaceId, FontBook};

use super::fonts::{EmbeddedFont, clusters, needs_actual_text};
use super::{DocumentInfo, PT, PdfPage};
use crate::press::colour::PressInks;
use crate::press::sheet::{self, MARK_WIDTH, SLUG_SIZE};

/// The content stream of one page.
pub(super) fn page_content(
    page: &PdfPage<'_>,
    media: &ViewArea,
    fonts: &HashMap<FaceId, EmbeddedFont>,
    images: &HashMap<&str, (String, Ref)>,
    book: &FontBook,
    info: &DocumentInfo<'_>,
) -> Vec<u8> {
    let mut content = Content::new();
    // Millimetres, y down, origin at the print area's top-left.
    content.transform([
        PT as f32,
        0.0,
        0.0,
        -PT as f32,
        (-media.left * PT) as f32,
        ((media.top + media.height) * PT) as f32,
    ]);
    content.save_state();
    let bleed = page.bleed;
    content
        .rect(
            bleed.left as f32,
            bleed.top as f32,
            bleed.width as f32,
            bleed.height as f32,
        )
        .clip_nonzero()
        .end_path();
    for item in &page.scene.items {
        match item {
            SceneItem::Fill { area, .. } => {
                set_colour(&mut content, info.inks, item, false);
                box_path(&mut content, area);
                content.fill_nonzero();
            }
            SceneItem::Outline { area, width, .. } => {
                set_colour(&mut content, info.inks, item, true);
                content.set_line_width(*width as f32);
                box_path(&mut content, area);
                content.stroke();
            }
            SceneItem::Image {
                resource_uri,
                placement,
                clip,
                ..
            } => {
                let Some((name, _)) = images.get(resource_uri.as_str()) else {
                    continue;
                };
                content.save_state();
                box_path(&mut content, clip);
                content.clip_nonzero().end_path();
                content.transform(box_frame(placement));
                // The unit square, row 0 at the top, onto the box centred on the origin.
                content.transform([
                    placement.width as f32,
                    0.0,
                    0.0,
                    -placement.height as f32,
                    (-placement.width / 2.0) as f32,
                    (placement.height / 2.0) as f32,
                ]);
                content.x_object(Name(name.as_bytes()));
                content.restore_state();
            }
            SceneItem::Text {
                area,
                size,
                text,
                glyphs,
                ..
            } => {
                content.save_state();
                box_path(&mut content, area);
                content.clip_nonzero().end_path();
                content.transform(box_frame(area));
                content.transform([
                    1.0,
                    0.0,
                    0.0,
                    1.0,
                    (-area.width / 2.0) as f32,
                    (-area.height / 2.0) as f32,
                ]);
                set_colour(&mut content, info.inks, item, false);
                show_glyphs(&mut content, text, glyphs, *size, fonts, book);
                content.restore_state();
            }
            // A press file is not masked: the card is cut along the die line instead.
            SceneItem::RoundedCornerMask { .. } => {}
        }
    }
    content.restore_state();

    if !page.die_lines.is_empty() {
        content
            .begin_marked_content_with_properties(Name(b"OC"))
            .properties_named(Name(b"DieLayer"));
    }
    for (area, radius) in &page.die_lines {
        content.save_state();
        content.set_parameters(Name(b"Overprint"));
        content.set_stroke_color_space(ColorSpaceOperand::Named(Name(b"Die")));
        content.set_stroke_color([1.0]);
        content.set_line_width(MARK_WIDTH as f32);
        content.transform(box_frame(area));
        rounded_rect(&mut content, area.width, area.height, *radius);
        content.stroke();
        content.restore_state();
    }
    if !page.die_lines.is_empty() {
        content.end_marked_content();
    }

    if info.guides {
        guides(&mut content, &page.trim, &page.safe);
    }
    if info.marks {
        crop_marks(&mut content, &page.trim, &bleed);
        if let Some((text, slug)) = &page.slug {
            content.save_state();
            content.set_fill_color_space(ColorSpaceOperand::Named(Name(b"Registration")));
            content.set_fill_color([1.0]);
            show_glyphs(&mut content, text, slug, SLUG_SIZE, fonts, book);
            content.restore_state();
        }
    }
    content.finish().to_vec()
}

/// Glyphs in runs of one face and baseline, each run one `TJ` whose adjustments put every
/// glyph exactly where layout placed it. A cluster whose glyphs do not map one to one onto its
/// text (a conjunct, a reordered vowel, a glyph that shows different text elsewhere) is a span
/// of its own with its text as `ActualText`, so the file's text copies and searches as the
/// text it shows.
fn show_glyphs(
    content: &mut Content,
    text: &str,
    glyphs: &[SceneGlyph],
    size: f64,
    fonts: &HashMap<FaceId, EmbeddedFont>,
    book: &FontBook,
) {
    let clusters = clusters(text, glyphs);
    let actual = |index: usize| {
        clusters[index].filter(|&cluster| {
            needs_actual_text(&fonts[&glyphs[index].face].mapped, &glyphs[index], cluster)
        })
    };
    content.begin_text();
    let mut start = 0;
    while start < glyphs.len() {
        let end = match actual(start) {
            Some((shown, count)) => {
                let end = (start + count).min(glyphs.len());
                content
                    .begin_marked_content_with_properties(Name(b"Span"))
                    .properties()
                    .actual_text(TextStr(shown));
                show_runs(content, &glyphs[start..end], size, fonts, book);
                content.end_marked_content();
                end
            }
            None => {
                let end = (start + 1..glyphs.len())
                    .find(|&index| clusters[index].is_some() && actual(index).is_some())
                    .unwrap_or(glyphs.len());
                show_runs(content, &glyphs[start..end], size, fonts, book);
                end
            }
        };
        start = end;
    }
    content.end_text();
}

/// `glyphs` as runs of one face and baseline, one `TJ` each.
fn show_runs(
    content: &mut Content,
    glyphs: &[SceneGlyph],
    size: f64,
    fonts: &HashMap<FaceId, EmbeddedFont>,
    book: &FontBook,
) {
    let mut start = 0;
    while start < glyphs.len() {
        let first = glyphs[start];
        let end = glyphs[start..]
            .iter()
            .position(|g| g.face != first.face || g.baseline != first.baseline)
            .map_or(glyphs.len(), |n| start + n);
        let font = &fonts[&first.face];
        let face = book.face(first.face);
        content.set_font(Name(font.name.as_bytes()), size as f32);
        content.set_text_matrix([1.0, 0.0, 0.0, -1.0, first.x as f32, first.baseline as f32]);
        let mut shown = content.show_positioned();
        let mut items = shown.items();
        let mut pen = first.x;
        for glyph in &glyphs[start..end] {
            // TJ adjustments are thousandths of the em, positive to the left.
            let gap = glyph.x - pen;
            if gap.abs() > 1e-9 {
                items.adjust((-gap / size * 1000.0) as f32);
            }
            let cid = font.cids.get(&glyph.glyph).copied().unwrap_or(0);
            items.show(Str(&cid.to_be_bytes()));
            pen = glyph.x + face.advance(glyph.glyph) * size / font.units_per_em;
        }
        items.finish();
        shown.finish();
        start = end;
    }
}

/// `item`'s inks as the colour that paints it.
fn set_colour(content: &mut Content, inks: &PressInks<'_>, item: &SceneItem, stroke: bool) {
    let [c, m, y, k] = inks
        .of_item(item)
        .unwrap_or_default()
        .map(|v| (v / 100.0) as f32);
    if stroke {
        content.set_stroke_cmyk(c, m, y, k);
    } else {
        content.set_fill_cmyk(c, m, y, k);
    }
}

/// The matrix from a box's own frame (origin at its centre, turned with it) to the scene.
fn box_frame(area: &BoundingBox) -> [f32; 6] {
    let radians = area.angle.to_radians();
    let (sin, cos) = (libm::sin(radians), libm::cos(radians));
    [
        cos as f32,
        sin as f32,
        -sin as f32,
        cos as f32,
        area.center.x as f32,
        area.center.y as f32,
    ]
}

/// The outline of a (possibly turned) box, in scene coordinates.
fn box_path(content: &mut Content, area: &BoundingBox) {
    let [a, b, c, d, e, f] = box_frame(area).map(f64::from);
    let (w, h) = (area.width / 2.0, area.height / 2.0);
    let corners = [(-w, -h), (w, -h), (w, h), (-w, h)];
    for (i, (x, y)) in corners.into_iter().enumerate() {
        let (px, py) = ((a * x + c * y + e) as f32, (b * x + d * y + f) as f32);
        if i == 0 {
            content.move_to(px, py);
        } else {
            content.line_to(px, py);
        }
    }
    content.close_path();
}

/// A rounded rectangle centred on the origin ([`crate::layout::rounded_rect`]).
fn rounded_rect(content: &mut Content, width: f64, height: f64, radius: f64) {
    for step in crate::layout::rounded_rect(width, height, radius) {
        match step {
            PathStep::MoveTo(x, y) => content.move_to(x, y),
            PathStep::LineTo(x, y) => content.line_to(x, y),
            PathStep::CubicTo([x1, y1, x2, y2, x, y]) => content.cubic_to(x1, y1, x2, y2, x, y),
            PathStep::Close => content.close_path(),
        };
    }
}

/// A proof's cut line (red) and safe area (green dashes), as the editor draws them, on the
/// guides layer.
fn guides(content: &mut Content, trim: &ViewArea, safe: &ViewArea) {
    content
        .begin_marked_content_with_properties(Name(b"OC"))
        .properties_named(Name(b"Guides"));
    content.save_state();
    content.set_line_width(0.2);
    content.set_stroke_cmyk(0.0, 1.0, 1.0, 0.0);
    content.rect(
        trim.left as f32,
        trim.top as f32,
        trim.width as f32,
        trim.height as f32,
    );
    content.stroke();
    content.set_stroke_cmyk(0.8, 0.0, 0.9, 0.2);
    content.set_dash_pattern([1.0, 1.0], 0.0);
    content.rect(
        safe.left as f32,
        safe.top as f32,
        safe.width as f32,
        safe.height as f32,
    );
    content.stroke();
    content.restore_state();
    content.end_marked_content();
}

/// The crop marks, in registration colour.
fn crop_marks(content: &mut Content, trim: &ViewArea, bleed: &ViewArea) {
    content.save_state();
    content.set_stroke_color_space(ColorSpaceOperand::Named(Name(b"Registration")));
    content.set_stroke_color([1.0]);
    content.set_line_width(MARK_WIDTH as f32);
    content.set_line_cap(LineCapStyle::ButtCap);
    for [(x0, y0), (x1, y1)] in sheet::crop_marks(trim, bleed) {
        content.move_to(x0 as f32, y0 as f32);
        content.line_to(x1 as f32, y1 as f32);
    }
    content.stroke();
    content.restore_state();
}
