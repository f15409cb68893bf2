//! Scene -> tiny-skia pixmap -> PNG.
//!
//! Determinism: the same scene gives the same bytes on every build (native, wasm). tiny-skia
//! and fontdue are built without their SIMD paths (approximate reciprocals differ from the
//! scalar code), angles go through `libm`, and glyphs are blended with integer arithmetic.

mod flat_deflate;
mod image;
mod transformed;
mod upright;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use tiny_skia::{
    FillRule, FilterQuality, IntSize, Mask, Paint, PathBuilder, Pixmap, PixmapPaint,
    PremultipliedColorU8, Rect, Stroke, Transform,
};

pub use image::{DecodedImage, Format, ImageError, MAX_IMAGE_PIXELS, decode_image};

use crate::layout::{PathStep, Scene, SceneGlyph, SceneItem};
use crate::model::BoundingBox;
use crate::text::{FaceId, FontBook};
use flat_deflate::FlatDeflate;
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
        let rotated = !is_upright(area);
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

/// A drawn image: premultiplied RGBA rows, as the canvas holds them. What leaves the wasm
/// module; the host encodes it natively (encoding is lossless and the same code, so the PNG
/// is the same bytes either way).
#[derive(Debug, Clone, Copy)]
pub struct Pixels<'a> {
    width: u32,
    height: u32,
    premultiplied: &'a [u8],
}

impl<'a> Pixels<'a> {
    /// Rows of a `width` x `height` image, checked: both sides within [`MAX_SIDE`] and
    /// exactly four bytes a pixel.
    pub fn new(
        width: u32,
        height: u32,
        premultiplied: &'a [u8],
    ) -> Result<Pixels<'a>, RasterError> {
        if width == 0 || height == 0 || width.max(height) > MAX_SIDE {
            return Err(RasterError::Encode(format!(
                "a {width} x {height} image: each side must be from 1 to {MAX_SIDE} pixels"
            )));
        }
        if premultiplied.len() != width as usize * height as usize * 4 {
            return Err(RasterError::Encode(format!(
                "{} bytes of pixels for a {width} x {height} image",
                premultiplied.len()
            )));
        }
        Ok(Pixels {
            width,
            height,
            premultiplied,
        })
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    pub fn premultiplied(&self) -> &'a [u8] {
        self.premultiplied
    }

    /// The image as straight-alpha RGBA rows: the canvas itself when no pixel is partly
    /// transparent (a card), as those are the same premultiplied or not.
    pub fn rgba(&self) -> Cow<'a, [u8]> {
        if !partly_transparent(self.premultiplied) {
            return Cow::Borrowed(self.premultiplied);
        }
        let mut out = self.premultiplied.to_vec();
        unpremultiply(&mut out);
        Cow::Owned(out)
    }

    /// Encodes the image as a PNG: RGB when every pixel is opaque (a card), else
    /// straight-alpha RGBA. Rows are converted one at a time as the encoder takes them, so
    /// the canvas is never copied whole. A card is read once: RGB is tried first, each row's
    /// alphas checked as it is converted, and the first row with any transparency abandons it.
    pub fn encode_png(&self) -> Result<Vec<u8>, RasterError> {
        let data = self.premultiplied;
        let width = self.width as usize;
        let row = |y: usize| &data[y * width * 4..][..width * 4];
        let settings = PngSettings::for_rows(data, width, 4);
        let rgb = write_png(
            self.width,
            self.height,
            png::ColorType::Rgb,
            settings,
            None,
            |y, out| drop_alpha(row(y), out) == 255,
        )?;
        if let Some(png) = rgb {
            return Ok(png);
        }
        let straighten = partly_transparent(data);
        let rgba = write_png(
            self.width,
            self.height,
            png::ColorType::Rgba,
            settings,
            None,
            |y, out| {
                out.copy_from_slice(row(y));
                if straighten {
                    unpremultiply(out);
                }
                true
            },
        )?;
        Ok(rgba.expect("RGBA rows are never abandoned"))
    }
}

