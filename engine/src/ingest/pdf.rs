//! The first page of an uploaded PDF as an image, with its page size, rasterised by `hayro`
//! (pure Rust, its standard-14 fonts and CMaps compiled in, so it needs nothing from the host).
//!
//! Only the first page is read: an upload is one design, and a PDF's later pages are not
//! printed. The page is drawn on a transparent background so that what the PDF leaves blank
//! stays blank, as it would when the PDF itself is placed.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use hayro::hayro_interpret::util::TransformExt;
use hayro::hayro_interpret::{InterpreterSettings, InterpreterWarning};
use hayro::hayro_syntax::{DecryptionError, LoadPdfError, Pdf};
use hayro::kurbo::Affine;
use hayro::vello_cpu::color::palette::css::TRANSPARENT;
use hayro::vello_cpu::peniko::ImageAlphaType;
use hayro::vello_cpu::{Pixmap, RasterizerSettings, RenderContext, Resources, TargetInit};
use hayro::{RenderCache, RenderSettings};

const MM_PER_INCH: f64 = 25.4;
const POINTS_PER_INCH: f64 = 72.0;

/// The first page of a PDF, rasterised.
#[derive(Debug, Clone)]
pub struct PdfPage {
    /// The page's size in millimetres (its crop box, or media box; rotation applied).
    pub width_mm: f64,
    pub height_mm: f64,
    /// The page's pixels, straight (not premultiplied) RGBA; transparent where nothing is drawn.
    pub image: image::RgbaImage,
    /// Human-readable notes on features of the page that could not be drawn faithfully
    /// (empty if none), each a phrase such as "an image that could not be decoded (left out)".
    pub unsupported: Vec<String>,
}

/// Why a PDF yields no image.
#[derive(Debug, Clone, PartialEq)]
pub enum PdfError {
    /// Not a PDF, or too damaged to find its pages.
    Unreadable(String),
    /// The PDF has no page.
    NoPages,
    /// The PDF is encrypted with a password, or in a way that cannot be decrypted.
    Encrypted,
    /// Even at the lowest resolution that keeps the page's shape (its shorter side one pixel),
    /// the raster would exceed the limits: the page is far too long and thin.
    TooLarge {
        width_mm: f64,
        height_mm: f64,
        max_pixels: u64,
        max_side: u32,
    },
}

impl fmt::Display for PdfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PdfError::Unreadable(why) => write!(f, "the PDF cannot be read: {why}"),
            PdfError::NoPages => write!(f, "the PDF has no pages"),
            PdfError::Encrypted => write!(
                f,
                "the PDF is encrypted: save it again without a password or other protection"
            ),
            PdfError::TooLarge {
                width_mm,
                height_mm,
                max_pixels,
                max_side,
            } => write!(
                f,
                "the first page ({width_mm:.1} x {height_mm:.1} mm) is too long and narrow to \
                 draw within {max_pixels} pixels and {max_side} pixels a side"
            ),
        }
    }
}

impl std::error::Error for PdfError {}

