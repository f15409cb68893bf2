//! Decoding the images a scene draws (PNG and JPEG renditions) into premultiplied pixmaps,
//! within a pixel bound, and halving them for heavy downscaling.

use std::fmt;
use std::io::Cursor;
use std::sync::{Arc, Mutex};

use image::codecs::jpeg::JpegDecoder;
use image::codecs::png::PngDecoder;
use image::{DynamicImage, ImageDecoder};
use serde::{Deserialize, Serialize};
use tiny_skia::{Pixmap, PremultipliedColorU8};

/// Largest decoded image, in pixels (e.g. 6000 x 4000 is 24 M).
pub const MAX_IMAGE_PIXELS: u64 = 25_000_000;
/// Largest width or height of a decoded image.
const MAX_IMAGE_SIDE: u32 = 20_000;

/// What kind of file an image or upload is, told by its content, never by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Png,
    Jpeg,
    Gif,
    Pdf,
}

impl Format {
    /// Identifies a file by its first bytes. PDF readers accept `%PDF-` anywhere in the first
    /// kilobyte (some files start with junk), and so does this.
    pub fn sniff(bytes: &[u8]) -> Option<Format> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Format::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(Format::Jpeg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(Format::Gif)
        } else if bytes[..bytes.len().min(1024)]
            .windows(5)
            .any(|w| w == b"%PDF-")
        {
            Some(Format::Pdf)
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Png => "PNG",
            Format::Jpeg => "JPEG",
            Format::Gif => "GIF",
            Format::Pdf => "PDF",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageError {
    Undecodable(String),
    TooLarge { width: u32, height: u32 },
}

impl fmt::Display for ImageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageError::Undecodable(why) => write!(f, "not a readable PNG or JPEG: {why}"),
            ImageError::TooLarge { width, height } => write!(
                f,
                "{width}x{height} pixels is more than {MAX_IMAGE_PIXELS} pixels"
            ),
        }
    }
}

impl std::error::Error for ImageError {}

/// A decoded image, ready to draw.
#[derive(Debug)]
pub struct DecodedImage {
    pixmap: Pixmap,
    /// The last copy made for drawing (halved, turned), kept for the next render that needs
    /// the same one: an editor redraws a side at one size again and again, and halving a
    /// large photo costs more than drawing it. At most one, never larger than the image.
    prepared: Mutex<Option<(Preparation, Arc<Pixmap>)>>,
}

/// How a copy for drawing was made from the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Preparation {
    halvings: u32,
    quarter_turns: u8,
}

/// The pixels to draw: the image itself or a prepared copy of it.
pub enum Prepared<'a> {
    Original(&'a Pixmap),
    Copy(Arc<Pixmap>),
}

impl std::ops::Deref for Prepared<'_> {
    type Target = Pixmap;

    fn deref(&self) -> &Pixmap {
        match self {
            Prepared::Original(pixmap) => pixmap,
            Prepared::Copy(pixmap) => pixmap,
        }
    }
}

impl DecodedImage {
    fn new(pixmap: Pixmap) -> DecodedImage {
        DecodedImage {
            pixmap,
            prepared: Mutex::new(None),
        }
    }

    pub fn width(&self) -> u32 {
        self.pixmap.width()
    }

    pub fn height(&self) -> u32 {
        self.pixmap.height()
    }

    pub fn pixmap(&self) -> &Pixmap {
        &self.pixmap
    }

    /// How many times the image is halved (2x2 box filter on premultiplied pixels) so that its
    /// longest side stays at least `target` pixels: the final resampling then shrinks it by at
    /// most 2 (bilinear sampling alone would skip pixels and alias).
    fn halvings(&self, target: f64) -> u32 {
        let mut longest = self.width().max(self.height());
        let mut halvings = 0;
        while f64::from(longest / 2) >= target.max(1.0) {
            longest /= 2;
            halvings += 1;
        }
        halvings
    }

    /// The size of [`DecodedImage::prepared`]'s copy before it is turned.
    pub fn size_at_least(&self, target: f64) -> (u32, u32) {
        let halvings = self.halvings(target);
        (
            (self.width() >> halvings).max(1),
            (self.height() >> halvings).max(1),
        )
    }

