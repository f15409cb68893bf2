//! Upright images in upright clips (a photo in its box, the usual case), sampled in integers
//! so the pixels are the same in wasm and natively: what tiny-skia's general pipeline does
//! for any transform, at a fraction of its time. Bilinear when the image is shrunk or
//! enlarged at most twice; bicubic (tiny-skia's Mitchell filter, two passes) beyond, where
//! bilinear's blockiness would show.

use std::ops::Range;

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

impl<const N: usize> Taps<N> {
    /// The drawn pixels the image covers whole along the axis (all but its edge pixels), by
    /// index in `taps`.
    fn whole(&self) -> Range<usize> {
        let covered = |tap: &Tap<N>| tap.coverage == 256;
        match (
            self.taps.iter().position(covered),
            self.taps.iter().rposition(covered),
        ) {
            (Some(first), Some(last)) => first..last + 1,
            _ => 0..0,
        }
    }
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

/// Bilinear sampling in two passes, across first: each source row that a canvas row reads is
/// mixed across once for every canvas pixel (its two neighbouring source pixels, one 8-byte
/// load) and kept while the next canvas row reads it too; each canvas row is then its two
/// kept rows mixed down, a contiguous pass in SIMD, and copied onto the canvas where the
/// image is opaque and covers it whole. Down first (as before) mixed fewer sums for a shrunk
/// image, but then every canvas pixel needed a gather, a mix and a blend of its own: across
/// first drew the usual photo side in 0.7x the time (docs/benchmarks.md). The sums are kept
/// whole (weights of 256 twice, 16 bits a channel after the first pass) and rounded once, so
/// the order of the passes changes no pixel.
fn bilinear(canvas: &mut Pixmap, image: &Pixmap, columns: &Taps<2>, rows: &Taps<2>) {
    let width = columns.taps.len();
    let image_width = image.width() as usize;
    let across = AcrossTaps::new(columns, image_width);
    let whole = columns.whole();
    let row_bytes = image_width * 4;
    let source = image.data();
    let mut kept = KeptRows::default();
    let mut sampled = vec![0u8; width * 4];
    let canvas_width = canvas.width() as usize;
    let data = canvas.data_mut();
    for (y, row) in (rows.start..).zip(&rows.taps) {
        let [upper, lower] = kept.rows(row.sources, width * 4, |r, sums| {
            across.mix(&source[r * row_bytes..][..row_bytes], sums);
        });
        let opaque = mix_rows_down(upper, lower, row.weights, &mut sampled);
        let line = &mut data[(y * canvas_width + columns.start) * 4..][..width * 4];
        blend_row(line, &sampled, opaque, columns, row.coverage, &whole);
    }
}

/// Two rows of sums across (`upper` and `lower`, each channel of 256) mixed down at
/// `weights` of 256 into the pixels `out`, rounded once: whether every pixel is opaque. With
/// SIMD in the wasm builds, sixteen channels a step (the compiler's own loop was a third of
/// the draw in V8); the same integers either way.
fn mix_rows_down(upper: &[u16], lower: &[u16], weights: [u32; 2], out: &mut [u8]) -> bool {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        mix_rows_down_simd128(upper, lower, weights, out)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        mix_rows_down_scalar(upper, lower, weights, out)
    }
}

