//! Scene -> tiny-skia pixmap -> PNG. The canvas and its drawing of boxes, lines and images
//! are here; text is in `glyphs`, the pixels' PNG encoding in `encode`.
//!
//! Determinism: the same scene gives the same bytes on every build (native, wasm). tiny-skia
//! and fontdue are built without their SIMD paths (approximate reciprocals differ from the
//! scalar code), angles go through `libm`, and glyphs are blended with integer arithmetic.

mod encode;
mod flat_deflate;
mod glyphs;
mod image;
mod transformed;
mod upright;

use std::fmt;

use tiny_skia::{FillRule, IntSize, Mask, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

pub use encode::{Pixels, encode_png, encode_png_in};
pub use glyphs::GlyphCache;
pub use image::{DecodedImage, Format, ImageError, MAX_IMAGE_PIXELS, decode_image};

use crate::layout::{PathStep, Scene, SceneItem};
use crate::model::BoundingBox;
use crate::text::FontBook;
use transformed::{Point, ToSource, draw_transformed};
use upright::{Filter, draw_upright};

/// Bounds of the longest side of an output image, in pixels.
pub const MIN_SIDE: u32 = 16;
pub const MAX_SIDE: u32 = 4096;
/// The longest side of a render when the caller names none (renderSide's `maxSide`).
pub const DEFAULT_MAX_SIDE: u32 = 1024;

/// The part of the print area that becomes the image: a rectangle in millimetres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewArea {
    pub left: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
}

impl ViewArea {
    /// The axis-aligned extent of a template box (its angle is ignored: boxes are upright).
    pub fn of_box(area: &BoundingBox) -> ViewArea {
        ViewArea {
            left: area.center.x - area.width / 2.0,
            top: area.center.y - area.height / 2.0,
            width: area.width,
            height: area.height,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum RasterError {
    MaxSide(u32),
    EmptyArea,
    /// The scene draws an image that was not supplied.
    MissingImage(String),
    Font(String),
    Encode(String),
}

impl fmt::Display for RasterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RasterError::MaxSide(n) => {
                write!(f, "maxSide must be from {MIN_SIDE} to {MAX_SIDE}, got {n}")
            }
            RasterError::EmptyArea => f.write_str("the box to draw has no area"),
            RasterError::MissingImage(uri) => write!(f, "image {uri:?} was not supplied"),
            RasterError::Font(why) => f.write_str(why),
            RasterError::Encode(why) => write!(f, "PNG encoding failed: {why}"),
        }
    }
}

impl std::error::Error for RasterError {}

/// Bytes a canvas keeps free after its rows for the `Draw` answer's header (the size and the
/// layout report, a few KiB); a longer header costs one copy.
const ANSWER_HEADROOM: usize = 64 * 1024;

/// A transparent image of a view area, onto which scenes are drawn in turn.
pub struct Canvas {
    pixmap: Pixmap,
    area: ViewArea,
    /// Pixels per millimetre, the same on both axes.
    scale: f64,
}

impl Canvas {
    /// A canvas whose longest side is `max_side` pixels and whose aspect ratio is the area's.
    pub fn new(area: ViewArea, max_side: u32) -> Result<Canvas, RasterError> {
        if !(MIN_SIDE..=MAX_SIDE).contains(&max_side) {
            return Err(RasterError::MaxSide(max_side));
        }
        if !(area.width > 0.0 && area.height > 0.0) {
            return Err(RasterError::EmptyArea);
        }
        let scale = f64::from(max_side) / area.width.max(area.height);
        // Whole pixels inside the area: a partly covered last row would make every edge-to-
        // edge fill translucent there (the long side is exactly max_side).
        let pixels = |mm: f64| (libm::floor(mm * scale + 1e-6) as u32).clamp(1, max_side);
        let (width, height) = (pixels(area.width), pixels(area.height));
        let size = IntSize::from_wh(width, height).ok_or(RasterError::EmptyArea)?;
        // Zeroed (transparent) and with room after the rows for the `Draw` answer's header,
        // so that the canvas becomes the answer without being copied.
        let length = width as usize * height as usize * 4;
        let mut data = vec![0; length + ANSWER_HEADROOM];
        data.truncate(length);
        let pixmap = Pixmap::from_vec(data, size).ok_or(RasterError::EmptyArea)?;
        Ok(Canvas {
            pixmap,
            area,
            scale,
        })
    }

