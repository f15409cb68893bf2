//! Scene -> tiny-skia pixmap -> PNG.
//!
//! Determinism: the same scene gives the same bytes on every build (native, wasm). tiny-skia
//! and fontdue are built without their SIMD paths (approximate reciprocals differ from the
//! scalar code), angles go through `libm`, and glyphs are blended with integer arithmetic.

mod image;

use std::collections::HashMap;
use std::fmt;

use tiny_skia::{
    FillRule, FilterQuality, Mask, Paint, PathBuilder, Pixmap, PixmapPaint, PremultipliedColorU8,
    Rect, Stroke, Transform,
};

pub use image::{DecodedImage, ImageError, MAX_IMAGE_PIXELS, decode_image};

use crate::layout::{Scene, SceneGlyph, SceneItem};
use crate::model::BoundingBox;
use crate::text::{FaceId, FontBook};

/// Bounds of the longest side of an output image, in pixels.
pub const MIN_SIDE: u32 = 16;
pub const MAX_SIDE: u32 = 4096;

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

/// Rasterised glyphs by face, glyph and pixel size, kept across renders (an engine draws the
/// same few faces and sizes again and again). Cleared when it reaches its bound.
#[derive(Default)]
pub struct GlyphCache {
    glyphs: HashMap<(FaceId, u16, u32), GlyphBitmap>,
}

/// At most this many glyph bitmaps are cached (a few MB at card sizes).
const MAX_CACHED_GLYPHS: usize = 4096;

