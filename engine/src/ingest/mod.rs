//! Ingest: what an uploaded or imported image is, whether it may be printed, and its
//! renditions. The host runs this inside the wasm engine, so untrusted bytes are only ever
//! parsed and decoded in the sandbox, under its memory and time limits.
//!
//! Stages, as for rendering: identify the format by content and read the header facts
//! ([`facts`]) -> check the limits before any pixel is decoded -> decode (orientation
//! applied; PDFs rasterised by [`pdf`]) -> apply the upload rules -> resample and encode the
//! renditions ([`renditions`]) -> detect photo or not ([`detect`]) on the preview.

pub mod detect;
pub mod facts;
#[cfg(feature = "pdf")]
pub mod pdf;
pub mod renditions;

use std::fmt;
use std::io::Cursor;

use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageFormat};
use serde::{Deserialize, Serialize};

use crate::failure::FailureCode;
use crate::model::Catalogue;
use crate::raster::MAX_IMAGE_PIXELS;
pub use facts::Format;
pub use renditions::{Pixels, RenditionKind};

/// Resolution a print needs, in dots per inch; also the resolution PDF pages are rasterised at.
pub const PRINT_DPI: f64 = 300.0;
/// JPEG quality of renditions re-encoded from JPEG sources.
const RENDITION_JPEG_QUALITY: u8 = 90;

/// The limits and thresholds of an ingest, chosen by the host's configuration.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestRequest {
    /// Largest image, in pixels (width x height), checked from the header.
    pub max_pixels: u64,
    /// Largest width or height, in pixels.
    pub max_side: u32,
    /// JPEGs below this estimated quality are accepted with a warning.
    pub min_jpeg_quality: u8,
    /// Memory the decoded image and its working copies may take, in bytes: the engine's
    /// memory limit less what it already holds. An image estimated to need more is refused
    /// before decoding, rather than failing the engine.
    pub max_decode_bytes: u64,
}

/// A caveat on an accepted image (the spec's image warning entry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageWarning {
    pub code: String,
    pub message: String,
    pub reason: String,
}

impl ImageWarning {
    fn new(code: &str, message: &str, reason: String) -> ImageWarning {
        ImageWarning {
            code: code.to_owned(),
            message: message.to_owned(),
            reason,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenditionInfo {
    pub kind: RenditionKind,
    pub width: u32,
    pub height: u32,
    pub media_type: String,
    /// The uploaded file itself is this rendition (its bytes are not repeated).
    pub original: bool,
}

/// What an ingest found and made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestReport {
    pub format: Format,
    /// The print rendition's size (orientation applied).
    pub width: u32,
    pub height: u32,
    pub looks_like_photo: bool,
    pub jpeg_quality: Option<u8>,
    /// A PDF's page size in millimetres.
    pub page_size_mm: Option<[f64; 2]>,
    pub warnings: Vec<ImageWarning>,
    pub renditions: Vec<RenditionInfo>,
}

/// The report and each rendition's bytes (empty where the original serves).
#[derive(Debug, Clone)]
pub struct Ingested {
    pub report: IngestReport,
    pub blobs: Vec<Vec<u8>>,
}

/// Why an image is refused. Each has a stable code and says what to send instead.
#[derive(Debug, Clone, PartialEq)]
pub enum IngestError {
    Unsupported,
    Transparent,
    TooManyPixels {
        width: u32,
        height: u32,
        max: u64,
    },
    SideTooLong {
        width: u32,
        height: u32,
        max: u32,
    },
    TooLargeToDecode {
        width: u32,
        height: u32,
        needed: u64,
        max: u64,
    },
    Undecodable {
        format: Format,
        why: String,
    },
    UnreadablePdf(String),
}

impl IngestError {
    pub fn code(&self) -> FailureCode {
        match self {
            IngestError::Unsupported => FailureCode::UnsupportedImageType,
            IngestError::Transparent => FailureCode::TransparentPng,
            IngestError::TooManyPixels { .. } => FailureCode::ImageTooManyPixels,
            IngestError::SideTooLong { .. } => FailureCode::ImageSideTooLong,
            IngestError::TooLargeToDecode { .. } => FailureCode::ImageTooLargeToDecode,
            IngestError::Undecodable { .. } => FailureCode::UndecodableImage,
            IngestError::UnreadablePdf(_) => FailureCode::UnreadablePdf,
        }
    }

    /// What the client can do about it.
    pub fn reason(&self) -> String {
        match self {
            IngestError::Unsupported => "Send a PNG, JPEG, GIF or PDF file.".into(),
            IngestError::Transparent => "Transparency cannot be printed from a PNG: send a PDF \
                 for transparency, or flatten the image onto a background and send it again."
                .into(),
            IngestError::TooManyPixels { max, .. } => {
                format!("Send an image of at most {max} pixels (width x height).")
            }
            IngestError::SideTooLong { max, .. } => {
                format!("Send an image at most {max} pixels wide and high.")
            }
            IngestError::TooLargeToDecode { .. } => "Send the image with fewer pixels, or with \
                 8 bits per channel and no alpha channel (a JPEG, or an RGB PNG)."
                .into(),
            IngestError::Undecodable { format, .. } => format!(
                "The {} file may be damaged or cut short: export or upload it again.",
                format.name()
            ),
            IngestError::UnreadablePdf(_) => {
                "Export the PDF again (PDF 1.4 or later, not encrypted) or send a PNG or JPEG."
                    .into()
            }
        }
    }
}

impl fmt::Display for IngestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IngestError::Unsupported => write!(
                f,
                "the file is not an image type that is accepted (PNG, JPEG, GIF or PDF)"
            ),
            IngestError::Transparent => write!(f, "the PNG has transparent pixels"),
            IngestError::TooManyPixels { width, height, max } => write!(
                f,
                "the image is {width} x {height} pixels, more than the {max} pixels accepted"
            ),
            IngestError::SideTooLong { width, height, max } => write!(
                f,
                "the image is {width} x {height} pixels; a side may be at most {max} pixels"
            ),
            IngestError::TooLargeToDecode {
                width,
                height,
                needed,
                max,
            } => write!(
                f,
                "the image is {width} x {height} pixels; reading it needs about {} MB, more \
                 than the {} MB the server allows",
                needed.div_ceil(1_000_000),
                max / 1_000_000
            ),
            IngestError::Undecodable { format, why } => {
                write!(f, "the {} file cannot be read: {why}", format.name())
            }
            IngestError::UnreadablePdf(why) => write!(f, "the PDF cannot be read: {why}"),
        }
    }
}

