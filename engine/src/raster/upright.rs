//! Upright images in upright clips (a photo in its box, the usual case), sampled in integers
//! so the pixels are the same in wasm and natively: what tiny-skia's general pipeline does
//! for any transform, at a fraction of its time. Bilinear when the image is shrunk or
//! enlarged at most twice; bicubic (tiny-skia's Mitchell filter, two passes) beyond, where
//! bilinear's blockiness would show.

use tiny_skia::Pixmap;

use super::{from_lanes, lanes, mul255_lanes};

/// How an upright image is resampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Filter {
    Bilinear,
    Bicubic,
}

impl Filter {
    /// Bilinear unless the image is enlarged more than twice.
    pub(super) fn for_enlargement(enlarged: f64) -> Filter {
        if enlarged > 2.0 {
            Filter::Bicubic
        } else {
            Filter::Bilinear
        }
    }
}

/// Draws `image` source-over with its pixel `(0, 0)` at canvas `origin` and each source pixel
/// `scale` canvas pixels wide and high, inside the canvas rectangle `visible` (left, top,
/// right, bottom; fractional edges are anti-aliased by the area they cover).
pub(super) fn draw_upright(
    canvas: &mut Pixmap,
    image: &Pixmap,
    filter: Filter,
    origin: (f64, f64),
    scale: (f64, f64),
    visible: [f64; 4],
) {
    let [left, top, right, bottom] = visible;
    let columns = Axis::new(
        origin.0,
        scale.0,
        image.width(),
        (left, right),
        canvas.width(),
    );
    let rows = Axis::new(
        origin.1,
        scale.1,
        image.height(),
        (top, bottom),
        canvas.height(),
    );
    match filter {
        Filter::Bilinear => bilinear(
            canvas,
            image,
            &columns.bilinear_taps(),
            &rows.bilinear_taps(),
        ),
        Filter::Bicubic => bicubic(canvas, image, &columns.bicubic_taps(), &rows.bicubic_taps()),
    }
}

/// One axis of an upright draw: source pixel `i` spans canvas `[origin + i * scale,
/// origin + (i + 1) * scale)`; the canvas pixels from `start` to `end` are drawn, `(low, high)`
/// being the visible span within them.
struct Axis {
    origin: f64,
    scale: f64,
    source: usize,
    low: f64,
    high: f64,
    start: usize,
    end: usize,
}

/// For each drawn canvas pixel along one axis: its source taps (clamped to the image, as
/// tiny-skia pads), their weights and how much of the pixel the visible span covers (of 256).
struct Taps<const N: usize> {
    start: usize,
    taps: Vec<Tap<N>>,
}

struct Tap<const N: usize> {
    sources: [usize; N],
    weights: [u32; N],
    coverage: u32,
}

impl Axis {
    fn new(origin: f64, scale: f64, source: u32, (low, high): (f64, f64), pixels: u32) -> Axis {
        let (low, high) = (low.max(0.0), high.min(f64::from(pixels)));
        // Also empty for NaN: a degenerate box draws nothing.
        let (start, end) = if low < high && scale > 0.0 && source > 0 {
            (libm::floor(low) as usize, libm::ceil(high) as usize)
        } else {
            (0, 0)
        };
        Axis {
            origin,
            scale,
            source: source as usize,
            low,
            high,
            start,
            end,
        }
    }

    /// The taps of every drawn pixel, given the weights of the taps around a sample point
    /// that lies `fraction` of the way from source pixel centre `below` to the next; the
    /// first tap is `below - (N / 2 - 1)`.
    fn taps_by<const N: usize>(&self, weights: impl Fn(f64) -> [u32; N]) -> Taps<N> {
        let last = self.source.saturating_sub(1) as f64;
        let taps = (self.start..self.end)
            .map(|pixel| {
                let p = pixel as f64;
                // Sample at the pixel's centre; source pixel centres are at i + 0.5.
                let at = (p + 0.5 - self.origin) / self.scale - 0.5;
                let below = libm::floor(at);
                let first = below - (N / 2 - 1) as f64;
                let covered = (p + 1.0).min(self.high) - p.max(self.low);
                Tap {
                    sources: std::array::from_fn(|k| (first + k as f64).clamp(0.0, last) as usize),
                    weights: weights(at - below),
                    coverage: libm::round(covered * 256.0) as u32,
                }
            })
            .collect();
        Taps {
            start: self.start,
            taps,
        }
    }

    fn bilinear_taps(&self) -> Taps<2> {
        self.taps_by(bilinear_weights)
    }

    fn bicubic_taps(&self) -> Taps<4> {
        self.taps_by(bicubic_weights)
    }
}