fn mix_rows_down_scalar(upper: &[u16], lower: &[u16], weights: [u32; 2], out: &mut [u8]) -> bool {
    // At most 255 x 256 x 256: a weight is 256 only when the other is 0. Weights as 16-bit
    // numbers, so that the compiler multiplies 16 by 16 bits (SSE2 has no 32-bit multiply).
    let [uy, wy] = weights.map(|w| u32::from(w as u16));
    for ((out, &a), &b) in out.iter_mut().zip(upper).zip(lower) {
        *out = ((u32::from(a) * uy + u32::from(b) * wy + 0x8000) >> 16) as u8;
    }
    out.chunks_exact(4)
        .fold(255, |alpha, pixel| alpha & pixel[3])
        == 255
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn mix_rows_down_simd128(upper: &[u16], lower: &[u16], weights: [u32; 2], out: &mut [u8]) -> bool {
    use std::arch::wasm32::*;
    let [uy, wy] = weights.map(|w| u16x8_splat(w as u16));
    let rounding = u32x4_splat(0x8000);
    let mixed = |a: v128, b: v128| {
        let low = u32x4_add(u32x4_extmul_low_u16x8(a, uy), u32x4_extmul_low_u16x8(b, wy));
        let high = u32x4_add(
            u32x4_extmul_high_u16x8(a, uy),
            u32x4_extmul_high_u16x8(b, wy),
        );
        // Each channel is at most 255 after the shift, so the signed narrowing keeps it.
        u16x8_narrow_i32x4(
            u32x4_shr(u32x4_add(low, rounding), 16),
            u32x4_shr(u32x4_add(high, rounding), 16),
        )
    };
    let steps = out.len() / 16;
    assert!(upper.len() >= steps * 16 && lower.len() >= steps * 16);
    // Each pixel's alpha byte, ANDed over the row.
    let mut alphas = u32x4_splat(0xFF00_0000);
    for step in 0..steps {
        let at = step * 16;
        // SAFETY: the loads read 16 channels (32 bytes) of `upper` and `lower` at `at`, the
        // store writes 16 bytes of `out` there: all within the lengths checked above.
        unsafe {
            let load = |row: &[u16], offset: usize| v128_load(row.as_ptr().add(at + offset).cast());
            let first = mixed(load(upper, 0), load(lower, 0));
            let second = mixed(load(upper, 8), load(lower, 8));
            let pixels = u8x16_narrow_i16x8(first, second);
            alphas = v128_and(alphas, pixels);
            v128_store(out.as_mut_ptr().add(at).cast(), pixels);
        }
    }
    let at = steps * 16;
    let rest_opaque = mix_rows_down_scalar(&upper[at..], &lower[at..], weights, &mut out[at..]);
    rest_opaque && u32x4_all_true(i32x4_eq(alphas, u32x4_splat(0xFF00_0000)))
}

/// Source-over of a canvas row's `sampled` pixels onto its `line`, each pixel at its
/// column's coverage times `row_coverage` (of 256 each). Where the image is opaque and covers
/// the pixels whole (`whole`, most of a photo), its pixels replace the canvas's in one copy.
fn blend_row<const N: usize>(
    line: &mut [u8],
    sampled: &[u8],
    opaque: bool,
    columns: &Taps<N>,
    row_coverage: u32,
    whole: &Range<usize>,
) {
    let copied = if row_coverage == 256 && opaque {
        whole.clone()
    } else {
        0..0
    };
    line[copied.start * 4..copied.end * 4]
        .copy_from_slice(&sampled[copied.start * 4..copied.end * 4]);
    for range in [0..copied.start, copied.end..columns.taps.len()] {
        let pixels = line[range.start * 4..range.end * 4].chunks_exact_mut(4);
        let samples = sampled[range.start * 4..range.end * 4].chunks_exact(4);
        for ((out, pixel), tap) in pixels.zip(samples).zip(&columns.taps[range]) {
            let pixel = lanes(pixel.try_into().expect("four bytes"));
            blend_over(out, pixel, tap.coverage * row_coverage);
        }
    }
}

/// How each canvas pixel of a row reads a source row: its left source pixel's byte offset
/// in the row and the pair's weights. A tap clamped at the image's edge reads one pixel
/// twice: the same sum as that pixel at full weight.
struct AcrossTaps {
    taps: Vec<(usize, PairWeights)>,
    /// Taps run left to right: all but the last few (clamped at the right edge) have a
    /// right neighbour in the row, loaded with their left pixel.
    paired: usize,
    /// The bytes of a row the paired taps read: one past the furthest.
    reach: usize,
}

impl AcrossTaps {
    fn new(columns: &Taps<2>, image_width: usize) -> AcrossTaps {
        let taps: Vec<(usize, PairWeights)> = columns
            .taps
            .iter()
            .map(|tap| {
                let [left, right] = tap.sources;
                let weight = if right == left { 0 } else { tap.weights[1] };
                (left * 4, pair_weights(weight as u16))
            })
            .collect();
        let paired = columns
            .taps
            .iter()
            .take_while(|tap| tap.sources[0] + 1 < image_width)
            .count();
        let reach = taps[..paired]
            .iter()
            .map(|(at, _)| at + 8)
            .max()
            .unwrap_or(0);
        AcrossTaps {
            taps,
            paired,
            reach,
        }
    }

    /// The source row `line` mixed across for every canvas pixel: each channel of 256, four
    /// to a pixel, into `sums`.
    fn mix(&self, line: &[u8], sums: &mut [u16]) {
        let (pairs, clamped) = self.taps.split_at(self.paired);
        let (pair_sums, clamped_sums) = sums.split_at_mut(self.paired * 4);
        // One check for the row instead of one a pixel (which cost 8% of the draw in V8).
        assert!(self.reach <= line.len(), "a tap reads past the row");
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        let (pairs, pair_sums) = {
            let twos = pairs.len() / 2;
            // SAFETY: every paired tap's `at + 8 <= reach <= line.len()`.
            unsafe { mix_two_pairs_simd128(line, &pairs[..twos * 2], pair_sums) };
            (&pairs[twos * 2..], &mut pair_sums[twos * 8..])
        };
        for (sum, (at, weights)) in pair_sums.chunks_exact_mut(4).zip(pairs) {
            // SAFETY: `at + 8 <= reach <= line.len()`: the 8 bytes are in the row.
            let pair: &[u8; 8] = unsafe { &*line.as_ptr().add(*at).cast() };
            let mixed = mix_pair(pair, weights);
            for (lane, channel) in sum.iter_mut().enumerate() {
                *channel = (mixed >> (16 * lane)) as u16;
            }
        }
        // The right edge's pixel at full weight.
        for (sum, &(at, _)) in clamped_sums.chunks_exact_mut(4).zip(clamped) {
            for (channel, &value) in sum.iter_mut().zip(&line[at..at + 4]) {
                *channel = u16::from(value) << 8;
            }
        }
    }
}

/// Source rows filtered across, kept while the canvas rows that read them are drawn (rows
/// only move down, so each source row is filtered once); a row no longer read lends its
/// buffer to the next.
struct KeptRows<T> {
    rows: Vec<(usize, Vec<T>)>,
}

impl<T> Default for KeptRows<T> {
    fn default() -> Self {
        KeptRows { rows: Vec::new() }
    }
}

impl<T: Copy + Default> KeptRows<T> {
    /// The source rows `wanted`, each `len` values, filtered by `filter` (source row, into)
    /// where not kept already.
    fn rows<const N: usize>(
        &mut self,
        wanted: [usize; N],
        len: usize,
        filter: impl Fn(usize, &mut [T]),
    ) -> [&[T]; N] {
        for r in wanted {
            if self.rows.iter().any(|(kept, _)| *kept == r) {
                continue;
            }
            match self
                .rows
                .iter()
                .position(|(kept, _)| !wanted.contains(kept))
            {
                Some(free) => {
                    self.rows[free].0 = r;
                    filter(r, &mut self.rows[free].1);
                }
                None => {
                    let mut values = vec![T::default(); len];
                    filter(r, &mut values);
                    self.rows.push((r, values));
                }
            }
        }
        wanted.map(|r| {
            let (_, values) = self.rows.iter().find(|(kept, _)| *kept == r).expect("kept");
            values.as_slice()
        })
    }
}

/// A pair's weights of 256, one per channel: the left pixel's four, then the right one's.
type PairWeights = [u16; 8];

/// The weights of a pair whose right pixel is at `weight` of 256.
fn pair_weights(weight: u16) -> PairWeights {
    std::array::from_fn(|lane| if lane < 4 { 256 - weight } else { weight })
}

/// Two neighbouring pixels (`pair`: the left one's four channels, then the right one's)
/// mixed at `weights`: the sum in 16-bit lanes, each channel of
/// 256 (at most 255 x 256, so nothing carries between lanes). With SIMD where the target has
/// it (SSE2 on every x86-64, `simd128` in the wasm builds): the same integers as the scalar
/// sum.
#[inline(always)]
fn mix_pair(pair: &[u8; 8], weights: &PairWeights) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        mix_pair_sse2(pair, weights)
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        mix_pair_simd128(pair, weights)
    }
    #[cfg(not(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )))]
    {
        mix_pair_scalar(pair, weights)
    }
}

