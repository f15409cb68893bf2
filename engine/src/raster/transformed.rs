//! Images turned by any angle, or in a turned clip, sampled in integers like the upright
//! path: no canvas-sized mask and no float pipeline. The region drawn is the image's
//! parallelogram cut by the clip's (both convex), its edge pixels anti-aliased by the exact
//! area they cover; each pixel inside samples the image at its centre, stepping through the
//! source in 32.32 fixed point, a row at a time, and the row is copied onto the canvas where
//! the image is opaque.

use std::ops::Range;

use tiny_skia::Pixmap;

use super::upright::{CUBIC_ONE, Filter, bicubic_weights, blend_over, premultiplied};
use super::{from_lanes, lanes};

/// A point in canvas pixels.
pub(super) type Point = (f64, f64);

/// Where a canvas point falls in the image, in source pixels (pixel `i` spans `[i, i + 1)`):
/// `origin` is canvas `(0, 0)`'s, `across` and `down` the steps for one canvas pixel right
/// and down.
#[derive(Debug, Clone, Copy)]
pub(super) struct ToSource {
    pub origin: Point,
    pub across: Point,
    pub down: Point,
}

/// Fixed point with 32 fractional bits: a 4096 px row of steps drifts by under 10^-6 px.
const FIXED_ONE: f64 = (1u64 << 32) as f64;

/// Draws `image` source-over through `to_source`, inside the convex `region` (canvas pixels,
/// either winding).
pub(super) fn draw_transformed(
    canvas: &mut Pixmap,
    image: &Pixmap,
    filter: Filter,
    to_source: ToSource,
    region: &[Point],
) {
    let (width, height) = (canvas.width(), canvas.height());
    let Some(region) = cut_to_canvas(region, width, height) else {
        return;
    };
    let fixed = |v: f64| libm::round(v * FIXED_ONE) as i64;
    // Pixel centres sample half a pixel in; source pixel centres are at i + 0.5.
    let at = |(x, y): Point| {
        let (ox, oy) = to_source.origin;
        (
            ox + to_source.across.0 * x + to_source.down.0 * y - 0.5,
            oy + to_source.across.1 * x + to_source.down.1 * y - 0.5,
        )
    };
    let step = (fixed(to_source.across.0), fixed(to_source.across.1));
    let top = region.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let bottom = region.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    let sampler = Sampler::new(image, filter);
    let mut sampled = Vec::new();
    let canvas_width = width as usize;
    let data = canvas.data_mut();
    for y in libm::floor(top) as usize..libm::ceil(bottom) as usize {
        let row = y as f64;
        let band = clip(&clip(&region, |p| p.1 - row), |p| row + 1.0 - p.1);
        if band.len() < 3 {
            continue;
        }
        let left = band.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
        let right = band.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
        let (start, end) = (libm::floor(left) as usize, libm::ceil(right) as usize);
        // Pixels whose whole square is inside: the region is convex, so its span at the
        // band's top and bottom edges bounds them.
        let whole = match (span_at(&region, row), span_at(&region, row + 1.0)) {
            (Some(upper), Some(lower)) => {
                let (low, high) = (upper.0.max(lower.0), upper.1.min(lower.1));
                // Pixels x with low <= x and x + 1 <= high; empty when high < low.
                let first = (libm::ceil(low).max(0.0) as usize).clamp(start, end);
                first..(libm::floor(high).max(0.0) as usize).clamp(first, end)
            }
            _ => start..start,
        };
        let first = at((start as f64 + 0.5, row + 0.5));
        let first = (fixed(first.0), fixed(first.1));
        let source_at = |x: usize| steps_on(first, step, x - start);
        let line = &mut data[(y * canvas_width + start) * 4..(y * canvas_width + end) * 4];
        // The edge pixels, each at the area of its square inside the region.
        for x in (start..whole.start).chain(whole.end..end) {
            let column = x as f64;
            let pixel = clip(&clip(&band, |p| p.0 - column), |p| column + 1.0 - p.0);
            let coverage = libm::round(area(&pixel) * 65536.0).min(65536.0) as u32;
            if coverage > 0 {
                let sample = lanes(sampler.sample(source_at(x)));
                blend_over(&mut line[(x - start) * 4..][..4], sample, coverage);
            }
        }
        // The pixels inside, sampled as a row and copied where opaque (most of a photo).
        sampled.resize(whole.len() * 4, 0);
        let opaque = sampler.sample_row(source_at(whole.start), step, &mut sampled);
        let inside = &mut line[(whole.start - start) * 4..(whole.end - start) * 4];
        if opaque {
            inside.copy_from_slice(&sampled);
        } else {
            for (out, pixel) in inside.chunks_exact_mut(4).zip(sampled.chunks_exact(4)) {
                blend_over(out, lanes(pixel.try_into().expect("four bytes")), 1 << 16);
            }
        }
    }
}