/// Bilinear weights of 256 for a sample `t` of the way from one source pixel centre to the next.
pub(super) fn bilinear_weights(t: f64) -> [u32; 2] {
    let second = libm::round(t * 256.0) as u32;
    [256 - second, second]
}

/// tiny-skia's bicubic (Mitchell-Netravali, B = C = 1/3) at offsets -1.5, -0.5, 0.5 and 1.5
/// source pixels from a sample `t` of the way from one source pixel centre to the next;
/// two's-complement `u32` of 2^14, summing to exactly that (the outer weights are negative).
pub(super) fn bicubic_weights(t: f64) -> [u32; 4] {
    let near = |t: f64| t * (t * (-21.0 / 18.0 * t + 27.0 / 18.0) + 9.0 / 18.0) + 1.0 / 18.0;
    let far = |t: f64| t * t * (7.0 / 18.0 * t - 6.0 / 18.0);
    let fixed = |w: f64| libm::round(w * CUBIC_ONE as f64) as i64;
    let mut weights = [far(1.0 - t), near(1.0 - t), near(t), far(t)].map(fixed);
    // Rounding must not change the total: a flat image stays flat.
    let heavier = if t < 0.5 { 1 } else { 2 };
    weights[heavier] += CUBIC_ONE - weights.iter().sum::<i64>();
    weights.map(|w| w as i32 as u32)
}

/// Bicubic weights are of 2^14, summing to exactly that.
pub(super) const CUBIC_ONE: i64 = 1 << 14;

/// Source-over of `sampled` (premultiplied, in 16-bit lanes) covering `coverage` of 65536 of
/// the canvas pixel `out`.
#[inline(always)]
pub(super) fn blend_over(out: &mut [u8], sampled: u64, coverage: u32) {
    // An opaque pixel covering all of it (most of a photo) replaces what is there.
    if coverage == 1 << 16 && sampled >> 48 == 255 {
        out.copy_from_slice(&from_lanes(sampled));
        return;
    }
    // Coverage of 65536 to 0..=255.
    let coverage = (coverage * 255 + 32768) >> 16;
    let sampled = mul255_lanes(sampled, coverage);
    let keep = 255 - (sampled >> 48) as u32;
    let under = lanes(out[..4].try_into().expect("four bytes"));
    out.copy_from_slice(&from_lanes(sampled + mul255_lanes(under, keep)));
}

/// Bilinear sampling in two passes, down first (shrunk images read more source columns
/// than they draw, so across first would cost more): for each canvas row, the source columns
/// it reads are first mixed down its two source rows (contiguous bytes, so the compiler turns
/// it into SIMD on every target), then each canvas pixel across two of those. The sums are
/// kept whole (weights of 256 twice, 16 bits a channel after the first pass), rounded once.
fn bilinear(canvas: &mut Pixmap, image: &Pixmap, columns: &Taps<2>, rows: &Taps<2>) {
    let (Some(first), Some(last)) = (columns.taps.first(), columns.taps.last()) else {
        return;
    };
    // Taps run left to right, so these bound every column read.
    let (from, to) = (first.sources[0], last.sources[1]);
    // Each canvas pixel reads two neighbouring mixed columns: its left one and the next, at
    // the weight given. A tap clamped at the image's edge reads one column twice; that is
    // the same sum as the column at full weight and its neighbour at none (one column of
    // zeros is kept at the end for the last).
    let across: Vec<(usize, u32, u32)> = columns
        .taps
        .iter()
        .map(|tap| {
            let [left, right] = tap.sources;
            let weight = if right == left { 0 } else { tap.weights[1] };
            ((left - from) * 4, weight, tap.coverage)
        })
        .collect();
    let mut mixed = vec![0u16; (to - from + 2) * 4];
    let used = (to - from + 1) * 4;
    let canvas_width = canvas.width() as usize;
    let row_bytes = image.width() as usize * 4;
    let source = image.data();
    let data = canvas.data_mut();
    for (y, row) in (rows.start..).zip(&rows.taps) {
        let [upper, lower] = row
            .sources
            .map(|r| &source[r * row_bytes + from * 4..r * row_bytes + (to + 1) * 4]);
        // At most 255 x 256: a weight is 256 only when the other is 0.
        let [uy, wy] = row.weights.map(|w| w as u16);
        for ((sum, &p), &q) in mixed[..used].iter_mut().zip(upper).zip(lower) {
            *sum = u16::from(p) * uy + u16::from(q) * wy;
        }
        let line = &mut data[(y * canvas_width + columns.start) * 4..][..across.len() * 4];
        for (out, &(at, wx, coverage)) in line.chunks_exact_mut(4).zip(&across) {
            let pair: &[u16; 8] = mixed[at..at + 8].try_into().expect("two columns");
            blend_over(out, mix_across(pair, wx), coverage * row.coverage);
        }
    }
}