    pub fn width(&self) -> u32 {
        self.pixmap.width()
    }

    pub fn height(&self) -> u32 {
        self.pixmap.height()
    }

    /// Draws a scene's items in order. `images` gives the decoded image for a resource URI.
    pub fn draw<'i>(
        &mut self,
        scene: &Scene,
        book: &FontBook,
        glyph_cache: &mut GlyphCache,
        images: &dyn Fn(&str) -> Option<&'i DecodedImage>,
    ) -> Result<(), RasterError> {
        for item in &scene.items {
            match item {
                SceneItem::Fill { area, colour } => {
                    let transform = self.box_transform(area);
                    if self.covered_by(area, transform) {
                        self.fill_canvas(colour.to_rgb());
                    } else {
                        let path = PathBuilder::from_rect(local_rect(area));
                        self.pixmap.fill_path(
                            &path,
                            &solid(colour.to_rgb()),
                            FillRule::Winding,
                            transform,
                            None,
                        );
                    }
                }
                SceneItem::Outline {
                    area,
                    colour,
                    width,
                } => {
                    let path = PathBuilder::from_rect(local_rect(area));
                    let stroke = Stroke {
                        width: *width as f32,
                        ..Stroke::default()
                    };
                    let transform = self.box_transform(area);
                    self.pixmap.stroke_path(
                        &path,
                        &solid(colour.to_rgb()),
                        &stroke,
                        transform,
                        None,
                    );
                }
                SceneItem::Image {
                    resource_uri,
                    placement,
                    clip,
                    ..
                } => {
                    let image = images(resource_uri)
                        .ok_or_else(|| RasterError::MissingImage(resource_uri.clone()))?;
                    self.draw_image(image, placement, clip);
                }
                SceneItem::Text {
                    area,
                    colour,
                    size,
                    glyphs,
                    ..
                } => self.draw_text(book, glyph_cache, area, colour.to_rgb(), *size, glyphs)?,
                SceneItem::RoundedCornerMask { area, radius } => {
                    if let Some(mask) = self.mask(&rounded_rect(area, *radius), area) {
                        self.pixmap.apply_mask(&mask);
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether an upright box, drawn with `transform`, covers every pixel of the canvas
    /// whole: then filling it is the same as filling the canvas (a card's background).
    fn covered_by(&self, area: &BoundingBox, transform: Transform) -> bool {
        let rect = local_rect(area);
        // The points as tiny-skia maps them (f32); upright means no skew terms at all.
        transform.kx == 0.0
            && transform.ky == 0.0
            && transform.sx > 0.0
            && transform.sy > 0.0
            && transform.tx + transform.sx * rect.left() <= 0.0
            && transform.ty + transform.sy * rect.top() <= 0.0
            && transform.tx + transform.sx * rect.right() >= self.pixmap.width() as f32
            && transform.ty + transform.sy * rect.bottom() >= self.pixmap.height() as f32
    }

    /// Every pixel set to an opaque colour: one row, then copies of the rows so far
    /// (a memory copy runs at native speed under wasmtime, where a store loop does not).
    fn fill_canvas(&mut self, colour: [u8; 3]) {
        let row = self.pixmap.width() as usize * 4;
        let data = self.pixmap.data_mut();
        for pixel in data[..row].chunks_exact_mut(4) {
            pixel.copy_from_slice(&[colour[0], colour[1], colour[2], 255]);
        }
        let mut filled = row;
        while filled < data.len() {
            let copied = filled.min(data.len() - filled);
            data.copy_within(..copied, filled);
            filled += copied;
        }
    }

    /// Millimetres in the frame of `area` (origin at its centre, unrotated) to canvas pixels.
    fn box_transform(&self, area: &BoundingBox) -> Transform {
        let (sin, cos) = sin_cos(area.angle);
        let s = self.scale;
        // canvas = s * (centre + R(angle) * p - area origin); R turns clockwise as y points down.
        Transform::from_row(
            (s * cos) as f32,
            (s * sin) as f32,
            (-s * sin) as f32,
            (s * cos) as f32,
            (s * (area.center.x - self.area.left)) as f32,
            (s * (area.center.y - self.area.top)) as f32,
        )
    }

    /// A canvas-sized coverage mask of a path in the frame of `area`.
    fn mask(&self, path: &Option<tiny_skia::Path>, area: &BoundingBox) -> Option<Mask> {
        let mut mask = Mask::new(self.pixmap.width(), self.pixmap.height())?;
        if let Some(path) = path {
            mask.fill_path(path, FillRule::Winding, true, self.box_transform(area));
        }
        Some(mask)
    }

    fn draw_image(&mut self, image: &DecodedImage, placement: &BoundingBox, clip: &BoundingBox) {
        // Halve the image while it would still be shrunk by more than half: bicubic sampling
        // alone would skip pixels and alias.
        let target = (placement.width * self.scale).max(placement.height * self.scale);
        let (w, h) = image.size_at_least(target);
        let (w, h) = (f64::from(w), f64::from(h));
        let enlarged = (placement.width * self.scale / w).max(placement.height * self.scale / h);
        let filter = Filter::for_enlargement(enlarged);
        match quarter_turns(placement.angle) {
            Some(turns) if is_upright(clip) => {
                let turned = image.prepared(target, turns);
                self.draw_turned_image(&turned, placement, clip, turns, filter);
            }
            _ => {
                let pixmap = image.prepared(target, 0);
                self.draw_transformed_image(&pixmap, placement, clip, filter);
            }
        }
    }

    /// An image turned by whole quarter turns (a photo turned in an editor) in an upright
    /// clip, given as its pixels already turned: drawn upright by [`draw_upright`], the same
    /// sampling as tiny-skia's general pipeline at a fraction of its time.
    fn draw_turned_image(
        &mut self,
        turned: &Pixmap,
        placement: &BoundingBox,
        clip: &BoundingBox,
        turns: u8,
        filter: Filter,
    ) {
        let (width, height) = if turns % 2 == 1 {
            (placement.height, placement.width)
        } else {
            (placement.width, placement.height)
        };
        let upright = BoundingBox {
            width,
            height,
            angle: 0.0,
            ..*placement
        };
        self.draw_upright_image(turned, &upright, clip, filter);
    }

    /// Any image in any clip, by [`draw_transformed`].
    fn draw_transformed_image(
        &mut self,
        image: &Pixmap,
        placement: &BoundingBox,
        clip: &BoundingBox,
        filter: Filter,
    ) {
        let (sin, cos) = sin_cos(placement.angle);
        let s = self.scale;
        // Source pixels per millimetre of the box, across and down its own frame.
        let kx = f64::from(image.width()) / placement.width;
        let ky = f64::from(image.height()) / placement.height;
        // Canvas c is the box's unturned point p = R(-angle) (c / s + area origin - centre),
        // which is source pixel k (p + size / 2).
        let q = (
            self.area.left - placement.center.x,
            self.area.top - placement.center.y,
        );
        let to_source = ToSource {
            origin: (
                kx * (cos * q.0 + sin * q.1 + placement.width / 2.0),
                ky * (-sin * q.0 + cos * q.1 + placement.height / 2.0),
            ),
            across: (kx * cos / s, -ky * sin / s),
            down: (kx * sin / s, ky * cos / s),
        };
        let region = transformed::intersect(&self.corners(placement), &self.corners(clip));
        draw_transformed(&mut self.pixmap, image, filter, to_source, &region);
    }

    /// A box's corners in canvas pixels, in order around it.
    fn corners(&self, area: &BoundingBox) -> [Point; 4] {
        let (sin, cos) = sin_cos(area.angle);
        let s = self.scale;
        let (w, h) = (area.width / 2.0, area.height / 2.0);
        [(-w, -h), (w, -h), (w, h), (-w, h)].map(|(x, y)| {
            (
                s * (area.center.x + cos * x - sin * y - self.area.left),
                s * (area.center.y + sin * x + cos * y - self.area.top),
            )
        })
    }

    /// An upright image in an upright clip (a photo in its box, the usual case), by
    /// [`draw_upright`] in a fraction of tiny-skia's general pipeline's time.
    fn draw_upright_image(
        &mut self,
        image: &Pixmap,
        placement: &BoundingBox,
        clip: &BoundingBox,
        filter: Filter,
    ) {
        let s = self.scale;
        // Along one axis: the image's origin and its visible span, in canvas pixels.
        let span = |centre: f64, size: f64, clip_centre: f64, clip_size: f64, start: f64| {
            let origin = s * (centre - size / 2.0 - start);
            let clip_start = s * (clip_centre - clip_size / 2.0 - start);
            let end = (origin + s * size).min(clip_start + s * clip_size);
            (origin, origin.max(clip_start), end)
        };
        let (x, left, right) = span(
            placement.center.x,
            placement.width,
            clip.center.x,
            clip.width,
            self.area.left,
        );
        let (y, top, bottom) = span(
            placement.center.y,
            placement.height,
            clip.center.y,
            clip.height,
            self.area.top,
        );
        let scale = (
            s * placement.width / f64::from(image.width()),
            s * placement.height / f64::from(image.height()),
        );
        draw_upright(
            &mut self.pixmap,
            image,
            filter,
            (x, y),
            scale,
            [left, top, right, bottom],
        );
    }

    /// The drawn pixels' premultiplied RGBA rows, with room after them (see [`Canvas::new`]).
    pub fn into_premultiplied(self) -> Vec<u8> {
        self.pixmap.take()
    }

    /// The drawn pixels.
    pub fn pixels(&self) -> Pixels<'_> {
        Pixels {
            width: self.pixmap.width(),
            height: self.pixmap.height(),
            premultiplied: self.pixmap.data(),
        }
    }
}

fn solid(colour: [u8; 3]) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color_rgba8(colour[0], colour[1], colour[2], 255);
    paint.anti_alias = true;
    paint
}

/// The sine and cosine of an angle in degrees (through `libm`: the same on every platform).
fn sin_cos(degrees: f64) -> (f64, f64) {
    let radians = degrees.to_radians();
    (libm::sin(radians), libm::cos(radians))
}

fn is_upright(area: &BoundingBox) -> bool {
    quarter_turns(area.angle) == Some(0)
}

/// An angle in degrees as whole clockwise quarter turns (0 to 3), if it is one.
fn quarter_turns(angle: f64) -> Option<u8> {
    let degrees = angle.rem_euclid(360.0);
    // rem_euclid gives 360 for a tiny negative angle: a whole turn, upright.
    (degrees % 90.0 == 0.0).then(|| (degrees / 90.0) as u8 % 4)
}

/// The rectangle of a box in its own frame (centred on the origin), in mm.
fn local_rect(area: &BoundingBox) -> Rect {
    Rect::from_xywh(
        (-area.width / 2.0) as f32,
        (-area.height / 2.0) as f32,
        area.width.max(1e-6) as f32,
        area.height.max(1e-6) as f32,
    )
    .unwrap_or_else(|| Rect::from_xywh(0.0, 0.0, 1e-6, 1e-6).expect("a tiny rect is valid"))
}

/// A rounded rectangle in the frame of `area` ([`crate::layout::rounded_rect`]).
fn rounded_rect(area: &BoundingBox, radius: f64) -> Option<tiny_skia::Path> {
    let mut p = PathBuilder::new();
    for step in crate::layout::rounded_rect(area.width, area.height, radius) {
        match step {
            PathStep::MoveTo(x, y) => p.move_to(x, y),
            PathStep::LineTo(x, y) => p.line_to(x, y),
            PathStep::CubicTo([x1, y1, x2, y2, x, y]) => p.cubic_to(x1, y1, x2, y2, x, y),
            PathStep::Close => p.close(),
        }
    }
    p.finish()
}

#[derive(Debug, Clone, Copy)]
struct PixelRect {
    left: i64,
    top: i64,
    right: i64,
    bottom: i64,
}

impl PixelRect {
    fn intersect(self, width: u32, height: u32) -> PixelRect {
        PixelRect {
            left: self.left.max(0),
            top: self.top.max(0),
            right: self.right.min(i64::from(width)),
            bottom: self.bottom.min(i64::from(height)),
        }
    }
}

/// (a * b) / 255, rounded, exactly, in integers.
fn mul255(a: u32, b: u32) -> u32 {
    let x = a * b + 128;
    (x + (x >> 8)) >> 8
}

/// The four channels of an RGBA pixel, one a 16-bit lane: arithmetic on all four at once.
fn lanes(pixel: [u8; 4]) -> u64 {
    let p = u64::from(u32::from_le_bytes(pixel));
    (p & 0xFF) | (p & 0xFF00) << 8 | (p & 0xFF_0000) << 16 | (p & 0xFF00_0000) << 24
}

fn from_lanes(lanes: u64) -> [u8; 4] {
    let p = (lanes & 0xFF)
        | (lanes >> 8 & 0xFF00)
        | (lanes >> 16 & 0xFF_0000)
        | (lanes >> 24 & 0xFF00_0000);
    (p as u32).to_le_bytes()
}

/// Numbers below a bound from a fixed seed (xorshift), for the SIMD-against-scalar tests.
#[cfg(test)]
fn pseudo_random(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut state = seed;
    move |bound| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    }
}

/// [`mul255`] of each lane (at most 255) by `b` (at most 255); no lane overflows its 16 bits.
fn mul255_lanes(lanes: u64, b: u32) -> u64 {
    const LOW_BYTES: u64 = 0x00FF_00FF_00FF_00FF;
    let x = lanes * u64::from(b) + 0x0080_0080_0080_0080;
    ((x + (x >> 8 & LOW_BYTES)) >> 8) & LOW_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Point;
    use tiny_skia::{FilterQuality, PixmapPaint, PremultipliedColorU8};

    fn upright(x: f64, y: f64, width: f64, height: f64) -> BoundingBox {
        BoundingBox {
            center: Point { x, y },
            width,
            height,
            angle: 0.0,
        }
    }

    /// A 60 x 40 mm area, drawn at 300 px: 5 px a millimetre.
    const CARD_AREA: ViewArea = ViewArea {
        left: 0.0,
        top: 0.0,
        width: 60.0,
        height: 40.0,
    };

    /// A photo-like test image: gradients with fine stripes, some of it translucent.
    fn test_image(width: u32, height: u32) -> Pixmap {
        let mut image = Pixmap::new(width, height).unwrap();
        for (i, pixel) in image.pixels_mut().iter_mut().enumerate() {
            let (x, y) = (i as u32 % width, i as u32 / width);
            let alpha = if x < width / 4 { 160 } else { 255 };
            let stripe = if (x + y) % 5 == 0 {
                255
            } else {
                (x * 255 / width) as u8
            };
            let scale = |c: u8| (u32::from(c) * alpha / 255) as u8;
            *pixel = PremultipliedColorU8::from_rgba(
                scale(stripe),
                scale((y * 255 / height) as u8),
                scale(90),
                alpha as u8,
            )
            .unwrap();
        }
        image
    }

    /// The reference for the integer paths: tiny-skia's general pipeline, clipped by a mask.
    fn tiny_skia_draw(
        canvas: &mut Canvas,
        image: &Pixmap,
        placement: &BoundingBox,
        clip: &BoundingBox,
        filter: Filter,
    ) {
        let (w, h) = (f64::from(image.width()), f64::from(image.height()));
        let transform = canvas
            .box_transform(placement)
            .pre_concat(Transform::from_row(
                (placement.width / w) as f32,
                0.0,
                0.0,
                (placement.height / h) as f32,
                (-placement.width / 2.0) as f32,
                (-placement.height / 2.0) as f32,
            ));
        let mask = canvas
            .mask(&Some(PathBuilder::from_rect(local_rect(clip))), clip)
            .unwrap();
        let quality = match filter {
            Filter::Bilinear => FilterQuality::Bilinear,
            Filter::Bicubic => FilterQuality::Bicubic,
        };
        let paint = PixmapPaint {
            quality,
            ..PixmapPaint::default()
        };
        canvas
            .pixmap
            .draw_pixmap(0, 0, image.as_ref(), &paint, transform, Some(&mask));
    }

    /// Asserts that every channel of the pixels where `inside(x, y)` is within one level
    /// between the two canvases; how many pixels were compared.
    fn assert_within_one_level(
        fast: &Canvas,
        general: &Canvas,
        inside: impl Fn(u32, u32) -> bool,
        case: &str,
    ) -> usize {
        let mut compared = 0;
        let pixels = fast.pixmap.pixels().iter().zip(general.pixmap.pixels());
        for (i, (a, b)) in pixels.enumerate() {
            let (x, y) = (i as u32 % fast.width(), i as u32 / fast.width());
            if !inside(x, y) {
                continue;
            }
            compared += 1;
            for (a, b) in [
                (a.red(), b.red()),
                (a.green(), b.green()),
                (a.blue(), b.blue()),
                (a.alpha(), b.alpha()),
            ] {
                assert!(
                    a.abs_diff(b) <= 1,
                    "{case}, pixel {x},{y}: {a:?} against {b:?}"
                );
            }
        }
        compared
    }

    /// The canvas's alpha summed, in whole pixels.
    fn total_alpha(canvas: &Canvas) -> f64 {
        canvas
            .pixmap
            .pixels()
            .iter()
            .map(|p| f64::from(p.alpha()) / 255.0)
            .sum()
    }

    #[test]
    fn a_box_over_the_whole_canvas_fills_it_as_tiny_skia_does() {
        let area = ViewArea {
            left: 0.0,
            top: 0.0,
            width: 60.0,
            height: 40.0,
        };
        let background = upright(30.0, 20.0, 60.2, 40.0);
        let mut direct = Canvas::new(area, 301).unwrap();
        let transform = direct.box_transform(&background);
        assert!(direct.covered_by(&background, transform));
        direct.fill_canvas([200, 30, 90]);
        let mut general = Canvas::new(area, 301).unwrap();
        let path = PathBuilder::from_rect(local_rect(&background));
        let paint = solid([200, 30, 90]);
        general
            .pixmap
            .fill_path(&path, &paint, FillRule::Winding, transform, None);
        assert!(direct.pixmap.data() == general.pixmap.data());
        // A box a fraction of a pixel short of an edge, or turned, is not the whole canvas.
        for partial in [
            upright(30.0, 20.0, 59.9, 40.0),
            BoundingBox {
                angle: 1.0,
                ..background
            },
        ] {
            assert!(!direct.covered_by(&partial, direct.box_transform(&partial)));
        }
    }

    #[test]
    fn upright_and_quarter_turned_images_sample_as_tiny_skia_does_inside_their_clip() {
        let (area, image) = (CARD_AREA, test_image(90, 50));
        // Enlarged 1.4x (bilinear), 3.3x (bicubic) and shrunk 0.7x, each offset by a fraction
        // of a pixel, clipped; each upright and turned by one, two and three quarter turns.
        let cases = [
            (
                upright(30.3, 20.1, 52.7, 31.1),
                upright(29.0, 21.0, 40.2, 25.3),
                Filter::Bilinear,
            ),
            (
                upright(30.2, 20.3, 59.3, 33.1),
                upright(31.0, 19.0, 50.0, 30.0),
                Filter::Bicubic,
            ),
            (
                upright(20.2, 15.7, 25.9, 14.3),
                upright(22.0, 15.0, 30.0, 30.0),
                Filter::Bilinear,
            ),
        ];
        for ((placement, clip, filter), turns) in
            cases.iter().flat_map(|&c| (0..4).map(move |t| (c, t)))
        {
            let placement = BoundingBox {
                angle: f64::from(turns) * 90.0 - 360.0,
                ..placement
            };
            assert_eq!(quarter_turns(placement.angle), Some(turns));
            let mut fast = Canvas::new(area, 300).unwrap();
            let mut general = Canvas::new(area, 300).unwrap();
            for canvas in [&mut fast, &mut general] {
                canvas.fill_canvas([20, 200, 40]);
            }
            fast.draw_turned_image(
                &image::turn(&image, turns),
                &placement,
                &clip,
                turns,
                filter,
            );
            tiny_skia_draw(&mut general, &image, &placement, &clip, filter);
            // Turned a quarter, the image covers its box's height across and width down.
            let (across, down) = if turns % 2 == 1 {
                (placement.height, placement.width)
            } else {
                (placement.width, placement.height)
            };
            // The clip's edge pixels are anti-aliased differently (exact area here,
            // tiny-skia's supersampling there); everything else within one level.
            // The visible rectangle in pixels, less a pixel all round.
            let s = fast.scale;
            let span = |centre: f64, size: f64, clip_centre: f64, clip_size: f64| {
                let low = ((centre - size / 2.0).max(clip_centre - clip_size / 2.0) * s).ceil();
                let high = ((centre + size / 2.0).min(clip_centre + clip_size / 2.0) * s).floor();
                (low + 1.0)..(high - 1.0)
            };
            let columns = span(placement.center.x, across, clip.center.x, clip.width);
            let rows = span(placement.center.y, down, clip.center.y, clip.height);
            let inside =
                |x: u32, y: u32| columns.contains(&f64::from(x)) && rows.contains(&f64::from(y));
            let compared = assert_within_one_level(
                &fast,
                &general,
                inside,
                &format!("{filter:?}, {turns} turns"),
            );
            assert!(compared > 5_000, "{compared} pixels compared");
        }
    }

    #[test]
    fn turned_images_sample_as_tiny_skia_does_and_cover_exactly_their_clip() {
        let (area, image) = (CARD_AREA, test_image(90, 50));
        let turned = |area: BoundingBox, angle: f64| BoundingBox { angle, ..area };
        // Small and large turns, enlarged 1.6x (bilinear) and 3.4x (bicubic), in upright
        // and turned clips, over and across the image's edges.
        let cases = [
            (
                turned(upright(30.3, 20.1, 48.7, 27.1), 5.0),
                upright(29.0, 21.0, 40.2, 25.3),
            ),
            (
                turned(upright(30.3, 20.1, 48.7, 27.1), -33.0),
                upright(29.0, 21.0, 40.2, 25.3),
            ),
            (
                turned(upright(28.1, 19.4, 61.7, 34.0), 197.0),
                turned(upright(30.0, 20.0, 44.0, 26.0), 12.0),
            ),
            (
                turned(upright(25.2, 22.3, 26.0, 20.0), 71.0),
                turned(upright(26.0, 20.0, 30.0, 30.0), -20.0),
            ),
            (
                turned(upright(25.2, 22.3, 12.0, 8.0), 23.0),
                upright(26.0, 20.0, 30.0, 30.0),
            ),
        ];
        for (placement, clip) in cases {
            let enlarged = placement.width * 5.0 / 90.0;
            let filter = Filter::for_enlargement(enlarged);
            let mut fast = Canvas::new(area, 300).unwrap();
            let mut general = Canvas::new(area, 300).unwrap();
            fast.draw_transformed_image(&image, &placement, &clip, filter);
            tiny_skia_draw(&mut general, &image, &placement, &clip, filter);
            // Inside the drawn region, less 1.5 pixels all round, within one level.
            let region = transformed::intersect(&fast.corners(&placement), &fast.corners(&clip));
            let winding = transformed::signed_area(&region).signum();
            let inside = |x: f64, y: f64| {
                (0..region.len()).all(|i| {
                    let (a, b) = (region[i], region[(i + 1) % region.len()]);
                    let cross = (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0);
                    winding * cross / (b.0 - a.0).hypot(b.1 - a.1) > 1.5
                })
            };
            let compared = assert_within_one_level(
                &fast,
                &general,
                |x, y| inside(f64::from(x) + 0.5, f64::from(y) + 0.5),
                &format!("{filter:?} at {} degrees", placement.angle),
            );
            assert!(compared > 1_000, "{compared} pixels compared");
            // The edges cover exactly the region's area: the alpha drawn over a clear canvas
            // is its area times the image's alpha (160 in its left quarter, else 255), so
            // within those bounds, and within 0.2% of tiny-skia's.
            let (drawn_alpha, general_alpha) = (total_alpha(&fast), total_alpha(&general));
            let region_area = transformed::signed_area(&region).abs();
            assert!(drawn_alpha <= region_area * 1.001 && drawn_alpha >= region_area * 0.6);
            assert!(
                (drawn_alpha - general_alpha).abs() < general_alpha * 0.002,
                "{drawn_alpha} against {general_alpha}"
            );
        }
    }

    #[test]
    fn angles_are_quarter_turns_only_when_exactly_so_and_nonsense_or_slivers_draw_nothing() {
        for (angle, turns) in [
            (0.0, Some(0)),
            (-1e-20, Some(0)),
            (450.0, Some(1)),
            (-90.0, Some(3)),
            (89.999, None),
            (f64::NAN, None),
            (f64::INFINITY, None),
        ] {
            assert_eq!(quarter_turns(angle), turns, "{angle}");
        }
        let (area, image) = (CARD_AREA, test_image(90, 50));
        let clip = upright(30.0, 20.0, 40.0, 30.0);
        for placement in [
            BoundingBox {
                angle: f64::NAN,
                ..upright(30.0, 20.0, 50.0, 30.0)
            },
            upright(f64::NAN, 20.0, 50.0, 30.0),
            upright(30.0, 20.0, f64::INFINITY, 30.0),
            BoundingBox {
                angle: 5.0,
                ..upright(30.0, 20.0, 1e-12, 30.0)
            },
        ] {
            let mut canvas = Canvas::new(area, 300).unwrap();
            canvas.draw_transformed_image(&image, &placement, &clip, Filter::Bilinear);
            assert_eq!(total_alpha(&canvas), 0.0, "{placement:?}");
        }
        // An upright sliver covers at most its area, with either filter.
        for filter in [Filter::Bilinear, Filter::Bicubic] {
            let mut canvas = Canvas::new(area, 300).unwrap();
            let sliver = upright(30.0, 20.0, 1e-12, 30.0);
            canvas.draw_upright_image(&image, &sliver, &clip, filter);
            assert!(total_alpha(&canvas) < 1.0, "{filter:?}");
        }
    }
}