/// The fixed-point source coordinates `n` steps of `step` on from `origin`. Wrapping: a
/// sliver of an image (a box a hair wide) has steps near the fixed point's range, and its
/// pixels cover nothing anyway.
fn steps_on((u, v): (i64, i64), step: (i64, i64), n: usize) -> (i64, i64) {
    let n = n as i64;
    (
        u.wrapping_add(step.0.wrapping_mul(n)),
        v.wrapping_add(step.1.wrapping_mul(n)),
    )
}

/// The image's pixels sampled at fixed-point source coordinates, clamped to its edges as
/// tiny-skia pads. A row's bilinear samples away from the image's edges need no clamping
/// and take their own loop (with the row copied where opaque, a turned photo in 0.6x the
/// time: docs/benchmarks.md); the rest match the filter per pixel.
struct Sampler<'a> {
    pixels: &'a [u8],
    width: i64,
    height: i64,
    filter: Filter,
}

impl Sampler<'_> {
    fn new(image: &Pixmap, filter: Filter) -> Sampler<'_> {
        Sampler {
            pixels: image.data(),
            width: i64::from(image.width()),
            height: i64::from(image.height()),
            filter,
        }
    }

    /// Whether bilinear sampling at `(u, v)` reads only pixels inside the image (no clamping).
    fn pairs_inside(&self, (u, v): (i64, i64)) -> bool {
        let (column, row) = (u >> 32, v >> 32);
        column >= 0 && row >= 0 && column + 1 < self.width && row + 1 < self.height
    }

    /// The samples of a row of pixels, the first at `(u, v)` and each next `step` on, into
    /// `out` (four bytes each): whether all are opaque. Bilinear samples whose four pixels
    /// are all inside the image (most of a turned photo) take a loop without clamping or
    /// bounds checks; those by its edges clamp, pixel by pixel.
    fn sample_row(&self, (u, v): (i64, i64), step: (i64, i64), out: &mut [u8]) -> bool {
        let pixels = out.len() / 4;
        let inside = match self.filter {
            Filter::Bilinear => {
                let across = steps_within(u, step.0, (self.width - 1) << 32, pixels);
                let down = steps_within(v, step.1, (self.height - 1) << 32, pixels);
                let first = across.start.max(down.start);
                first..across.end.min(down.end).max(first)
            }
            Filter::Bicubic => 0..0,
        };
        let mut alpha = 255;
        for n in (0..inside.start).chain(inside.end..pixels) {
            let pixel = self.sample(steps_on((u, v), step, n));
            alpha &= pixel[3];
            out[n * 4..][..4].copy_from_slice(&pixel);
        }
        let out = &mut out[inside.start * 4..inside.end * 4];
        alpha & self.bilinear_inside(steps_on((u, v), step, inside.start), step, out) == 255
    }

    /// Bilinear samples from `(u, v)`, `step` apart, whose pixels are all inside the image
    /// (see [`steps_within`]), into `out`: their alphas ANDed. Two at a time in the wasm
    /// builds' SIMD.
    fn bilinear_inside(&self, (mut u, mut v): (i64, i64), step: (i64, i64), out: &mut [u8]) -> u8 {
        let row_bytes = self.width as usize * 4;
        // The pair of pixels at `(u, v)` and the pair a row below it.
        let pairs = |u: i64, v: i64| -> (&[u8; 8], &[u8; 8]) {
            let at = (v >> 32) as usize * row_bytes + (u >> 32) as usize * 4;
            debug_assert!(at + row_bytes + 8 <= self.pixels.len());
            // SAFETY: the pixel at `(u, v)` and its right and lower neighbours are inside
            // the image (the caller's `steps_within`): 8 bytes at `at` and a row below it.
            unsafe {
                let pair = self.pixels.as_ptr().add(at);
                (&*pair.cast(), &*pair.add(row_bytes).cast())
            }
        };
        let mut alpha = 255;
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        let out = {
            let (twos, rest) = out.split_at_mut(out.len() / 8 * 8);
            for out in twos.chunks_exact_mut(8) {
                let (next_u, next_v) = (u + step.0, v + step.1);
                let (first, second) = (pairs(u, v), pairs(next_u, next_v));
                let pixels = bilinear_two_simd128(
                    [first.0, second.0],
                    [first.1, second.1],
                    [bilinear_weight(u), bilinear_weight(next_u)],
                    [bilinear_weight(v), bilinear_weight(next_v)],
                );
                alpha &= pixels[3] & pixels[7];
                out.copy_from_slice(&pixels);
                // Wrapping: one step past the last sample may leave the range.
                u = next_u.wrapping_add(step.0);
                v = next_v.wrapping_add(step.1);
            }
            rest
        };
        for out in out.chunks_exact_mut(4) {
            let (top, bottom) = pairs(u, v);
            let pixel = bilinear(top, bottom, bilinear_weight(u), bilinear_weight(v));
            alpha &= pixel[3];
            out.copy_from_slice(&pixel);
            u = u.wrapping_add(step.0);
            v = v.wrapping_add(step.1);
        }
        alpha
    }

    /// The sample at source coordinates `(u, v)`, fixed point, relative to pixel centres:
    /// premultiplied bytes.
    fn sample(&self, (u, v): (i64, i64)) -> [u8; 4] {
        const FRACTION: i64 = (1 << 32) - 1;
        let fraction = |c: i64| (c & FRACTION) as f64 / FIXED_ONE;
        let (column, row) = (u >> 32, v >> 32);
        let clamped = |c: i64, limit: i64| c.clamp(0, limit - 1) as usize;
        let row_bytes = self.width as usize * 4;
        let line = |r: i64| &self.pixels[clamped(r, self.height) * row_bytes..][..row_bytes];
        match self.filter {
            Filter::Bilinear => {
                let (wx, wy) = (bilinear_weight(u), bilinear_weight(v));
                if self.pairs_inside((u, v)) {
                    // The four pixels are two pairs of neighbours: 8 bytes from each row.
                    let at = row as usize * row_bytes + column as usize * 4;
                    let pair = |at: usize| -> &[u8; 8] {
                        self.pixels[at..at + 8].try_into().expect("two pixels")
                    };
                    return bilinear(pair(at), pair(at + row_bytes), wx, wy);
                }
                let [first, second] = [column, column + 1].map(|c| clamped(c, self.width) * 4);
                let pairs = [row, row + 1].map(|r| {
                    let line = line(r);
                    let mut pair = [0; 8];
                    pair[..4].copy_from_slice(&line[first..first + 4]);
                    pair[4..].copy_from_slice(&line[second..second + 4]);
                    pair
                });
                bilinear(&pairs[0], &pairs[1], wx, wy)
            }
            Filter::Bicubic => {
                let across = bicubic_weights(fraction(u)).map(|w| i64::from(w as i32));
                let down = bicubic_weights(fraction(v)).map(|w| i64::from(w as i32));
                let mut channels = [0i64; 4];
                for (dy, weight_down) in (-1..=2).zip(down) {
                    let line = line(row + dy);
                    for (dx, weight_across) in (-1..=2).zip(across) {
                        let x = clamped(column + dx, self.width) * 4;
                        for (channel, &value) in channels.iter_mut().zip(&line[x..x + 4]) {
                            *channel += weight_down * weight_across * i64::from(value);
                        }
                    }
                }
                let whole = CUBIC_ONE * CUBIC_ONE;
                from_lanes(premultiplied(
                    channels.map(|c| ((c + whole / 2) / whole) as i32),
                ))
            }
        }
    }
}