    /// The image halved while its longest side stays at least `target` pixels, then turned
    /// clockwise by `quarter_turns`: the last such copy is kept, so drawing the same image the
    /// same way again copies nothing.
    pub fn prepared(&self, target: f64, quarter_turns: u8) -> Prepared<'_> {
        let preparation = Preparation {
            halvings: self.halvings(target),
            quarter_turns: quarter_turns % 4,
        };
        if preparation.halvings == 0 && preparation.quarter_turns == 0 {
            return Prepared::Original(&self.pixmap);
        }
        // A poisoned lock only means a render panicked; the copy it holds is whole.
        let mut kept = self.prepared.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((made, pixmap)) = kept.as_ref()
            && *made == preparation
        {
            return Prepared::Copy(Arc::clone(pixmap));
        }
        let mut pixmap = None;
        for _ in 0..preparation.halvings {
            pixmap = Some(halve(pixmap.as_ref().unwrap_or(&self.pixmap)));
        }
        if preparation.quarter_turns != 0 {
            pixmap = Some(turn(
                pixmap.as_ref().unwrap_or(&self.pixmap),
                preparation.quarter_turns,
            ));
        }
        let pixmap = Arc::new(pixmap.expect("halved or turned"));
        *kept = Some((preparation, Arc::clone(&pixmap)));
        Prepared::Copy(pixmap)
    }
}

impl DecodedImage {
    /// The documented photo enhancement (imageType `photo`, `enhance` true): auto-levels,
    /// then mild sharpening. Auto-levels stretches the tones between the 0.5th and 99.5th
    /// percentile of luma to the full range, the same mapping for every channel so colours
    /// keep their hue; images with almost no tonal range are left alone. Sharpening is an
    /// unsharp mask: each channel moves 60% further from its 3x3 binomial blur. Integer
    /// arithmetic, so the result is the same natively and in wasm.
    pub fn enhanced(&self) -> DecodedImage {
        let mut pixmap = self.pixmap.clone();
        auto_levels(&mut pixmap);
        DecodedImage::new(unsharp(&pixmap))
    }
}

fn auto_levels(pixmap: &mut Pixmap) {
    let mut histogram = [0u64; 256];
    for p in pixmap.pixels() {
        if p.alpha() == u8::MAX {
            let luma =
                (299 * u32::from(p.red()) + 587 * u32::from(p.green()) + 114 * u32::from(p.blue()))
                    / 1000;
            histogram[luma as usize] += 1;
        }
    }
    let total: u64 = histogram.iter().sum();
    let percentile = |share: u64| {
        let mut seen = 0;
        histogram
            .iter()
            .position(|&count| {
                seen += count;
                seen * 1000 > total * share
            })
            .unwrap_or(255) as i32
    };
    let (low, high) = (percentile(5), percentile(995));
    if total == 0 || high - low < 32 || (low == 0 && high == 255) {
        return;
    }
    for p in pixmap.pixels_mut() {
        let alpha = i32::from(p.alpha());
        let level = |c: u8| {
            // Premultiplied: the black and white points scale with the pixel's alpha.
            ((i32::from(c) - low * alpha / 255) * 255 / (high - low)).clamp(0, alpha) as u8
        };
        *p = PremultipliedColorU8::from_rgba(
            level(p.red()),
            level(p.green()),
            level(p.blue()),
            p.alpha(),
        )
        .unwrap_or(*p);
    }
}

fn unsharp(source: &Pixmap) -> Pixmap {
    let (w, h) = (source.width() as i64, source.height() as i64);
    let src = source.pixels();
    let at = |x: i64, y: i64| src[(y.clamp(0, h - 1) * w + x.clamp(0, w - 1)) as usize];
    let mut out = source.clone();
    for (i, pixel) in out.pixels_mut().iter_mut().enumerate() {
        let (x, y) = (i as i64 % w, i as i64 / w);
        let centre = at(x, y);
        let channel = |get: fn(PremultipliedColorU8) -> u8| {
            let mut blur = 0i32;
            for (dy, row) in [(-1, [1, 2, 1]), (0, [2, 4, 2]), (1, [1, 2, 1])] {
                for (dx, weight) in (-1..=1).zip(row) {
                    blur += weight * i32::from(get(at(x + dx, y + dy)));
                }
            }
            let c = i32::from(get(centre));
            (c + (c * 16 - blur) * 3 / 80).clamp(0, i32::from(centre.alpha())) as u8
        };
        *pixel = PremultipliedColorU8::from_rgba(
            channel(PremultipliedColorU8::red),
            channel(PremultipliedColorU8::green),
            channel(PremultipliedColorU8::blue),
            centre.alpha(),
        )
        .unwrap_or(centre);
    }
    out
}