/// Rasterises page 1 at `dpi` (e.g. 300), lowering the resolution if needed so that the
/// raster has at most `max_pixels` pixels and at most `max_side` pixels on each side.
///
/// Each side has round(mm / 25.4 * dpi) pixels, at least one; the page is stretched by
/// less than half a pixel per side to fill them exactly.
pub fn rasterise_first_page(
    bytes: &[u8],
    dpi: f64,
    max_pixels: u64,
    max_side: u32,
) -> Result<PdfPage, PdfError> {
    let pdf = Pdf::new(bytes.to_vec()).map_err(|e| match e {
        LoadPdfError::Decryption(DecryptionError::InvalidEncryption) => {
            PdfError::Unreadable("its encryption dictionary is damaged".into())
        }
        LoadPdfError::Decryption(_) => PdfError::Encrypted,
        LoadPdfError::Invalid => {
            PdfError::Unreadable("it is not a PDF, or its structure is damaged".into())
        }
    })?;
    let page = pdf.pages().first().ok_or(PdfError::NoPages)?;

    // The page's visible area in points, as hayro draws it: the crop box clipped to the
    // media box (an A4 sheet when it has no area), rotation applied.
    let (width_pt, height_pt) = page.render_dimensions();
    let (width_pt, height_pt) = (f64::from(width_pt), f64::from(height_pt));
    if !(width_pt.is_finite() && height_pt.is_finite()) {
        return Err(PdfError::Unreadable("its page size is out of range".into()));
    }
    let width_mm = width_pt / POINTS_PER_INCH * MM_PER_INCH;
    let height_mm = height_pt / POINTS_PER_INCH * MM_PER_INCH;
    let (width_px, height_px) = raster_size(
        width_pt / POINTS_PER_INCH,
        height_pt / POINTS_PER_INCH,
        dpi,
        max_pixels,
        // vello_cpu, hayro's rasteriser, takes sides of up to u16::MAX pixels.
        max_side.min(u32::from(u16::MAX)),
    )
    .ok_or(PdfError::TooLarge {
        width_mm,
        height_mm,
        max_pixels,
        max_side,
    })?;
    // raster_size keeps each side within u16::MAX.
    let (width_px, height_px) = (width_px as u16, height_px as u16);

    let warnings: Arc<Mutex<Vec<&'static str>>> = Arc::default();
    let sink = Arc::clone(&warnings);
    let interpreter_settings = InterpreterSettings {
        // Called once per occurrence, possibly many times: keep each kind once.
        warning_sink: Arc::new(move |warning| {
            let note = warning_note(warning);
            let mut notes = sink.lock().unwrap_or_else(PoisonError::into_inner);
            if !notes.contains(&note) {
                notes.push(note);
            }
        }),
        ..InterpreterSettings::default()
    };

    // render() would truncate the scaled size; instead the canvas has the rounded size and the
    // page is scaled on each axis to fill it exactly.
    let mut ctx = RenderContext::new(width_px, height_px);
    let transform = Affine::scale_non_uniform(
        f64::from(width_px) / width_pt,
        f64::from(height_px) / height_pt,
    ) * page.initial_transform(true).to_kurbo();
    hayro::render_into(
        page,
        &RenderCache::new(),
        &interpreter_settings,
        &RenderSettings::default(),
        &mut ctx,
        transform,
    );
    ctx.flush();
    let mut pixmap = Pixmap::new(width_px, height_px);
    ctx.render_with(
        &mut pixmap,
        &mut Resources::default(),
        RasterizerSettings {
            target_init: TargetInit::Clear(TRANSPARENT),
            ..RasterizerSettings::default()
        },
    );
    let image = image::RgbaImage::from_raw(
        u32::from(width_px),
        u32::from(height_px),
        pixmap.take_rgba8(ImageAlphaType::Alpha),
    )
    .expect("a pixmap holds width x height RGBA pixels");

    let unsupported = warnings
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .map(|&note| note.to_owned())
        .collect();
    Ok(PdfPage {
        width_mm,
        height_mm,
        image,
        unsupported,
    })
}

/// What a hayro warning means for the picture, in words for the client.
fn warning_note(warning: InterpreterWarning) -> &'static str {
    match warning {
        InterpreterWarning::UnsupportedFont => {
            "a font that could not be read (its text is drawn in a substitute font)"
        }
        InterpreterWarning::ImageDecodeFailure => "an image that could not be decoded (left out)",
        InterpreterWarning::UnresolvedAnnotationAppearance => {
            "an annotation without a usable appearance (left out)"
        }
        _ => "a feature that the PDF renderer does not support",
    }
}