impl std::error::Error for IngestError {}

/// Checks an image and makes its renditions.
pub fn ingest(bytes: &[u8], request: &IngestRequest) -> Result<Ingested, IngestError> {
    let format = Format::sniff(bytes).ok_or(IngestError::Unsupported)?;
    let mut warnings = Vec::new();
    let mut jpeg_quality = None;
    let mut page_size_mm = None;
    let mut rgb_profile = None;
    let (pixels, orientation) = match format {
        Format::Pdf => {
            let (pixels, size_mm, unsupported) = read_pdf(bytes, request)?;
            page_size_mm = Some(size_mm);
            if !unsupported.is_empty() {
                warnings.push(ImageWarning::new(
                    "pdf_features_unsupported",
                    "Parts of the PDF may not print as they look",
                    format!(
                        "Not supported, drawn approximately or left out: {}.",
                        unsupported.join("; ")
                    ),
                ));
            }
            (pixels, Orientation::NoTransforms)
        }
        _ => {
            let facts = facts::raster_facts(format, bytes)
                .map_err(|why| IngestError::Undecodable { format, why })?;
            check_size(facts.width, facts.height, request)?;
            let (image, orientation) = decode(format, bytes, &facts, request)?;
            if facts.may_be_transparent && uses_transparency(&image) {
                return Err(IngestError::Transparent);
            }
            jpeg_quality = facts.jpeg_quality;
            rgb_profile = facts.rgb_profile().map(<[u8]>::to_vec);
            // The rules refuse transparent PNGs but not GIFs, whose transparent pixels must
            // stay transparent rather than print as whatever colour they store.
            let keep_alpha = format == Format::Gif && uses_transparency(&image);
            (Pixels::from_image(image, keep_alpha), orientation)
        }
    };
    if format == Format::Gif {
        warnings.push(ImageWarning::new(
            "gif_poor_quality",
            "GIF images usually print poorly",
            "GIF keeps at most 256 colours; send a JPEG, PNG or PDF for better print quality."
                .into(),
        ));
    }
    if let Some(quality) = jpeg_quality.filter(|&q| q < request.min_jpeg_quality) {
        warnings.push(ImageWarning::new(
            "jpeg_low_quality",
            "The JPEG is strongly compressed and may print with visible artefacts",
            format!(
                "Its compression quality is about {quality}; save it again from the original \
                 at quality {} or more.",
                request.min_jpeg_quality
            ),
        ));
    }
    let (width, height) = pixels.dimensions();
    if let Some(warning) = low_resolution_warning(width, height) {
        warnings.push(warning);
    }

    // Renders decode at most MAX_IMAGE_PIXELS, so a larger image's print rendition is shrunk
    // to that: at 300 dpi it still covers 423 x 423 mm, more than any product.
    let pixels = pixels.within_pixels(MAX_IMAGE_PIXELS);
    let (print_width, print_height) = pixels.dimensions();
    // The original serves as the print rendition when it already is a PNG or JPEG the
    // right way up at its own size; otherwise the pixels are encoded (losslessly unless
    // from a JPEG).
    let source_quality = (format == Format::Jpeg).then_some(RENDITION_JPEG_QUALITY);
    let original_is_print = matches!(format, Format::Png | Format::Jpeg)
        && orientation == Orientation::NoTransforms
        && (print_width, print_height) == (width, height);
    let mut renditions = Vec::new();
    let mut blobs = Vec::new();
    let encode_failed = |why: String| IngestError::Undecodable {
        format,
        why: format!("its renditions cannot be encoded: {why}"),
    };
    let print_media_type = if original_is_print {
        blobs.push(Vec::new());
        match format {
            Format::Jpeg => "image/jpeg",
            _ => "image/png",
        }
    } else {
        let (bytes, media_type) = pixels
            .encode_in(source_quality, rgb_profile.as_deref())
            .map_err(encode_failed)?;
        blobs.push(bytes);
        media_type
    };
    renditions.push(RenditionInfo {
        kind: RenditionKind::Print,
        width: print_width,
        height: print_height,
        media_type: print_media_type.to_owned(),
        original: original_is_print,
    });
    // Each smaller rendition is resampled from the one before: each step shrinks less.
    let mut previous = pixels;
    let mut preview_rgb = None;
    for kind in &RenditionKind::ALL[1..] {
        let longest = kind.longest_side().expect("only print has no size");
        if let Some(smaller) = previous.shrunk_to(longest) {
            previous = smaller;
        }
        let (bytes, media_type) = previous.encode(source_quality).map_err(encode_failed)?;
        let (width, height) = previous.dimensions();
        renditions.push(RenditionInfo {
            kind: *kind,
            width,
            height,
            media_type: media_type.to_owned(),
            original: false,
        });
        blobs.push(bytes);
        if *kind == RenditionKind::Preview {
            preview_rgb = Some(previous.rgb_over_white());
        }
    }
    let looks_like_photo = preview_rgb.is_some_and(|rgb| detect::looks_like_photo(&rgb));
    Ok(Ingested {
        report: IngestReport {
            format,
            width,
            height,
            looks_like_photo,
            jpeg_quality,
            page_size_mm,
            warnings,
            renditions,
        },
        blobs,
    })
}