/// Decodes the PNG or JPEG bytes of a rendition. Stored renditions are never anything else
/// (an upload of another kind is stored as a PNG or JPEG), so a render calls these two
/// decoders directly and carries no other: the browser's engine stays small.
pub fn decode_image(bytes: &[u8]) -> Result<DecodedImage, ImageError> {
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    // The decoded image plus the RGBA copy made below.
    limits.max_alloc = Some(MAX_IMAGE_PIXELS * 8);
    let reader = Cursor::new(bytes);
    let rgba = match Format::sniff(bytes) {
        Some(Format::Png) => decode_with(PngDecoder::with_limits(reader, limits))?,
        Some(Format::Jpeg) => decode_with(JpegDecoder::new(reader).and_then(|mut decoder| {
            decoder.set_limits(limits)?;
            Ok(decoder)
        }))?,
        _ => {
            return Err(ImageError::Undecodable(
                "the bytes are neither a PNG nor a JPEG".into(),
            ));
        }
    };
    let (width, height) = rgba.dimensions();
    let mut pixmap = Pixmap::new(width, height).ok_or(ImageError::TooLarge { width, height })?;
    for (pixel, rgba) in pixmap.pixels_mut().iter_mut().zip(rgba.pixels()) {
        let [r, g, b, a] = rgba.0;
        *pixel = tiny_skia::ColorU8::from_rgba(r, g, b, a).premultiply();
    }
    Ok(DecodedImage::new(pixmap))
}

/// The pixels of `decoder`'s image as 8-bit RGBA, once its size is known to be within the
/// pixel bound.
fn decode_with(
    decoder: image::ImageResult<impl ImageDecoder>,
) -> Result<image::RgbaImage, ImageError> {
    let undecodable = |e: image::ImageError| ImageError::Undecodable(e.to_string());
    let mut decoder = decoder.map_err(undecodable)?;
    let (width, height) = decoder.dimensions();
    if u64::from(width) * u64::from(height) > MAX_IMAGE_PIXELS {
        return Err(ImageError::TooLarge { width, height });
    }
    decoder
        .set_limits(limits_for(width, height))
        .map_err(undecodable)?;
    Ok(DynamicImage::from_decoder(decoder)
        .map_err(undecodable)?
        .into_rgba8())
}

fn limits_for(width: u32, height: u32) -> image::Limits {
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(width);
    limits.max_image_height = Some(height);
    limits.max_alloc = Some(MAX_IMAGE_PIXELS * 8);
    limits
}

/// `image` turned clockwise by `turns` quarter turns.
pub(super) fn turn(image: &Pixmap, turns: u8) -> Pixmap {
    let (width, height) = (image.width() as usize, image.height() as usize);
    let (turned_width, turned_height) = if turns % 2 == 1 {
        (height, width)
    } else {
        (width, height)
    };
    let mut turned = Pixmap::new(turned_width as u32, turned_height as u32)
        .expect("as many pixels as the image");
    let source = image.pixels();
    for (y, row) in turned
        .pixels_mut()
        .chunks_exact_mut(turned_width)
        .enumerate()
    {
        for (x, pixel) in row.iter_mut().enumerate() {
            let (from_x, from_y) = match turns % 4 {
                0 => (x, y),
                1 => (y, height - 1 - x),
                2 => (width - 1 - x, height - 1 - y),
                _ => (width - 1 - y, x),
            };
            *pixel = source[from_y * width + from_x];
        }
    }
    turned
}