/// Two neighbouring columns mixed down (`pair`: the left one's four channels, then the right
/// one's, each of 256) mixed across with the right one at `weight` of 256: the sampled pixel
/// in 16-bit lanes, each channel of 65536 and rounded. With SIMD where the target has it
/// (SSE2 on every x86-64, `simd128` in the wasm builds): the same integers as the scalar sum.
#[inline(always)]
fn mix_across(pair: &[u16; 8], weight: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        mix_across_sse2(pair, weight)
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        mix_across_simd128(pair, weight)
    }
    #[cfg(not(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )))]
    {
        mix_across_scalar(pair, weight)
    }
}

#[cfg_attr(
    any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ),
    cfg(test)
)]
fn mix_across_scalar(pair: &[u16; 8], weight: u32) -> u64 {
    let channel = |c: usize| {
        u64::from(
            (u32::from(pair[c]) * (256 - weight) + u32::from(pair[c + 4]) * weight + 0x8000) >> 16,
        )
    };
    channel(0) | channel(1) << 16 | channel(2) << 32 | channel(3) << 48
}

/// Each weight repeated in four 16-bit lanes.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
pub(super) const LANES: u64 = 0x0001_0001_0001_0001;

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn mix_across_sse2(pair: &[u16; 8], weight: u32) -> u64 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86-64; the load reads the 16 bytes of `pair`, unaligned.
    unsafe {
        let columns = _mm_loadu_si128(pair.as_ptr().cast());
        let weights = _mm_set_epi64x(
            (u64::from(weight) * LANES) as i64,
            (u64::from(256 - weight) * LANES) as i64,
        );
        // 32-bit products from their low and high halves.
        let low = _mm_mullo_epi16(columns, weights);
        let high = _mm_mulhi_epu16(columns, weights);
        let left = _mm_unpacklo_epi16(low, high);
        let right = _mm_unpackhi_epi16(low, high);
        let sum = _mm_add_epi32(_mm_add_epi32(left, right), _mm_set1_epi32(0x8000));
        // Each channel is at most 255 after the shift, so the signed packing keeps it.
        let channels = _mm_packs_epi32(_mm_srli_epi32(sum, 16), _mm_setzero_si128());
        _mm_cvtsi128_si64(channels) as u64
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn mix_across_simd128(pair: &[u16; 8], weight: u32) -> u64 {
    use std::arch::wasm32::*;
    // SAFETY: the load reads the 16 bytes of `pair`; wasm loads may be unaligned.
    let columns = unsafe { v128_load(pair.as_ptr().cast()) };
    let weights = u64x2(u64::from(256 - weight) * LANES, u64::from(weight) * LANES);
    let left = u32x4_extmul_low_u16x8(columns, weights);
    let right = u32x4_extmul_high_u16x8(columns, weights);
    let sum = u32x4_add(u32x4_add(left, right), u32x4_splat(0x8000));
    // Each channel is at most 255 after the shift, so the signed narrowing keeps it.
    let channels = u16x8_narrow_i32x4(u32x4_shr(sum, 16), u32x4_splat(0));
    u64x2_extract_lane::<0>(channels)
}

/// Bicubic sampling in two passes, across first: each source row a canvas row reads is
/// filtered across (four taps a canvas pixel) once and kept while later canvas rows read it,
/// then each canvas pixel is the four kept rows' weighted sum down, summed, sampled and
/// blended in one step (a row of sums written and read back four times cost as much as the
/// rest). Bicubic is only used enlarged more than twice, where every source row
/// serves at least eight canvas rows: about two multiply-adds a channel across and four down,
/// where one pass would be sixteen.
fn bicubic(canvas: &mut Pixmap, image: &Pixmap, columns: &Taps<4>, rows: &Taps<4>) {
    let width = columns.taps.len();
    let canvas_width = canvas.width() as usize;
    let row_bytes = image.width() as usize * 4;
    let source = image.data();
    let signed = |weights: [u32; 4]| weights.map(|w| w as i32);
    // A source row filtered across, each channel of 2^8 (2^22 of weights squared would
    // overflow), signed, as the outer weights are negative.
    let across = |r: usize| -> Vec<[i32; 4]> {
        let line = &source[r * row_bytes..][..row_bytes];
        columns
            .taps
            .iter()
            .map(|column| {
                let mut channels = [0i32; 4];
                for (&x, weight) in column.sources.iter().zip(signed(column.weights)) {
                    for (channel, &value) in channels.iter_mut().zip(&line[x * 4..x * 4 + 4]) {
                        *channel += weight * i32::from(value);
                    }
                }
                channels.map(|c| (c + (1 << 5)) >> 6)
            })
            .collect()
    };
    // The source rows filtered so far that canvas rows still read (rows only move down).
    let mut kept: Vec<(usize, Vec<[i32; 4]>)> = Vec::with_capacity(4);
    let data = canvas.data_mut();
    for (y, row) in (rows.start..).zip(&rows.taps) {
        kept.retain(|(r, _)| row.sources.contains(r));
        for r in row.sources {
            if !kept.iter().any(|(kept_row, _)| *kept_row == r) {
                kept.push((r, across(r)));
            }
        }
        let [upper, high, low, lower] = row.sources.map(|r| {
            let (_, filtered) = kept
                .iter()
                .find(|(kept_row, _)| *kept_row == r)
                .expect("kept");
            filtered
        });
        let [wu, wh, wl, wd] = signed(row.weights);
        let line = &mut data[(y * canvas_width + columns.start) * 4..][..width * 4];
        let pixels = line.chunks_exact_mut(4).zip(&columns.taps);
        let filtered = upper.iter().zip(high).zip(low).zip(lower);
        for ((out, column), (((u, h), l), d)) in pixels.zip(filtered) {
            let sampled = premultiplied(sum_down([u, h, l, d], [wu, wh, wl, wd]));
            blend_over(out, sampled, column.coverage * row.coverage);
        }
    }
}

/// The bicubic sum down of four rows' values filtered across (each channel of 2^8) at their
/// weights (of 2^14), rounded to whole channels. Explicit SIMD in the wasm builds, where the
/// compiler left the four-channel sum scalar; the same integers (wrapping) either way.
#[inline(always)]
fn sum_down(rows: [&[i32; 4]; 4], weights: [i32; 4]) -> [i32; 4] {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        sum_down_simd128(rows, weights)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        sum_down_scalar(rows, weights)
    }
}