/// RGBA pixels to RGB; returns the AND of their alphas, 255 when all are opaque. Four pixels
/// a step, in SIMD in the wasm builds (a shuffle), else as two words (a byte at a time is
/// several times slower under wasm).
fn drop_alpha(rgba: &[u8], rgb: &mut [u8]) -> u8 {
    let mut quads = rgba.chunks_exact(16);
    let mut out = rgb.chunks_exact_mut(12);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let mut alphas = drop_alpha_simd128(&mut quads, &mut out);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let mut alphas = drop_alpha_words(&mut quads, &mut out);
    for (pixel, out) in quads
        .remainder()
        .chunks_exact(4)
        .zip(out.into_remainder().chunks_exact_mut(3))
    {
        out.copy_from_slice(&pixel[..3]);
        alphas &= pixel[3];
    }
    alphas
}

type Quads<'a> = std::slice::ChunksExact<'a, u8>;
type RgbQuads<'a> = std::slice::ChunksExactMut<'a, u8>;

/// [`drop_alpha`] of whole groups of four pixels, as two little-endian words: the first
/// eight bytes out are pixel 0, pixel 1 and two bytes of pixel 2, the last four the rest.
#[cfg_attr(all(target_arch = "wasm32", target_feature = "simd128"), cfg(test))]
fn drop_alpha_words(quads: &mut Quads<'_>, out: &mut RgbQuads<'_>) -> u8 {
    let mut all = u64::MAX;
    for (quad, out) in quads.zip(out) {
        let first = u64::from_le_bytes(quad[..8].try_into().expect("two pixels"));
        let second = u64::from_le_bytes(quad[8..].try_into().expect("two pixels"));
        let head = first & 0xFF_FFFF | first >> 8 & 0xFFFF_FF00_0000 | second << 48;
        let tail = (second >> 16 & 0xFF | second >> 24 & 0xFFFF_FF00) as u32;
        out[..8].copy_from_slice(&head.to_le_bytes());
        out[8..].copy_from_slice(&tail.to_le_bytes());
        all &= first & second;
    }
    (all >> 24 & all >> 56) as u8
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn drop_alpha_simd128(quads: &mut Quads<'_>, out: &mut RgbQuads<'_>) -> u8 {
    use std::arch::wasm32::*;
    let mut all = u8x16_splat(255);
    for (quad, out) in quads.zip(out) {
        // SAFETY: the chunk is 16 bytes; wasm loads may be unaligned.
        let pixels = unsafe { v128_load(quad.as_ptr().cast()) };
        all = v128_and(all, pixels);
        let rgb = i8x16_swizzle(
            pixels,
            i8x16(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1),
        );
        out[..8].copy_from_slice(&u64x2_extract_lane::<0>(rgb).to_le_bytes());
        out[8..].copy_from_slice(&u32x4_extract_lane::<2>(rgb).to_le_bytes());
    }
    let all = u32x4_extract_lane::<0>(all)
        & u32x4_extract_lane::<1>(all)
        & u32x4_extract_lane::<2>(all)
        & u32x4_extract_lane::<3>(all);
    (all >> 24) as u8
}

/// Premultiplied RGBA to straight alpha, in place. Opaque and clear pixels are the same
/// either way, so only the rest are divided (rounding to nearest).
fn unpremultiply(rgba: &mut [u8]) {
    for pixel in rgba.chunks_exact_mut(4) {
        let alpha = u32::from(pixel[3]);
        if alpha != 255 && alpha != 0 {
            for channel in &mut pixel[..3] {
                *channel = ((u32::from(*channel) * 255 + alpha / 2) / alpha).min(255) as u8;
            }
        }
    }
}

/// The high byte of each of two RGBA pixels in a little-endian word: their alphas.
const ALPHAS: u64 = 0xFF00_0000_FF00_0000;

/// Whether any premultiplied RGBA pixel is neither opaque nor clear: only those differ
/// between premultiplied and straight alpha. Two pixels a word, branch-free, so it
/// vectorises: alpha + 1 keeps a bit above its lowest only for alpha 1 to 254 (255 carries
/// out of its byte, into the next pixel's red or out of the word, and the mask drops it).
fn partly_transparent(data: &[u8]) -> bool {
    const ONE: u64 = 0x0100_0000_0100_0000;
    const ABOVE_ONE: u64 = 0xFE00_0000_FE00_0000;
    let words = data.chunks_exact(8);
    let last = words.remainder();
    let mut found = 0u64;
    for word in words {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        found |= (word & ALPHAS).wrapping_add(ONE) & ABOVE_ONE;
    }
    found != 0
        || last
            .chunks_exact(4)
            .any(|pixel| pixel[3].wrapping_sub(1) < 254)
}

/// How a PNG's rows are filtered and compressed, chosen per image. Flat artwork (fills and
/// text: most pixels repeat their left neighbour or the pixel above) is left unfiltered for
/// [`FlatDeflate`], which looks for exactly those repeats; photos take adaptive filters and
/// fdeflate's fast coder. Measured on 1024 px business card sides (docs/benchmarks.md,
/// "Render speed"): the text side is as small as zlib's level 1 makes it and takes a fraction
/// of its time; a photo side unfiltered would be larger and slower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PngSettings {
    Flat,
    Photo,
}