fn halve(source: &Pixmap) -> Pixmap {
    let (sw, sh) = (source.width(), source.height());
    let (w, h) = ((sw / 2).max(1), (sh / 2).max(1));
    let mut out = Pixmap::new(w, h).expect("a halved image is smaller than its source");
    let src = source.pixels();
    let at = |x: u32, y: u32| src[(y.min(sh - 1) * sw + x.min(sw - 1)) as usize];
    for (i, pixel) in out.pixels_mut().iter_mut().enumerate() {
        let (x, y) = (i as u32 % w * 2, i as u32 / w * 2);
        let quad = [at(x, y), at(x + 1, y), at(x, y + 1), at(x + 1, y + 1)];
        let mean = |channel: fn(PremultipliedColorU8) -> u8| {
            ((quad.iter().map(|&p| u32::from(channel(p))).sum::<u32>() + 2) / 4) as u8
        };
        // The mean of premultiplied pixels is premultiplied: each channel <= alpha holds.
        *pixel = PremultipliedColorU8::from_rgba(
            mean(PremultipliedColorU8::red),
            mean(PremultipliedColorU8::green),
            mean(PremultipliedColorU8::blue),
            mean(PremultipliedColorU8::alpha),
        )
        .unwrap_or(PremultipliedColorU8::TRANSPARENT);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32, rgba: [u8; 4]) -> Vec<u8> {
        let pixels: Vec<u8> = (0..width * height).flat_map(|_| rgba).collect();
        crate::raster::encode_png(width, height, png::ColorType::Rgba, &pixels).unwrap()
    }

    #[test]
    fn decodes_and_premultiplies() {
        let image = decode_image(&png(3, 2, [200, 100, 0, 128])).unwrap();
        assert_eq!((image.width(), image.height()), (3, 2));
        let p = image.pixmap().pixels()[0];
        assert_eq!((p.red(), p.green(), p.alpha()), (100, 50, 128));
    }

    #[test]
    fn halving_stops_at_the_target() {
        let image = decode_image(&png(1000, 500, [10, 20, 30, 255])).unwrap();
        assert_eq!(image.size_at_least(600.0), (1000, 500));
        assert!(matches!(image.prepared(600.0, 0), Prepared::Original(_)));
        assert_eq!(image.size_at_least(300.0), (500, 250));
        assert_eq!(image.prepared(300.0, 0).width(), 500);
        let small = image.prepared(100.0, 0);
        assert_eq!((small.width(), small.height()), (125, 62));
        assert_eq!(image.size_at_least(100.0), (125, 62));
        assert_eq!(small.pixels()[0].green(), 20);
    }

    #[test]
    fn the_last_prepared_copy_is_kept_and_matches_a_fresh_one() {
        // Distinct pixels, so a wrong turn or halving shows.
        let pixels: Vec<u8> = (0..40u32 * 30)
            .flat_map(|i| {
                [
                    (i % 40 * 6) as u8,
                    (i / 40 * 8) as u8,
                    (i % 7 * 30) as u8,
                    255,
                ]
            })
            .collect();
        let bytes = crate::raster::encode_png(40, 30, png::ColorType::Rgba, &pixels).unwrap();
        let image = decode_image(&bytes).unwrap();
        let Prepared::Copy(first) = image.prepared(15.0, 1) else {
            panic!("halved and turned is a copy");
        };
        // Halved once (20 x 15), then turned a quarter: 15 x 20.
        assert_eq!((first.width(), first.height()), (15, 20));
        assert_eq!(first.data(), turn(&halve(image.pixmap()), 1).data());
        // The same again is the kept copy; another turn replaces it.
        let Prepared::Copy(again) = image.prepared(15.0, 5) else {
            panic!("a copy");
        };
        assert!(Arc::ptr_eq(&first, &again));
        let Prepared::Copy(other) = image.prepared(15.0, 2) else {
            panic!("a copy");
        };
        assert!(!Arc::ptr_eq(&first, &other));
        assert_eq!(other.data(), turn(&halve(image.pixmap()), 2).data());
        let Prepared::Copy(fresh) = image.prepared(15.0, 1) else {
            panic!("a copy");
        };
        assert!(!Arc::ptr_eq(&first, &fresh));
        assert_eq!(first.data(), fresh.data());
    }

    #[test]
    fn enhancement_stretches_tones_and_sharpens_edges() {
        // A dull image: a 100..150 grey ramp with a step in the middle.
        let (w, h) = (64u32, 8u32);
        let pixels: Vec<u8> = (0..w * h)
            .flat_map(|i| {
                let x = i % w;
                let v = if x < 32 { 100 + x as u8 } else { 120 + x as u8 };
                [v, v, v, 255]
            })
            .collect();
        let ramp = crate::raster::encode_png(w, h, png::ColorType::Rgba, &pixels).unwrap();
        let image = decode_image(&ramp).unwrap();
        let enhanced = image.enhanced();
        let grey = |img: &DecodedImage, x: u32| img.pixmap().pixels()[(4 * w + x) as usize].red();
        // Wider range than the 100..183 it started with.
        assert!(grey(&enhanced, 0) < 20 && grey(&enhanced, 63) > 235);
        // The step overshoots on both sides (sharpened), and the ramp stays monotonic away from it.
        assert!(
            grey(&enhanced, 31) < grey(&enhanced, 30) || grey(&enhanced, 32) > grey(&enhanced, 33)
        );
        assert!(grey(&enhanced, 10) < grey(&enhanced, 20));
        // A flat image is left alone.
        let flat = decode_image(&png(8, 8, [90, 90, 90, 255])).unwrap();
        assert_eq!(flat.enhanced().pixmap().data(), flat.pixmap().data());
    }

    #[test]
    fn rubbish_and_oversized_images_are_errors() {
        assert!(matches!(
            decode_image(b"not an image"),
            Err(ImageError::Undecodable(_))
        ));
        // Renditions are PNGs or JPEGs: a GIF (which uploads turn into one) is not drawn.
        let gif = decode_image(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;").unwrap_err();
        assert!(
            gif.to_string().contains("neither a PNG nor a JPEG"),
            "{gif}"
        );
        // A PNG header claiming 20000 x 20000 pixels is refused before decoding.
        let mut huge = png(1, 1, [0; 4]);
        huge[16..20].copy_from_slice(&20000u32.to_be_bytes());
        huge[20..24].copy_from_slice(&20000u32.to_be_bytes());
        assert!(decode_image(&huge).is_err());
    }
}
