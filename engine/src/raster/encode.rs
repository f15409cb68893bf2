//! A drawn canvas's pixels, and their PNG encoding: opaque images without alpha, flat
//! artwork through its own deflate coder, photos through miniz_oxide's.

use std::borrow::Cow;

use super::flat_deflate::FlatDeflate;
use super::{MAX_SIDE, RasterError};

/// A drawn image: premultiplied RGBA rows, as the canvas holds them. What leaves the wasm
/// module; the host encodes it natively (encoding is lossless and the same code, so the PNG
/// is the same bytes either way).
#[derive(Debug, Clone, Copy)]
pub struct Pixels<'a> {
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) premultiplied: &'a [u8],
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::pseudo_random;

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