impl PngSettings {
    /// Reads every eighth row of `width` pixels of `bytes_per_pixel` bytes: flat when at least
    /// three quarters of their bytes equal the same byte of the pixel to their left. Bytes,
    /// not pixels: the comparison vectorises, where comparing pixels as slices calls memcmp,
    /// a byte loop under wasm.
    fn for_rows(rows: &[u8], width: usize, bytes_per_pixel: usize) -> PngSettings {
        let row_bytes = width * bytes_per_pixel;
        let (mut same, mut compared) = (0usize, 0usize);
        for row in rows.chunks_exact(row_bytes.max(1)).step_by(8) {
            let left = &row[..row_bytes - bytes_per_pixel];
            same += row[bytes_per_pixel..]
                .iter()
                .zip(left)
                .filter(|(byte, left)| byte == left)
                .count();
            compared += left.len();
        }
        if same * 4 >= compared * 3 {
            PngSettings::Flat
        } else {
            PngSettings::Photo
        }
    }
}

/// Encodes 8-bit rows (RGB, straight-alpha RGBA, grey) as a PNG, settings chosen from the
/// rows themselves.
pub fn encode_png(
    width: u32,
    height: u32,
    colour: png::ColorType,
    rows: &[u8],
) -> Result<Vec<u8>, RasterError> {
    encode_png_in(width, height, colour, rows, None)
}

/// [`encode_png`], the rows' colours in `icc_profile` (an `iCCP` chunk) when given.
pub fn encode_png_in(
    width: u32,
    height: u32,
    colour: png::ColorType,
    rows: &[u8],
    icc_profile: Option<&[u8]>,
) -> Result<Vec<u8>, RasterError> {
    let row_bytes = width as usize * colour.samples();
    if rows.len() != row_bytes * height as usize {
        return Err(RasterError::Encode(format!(
            "{} bytes of rows for a {width} x {height} image of {} bytes a pixel",
            rows.len(),
            colour.samples()
        )));
    }
    let settings = PngSettings::for_rows(rows, width as usize, colour.samples());
    let png = write_png(width, height, colour, settings, icc_profile, |y, row| {
        row.copy_from_slice(&rows[y * row_bytes..][..row_bytes]);
        true
    })?;
    Ok(png.expect("rows are never abandoned"))
}