/// The bilinear weight of the second pixel of a pair, of 256, rounded, for a fixed-point
/// coordinate: its fraction's top 8 bits, plus its ninth.
#[inline(always)]
fn bilinear_weight(c: i64) -> u32 {
    (((c & ((1 << 32) - 1)) + (1 << 23)) >> 24) as u32
}

/// The steps `n` below `count` at which `start + n * step` (fixed point, no wrapping) lies in
/// `[0, limit)`: a range, as the coordinate moves in one direction.
fn steps_within(start: i64, step: i64, limit: i64, count: usize) -> Range<usize> {
    let (start, step, limit) = (i128::from(start), i128::from(step), i128::from(limit));
    let floor_div = |a: i128, b: i128| a.div_euclid(b);
    let ceil_div = |a: i128, b: i128| -(-a).div_euclid(b);
    let (first, end) = match step.signum() {
        0 if 0 <= start && start < limit => (0, count as i128),
        0 => (0, 0),
        // start + n * step >= 0 and < limit.
        1 => (ceil_div(-start, step), ceil_div(limit - start, step)),
        // Moving down: n <= start / |step| keeps it >= 0, n > (start - limit) / |step| below
        // the limit.
        _ => (
            floor_div(start - limit, -step) + 1,
            floor_div(start, -step) + 1,
        ),
    };
    let clamp = |n: i128| n.clamp(0, count as i128) as usize;
    let first = clamp(first);
    first..clamp(end).max(first)
}

