//! The upload rules, natively, on the fixture files of `tests/e2e/images/` (made by
//! `tools/make-image-fixtures.py`; real photos from scikit-image's sample data).

use std::path::{Path, PathBuf};

use presspack_engine::ingest::{Format, IngestRequest, RenditionKind, detect, ingest};

fn fixture(name: &str) -> Vec<u8> {
    let path = fixtures_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/e2e/images")
}

fn request() -> IngestRequest {
    IngestRequest {
        max_pixels: 100_000_000,
        max_side: 20_000,
        min_jpeg_quality: 75,
        max_decode_bytes: 900_000_000,
    }
}

#[test]
fn photos_are_told_from_line_art_and_text() {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| {
            ["photo-", "scan-", "lineart-"]
                .iter()
                .any(|p| n.starts_with(p))
        })
        .collect();
    names.sort();
    assert!(names.len() >= 8, "the fixtures are missing: {names:?}");
    let mut wrong = Vec::new();
    for name in &names {
        let ingested = ingest(&fixture(name), &request()).unwrap();
        // A scan is continuous-tone (paper grain, uneven light), so it counts as a photo and
        // gets auto-levels, which whitens its paper.
        let expected = !name.starts_with("lineart-");
        if ingested.report.looks_like_photo != expected {
            wrong.push(name.clone());
        }
    }
    assert!(wrong.is_empty(), "misclassified: {wrong:?}");
}

#[test]
fn jpeg_quality_is_estimated_from_the_quantisation_tables() {
    let quality = |name: &str| {
        ingest(&fixture(name), &request())
            .unwrap()
            .report
            .jpeg_quality
    };
    let q95 = quality("jpeg-q95.jpg").unwrap();
    let q30 = quality("jpeg-q30.jpg").unwrap();
    assert!(q95.abs_diff(95) <= 1, "{q95}");
    assert!(q30.abs_diff(30) <= 1, "{q30}");
}

#[test]
fn renditions_have_their_sizes_and_orientation_is_applied() {
    let ingested = ingest(&fixture("jpeg-exif-rotated.jpg"), &request()).unwrap();
    let report = &ingested.report;
    assert_eq!(report.format, Format::Jpeg);
    // Stored 1200 x 800 with orientation 6: shown (and printed) 800 x 1200.
    assert_eq!((report.width, report.height), (800, 1200));
    let sizes: Vec<(RenditionKind, u32, u32, bool)> = report
        .renditions
        .iter()
        .map(|r| (r.kind, r.width, r.height, r.original))
        .collect();
    assert_eq!(
        sizes,
        [
            (RenditionKind::Print, 800, 1200, false),
            (RenditionKind::Preview, 683, 1024, false),
            (RenditionKind::SmallPreview, 200, 300, false),
            (RenditionKind::Thumbnail, 100, 150, false),
        ]
    );
    // The print rendition is a real JPEG of the turned pixels.
    let print = image::load_from_memory(&ingested.blobs[0]).unwrap();
    assert_eq!((print.width(), print.height()), (800, 1200));
    // An upright JPEG is its own print rendition.
    let upright = ingest(&fixture("jpeg-q95.jpg"), &request()).unwrap();
    assert!(upright.report.renditions[0].original);
    assert!(upright.blobs[0].is_empty());
}

/// A photo's own ICC profile stays with its print rendition when the rendition is encoded
/// anew (here: turned upright), so the press file still knows its colours. The profile is
/// Display P3, read from a test photo and set into the rotated fixture after its JFIF and Exif
/// segments; the image crate reads the rendition's.
#[test]
fn a_turned_photo_keeps_its_own_profile() {
    use image::ImageDecoder;
    let own_profile = |jpeg: &[u8]| {
        image::codecs::jpeg::JpegDecoder::new(std::io::Cursor::new(jpeg))
            .unwrap()
            .icc_profile()
            .unwrap()
    };
    let p3_photo = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/images/photo-display-p3.jpg"),
    )
    .unwrap();
    let p3 = own_profile(&p3_photo).expect("the test photo carries Display P3");
    let rotated = fixture("jpeg-exif-rotated.jpg");
    // After SOI and its application segments (JFIF, Exif), our APP2.
    let mut exif_end = 2;
    while (0xE0..=0xEF).contains(&rotated[exif_end + 1]) {
        exif_end += 2 + usize::from(u16::from_be_bytes([
            rotated[exif_end + 2],
            rotated[exif_end + 3],
        ]));
    }
    assert!(exif_end > 20, "no Exif segment");
    let mut app2 = vec![0xFF, 0xE2];
    app2.extend_from_slice(&u16::try_from(2 + 14 + p3.len()).unwrap().to_be_bytes());
    app2.extend_from_slice(b"ICC_PROFILE\0\x01\x01");
    app2.extend_from_slice(&p3);
    let with_profile = [&rotated[..exif_end], &app2[..], &rotated[exif_end..]].concat();

    let ingested = ingest(&with_profile, &request()).unwrap();
    assert!(!ingested.report.renditions[0].original, "not encoded anew");
    assert_eq!(own_profile(&ingested.blobs[0]), Some(p3));
    // Without a profile of its own, the rendition claims none.
    let plain = ingest(&rotated, &request()).unwrap();
    assert_eq!(own_profile(&plain.blobs[0]), None);
}