/// A rasterised glyph: its bitmap's offset from the pen position and its coverage.
struct GlyphBitmap {
    left: i32,
    top: i32,
    width: usize,
    height: usize,
    coverage: Vec<u8>,
}

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
        let pixmap =
            Pixmap::new(pixels(area.width), pixels(area.height)).ok_or(RasterError::EmptyArea)?;
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
                    let path = PathBuilder::from_rect(local_rect(area));
                    self.pixmap.fill_path(
                        &path,
                        &solid(*colour),
                        FillRule::Winding,
                        self.box_transform(area),
                        None,
                    );
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
                    self.pixmap
                        .stroke_path(&path, &solid(*colour), &stroke, transform, None);
                }
                SceneItem::Image {
                    resource_uri,
                    placement,
                    clip,
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
                } => self.draw_text(book, glyph_cache, area, *colour, *size, glyphs)?,
                SceneItem::RoundedCornerMask { area, radius } => {
                    if let Some(mask) = self.mask(&rounded_rect(area, *radius), area) {
                        self.pixmap.apply_mask(&mask);
                    }
                }
            }
        }
        Ok(())
    }

    /// Millimetres in the frame of `area` (origin at its centre, unrotated) to canvas pixels.
    fn box_transform(&self, area: &BoundingBox) -> Transform {
        let (sin, cos) = (
            libm::sin(area.angle.to_radians()),
            libm::cos(area.angle.to_radians()),
        );
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
        let source = image.at_least(target);
        let pixmap = source.pixmap();
        let (w, h) = (f64::from(pixmap.width()), f64::from(pixmap.height()));
        let transform = self
            .box_transform(placement)
            .pre_concat(Transform::from_row(
                (placement.width / w) as f32,
                0.0,
                0.0,
                (placement.height / h) as f32,
                (-placement.width / 2.0) as f32,
                (-placement.height / 2.0) as f32,
            ));
        let Some(mask) = self.mask(&Some(PathBuilder::from_rect(local_rect(clip))), clip) else {
            return;
        };
        // Bilinear unless the image is enlarged more than twice, where its blockiness would
        // show: bicubic is four times the taps and most of a photo render's time (shrinking
        // is by at most 2 after halving).
        let enlarged = (placement.width * self.scale / w).max(placement.height * self.scale / h);
        let paint = PixmapPaint {
            quality: if enlarged > 2.0 {
                FilterQuality::Bicubic
            } else {
                FilterQuality::Bilinear
            },
            ..PixmapPaint::default()
        };
        self.pixmap
            .draw_pixmap(0, 0, pixmap.as_ref(), &paint, transform, Some(&mask));
    }

    fn draw_text(
        &mut self,
        book: &FontBook,
        glyph_cache: &mut GlyphCache,
        area: &BoundingBox,
        colour: [u8; 3],
        size: f64,
        glyphs: &[SceneGlyph],
    ) -> Result<(), RasterError> {
        let px = (size * self.scale) as f32;
        let s = self.scale;
        let rotated = area.angle.rem_euclid(360.0) != 0.0;
        // Upright text is blended straight into the canvas at whole-pixel pen positions
        // (crisp), clipped to the box's pixels; rotated text goes through a rotated draw.
        let left = (area.center.x - area.width / 2.0 - self.area.left) * s;
        let top = (area.center.y - area.height / 2.0 - self.area.top) * s;
        let clip = PixelRect {
            left: libm::round(left) as i64,
            top: libm::round(top) as i64,
            right: libm::round(left + area.width * s) as i64,
            bottom: libm::round(top + area.height * s) as i64,
        }
        .intersect(self.pixmap.width(), self.pixmap.height());
        let mask = if rotated {
            self.mask(&Some(PathBuilder::from_rect(local_rect(area))), area)
        } else {
            None
        };
        let box_transform = self.box_transform(area);
        let pixmap = &mut self.pixmap;
        let cache = &mut glyph_cache.glyphs;
        if cache.len() + glyphs.len() > MAX_CACHED_GLYPHS {
            cache.clear();
        }
        for glyph in glyphs {
            let bitmap = match cache.entry((glyph.face, glyph.glyph, px.to_bits())) {
                std::collections::hash_map::Entry::Occupied(entry) => entry.into_mut(),
                std::collections::hash_map::Entry::Vacant(entry) => {
                    let (metrics, coverage) = book
                        .face(glyph.face)
                        .rasterise(glyph.glyph, px)
                        .map_err(|e| RasterError::Font(e.0))?;
                    entry.insert(GlyphBitmap {
                        left: metrics.xmin,
                        top: -(metrics.ymin + metrics.height as i32),
                        width: metrics.width,
                        height: metrics.height,
                        coverage,
                    })
                }
            };
            if bitmap.width == 0 || bitmap.height == 0 {
                continue;
            }
            if rotated {
                let pen_x = glyph.x - area.width / 2.0;
                let pen_y = glyph.baseline - area.height / 2.0;
                draw_rotated_glyph(
                    pixmap,
                    bitmap,
                    colour,
                    box_transform.pre_concat(Transform::from_row(
                        (1.0 / s) as f32,
                        0.0,
                        0.0,
                        (1.0 / s) as f32,
                        pen_x as f32,
                        pen_y as f32,
                    )),
                    mask.as_ref(),
                );
            } else {
                let x = libm::round(left + glyph.x * s) as i64 + i64::from(bitmap.left);
                let y = libm::round(top + glyph.baseline * s) as i64 + i64::from(bitmap.top);
                blend_glyph(pixmap, bitmap, colour, x, y, clip);
            }
        }
        Ok(())
    }

    /// The image as straight-alpha RGBA rows. Opaque and clear pixels are the same
    /// premultiplied or not, so only the rest are divided (rounding to nearest).
    pub fn rgba(&self) -> Vec<u8> {
        let mut out = self.pixmap.data().to_vec();
        for pixel in out.chunks_exact_mut(4) {
            let alpha = u32::from(pixel[3]);
            if alpha != 255 && alpha != 0 {
                for channel in &mut pixel[..3] {
                    *channel = ((u32::from(*channel) * 255 + alpha / 2) / alpha).min(255) as u8;
                }
            }
        }
        out
    }

    /// Encodes the canvas as an RGBA PNG with the fastest compression.
    pub fn encode_png(&self) -> Result<Vec<u8>, RasterError> {
        let data = self.pixmap.data();
        // Only partly transparent pixels differ between premultiplied and straight alpha.
        // (A branch-free scan: it vectorises, an early-exit `all` does not.)
        let mut partly_transparent = false;
        for pixel in data.chunks_exact(4) {
            partly_transparent |= pixel[3].wrapping_sub(1) < 254;
        }
        if partly_transparent {
            encode_png(
                self.width(),
                self.height(),
                png::ColorType::Rgba,
                &self.rgba(),
            )
        } else {
            encode_png(self.width(), self.height(), png::ColorType::Rgba, data)
        }
    }
}

