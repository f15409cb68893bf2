//! Renditions: the image at the sizes clients and renders use, resampled with a Lanczos
//! filter (`fast_image_resize`, SIMD natively and with wasm's simd128) and encoded.

use fast_image_resize::images::Image;
use fast_image_resize::{PixelType, ResizeOptions, Resizer};
use image::{DynamicImage, ExtendedColorType, ImageEncoder};
use serde::{Deserialize, Serialize};

/// The renditions of every image, as wire-formats section 3 names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RenditionKind {
    /// Every pixel, orientation applied: what is printed.
    Print,
    Preview,
    SmallPreview,
    Thumbnail,
}

impl RenditionKind {
    pub const ALL: [RenditionKind; 4] = [
        RenditionKind::Print,
        RenditionKind::Preview,
        RenditionKind::SmallPreview,
        RenditionKind::Thumbnail,
    ];

    /// The longest side, in pixels (`None`: the image's own size).
    pub fn longest_side(self) -> Option<u32> {
        match self {
            RenditionKind::Print => None,
            RenditionKind::Preview => Some(1024),
            RenditionKind::SmallPreview => Some(300),
            RenditionKind::Thumbnail => Some(150),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RenditionKind::Print => "print",
            RenditionKind::Preview => "preview",
            RenditionKind::SmallPreview => "small-preview",
            RenditionKind::Thumbnail => "thumbnail",
        }
    }
}

/// The size of a `width` x `height` image scaled so its longest side is `longest`.
fn shrunk_size(width: u32, height: u32, longest: u32) -> (u32, u32) {
    let scale = f64::from(longest) / f64::from(width.max(height));
    let size = |side: u32| ((f64::from(side) * scale).round() as u32).max(1);
    (size(width), size(height))
}

/// Decoded pixels: RGB when opaque, straight-alpha RGBA when the image has transparency
/// (PDF pages and GIFs may).
#[derive(Debug, Clone)]
pub enum Pixels {
    Rgb(image::RgbImage),
    Rgba(image::RgbaImage),
}

impl Pixels {
    pub fn from_image(image: DynamicImage, keep_alpha: bool) -> Pixels {
        if keep_alpha {
            Pixels::Rgba(image.into_rgba8())
        } else {
            Pixels::Rgb(image.into_rgb8())
        }
    }

    pub fn dimensions(&self) -> (u32, u32) {
        match self {
            Pixels::Rgb(image) => image.dimensions(),
            Pixels::Rgba(image) => image.dimensions(),
        }
    }

    /// The pixels scaled so the longest side is `longest`; never enlarged.
    pub fn shrunk_to(&self, longest: u32) -> Option<Pixels> {
        let (width, height) = self.dimensions();
        if width.max(height) <= longest {
            return None;
        }
        let (new_width, new_height) = shrunk_size(width, height, longest);
        let (pixel_type, buffer) = match self {
            Pixels::Rgb(image) => (PixelType::U8x3, image.as_raw()),
            Pixels::Rgba(image) => (PixelType::U8x4, image.as_raw()),
        };
        let source = fast_image_resize::images::ImageRef::new(width, height, buffer, pixel_type)
            .expect("an image's buffer matches its size");
        let mut target = Image::new(new_width, new_height, pixel_type);
        // Alpha is premultiplied during resampling so transparent pixels do not bleed colour.
        Resizer::new()
            .resize(&source, &mut target, &ResizeOptions::new())
            .expect("source and target have the same pixel type");
        let pixels = target.into_vec();
        Some(match self {
            Pixels::Rgb(_) => Pixels::Rgb(
                image::RgbImage::from_raw(new_width, new_height, pixels).expect("sized buffer"),
            ),
            Pixels::Rgba(_) => Pixels::Rgba(
                image::RgbaImage::from_raw(new_width, new_height, pixels).expect("sized buffer"),
            ),
        })
    }

    /// The pixels shrunk to at most `max_pixels` in all, if they have more.
    pub fn within_pixels(self, max_pixels: u64) -> Pixels {
        let (width, height) = self.dimensions();
        let count = |(w, h): (u32, u32)| u64::from(w) * u64::from(h);
        if count((width, height)) <= max_pixels {
            return self;
        }
        let scale = (max_pixels as f64 / count((width, height)) as f64).sqrt();
        let mut longest = (f64::from(width.max(height)) * scale) as u32;
        // Each side is rounded, so the estimate may be a pixel over.
        while longest > 1 && count(shrunk_size(width, height, longest)) > max_pixels {
            longest -= 1;
        }
        self.shrunk_to(longest).unwrap_or(self)
    }

    /// RGB pixels for analysis (alpha composited over white).
    pub fn rgb_over_white(&self) -> Vec<u8> {
        match self {
            Pixels::Rgb(image) => image.as_raw().clone(),
            Pixels::Rgba(image) => image
                .pixels()
                .flat_map(|p| {
                    let [r, g, b, a] = p.0;
                    let over = |c: u8| {
                        ((u32::from(c) * u32::from(a) + 255 * (255 - u32::from(a)) + 127) / 255)
                            as u8
                    };
                    [over(r), over(g), over(b)]
                })
                .collect(),
        }
    }

    /// Encodes as JPEG (opaque pixels, `jpeg_quality`) or PNG (pixels with alpha, or when no
    /// quality is given: lossless sources stay lossless).
    pub fn encode(&self, jpeg_quality: Option<u8>) -> Result<(Vec<u8>, &'static str), String> {
        self.encode_in(jpeg_quality, None)
    }

    /// [`Self::encode`], the file saying its colours are in `icc_profile` when given (a
    /// photo's own profile stays with its print rendition).
    pub fn encode_in(
        &self,
        jpeg_quality: Option<u8>,
        icc_profile: Option<&[u8]>,
    ) -> Result<(Vec<u8>, &'static str), String> {
        let mut out = Vec::new();
        match (self, jpeg_quality) {
            (Pixels::Rgb(image), Some(quality)) => {
                let mut encoder =
                    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality);
                if let Some(profile) = icc_profile {
                    encoder
                        .set_icc_profile(profile.to_vec())
                        .map_err(|e| e.to_string())?;
                }
                encoder
                    .write_image(
                        image.as_raw(),
                        image.width(),
                        image.height(),
                        ExtendedColorType::Rgb8,
                    )
                    .map_err(|e| e.to_string())?;
                Ok((out, "image/jpeg"))
            }
            _ => {
                let (width, height, colour, raw) = match self {
                    Pixels::Rgb(image) => {
                        let (w, h) = image.dimensions();
                        (w, h, png::ColorType::Rgb, image.as_raw())
                    }
                    Pixels::Rgba(image) => {
                        let (w, h) = image.dimensions();
                        (w, h, png::ColorType::Rgba, image.as_raw())
                    }
                };
                let png = crate::raster::encode_png_in(width, height, colour, raw, icc_profile)
                    .map_err(|e| e.to_string())?;
                Ok((png, "image/png"))
            }
        }
    }
}
