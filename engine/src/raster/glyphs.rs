//! Text on a canvas: glyphs rasterised by fontdue (cached across renders) and blended in
//! integers, upright at whole-pixel pen positions, or through tiny-skia when turned.

use std::collections::HashMap;

use tiny_skia::{
    FilterQuality, Mask, PathBuilder, Pixmap, PixmapPaint, PremultipliedColorU8, Transform,
};

use super::{
    Canvas, PixelRect, RasterError, from_lanes, is_upright, lanes, local_rect, mul255, mul255_lanes,
};
use crate::layout::SceneGlyph;
use crate::model::BoundingBox;
use crate::text::{FaceId, FontBook};

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

impl Canvas {
    pub(super) fn draw_text(
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