fn check_size(width: u32, height: u32, request: &IngestRequest) -> Result<(), IngestError> {
    if width > request.max_side || height > request.max_side {
        return Err(IngestError::SideTooLong {
            width,
            height,
            max: request.max_side,
        });
    }
    if u64::from(width) * u64::from(height) > request.max_pixels {
        return Err(IngestError::TooManyPixels {
            width,
            height,
            max: request.max_pixels,
        });
    }
    Ok(())
}

/// Decodes a PNG, JPEG or GIF (its first frame) whose header promised the size in `facts`,
/// allocating no more than that needs, and applies its EXIF orientation (returned).
fn decode(
    format: Format,
    bytes: &[u8],
    facts: &facts::RasterFacts,
    request: &IngestRequest,
) -> Result<(DynamicImage, Orientation), IngestError> {
    let (width, height) = (facts.width, facts.height);
    let undecodable = |e: image::ImageError| IngestError::Undecodable {
        format,
        why: e.to_string(),
    };
    let image_format = match format {
        Format::Png => ImageFormat::Png,
        Format::Jpeg => ImageFormat::Jpeg,
        _ => ImageFormat::Gif,
    };
    let mut reader = image::ImageReader::with_format(Cursor::new(bytes), image_format);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(width);
    limits.max_image_height = Some(height);
    // 16-bit RGBA is the widest decoded pixel; a little more for the decoders' own tables.
    limits.max_alloc = Some(u64::from(width) * u64::from(height) * 8 + (16 << 20));
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(undecodable)?;
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    // The peak while checking: the decoded raster, a turned copy of it, the RGB(A) copy
    // the renditions start from, and the (at most MAX_IMAGE_PIXELS) print rendition with
    // its encoding.
    let pixels = u64::from(width) * u64::from(height);
    let decoded = decoder.total_bytes();
    let turned = if orientation == Orientation::NoTransforms {
        0
    } else {
        decoded
    };
    let converted = if decoder.color_type() == image::ColorType::Rgb8 {
        0
    } else {
        pixels * 4
    };
    let needed = decoded + turned + converted + pixels.min(MAX_IMAGE_PIXELS) * 8;
    if needed > request.max_decode_bytes {
        return Err(IngestError::TooLargeToDecode {
            width,
            height,
            needed,
            max: request.max_decode_bytes,
        });
    }
    let mut image = DynamicImage::from_decoder(decoder).map_err(undecodable)?;
    image.apply_orientation(orientation);
    Ok((image, orientation))
}