/// The raster's size in pixels for a page of `width_in` x `height_in` inches at `dpi`, or at
/// the highest lower resolution that fits the limits; `None` if that would make the shorter
/// side less than a pixel (only a page far longer than it is wide, or a zero limit).
fn raster_size(
    width_in: f64,
    height_in: f64,
    dpi: f64,
    max_pixels: u64,
    max_side: u32,
) -> Option<(u32, u32)> {
    // `as` saturates, and NaN becomes 0: never a panic, whatever the page says.
    let pixels = |inches: f64, dpi: f64| ((inches * dpi).round() as u32).max(1);
    let size = |dpi: f64| (pixels(width_in, dpi), pixels(height_in, dpi));
    let fits = |(w, h): (u32, u32)| {
        w <= max_side && h <= max_side && u64::from(w) * u64::from(h) <= max_pixels
    };
    if fits(size(dpi)) {
        return Some(size(dpi));
    }
    let (long_in, short_in) = (width_in.max(height_in), width_in.min(height_in));
    // The resolution that meets both limits before rounding ...
    let mut dpi = dpi
        .min(f64::from(max_side) / long_in)
        .min((max_pixels as f64 / (width_in * height_in)).sqrt());
    loop {
        if (short_in * dpi).round() < 1.0 {
            return None;
        }
        let (w, h) = size(dpi);
        if fits((w, h)) {
            return Some((w, h));
        }
        // ... may round up past the pixel limit: take a pixel off the longer side until it
        // fits (each step shrinks it, so this ends).
        dpi = f64::from(w.max(h) - 1) / long_in;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 85 x 55 mm in points.
    const CARD: (f64, f64) = (85.0 / 25.4 * 72.0, 55.0 / 25.4 * 72.0);

    /// A PDF whose objects are `objects` (object 1 first; object 1 must be the catalogue),
    /// with a correct cross-reference table.
    fn pdf(objects: &[String]) -> Vec<u8> {
        let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
        let mut offsets = Vec::new();
        for (i, object) in objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend(format!("{} 0 obj\n{object}\nendobj\n", i + 1).bytes());
        }
        let xref = out.len();
        out.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).bytes());
        for offset in offsets {
            out.extend(format!("{offset:010} 00000 n \n").bytes());
        }
        out.extend(
            format!(
                "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
                objects.len() + 1
            )
            .bytes(),
        );
        out
    }

    /// A one-page PDF of `width_pt` x `height_pt` drawing `content`, with `extra` page entries.
    fn one_page(width_pt: f64, height_pt: f64, extra: &str, content: &str) -> Vec<u8> {
        pdf(&[
            "<< /Type /Catalog /Pages 2 0 R >>".into(),
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".into(),
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width_pt:.4} {height_pt:.4}] \
                 /Contents 4 0 R {extra} >>"
            ),
            format!(
                "<< /Length {} >>\nstream\n{content}\nendstream",
                content.len()
            ),
        ])
    }

    /// A business card, its left half filled red (`extra` added to the page dictionary).
    fn red_left_half(extra: &str) -> Vec<u8> {
        let (w, h) = CARD;
        one_page(
            w,
            h,
            extra,
            &format!("1 0 0 rg 0 0 {:.4} {h:.4} re f", w / 2.0),
        )
    }

    fn rasterise(bytes: &[u8]) -> Result<PdfPage, PdfError> {
        rasterise_first_page(bytes, 300.0, 100_000_000, 20_000)
    }

    const RED: [u8; 4] = [255, 0, 0, 255];
    const CLEAR: [u8; 4] = [0, 0, 0, 0];

    #[test]
    fn a_card_is_drawn_at_300_dpi_on_a_transparent_background() {
        let page = rasterise(&red_left_half("")).unwrap();
        assert_eq!(page.image.dimensions(), (1004, 650));
        assert!((page.width_mm - 85.0).abs() < 0.01, "{}", page.width_mm);
        assert!((page.height_mm - 55.0).abs() < 0.01, "{}", page.height_mm);
        assert_eq!(page.image.get_pixel(250, 325).0, RED);
        assert_eq!(
            page.image.get_pixel(750, 325).0[3],
            0,
            "undrawn is transparent"
        );
        assert_eq!(page.image.get_pixel(750, 325).0, CLEAR);
        assert!(page.unsupported.is_empty(), "{:?}", page.unsupported);
    }

    #[test]
    fn the_limits_lower_the_resolution_keeping_the_shape() {
        let bytes = red_left_half("");
        let page = rasterise_first_page(&bytes, 300.0, 100_000, 20_000).unwrap();
        let (w, h) = page.image.dimensions();
        assert!(u64::from(w) * u64::from(h) <= 100_000, "{w} x {h}");
        assert!(w > 380 && (f64::from(w) / f64::from(h) - 85.0 / 55.0).abs() < 0.01);
        assert_eq!(page.image.get_pixel(w / 4, h / 2).0, RED);
        assert!(
            (page.width_mm - 85.0).abs() < 0.01,
            "the size is the page's"
        );

        let page = rasterise_first_page(&bytes, 300.0, 100_000_000, 500).unwrap();
        assert_eq!(page.image.dimensions(), (500, 324));
    }

    #[test]
    fn limits_too_small_for_any_raster_are_too_large() {
        let error = rasterise_first_page(&red_left_half(""), 300.0, 0, 20_000).unwrap_err();
        assert!(matches!(error, PdfError::TooLarge { .. }), "{error:?}");
        // A strip 1 mm by 10 m cannot keep its shape within 1000 pixels a side.
        let strip = one_page(1.0 / 25.4 * 72.0, 10_000.0 / 25.4 * 72.0, "", "");
        let error = rasterise_first_page(&strip, 300.0, 100_000_000, 1000).unwrap_err();
        assert!(error.to_string().contains("too long and narrow"), "{error}");
    }

    #[test]
    fn a_rotated_page_swaps_width_and_height() {
        let page = rasterise(&red_left_half("/Rotate 90")).unwrap();
        assert_eq!(page.image.dimensions(), (650, 1004));
        assert!((page.width_mm - 55.0).abs() < 0.01 && (page.height_mm - 85.0).abs() < 0.01);
        // Turned a quarter clockwise, the left half is on top.
        assert_eq!(page.image.get_pixel(325, 250).0, RED);
        assert_eq!(page.image.get_pixel(325, 750).0, CLEAR);
    }

    #[test]
    fn the_crop_box_is_the_page() {
        let (w, h) = CARD;
        let page = rasterise(&one_page(
            w + 20.0,
            h + 20.0,
            &format!("/CropBox [10 10 {:.4} {:.4}]", w + 10.0, h + 10.0),
            "",
        ))
        .unwrap();
        assert!((page.width_mm - 85.0).abs() < 0.01 && (page.height_mm - 55.0).abs() < 0.01);
    }

    #[test]
    fn a_pdf_without_pages_is_refused() {
        let bytes = pdf(&[
            "<< /Type /Catalog /Pages 2 0 R >>".into(),
            "<< /Type /Pages /Kids [] /Count 0 >>".into(),
        ]);
        assert_eq!(rasterise(&bytes).unwrap_err(), PdfError::NoPages);
    }

    /// Deterministic noise (xorshift), so a failure can be replayed.
    fn noise(len: usize, mut state: u64) -> Vec<u8> {
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect()
    }

    #[test]
    fn garbage_is_unreadable() {
        for seed in 1..20 {
            let error = rasterise(&noise(3000, seed)).unwrap_err();
            assert!(matches!(error, PdfError::Unreadable(_)), "{error:?}");
            let mut bytes = b"%PDF-1.4\n".to_vec();
            bytes.extend(noise(3000, seed));
            let error = rasterise(&bytes).unwrap_err();
            assert!(matches!(error, PdfError::Unreadable(_)), "{error:?}");
        }
        assert!(matches!(rasterise(b""), Err(PdfError::Unreadable(_))));
        let error = rasterise(b"%PDF-1.4\n").unwrap_err();
        assert!(
            error.to_string().starts_with("the PDF cannot be read: "),
            "{error}"
        );
    }

    #[test]
    fn damaged_pdfs_do_not_panic() {
        // At a low resolution: the parsing is under test, and debug builds draw slowly.
        let rasterise = |bytes: &[u8]| rasterise_first_page(bytes, 10.0, 1_000_000, 1000);
        let bytes = red_left_half("");
        for len in 0..bytes.len() {
            let _ = rasterise(&bytes[..len]);
        }
        for seed in 1..200u64 {
            let mut damaged = bytes.clone();
            let at = (seed as usize * 7919) % damaged.len();
            damaged[at] = noise(1, seed)[0];
            let _ = rasterise(&damaged);
        }
    }

    #[test]
    fn an_undecodable_image_is_reported() {
        let (w, h) = CARD;
        let bytes = pdf(&[
            "<< /Type /Catalog /Pages 2 0 R >>".into(),
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".into(),
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w:.4} {h:.4}] /Contents 4 0 R \
                 /Resources << /XObject << /Im1 5 0 R >> >> >>"
            ),
            "<< /Length 31 >>\nstream\nq 100 0 0 100 0 0 cm /Im1 Do Q\nendstream".into(),
            "<< /Type /XObject /Subtype /Image /Width 8 /Height 8 /ColorSpace /DeviceRGB \
             /BitsPerComponent 8 /Filter /DCTDecode /Length 4 >>\nstream\nnope\nendstream"
                .into(),
        ]);
        let page = rasterise(&bytes).unwrap();
        assert_eq!(
            page.unsupported,
            ["an image that could not be decoded (left out)"]
        );
    }

    /// Release-build timing of a card at 300 dpi with some vector drawing and text:
    /// `cargo test --release -p presspack-engine --lib ingest::pdf -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn time_a_card() {
        let (w, h) = CARD;
        let content = format!(
            "1 0 0 rg 0 0 {:.4} {h:.4} re f 0 0 1 RG 4 w 20 20 m 200 140 l 100 20 200 80 220 30 \
             c S 0 g BT /F1 18 Tf 20 100 Td (Presspack business card) Tj ET",
            w / 2.0
        );
        let bytes = pdf(&[
            "<< /Type /Catalog /Pages 2 0 R >>".into(),
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".into(),
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w:.4} {h:.4}] /Contents 4 0 R \
                 /Resources << /Font << /F1 5 0 R >> >> >>"
            ),
            format!(
                "<< /Length {} >>\nstream\n{content}\nendstream",
                content.len()
            ),
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".into(),
        ]);
        let start = std::time::Instant::now();
        rasterise(&bytes).unwrap();
        let first = start.elapsed();
        let runs = 20;
        let start = std::time::Instant::now();
        for _ in 0..runs {
            rasterise(&bytes).unwrap();
        }
        println!(
            "card at 300 dpi: first {first:?}, then {:?} per page",
            start.elapsed() / runs
        );
    }
}