/// Writes a PNG whose row `y` `fill_row(y, row)` puts in `row`, one row at a time; `None`
/// when `fill_row` abandons it by returning false.
fn write_png(
    width: u32,
    height: u32,
    colour: png::ColorType,
    settings: PngSettings,
    icc_profile: Option<&[u8]>,
    mut fill_row: impl FnMut(usize, &mut [u8]) -> bool,
) -> Result<Option<Vec<u8>>, RasterError> {
    let encode_error = |e: png::EncodingError| RasterError::Encode(e.to_string());
    let row_bytes = width as usize * colour.samples();
    let mut out = Vec::with_capacity(row_bytes * height as usize / 8);
    let mut info = png::Info::with_size(width, height);
    info.icc_profile = icc_profile.map(std::borrow::Cow::Borrowed);
    let mut encoder = png::Encoder::with_info(&mut out, info).map_err(encode_error)?;
    encoder.set_color(colour);
    encoder.set_depth(png::BitDepth::Eight);
    // IDAT chunks of up to 1 MiB: few chunk headers, a bounded buffer.
    const IDAT_BYTES: usize = 1 << 20;
    let flat = match settings {
        PngSettings::Flat => FlatDeflate::new(row_bytes, colour.samples()),
        PngSettings::Photo => None,
    };
    if let Some(mut coder) = flat {
        let mut writer = encoder.write_header().map_err(encode_error)?;
        for y in 0..height as usize {
            if !fill_row(y, coder.next_row()) {
                return Ok(None);
            }
            coder.push_row();
        }
        for chunk in coder.finish().chunks(IDAT_BYTES) {
            writer
                .write_chunk(png::chunk::IDAT, chunk)
                .map_err(encode_error)?;
        }
        writer.finish().map_err(encode_error)?;
        return Ok(Some(out));
    }
    encoder.set_deflate_compression(png::DeflateCompression::FdeflateUltraFast);
    encoder.set_filter(png::Filter::Adaptive);
    let mut writer = encoder.write_header().map_err(encode_error)?;
    let mut stream = writer
        .stream_writer_with_size(IDAT_BYTES)
        .map_err(encode_error)?;
    let mut row = vec![0; row_bytes];
    for y in 0..height as usize {
        if !fill_row(y, &mut row) {
            return Ok(None);
        }
        std::io::Write::write_all(&mut stream, &row)
            .map_err(|e| RasterError::Encode(e.to_string()))?;
    }
    stream.finish().map_err(encode_error)?;
    writer.finish().map_err(encode_error)?;
    Ok(Some(out))
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

/// Source-over of an opaque colour at the glyph's coverage, inside `clip`. Clear coverage
/// leaves a pixel as it is, and the result is always a valid premultiplied pixel, so the
/// inner loop has no branches.
fn blend_glyph(
    pixmap: &mut Pixmap,
    bitmap: &GlyphBitmap,
    colour: [u8; 3],
    x: i64,
    y: i64,
    clip: PixelRect,
) {
    let width = i64::from(pixmap.width());
    // The glyph's own rows and columns that land inside the clip.
    let rows = (clip.top - y).max(0)..(clip.bottom - y).min(bitmap.height as i64);
    let columns = (clip.left - x).max(0)..(clip.right - x).min(bitmap.width as i64);
    if rows.is_empty() || columns.is_empty() {
        return;
    }
    let data = pixmap.data_mut();
    for row in rows {
        let line = row as usize * bitmap.width;
        let coverage = &bitmap.coverage[line + columns.start as usize..line + columns.end as usize];
        let start = (((y + row) * width + x + columns.start) * 4) as usize;
        blend_coverage_row(
            &mut data[start..start + coverage.len() * 4],
            coverage,
            colour,
        );
    }
}

/// One row of [`blend_glyph`]: each pixel of `pixels` source-over the opaque `colour` at its
/// `coverage`. In the wasm builds with SIMD, four pixels a step in 16-bit lanes (a glyph
/// pixel a step cost a third more under wasmtime than natively, most of it the call time
/// limit's check at every step); the same integers as the scalar lanes.
fn blend_coverage_row(pixels: &mut [u8], coverage: &[u8], colour: [u8; 3]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let (pixels, coverage) = {
        let fours = coverage.len() / 4;
        blend_coverage_simd128(&mut pixels[..fours * 16], &coverage[..fours * 4], colour);
        (&mut pixels[fours * 16..], &coverage[fours * 4..])
    };
    blend_coverage_scalar(pixels, coverage, colour);
}

fn blend_coverage_scalar(pixels: &mut [u8], coverage: &[u8], colour: [u8; 3]) {
    let colour = lanes([colour[0], colour[1], colour[2], 255]);
    for (pixel, &coverage) in pixels.chunks_exact_mut(4).zip(coverage) {
        let coverage = u32::from(coverage);
        let under = lanes(pixel.try_into().expect("four bytes"));
        // Each lane: colour x coverage + pixel x (1 - coverage), at most 255.
        let over = mul255_lanes(colour, coverage) + mul255_lanes(under, 255 - coverage);
        pixel.copy_from_slice(&from_lanes(over));
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn blend_coverage_simd128(pixels: &mut [u8], coverage: &[u8], [r, g, b]: [u8; 3]) {
    use std::arch::wasm32::*;
    let colour = u16x8(
        r.into(),
        g.into(),
        b.into(),
        255,
        r.into(),
        g.into(),
        b.into(),
        255,
    );
    let full = u16x8_splat(255);
    // mul255 in each lane: a x b + 128 is at most 65153, its sum with its high byte 65407,
    // so 16 bits hold every step exactly.
    let mul255 = |a: v128, b: v128| {
        let x = u16x8_add(i16x8_mul(a, b), u16x8_splat(128));
        u16x8_shr(u16x8_add(x, u16x8_shr(x, 8)), 8)
    };
    let over = |under: v128, coverage: v128| {
        u16x8_add(
            mul255(colour, coverage),
            mul255(under, u16x8_sub(full, coverage)),
        )
    };
    for (four, four_coverage) in pixels.chunks_exact_mut(16).zip(coverage.chunks_exact(4)) {
        // SAFETY: 16 bytes of `four` and 4 of `four_coverage` are read, 16 written; wasm
        // loads and stores may be unaligned.
        unsafe {
            let under = v128_load(four.as_ptr().cast());
            // Each pixel's coverage in its four channels.
            let spread = i8x16_swizzle(
                v128_load32_zero(four_coverage.as_ptr().cast()),
                i8x16(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3),
            );
            let low = over(
                u16x8_extend_low_u8x16(under),
                u16x8_extend_low_u8x16(spread),
            );
            let high = over(
                u16x8_extend_high_u8x16(under),
                u16x8_extend_high_u8x16(spread),
            );
            // Every lane is at most 255: the narrowing keeps it.
            v128_store(four.as_mut_ptr().cast(), u8x16_narrow_i16x8(low, high));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Point;

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

    #[test]
    fn alpha_scans_tell_opaque_partly_transparent_and_clear_apart() {
        for pixels in [2usize, 3, 5, 8] {
            for lane in 0..pixels {
                for alpha in 0..=255u8 {
                    let mut data = vec![7u8; pixels * 4];
                    for (i, pixel) in data.chunks_exact_mut(4).enumerate() {
                        pixel[3] = if i == lane { alpha } else { 255 };
                    }
                    let case = format!("{pixels} px, {lane}, {alpha}");
                    let mut rgb = vec![0; pixels * 3];
                    assert_eq!(drop_alpha(&data, &mut rgb) == 255, alpha == 255, "{case}");
                    assert_eq!(
                        partly_transparent(&data),
                        alpha != 0 && alpha != 255,
                        "{case}"
                    );
                }
            }
        }
    }

    /// Decodes a PNG to its colour type and rows, untransformed.
    fn decoded(png_bytes: &[u8]) -> (png::ColorType, Vec<u8>) {
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut rows = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut rows).unwrap();
        rows.truncate(info.buffer_size());
        (info.color_type, rows)
    }

    #[test]
    fn dropping_alpha_keeps_each_pixels_colour_and_ands_the_alphas() {
        let mut random = pseudo_random(11);
        for pixels in 0..=13usize {
            for _ in 0..50 {
                let rgba: Vec<u8> = (0..pixels * 4)
                    .map(|i| {
                        if i % 4 == 3 && random(2) == 0 {
                            255
                        } else {
                            random(256) as u8
                        }
                    })
                    .collect();
                let mut rgb = vec![0; pixels * 3];
                let alphas = drop_alpha(&rgba, &mut rgb);
                let expected: Vec<u8> = rgba
                    .chunks_exact(4)
                    .flat_map(|p| [p[0], p[1], p[2]])
                    .collect();
                assert_eq!(rgb, expected, "{pixels} px");
                let and = rgba.chunks_exact(4).fold(255, |all, p| all & p[3]);
                assert_eq!(alphas, and, "{pixels} px");
            }
        }
    }

    #[test]
    fn opaque_images_are_encoded_without_alpha_and_the_rest_with_straight_alpha() {
        let (width, height) = (37u32, 23u32);
        let opaque_pixels: Vec<u8> = (0..width * height)
            .flat_map(|i| [(i % 251) as u8, (i * 7 % 256) as u8, 90, 255])
            .collect();
        let png_bytes = Pixels::new(width, height, &opaque_pixels)
            .unwrap()
            .encode_png()
            .unwrap();
        let (colour, rows) = decoded(&png_bytes);
        assert_eq!(colour, png::ColorType::Rgb);
        let rgb: Vec<u8> = opaque_pixels
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        assert_eq!(rows, rgb);

        // One half-transparent pixel: RGBA, divided by its alpha.
        let mut translucent = opaque_pixels.clone();
        translucent[..4].copy_from_slice(&[50, 25, 0, 128]);
        let png_bytes = Pixels::new(width, height, &translucent)
            .unwrap()
            .encode_png()
            .unwrap();
        let (colour, rows) = decoded(&png_bytes);
        assert_eq!(colour, png::ColorType::Rgba);
        assert_eq!(rows[..4], [100, 50, 0, 128]);
        assert_eq!(rows[4..], translucent[4..]);

        // Transparency only in the last pixel, found after every other row was coded as RGB:
        // a photo and flat artwork both come out RGBA.
        let white = vec![255u8; (width * height * 4) as usize];
        for (pixels, settings) in [
            (&opaque_pixels, PngSettings::Photo),
            (&white, PngSettings::Flat),
        ] {
            assert_eq!(PngSettings::for_rows(pixels, width as usize, 4), settings);
            let mut late = pixels.clone();
            let last = late.len() - 4;
            late[last..].copy_from_slice(&[0, 0, 0, 0]);
            let png_bytes = Pixels::new(width, height, &late)
                .unwrap()
                .encode_png()
                .unwrap();
            assert_eq!(
                decoded(&png_bytes),
                (png::ColorType::Rgba, late),
                "{settings:?}"
            );
        }
    }

    #[test]
    fn flat_artwork_and_photos_get_their_own_png_settings() {
        let (width, height) = (64usize, 32usize);
        // A white card with a dark line of text: mostly repeats.
        let flat: Vec<u8> = (0..width * height)
            .flat_map(|i| {
                if i % width > 40 && i / width == 8 {
                    [0, 0, 0]
                } else {
                    [255; 3]
                }
            })
            .collect();
        assert_eq!(PngSettings::for_rows(&flat, width, 3), PngSettings::Flat);
        // Noise: no pixel repeats its neighbour.
        let noisy: Vec<u8> = (0..width * height * 3)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        assert_eq!(PngSettings::for_rows(&noisy, width, 3), PngSettings::Photo);
        // Both round-trip.
        for rows in [&flat, &noisy] {
            let png_bytes =
                encode_png(width as u32, height as u32, png::ColorType::Rgb, rows).unwrap();
            assert_eq!(decoded(&png_bytes), (png::ColorType::Rgb, rows.clone()));
        }
    }

    #[test]
    fn rows_of_the_wrong_length_are_an_error() {
        let error = encode_png(4, 4, png::ColorType::Rgb, &[0; 47]).unwrap_err();
        assert!(error.to_string().contains("47 bytes"), "{error}");
    }
}