#[test]
fn detection_measures_the_preview() {
    // Equal RGB noise spread over many tones is photo-like; two tones are not.
    let noise: Vec<u8> = (0..90_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    assert!(detect::looks_like_photo(&noise));
    let two_tones: Vec<u8> = (0..90_000u32)
        .map(|i| if i % 7 == 0 { 0 } else { 255 })
        .collect();
    assert!(!detect::looks_like_photo(&two_tones));
}

/// Encodes RGBA pixels with the image crate.
fn encoded(image: image::RgbaImage, format: image::ImageFormat) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgba8(image)
        .write_to(&mut out, format)
        .unwrap();
    out.into_inner()
}

#[test]
fn a_gifs_transparent_pixels_stay_transparent() {
    // Left half transparent, right half opaque red.
    let gif = image::RgbaImage::from_fn(400, 300, |x, _| {
        if x < 200 {
            image::Rgba([0, 0, 0, 0])
        } else {
            image::Rgba([255, 0, 0, 255])
        }
    });
    let ingested = ingest(&encoded(gif, image::ImageFormat::Gif), &request()).unwrap();
    for (info, blob) in ingested.report.renditions.iter().zip(&ingested.blobs) {
        let rendition = image::load_from_memory(blob).unwrap().into_rgba8();
        let (w, h) = rendition.dimensions();
        assert_eq!(rendition.get_pixel(w / 8, h / 2).0[3], 0, "{:?}", info.kind);
        assert_eq!(
            rendition.get_pixel(w * 7 / 8, h / 2).0,
            [255, 0, 0, 255],
            "{:?}",
            info.kind
        );
    }
}

#[test]
fn a_print_rendition_is_no_larger_than_a_render_decodes() {
    let (width, height) = (6000, 5000); // 30 MP
    let png = encoded(
        image::RgbaImage::from_pixel(width, height, image::Rgba([40, 90, 200, 255])),
        image::ImageFormat::Png,
    );
    let ingested = ingest(&png, &request()).unwrap();
    assert_eq!(
        (ingested.report.width, ingested.report.height),
        (width, height)
    );
    let print = &ingested.report.renditions[0];
    assert_eq!(print.kind, RenditionKind::Print);
    assert!(!print.original);
    let pixels = u64::from(print.width) * u64::from(print.height);
    assert!(
        pixels <= presspack_engine::raster::MAX_IMAGE_PIXELS && pixels > 24_900_000,
        "{} x {}",
        print.width,
        print.height
    );
    let decoded = image::load_from_memory(&ingested.blobs[0]).unwrap();
    assert_eq!(
        (decoded.width(), decoded.height()),
        (print.width, print.height)
    );
}

#[test]
fn an_image_that_needs_more_memory_than_allowed_is_refused_before_decoding() {
    // 1200 x 800, 16-bit RGB: 5.76 MB decoded, an RGBA copy, the print rendition.
    let png = fixture("png-16bit.png");
    assert!(ingest(&png, &request()).is_ok());
    let tight = IngestRequest {
        max_decode_bytes: 12_000_000,
        ..request()
    };
    let refused = ingest(&png, &tight).unwrap_err();
    assert_eq!(refused.code().as_str(), "image_too_large_to_decode");
    assert!(
        refused.to_string().contains("1200 x 800") && refused.to_string().contains("12 MB"),
        "{refused}"
    );
    // An 8-bit RGB image of the same size fits.
    assert!(ingest(&fixture("png-rgb.png"), &tight).is_ok());
}