#[cfg_attr(all(target_arch = "wasm32", target_feature = "simd128"), cfg(test))]
fn sum_down_scalar(rows: [&[i32; 4]; 4], weights: [i32; 4]) -> [i32; 4] {
    std::array::from_fn(|c| {
        let sum = (0..4).fold(0i32, |sum, r| {
            sum.wrapping_add(weights[r].wrapping_mul(rows[r][c]))
        });
        sum.wrapping_add(1 << 21) >> 22
    })
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn sum_down_simd128(rows: [&[i32; 4]; 4], weights: [i32; 4]) -> [i32; 4] {
    use std::arch::wasm32::*;
    // SAFETY: each load reads the 16 bytes of one row's four channels; wasm loads may be
    // unaligned.
    let [a, b, c, d] = rows.map(|row| unsafe { v128_load(row.as_ptr().cast()) });
    let [wa, wb, wc, wd] = weights.map(|weight| i32x4_splat(weight));
    let sum = i32x4_add(
        i32x4_add(i32x4_mul(a, wa), i32x4_mul(b, wb)),
        i32x4_add(i32x4_mul(c, wc), i32x4_mul(d, wd)),
    );
    let rounded = i32x4_shr(i32x4_add(sum, i32x4_splat(1 << 21)), 22);
    [
        i32x4_extract_lane::<0>(rounded),
        i32x4_extract_lane::<1>(rounded),
        i32x4_extract_lane::<2>(rounded),
        i32x4_extract_lane::<3>(rounded),
    ]
}

/// A bicubic sum in 16-bit lanes. The negative lobes can overshoot, so it is clamped as
/// tiny-skia does: alpha to 0..=255, each colour to 0..=alpha (premultiplied).
pub(super) fn premultiplied([r, g, b, a]: [i32; 4]) -> u64 {
    let a = a.clamp(0, 255);
    let colour = |c: i32| c.clamp(0, a) as u64;
    colour(r) | colour(g) << 16 | colour(b) << 32 | (a as u64) << 48
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simd_mix_across_gives_the_scalar_sums() {
        // Mixed-down channels go up to 255 x 256; weights from 0 to 256.
        let mut next = super::super::pseudo_random(0x2545_f491_4f6c_dd1d_u64);
        let extremes = [[0; 8], [65280; 8], [65280, 0, 65280, 0, 0, 65280, 0, 65280]];
        for pair in extremes {
            for weight in [0, 1, 128, 255, 256] {
                assert_eq!(mix_across(&pair, weight), mix_across_scalar(&pair, weight));
            }
        }
        for _ in 0..100_000 {
            let pair: [u16; 8] = std::array::from_fn(|_| next(65281) as u16);
            let weight = next(257) as u32;
            assert_eq!(
                mix_across(&pair, weight),
                mix_across_scalar(&pair, weight),
                "{pair:?} {weight}"
            );
        }
    }
}