/// Encodes 8-bit rows (e.g. straight-alpha RGBA) as a PNG with the fastest compression.
pub fn encode_png(
    width: u32,
    height: u32,
    colour: png::ColorType,
    rows: &[u8],
) -> Result<Vec<u8>, RasterError> {
    let mut out = Vec::with_capacity(rows.len() / 8);
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(colour);
    encoder.set_depth(png::BitDepth::Eight);
    // Up filter + fdeflate: the fastest setting, and small files for flat card artwork.
    encoder.set_compression(png::Compression::Fastest);
    let mut writer = encoder
        .write_header()
        .map_err(|e| RasterError::Encode(e.to_string()))?;
    writer
        .write_image_data(rows)
        .map_err(|e| RasterError::Encode(e.to_string()))?;
    writer
        .finish()
        .map_err(|e| RasterError::Encode(e.to_string()))?;
    Ok(out)
}

fn solid(colour: [u8; 3]) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color_rgba8(colour[0], colour[1], colour[2], 255);
    paint.anti_alias = true;
    paint
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

/// A rounded rectangle in the frame of `area`; cubic arcs with the usual 0.5523 handle.
fn rounded_rect(area: &BoundingBox, radius: f64) -> Option<tiny_skia::Path> {
    let (w, h) = (area.width as f32, area.height as f32);
    let r = (radius as f32).min(w / 2.0).min(h / 2.0);
    let (l, t, rt, b) = (-w / 2.0, -h / 2.0, w / 2.0, h / 2.0);
    let k = r * 0.552_284_8;
    let mut p = PathBuilder::new();
    p.move_to(l + r, t);
    p.line_to(rt - r, t);
    p.cubic_to(rt - r + k, t, rt, t + r - k, rt, t + r);
    p.line_to(rt, b - r);
    p.cubic_to(rt, b - r + k, rt - r + k, b, rt - r, b);
    p.line_to(l + r, b);
    p.cubic_to(l + r - k, b, l, b - r + k, l, b - r);
    p.line_to(l, t + r);
    p.cubic_to(l, t + r - k, l + r - k, t, l + r, t);
    p.close();
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

/// Source-over of an opaque colour at the glyph's coverage, inside `clip`.
fn blend_glyph(
    pixmap: &mut Pixmap,
    bitmap: &GlyphBitmap,
    colour: [u8; 3],
    x: i64,
    y: i64,
    clip: PixelRect,
) {
    let width = i64::from(pixmap.width());
    let pixels = pixmap.pixels_mut();
    for row in 0..bitmap.height {
        let py = y + row as i64;
        if py < clip.top || py >= clip.bottom {
            continue;
        }
        for column in 0..bitmap.width {
            let px = x + column as i64;
            if px < clip.left || px >= clip.right {
                continue;
            }
            let coverage = u32::from(bitmap.coverage[row * bitmap.width + column]);
            if coverage == 0 {
                continue;
            }
            let pixel = &mut pixels[(py * width + px) as usize];
            let keep = 255 - coverage;
            let blend = |src: u8, dst: u8| {
                (mul255(u32::from(src), coverage) + mul255(u32::from(dst), keep)) as u8
            };
            let out = PremultipliedColorU8::from_rgba(
                blend(colour[0], pixel.red()),
                blend(colour[1], pixel.green()),
                blend(colour[2], pixel.blue()),
                (coverage + mul255(u32::from(pixel.alpha()), keep)) as u8,
            );
            if let Some(out) = out {
                *pixel = out;
            }
        }
    }
}

fn draw_rotated_glyph(
    pixmap: &mut Pixmap,
    bitmap: &GlyphBitmap,
    colour: [u8; 3],
    pen: Transform,
    mask: Option<&Mask>,
) {
    let Some(mut glyph) = Pixmap::new(bitmap.width as u32, bitmap.height as u32) else {
        return;
    };
    for (pixel, &coverage) in glyph.pixels_mut().iter_mut().zip(&bitmap.coverage) {
        let c = u32::from(coverage);
        if let Some(p) = PremultipliedColorU8::from_rgba(
            mul255(u32::from(colour[0]), c) as u8,
            mul255(u32::from(colour[1]), c) as u8,
            mul255(u32::from(colour[2]), c) as u8,
            coverage,
        ) {
            *pixel = p;
        }
    }
    let paint = PixmapPaint {
        quality: FilterQuality::Bilinear,
        ..PixmapPaint::default()
    };
    pixmap.draw_pixmap(bitmap.left, bitmap.top, glyph.as_ref(), &paint, pen, mask);
}