/// Whether any pixel is less than fully opaque (a tRNS entry or alpha channel that no pixel
/// uses does not count).
fn uses_transparency(image: &DynamicImage) -> bool {
    match image {
        DynamicImage::ImageLumaA8(image) => image.pixels().any(|p| p.0[1] < u8::MAX),
        DynamicImage::ImageRgba8(image) => image.pixels().any(|p| p.0[3] < u8::MAX),
        DynamicImage::ImageLumaA16(image) => image.pixels().any(|p| p.0[1] < u16::MAX),
        DynamicImage::ImageRgba16(image) => image.pixels().any(|p| p.0[3] < u16::MAX),
        _ => false,
    }
}

/// Pixels needed for `mm` at the print resolution.
fn print_pixels(mm: f64) -> u32 {
    (mm / 25.4 * PRINT_DPI).ceil() as u32
}

/// A warning if the image cannot fill even the smallest product's print area at 300 dpi.
fn low_resolution_warning(width: u32, height: u32) -> Option<ImageWarning> {
    let fits = |need_w: u32, need_h: u32| {
        (width >= need_w && height >= need_h) || (width >= need_h && height >= need_w)
    };
    let smallest = Catalogue::builtin().products().iter().min_by(|a, b| {
        let area = |p: &crate::model::Product| p.boxes.print.width * p.boxes.print.height;
        area(a).total_cmp(&area(b))
    })?;
    let print = smallest.boxes.print;
    let (need_w, need_h) = (print_pixels(print.width), print_pixels(print.height));
    if fits(need_w, need_h) {
        return None;
    }
    Some(ImageWarning::new(
        "low_resolution",
        "The image has too few pixels to print sharply",
        format!(
            "At {PRINT_DPI} dpi even the smallest product ({}, {} x {} mm) needs at least \
             {need_w} x {need_h} pixels; this image has {width} x {height}.",
            smallest.code, print.width, print.height
        ),
    ))
}

/// A PDF's first page: its pixels, its size in mm and what could not be drawn faithfully.
#[cfg(feature = "pdf")]
fn read_pdf(
    bytes: &[u8],
    request: &IngestRequest,
) -> Result<(Pixels, [f64; 2], Vec<String>), IngestError> {
    // A page is drawn smaller to fit: in pixels, and in memory (RGBA, and the drawing
    // surface and rendition copies beside it).
    let max_pixels = request.max_pixels.min(request.max_decode_bytes / 16);
    let page = pdf::rasterise_first_page(bytes, PRINT_DPI, max_pixels, request.max_side)
        .map_err(|e| IngestError::UnreadablePdf(e.to_string()))?;
    Ok((
        Pixels::Rgba(page.image),
        [page.width_mm, page.height_mm],
        page.unsupported,
    ))
}

/// Builds without the `pdf` feature (the browser's) take no PDFs.
#[cfg(not(feature = "pdf"))]
fn read_pdf(_: &[u8], _: &IngestRequest) -> Result<(Pixels, [f64; 2], Vec<String>), IngestError> {
    Err(IngestError::UnreadablePdf(
        "this build of the engine reads no PDF".into(),
    ))
}