/// Bilinear sampling of two pairs of neighbouring pixels (`top`, then `bottom` a row down),
/// the right one of each at `wx` of 256 and the lower pair at `wy`: across, then down, each
/// rounded to 8 bits, so every sum fits 16-bit lanes (half the multiplies of keeping the sums
/// whole, and within a level of it). The pixel's bytes. With SIMD where the target has it
/// (SSE2 on every x86-64, `simd128` in the wasm builds): the same integers as the scalar
/// sums, in a handful of instructions.
#[inline(always)]
fn bilinear(top: &[u8; 8], bottom: &[u8; 8], wx: u32, wy: u32) -> [u8; 4] {
    #[cfg(target_arch = "x86_64")]
    {
        bilinear_sse2(top, bottom, wx, wy)
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        bilinear_simd128(top, bottom, wx, wy)
    }
    #[cfg(not(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )))]
    {
        bilinear_scalar(top, bottom, wx, wy)
    }
}

#[cfg_attr(
    any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ),
    cfg(test)
)]
fn bilinear_scalar(top: &[u8; 8], bottom: &[u8; 8], wx: u32, wy: u32) -> [u8; 4] {
    // Each 16-bit lane (at most 255 x 256) divided by 256, rounded.
    let rounded_of_256 = |lanes: u64| (lanes + 0x0080_0080_0080_0080) >> 8 & 0x00FF_00FF_00FF_00FF;
    let (wx, wy) = (u64::from(wx), u64::from(wy));
    let across = |pair: &[u8; 8]| {
        let pixel = |x: usize| lanes(pair[x..x + 4].try_into().expect("four bytes"));
        rounded_of_256(pixel(0) * (256 - wx) + pixel(4) * wx)
    };
    from_lanes(rounded_of_256(
        across(top) * (256 - wy) + across(bottom) * wy,
    ))
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn bilinear_sse2(top: &[u8; 8], bottom: &[u8; 8], wx: u32, wy: u32) -> [u8; 4] {
    use std::arch::x86_64::*;
    // The left pixel's four lanes at 256 - w, the right one's at w.
    let weights = |w: u32| (u64::from(256 - w) * LANES, u64::from(w) * LANES);
    // SAFETY: SSE2 is part of x86-64; each load reads the 8 bytes of its array, unaligned.
    unsafe {
        let zero = _mm_setzero_si128();
        let widen = |pair: &[u8; 8]| _mm_unpacklo_epi8(_mm_loadl_epi64(pair.as_ptr().cast()), zero);
        let (left, right) = weights(wx);
        let across = _mm_set_epi64x(right as i64, left as i64);
        // Products and sums stay within 255 x 256: 16-bit lanes hold them.
        let top = _mm_mullo_epi16(widen(top), across);
        let bottom = _mm_mullo_epi16(widen(bottom), across);
        // The top row's sums in the low half, the bottom row's in the high half.
        let sums = _mm_add_epi16(
            _mm_unpacklo_epi64(top, bottom),
            _mm_unpackhi_epi64(top, bottom),
        );
        let rows = _mm_srli_epi16(_mm_add_epi16(sums, _mm_set1_epi16(0x80)), 8);
        let (upper, lower) = weights(wy);
        let down = _mm_mullo_epi16(rows, _mm_set_epi64x(lower as i64, upper as i64));
        let sum = _mm_add_epi16(down, _mm_unpackhi_epi64(down, down));
        let pixel = _mm_srli_epi16(_mm_add_epi16(sum, _mm_set1_epi16(0x80)), 8);
        // Each lane is at most 255: packing to bytes keeps it.
        (_mm_cvtsi128_si32(_mm_packus_epi16(pixel, pixel)) as u32).to_le_bytes()
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn bilinear_simd128(top: &[u8; 8], bottom: &[u8; 8], wx: u32, wy: u32) -> [u8; 4] {
    use std::arch::wasm32::*;
    let weights = |w: u32| u64x2(u64::from(256 - w) * LANES, u64::from(w) * LANES);
    // SAFETY: each load reads the 8 bytes of its array; wasm loads may be unaligned.
    let widen =
        |pair: &[u8; 8]| u16x8_extend_low_u8x16(unsafe { v128_load64_zero(pair.as_ptr().cast()) });
    let across = weights(wx);
    // Products and sums stay within 255 x 256: 16-bit lanes hold them.
    let top = i16x8_mul(widen(top), across);
    let bottom = i16x8_mul(widen(bottom), across);
    // The top row's sums in the low half, the bottom row's in the high half.
    let lows = u64x2_shuffle::<0, 2>(top, bottom);
    let highs = u64x2_shuffle::<1, 3>(top, bottom);
    let rows = u16x8_shr(u16x8_add(u16x8_add(lows, highs), u16x8_splat(0x80)), 8);
    let down = i16x8_mul(rows, weights(wy));
    let sum = u16x8_add(down, u64x2_shuffle::<1, 1>(down, down));
    let pixel = u16x8_shr(u16x8_add(sum, u16x8_splat(0x80)), 8);
    // Each lane is at most 255: narrowing to bytes keeps it.
    u32x4_extract_lane::<0>(u8x16_narrow_i16x8(pixel, pixel)).to_le_bytes()
}

/// [`bilinear`] of two samples at once (their pairs `tops` and `bottoms`, weights `wx` and
/// `wy`): their pixels' bytes, the same integers. Each mix `left * (256 - w) + right * w` is
/// worked out as `left * 256 + (right - left) * w`: the same sum, which fits 16 bits, so
/// wrapping 16-bit lanes give it exactly, with one multiply instead of two.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn bilinear_two_simd128(
    tops: [&[u8; 8]; 2],
    bottoms: [&[u8; 8]; 2],
    wx: [u32; 2],
    wy: [u32; 2],
) -> [u8; 8] {
    use std::arch::wasm32::*;
    // SAFETY: each load reads the 8 bytes of its array; wasm loads may be unaligned.
    let load = |pair: &[u8; 8]| unsafe { v128_load64_zero(pair.as_ptr().cast()) };
    // Both pairs' left pixels, then both right ones, in 16-bit lanes.
    let split = |[first, second]: [&[u8; 8]; 2]| {
        let interleaved = i32x4_shuffle::<0, 4, 1, 5>(load(first), load(second));
        (
            u16x8_extend_low_u8x16(interleaved),
            u16x8_extend_high_u8x16(interleaved),
        )
    };
    let weights =
        |[first, second]: [u32; 2]| u64x2(u64::from(first) * LANES, u64::from(second) * LANES);
    let mix = |(left, right): (v128, v128), weights: v128| {
        i16x8_add(
            i16x8_shl(left, 8),
            i16x8_mul(i16x8_sub(right, left), weights),
        )
    };
    let rounded = |sums: v128| u16x8_shr(i16x8_add(sums, u16x8_splat(0x80)), 8);
    let across = weights(wx);
    let top = rounded(mix(split(tops), across));
    let bottom = rounded(mix(split(bottoms), across));
    let pixels = rounded(mix((top, bottom), weights(wy)));
    // Each lane is at most 255: narrowing to bytes keeps it.
    u64x2_extract_lane::<0>(u8x16_narrow_i16x8(pixels, pixels)).to_le_bytes()
}

/// Each weight repeated in four 16-bit lanes.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
const LANES: u64 = 0x0001_0001_0001_0001;

/// The part of convex `polygon` where `inside` (linear in the point) is not negative.
fn clip(polygon: &[Point], inside: impl Fn(Point) -> f64) -> Vec<Point> {
    let mut out = Vec::with_capacity(polygon.len() + 2);
    for (i, &a) in polygon.iter().enumerate() {
        let b = polygon[(i + 1) % polygon.len()];
        let (da, db) = (inside(a), inside(b));
        if da >= 0.0 {
            out.push(a);
        }
        if (da >= 0.0) != (db >= 0.0) {
            let t = da / (da - db);
            out.push((a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t));
        }
    }
    out
}

/// The convex `region` cut to the canvas, if anything of it is on it.
fn cut_to_canvas(region: &[Point], width: u32, height: u32) -> Option<Vec<Point>> {
    let (w, h) = (f64::from(width), f64::from(height));
    let mut cut = region.to_vec();
    cut = clip(&cut, |p| p.0);
    cut = clip(&cut, |p| w - p.0);
    cut = clip(&cut, |p| p.1);
    cut = clip(&cut, |p| h - p.1);
    (cut.len() >= 3 && area(&cut) > 0.0).then_some(cut)
}

/// The convex polygon `clip_by` cuts out of `subject` (both convex, either winding).
pub(super) fn intersect(subject: &[Point], clip_by: &[Point]) -> Vec<Point> {
    let winding = signed_area(clip_by).signum();
    let mut out = subject.to_vec();
    for (i, &a) in clip_by.iter().enumerate() {
        let b = clip_by[(i + 1) % clip_by.len()];
        // Positive on the inner side of edge a -> b, whichever way the clip winds.
        let side = |p: Point| winding * ((b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0));
        out = clip(&out, side);
        if out.is_empty() {
            break;
        }
    }
    out
}

/// The x extent of convex `polygon` along the line at height `y`, if it reaches it.
fn span_at(polygon: &[Point], y: f64) -> Option<(f64, f64)> {
    let mut span: Option<(f64, f64)> = None;
    for (i, &a) in polygon.iter().enumerate() {
        let b = polygon[(i + 1) % polygon.len()];
        if (a.1 - y) * (b.1 - y) > 0.0 || (a.1 == b.1 && a.1 != y) {
            continue;
        }
        let xs = if a.1 == b.1 {
            [a.0, b.0]
        } else {
            let x = a.0 + (y - a.1) * (b.0 - a.0) / (b.1 - a.1);
            [x, x]
        };
        for x in xs {
            span = Some(span.map_or((x, x), |(l, r)| (l.min(x), r.max(x))));
        }
    }
    span
}

pub(super) fn signed_area(polygon: &[Point]) -> f64 {
    let n = polygon.len();
    (0..n)
        .map(|i| {
            let (a, b) = (polygon[i], polygon[(i + 1) % n]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum::<f64>()
        / 2.0
}

fn area(polygon: &[Point]) -> f64 {
    signed_area(polygon).abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_within_finds_exactly_the_steps_in_range() {
        let mut next = super::super::pseudo_random(0x51_7cc1_b727_220a_u64);
        let one = 1i64 << 32;
        let mut cases = vec![
            (0, 0, one, 5),
            (-1, 1, one, 5),
            (one - 1, -1, one, 5),
            (3, 0, 0, 4),
        ];
        for _ in 0..20_000 {
            let limit = next(8) as i64 * one;
            let start = next(20 * one as u64) as i64 - 6 * one;
            let step = next(2 * one as u64) as i64 - one;
            cases.push((start, step, limit, next(40) as usize));
        }
        for (start, step, limit, count) in cases {
            let expected: Vec<usize> = (0..count)
                .filter(|&n| (0..limit).contains(&(start + n as i64 * step)))
                .collect();
            let found: Vec<usize> = steps_within(start, step, limit, count).collect();
            assert_eq!(found, expected, "{start} {step} {limit} {count}");
        }
    }

    #[test]
    fn the_simd_bilinear_gives_the_scalar_sums() {
        let mut next = super::super::pseudo_random(0x9e37_79b9_7f4a_7c15_u64);
        let extremes = [[0u8; 8], [255; 8], [255, 0, 255, 0, 0, 255, 0, 255]];
        for top in extremes {
            for bottom in extremes {
                for (wx, wy) in [(0, 0), (256, 256), (1, 255), (128, 128), (255, 1)] {
                    assert_eq!(
                        bilinear(&top, &bottom, wx, wy),
                        bilinear_scalar(&top, &bottom, wx, wy)
                    );
                }
            }
        }
        for _ in 0..100_000 {
            let top: [u8; 8] = std::array::from_fn(|_| next(256) as u8);
            let bottom: [u8; 8] = std::array::from_fn(|_| next(256) as u8);
            let (wx, wy) = (next(257) as u32, next(257) as u32);
            assert_eq!(
                bilinear(&top, &bottom, wx, wy),
                bilinear_scalar(&top, &bottom, wx, wy),
                "{top:?} {bottom:?} {wx} {wy}"
            );
        }
    }
}