#[cfg_attr(
    any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ),
    cfg(test)
)]
fn mix_pair_scalar(pair: &[u8; 8], weights: &PairWeights) -> u64 {
    let pixel = |at: usize| lanes(pair[at..at + 4].try_into().expect("four bytes"));
    pixel(0) * u64::from(weights[0]) + pixel(4) * u64::from(weights[4])
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn mix_pair_sse2(pair: &[u8; 8], weights: &PairWeights) -> u64 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86-64; the loads read the 8 bytes of `pair` and the 16 of
    // `weights`, unaligned.
    unsafe {
        let pixels = _mm_unpacklo_epi8(_mm_loadl_epi64(pair.as_ptr().cast()), _mm_setzero_si128());
        let products = _mm_mullo_epi16(pixels, _mm_loadu_si128(weights.as_ptr().cast()));
        let sum = _mm_add_epi16(products, _mm_unpackhi_epi64(products, products));
        _mm_cvtsi128_si64(sum) as u64
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn mix_pair_simd128(pair: &[u8; 8], weights: &PairWeights) -> u64 {
    use std::arch::wasm32::*;
    // SAFETY: the loads read the 8 bytes of `pair` and the 16 of `weights`; wasm loads may
    // be unaligned.
    let pixels = u16x8_extend_low_u8x16(unsafe { v128_load64_zero(pair.as_ptr().cast()) });
    let products = i16x8_mul(pixels, unsafe { v128_load(weights.as_ptr().cast()) });
    let sum = u16x8_add(products, u64x2_shuffle::<1, 1>(products, products));
    u64x2_extract_lane::<0>(sum)
}

/// [`mix_pair`] for two canvas pixels a step, their sums stored as one vector: under
/// wasmtime every loop step also pays the call time limit's check, which this halves (the
/// same integers).
///
/// # Safety
/// Every tap's 8 bytes (`at..at + 8`) must lie in `line`; `sums` holds four a tap.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
unsafe fn mix_two_pairs_simd128(line: &[u8], taps: &[(usize, PairWeights)], sums: &mut [u16]) {
    use std::arch::wasm32::*;
    assert!(sums.len() >= taps.len() * 4);
    for (sum, two) in sums.chunks_exact_mut(8).zip(taps.chunks_exact(2)) {
        let [(a, a_weights), (b, b_weights)] = [&two[0], &two[1]];
        // SAFETY: the caller keeps both taps' 8 bytes in `line`; `sum` has 8 lanes of 16
        // bits; the weights are 16 bytes each; wasm loads and stores may be unaligned.
        unsafe {
            let at = |offset: usize| line.as_ptr().add(offset).cast::<u64>();
            let both = v128_load64_lane::<1>(v128_load64_zero(at(*a)), at(*b));
            let a_products = i16x8_mul(
                u16x8_extend_low_u8x16(both),
                v128_load(a_weights.as_ptr().cast()),
            );
            let b_products = i16x8_mul(
                u16x8_extend_high_u8x16(both),
                v128_load(b_weights.as_ptr().cast()),
            );
            // The left pixels' products of both taps, plus the right pixels'.
            let mixed = u16x8_add(
                i64x2_shuffle::<0, 2>(a_products, b_products),
                i64x2_shuffle::<1, 3>(a_products, b_products),
            );
            v128_store(sum.as_mut_ptr().cast(), mixed);
        }
    }
}

/// Bicubic sampling in two passes, across first: each source row a canvas row reads is
/// filtered across (four taps a canvas pixel) once and kept while later canvas rows read it,
/// then each canvas row is its four kept rows summed down, clamped and narrowed to bytes, and
/// blended as bilinear's rows are. Bicubic is only used enlarged more than twice, where
/// every source row serves at least eight canvas rows: about two multiply-adds a channel
/// across and four down, where one pass would be sixteen. Filtered rows are 16-bit (each
/// channel of 2^6: the most that holds the filter's overshoot, 1.07 x 255), so that in the
/// wasm builds both passes are dot products of 16-bit pairs, eight channels a step.
fn bicubic(canvas: &mut Pixmap, image: &Pixmap, columns: &Taps<4>, rows: &Taps<4>) {
    let width = columns.taps.len();
    let canvas_width = canvas.width() as usize;
    let row_bytes = image.width() as usize * 4;
    let source = image.data();
    let across = CubicAcross::new(columns);
    let mut kept = KeptRows::default();
    let mut sampled = vec![0u8; width * 4];
    let whole = columns.whole();
    let data = canvas.data_mut();
    for (y, row) in (rows.start..).zip(&rows.taps) {
        let filtered = kept.rows(row.sources, width * 4, |r, filtered| {
            across.filter(&source[r * row_bytes..][..row_bytes], filtered);
        });
        let opaque = sum_down(filtered, row.weights.map(|w| w as i16), &mut sampled);
        let line = &mut data[(y * canvas_width + columns.start) * 4..][..width * 4];
        blend_row(line, &sampled, opaque, columns, row.coverage, &whole);
    }
}

/// Bicubic weights of 2^14 as pairs for 16-bit dot products: the first two taps' weights
/// repeated for the four channels, then the last two's.
type CubicWeights = [i16; 16];

/// How each canvas pixel of a row reads a source row for bicubic: its four source pixels'
/// byte offsets in the row and their weights.
struct CubicAcross {
    taps: Vec<([usize; 4], CubicWeights)>,
    /// The taps whose four source pixels are consecutive in the row (all but a few clamped
    /// at the image's edges): read with one 16-byte load.
    consecutive: Range<usize>,
    /// The bytes of a row the consecutive taps read: one past the furthest.
    reach: usize,
}

impl CubicAcross {
    fn new(columns: &Taps<4>) -> CubicAcross {
        let taps: Vec<([usize; 4], CubicWeights)> = columns
            .taps
            .iter()
            .map(|tap| {
                let weights = tap.weights.map(|w| w as i16);
                let pairs = std::array::from_fn(|lane| weights[lane / 8 * 2 + lane % 2]);
                (tap.sources.map(|x| x * 4), pairs)
            })
            .collect();
        let consecutive = |(sources, _): &([usize; 4], CubicWeights)| {
            (1..4).all(|k| sources[k] == sources[0] + 4 * k)
        };
        // Sources only move right, so the clamped taps are at the ends.
        let consecutive = match (
            taps.iter().position(consecutive),
            taps.iter().rposition(consecutive),
        ) {
            (Some(first), Some(last)) => first..last + 1,
            _ => 0..0,
        };
        let reach = taps[consecutive.clone()]
            .iter()
            .map(|(sources, _)| sources[0] + 16)
            .max()
            .unwrap_or(0);
        CubicAcross {
            taps,
            consecutive,
            reach,
        }
    }

    /// The source row `line` filtered across for every canvas pixel, four channels each,
    /// into `filtered`.
    fn filter(&self, line: &[u8], filtered: &mut [i16]) {
        // One check for the row instead of one a pixel.
        assert!(self.reach <= line.len(), "a tap reads past the row");
        let outs = filtered.chunks_exact_mut(4);
        for (column, (out, (sources, weights))) in outs.zip(&self.taps).enumerate() {
            let out: &mut [i16; 4] = out.try_into().expect("four channels");
            if self.consecutive.contains(&column) {
                // SAFETY: `sources[0] + 16 <= reach <= line.len()`: the 16 bytes are in the row.
                let pixels: &[u8; 16] = unsafe { &*line.as_ptr().add(sources[0]).cast() };
                filter_four(pixels, weights, out);
            } else {
                let mut pixels = [0; 16];
                for (pixel, &at) in pixels.chunks_exact_mut(4).zip(sources) {
                    pixel.copy_from_slice(&line[at..at + 4]);
                }
                filter_four(&pixels, weights, out);
            }
        }
    }
}

/// Four pixels (`pixels`, four bytes each) summed at their `weights` (of 2^14), each channel
/// rounded to 2^6, into `out`. With SIMD in the wasm builds; the same integers either way.
#[inline(always)]
fn filter_four(pixels: &[u8; 16], weights: &CubicWeights, out: &mut [i16; 4]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        filter_four_simd128(pixels, weights, out)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        filter_four_scalar(pixels, weights, out)
    }
}

#[cfg_attr(all(target_arch = "wasm32", target_feature = "simd128"), cfg(test))]
fn filter_four_scalar(pixels: &[u8; 16], weights: &CubicWeights, out: &mut [i16; 4]) {
    let weights = [weights[0], weights[1], weights[8], weights[9]].map(i32::from);
    for (channel, out) in out.iter_mut().enumerate() {
        let sum: i32 = (0..4)
            .map(|k| weights[k] * i32::from(pixels[k * 4 + channel]))
            .sum();
        *out = ((sum + (1 << 7)) >> 8) as i16;
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn filter_four_simd128(pixels: &[u8; 16], weights: &CubicWeights, out: &mut [i16; 4]) {
    use std::arch::wasm32::*;
    // SAFETY: the loads read the 16 bytes of `pixels` and the 32 of `weights`, the store the
    // 8 of `out`; wasm loads and stores may be unaligned.
    unsafe {
        let pixels = v128_load(pixels.as_ptr().cast());
        // Each channel of the first two pixels side by side, then of the last two.
        let paired =
            i8x16_shuffle::<0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15>(pixels, pixels);
        let first = i32x4_dot_i16x8(
            u16x8_extend_low_u8x16(paired),
            v128_load(weights.as_ptr().cast()),
        );
        let last = i32x4_dot_i16x8(
            u16x8_extend_high_u8x16(paired),
            v128_load(weights.as_ptr().add(8).cast()),
        );
        let rounded = i32x4_shr(i32x4_add(i32x4_add(first, last), i32x4_splat(1 << 7)), 8);
        // At most 1.07 x 255 x 2^6 in size: 16 bits hold it.
        v128_store64_lane::<0>(
            i16x8_narrow_i32x4(rounded, rounded),
            out.as_mut_ptr().cast(),
        );
    }
}

/// The bicubic sum down of four filtered rows (`rows`, each channel of 2^6) at their
/// `weights` (of 2^14), rounded to whole channels and clamped as [`premultiplied`] does,
/// into the pixels `out`: whether every pixel is opaque. With SIMD in the wasm builds, four
/// pixels a step; the same integers either way.
fn sum_down(rows: [&[i16]; 4], weights: [i16; 4], out: &mut [u8]) -> bool {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        sum_down_simd128(rows, weights, out)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        sum_down_scalar(rows, weights, out)
    }
}

fn sum_down_scalar(rows: [&[i16]; 4], weights: [i16; 4], out: &mut [u8]) -> bool {
    let mut alpha = 255;
    for (at, out) in out.chunks_exact_mut(4).enumerate() {
        let sums = std::array::from_fn(|channel| {
            let sum: i32 = (0..4)
                .map(|r| i32::from(weights[r]) * i32::from(rows[r][at * 4 + channel]))
                .sum();
            (sum + (1 << 19)) >> 20
        });
        let pixel = from_lanes(premultiplied(sums));
        alpha &= pixel[3];
        out.copy_from_slice(&pixel);
    }
    alpha == 255
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn sum_down_simd128(rows: [&[i16]; 4], weights: [i16; 4], out: &mut [u8]) -> bool {
    use std::arch::wasm32::*;
    // Two rows' weights side by side, for dot products with their channels paired.
    let pair =
        |first: i16, second: i16| i32x4_splat(i32::from(first as u16) | i32::from(second) << 16);
    let (upper, lower) = (pair(weights[0], weights[1]), pair(weights[2], weights[3]));
    let rounding = i32x4_splat(1 << 19);
    // Two pixels (eight channels) of each row: their sums down, clamped, in 16-bit lanes.
    let two = |[a, b, c, d]: [v128; 4]| {
        let first = |x: v128, y: v128| i16x8_shuffle::<0, 8, 1, 9, 2, 10, 3, 11>(x, y);
        let second = |x: v128, y: v128| i16x8_shuffle::<4, 12, 5, 13, 6, 14, 7, 15>(x, y);
        let sum = |ab: v128, cd: v128| {
            let sum = i32x4_add(i32x4_dot_i16x8(ab, upper), i32x4_dot_i16x8(cd, lower));
            i32x4_shr(i32x4_add(sum, rounding), 20)
        };
        // Within a few levels of 0..=255: the narrowing keeps them.
        let pixels = i16x8_narrow_i32x4(
            sum(first(a, b), first(c, d)),
            sum(second(a, b), second(c, d)),
        );
        // Alpha to 0..=255, then every channel to 0..=alpha (alpha itself stays).
        let alpha = i16x8_shuffle::<3, 3, 3, 3, 7, 7, 7, 7>(pixels, pixels);
        let alpha = i16x8_min(i16x8_max(alpha, i16x8_splat(0)), i16x8_splat(255));
        i16x8_min(i16x8_max(pixels, i16x8_splat(0)), alpha)
    };
    let steps = out.len() / 16;
    assert!(rows.iter().all(|row| row.len() >= steps * 16));
    // Each pixel's alpha byte, ANDed over the row.
    let mut alphas = u32x4_splat(0xFF00_0000);
    for step in 0..steps {
        let at = step * 16;
        // SAFETY: the loads read 16 channels (32 bytes) of each row at `at`, the store
        // writes 16 bytes of `out` there: all within the lengths checked above.
        unsafe {
            let load =
                |offset: usize| rows.map(|row| v128_load(row.as_ptr().add(at + offset).cast()));
            let pixels = u8x16_narrow_i16x8(two(load(0)), two(load(8)));
            alphas = v128_and(alphas, pixels);
            v128_store(out.as_mut_ptr().add(at).cast(), pixels);
        }
    }
    let at = steps * 16;
    let rest = rows.map(|row| &row[at..]);
    let rest_opaque = sum_down_scalar(rest, weights, &mut out[at..]);
    rest_opaque && u32x4_all_true(i32x4_eq(alphas, u32x4_splat(0xFF00_0000)))
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
    fn the_simd_mix_pair_gives_the_scalar_sums() {
        let mut next = super::super::pseudo_random(0x2545_f491_4f6c_dd1d_u64);
        let extremes = [[0; 8], [255; 8], [255, 0, 255, 0, 0, 255, 0, 255]];
        for pair in extremes {
            for weight in [0, 1, 128, 255, 256] {
                let weights = pair_weights(weight);
                assert_eq!(mix_pair(&pair, &weights), mix_pair_scalar(&pair, &weights));
            }
        }
        for _ in 0..100_000 {
            let pair: [u8; 8] = std::array::from_fn(|_| next(256) as u8);
            let weights = pair_weights(next(257) as u16);
            assert_eq!(
                mix_pair(&pair, &weights),
                mix_pair_scalar(&pair, &weights),
                "{pair:?} {weights:?}"
            );
        }
    }
}
