//! Press files checked with independent tools: qpdf, poppler-utils and Ghostscript
//! (`tests/run` installs them). The engine writes a business card's PDF natively (the same
//! code the host runs in wasm); the tools say whether it is sound, what boxes, fonts, text,
//! images and inks it holds, and what it looks like next to the engine's own PNG of the same
//! side.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use presspack_engine::model::{Catalogue, Pack, Template};
use presspack_engine::press::colour::{FOGRA39, InkSettings};
use presspack_engine::press::{
    FindingCode, PressOptions, PressReport, Severity, Verdict, press_pages,
};
use presspack_engine::render::{BoxType, Engine, ImageInput, RenderRequest};
use presspack_engine::text::FontBook;

const PHOTO: &[u8] = include_bytes!("scenes/images/photo.jpg");
/// `photo.jpg` converted to Adobe RGB (1998) by lcms2 with the profile embedded:
/// `jpgicc -o /usr/share/color/icc/compatibleWithAdobeRGB1998.icc -e -t1 -q95`.
const PHOTO_ADOBE_RGB: &[u8] = include_bytes!("scenes/images/photo-adobe-rgb.jpg");
/// A CMYK JPEG as Photoshop writes them (Adobe's marker, inks inverted), no profile.
const PHOTO_CMYK: &[u8] = include_bytes!("scenes/images/photo-cmyk.jpg");
const LOGO: &[u8] = include_bytes!("scenes/images/logo.png");
const PHOTO_URI: &str = "store://photo";
const LOGO_URI: &str = "store://logo";
const ADOBE_URI: &str = "store://photo-adobe-rgb";
/// `photo.jpg` in Display P3, converted by lcms2 with the profile embedded (the profile is
/// moxcms's `ColorProfile::new_display_p3()`, encoded):
/// `jpgicc -o display-p3.icc -e -t1 -q95`; and the same pixels as a PNG with an `iCCP`
/// chunk, written by the png crate's encoder.
const PHOTO_P3: &[u8] = include_bytes!("scenes/images/photo-display-p3.jpg");
const PHOTO_P3_PNG: &[u8] = include_bytes!("scenes/images/photo-display-p3.png");
const P3_URI: &str = "store://photo-display-p3";
const P3_PNG_URI: &str = "store://photo-display-p3-png";
const CMYK_URI: &str = "store://photo-cmyk";
/// `photo.jpg` separated by lcms2 for uncoated paper (a FOGRA29 profile built with ArgyllCMS
/// from Debian icc-profiles-free's `FOGRA29L.ti3`: `colprof -ql -kr -l300`), the profile
/// embedded: `jpgicc -o FOGRA29L.icc -e -t1 -q90`. Another press's inks than FOGRA39's.
const PHOTO_CMYK_FOGRA29: &[u8] = include_bytes!("scenes/images/photo-cmyk-fogra29.jpg");
const CMYK_FOGRA29_URI: &str = "store://photo-cmyk-fogra29";

fn engine() -> Engine {
    let mut engine = Engine::new(FontBook::builtin());
    for (_, xml) in presspack_assets::TEMPLATES {
        engine.add_template(Template::parse(xml).unwrap()).unwrap();
    }
    engine
}

/// The full-bleed photo of the card's front.
fn photo() -> serde_json::Value {
    full_bleed(PHOTO_URI)
}

/// The image `uri` filling the card's front to its bleed.
fn full_bleed(uri: &str) -> serde_json::Value {
    serde_json::json!({"type": "imageData", "linkId": "variable_image_front",
        "resourceUri": uri,
        "imageBox": {"center": {"x": 44, "y": 29.5}, "width": 88.5, "height": 59, "angle": 0}})
}

/// The transparent logo, small and turned, on the card's front.
fn logo() -> serde_json::Value {
    serde_json::json!({"type": "imageData", "linkId": "variable_image_front",
        "resourceUri": LOGO_URI,
        "imageBox": {"center": {"x": 40, "y": 30}, "width": 30, "height": 30, "angle": 30}})
}

/// The first line's colour on the back of [`card_pack`]: CMYK, as a press file keeps it.
fn cmyk() -> serde_json::Value {
    serde_json::json!({"type": "CMYK", "c": 10, "m": 90, "y": 0, "k": 5})
}

/// A business card: `front` (an imageData) on the front, two lines of text on the back,
/// the first in `colour`.
fn card_pack(front: serde_json::Value, colour: serde_json::Value) -> Pack {
    let pack = serde_json::json!({
        "numCards": 50,
        "sides": [
            {"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape",
             "data": [front]},
            {"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape",
             "data": [
                {"type": "textData", "linkId": "back_line_1", "text": "Ada Lovelace",
                 "colour": colour},
                {"type": "textData", "linkId": "back_line_2", "text": "Analytical engines"}]}
        ],
        "imageBasket": {"items": []}
    });
    let product = Catalogue::builtin().product("businesscard").unwrap();
    Pack::parse(&pack.to_string(), "pack", product).unwrap()
}

fn images() -> HashMap<String, ImageInput<'static>> {
    [
        (PHOTO_URI, PHOTO),
        (LOGO_URI, LOGO),
        (ADOBE_URI, PHOTO_ADOBE_RGB),
        (P3_URI, PHOTO_P3),
        (P3_PNG_URI, PHOTO_P3_PNG),
        (CMYK_URI, PHOTO_CMYK),
        (CMYK_FOGRA29_URI, PHOTO_CMYK_FOGRA29),
    ]
    .into_iter()
    .map(|(uri, bytes)| {
        let input = ImageInput {
            bytes,
            enhance: false,
        };
        (uri.to_owned(), input)
    })
    .collect()
}

fn options(marks: bool) -> PressOptions {
    PressOptions {
        title: "Order 1042, pack 7".into(),
        created: 1_795_748_645,
        marks,
        slug: Some("Order 1042".into()),
        die_line_radius: None,
        proof_dpi: None,
        guides: false,
        condition_name: None,
        condition: None,
        limits: Default::default(),
        ink: Default::default(),
    }
}

fn press(pack: &Pack, options: &PressOptions) -> (PathBuf, PressReport) {
    let (pdf, report) = engine()
        .press(&press_pages(pack), options, &images())
        .unwrap();
    // A file of its own for every call: tests run in parallel and make equal files.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/press-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let file = tempfile::Builder::new()
        .prefix("card-")
        .suffix(".pdf")
        .tempfile_in(&dir)
        .unwrap();
    std::fs::write(file.path(), pdf).unwrap();
    let path = file.into_temp_path().keep().unwrap();
    (path, report)
}

/// Runs one of the checking tools; its standard output. Anything it warns of (poppler's
/// "Syntax Warning: Mismatch between font type and embedded font file") fails the test.
fn tool(program: &str, args: &[&str]) -> String {
    let output = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("{program}: {e}; install poppler-utils, qpdf and ghostscript (tests/run does)")
        });
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{program} {args:?} failed: {}{stderr}",
        String::from_utf8_lossy(&output.stdout),
    );
    assert!(
        !stderr.contains("Syntax Warning") && !stderr.contains("Syntax Error"),
        "{program} {args:?} warns: {stderr}"
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The file at `path` as qpdf writes it for reading (`--qdf`: streams uncompressed, no object
/// streams), saved beside it with the extension `extension`; its bytes.
fn qdf_bytes(path: &Path, extension: &str) -> Vec<u8> {
    let expanded = path.with_extension(extension);
    tool(
        "qpdf",
        &[
            "--qdf",
            "--object-streams=disable",
            path_str(path),
            path_str(&expanded),
        ],
    );
    std::fs::read(&expanded).unwrap()
}

/// pdfimages' columns for the file's first image (page num type width height color comp bpc
/// enc ...), and its whole listing for messages.
fn first_image_columns(path: &Path) -> (Vec<String>, String) {
    let list = tool("pdfimages", &["-list", path_str(path)]);
    let columns = list
        .lines()
        .find(|l| l.contains(" image "))
        .unwrap_or_else(|| panic!("{list}"))
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    (columns, list)
}

/// How often `needle` is in `haystack`.
fn occurrences(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A `pdfinfo` line's value.
fn field<'a>(info: &'a str, name: &str) -> &'a str {
    info.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}:")))
        .unwrap_or_else(|| panic!("no {name} in\n{info}"))
        .trim()
}

/// `pdfinfo -box`'s box of a page: (width, height) in points.
fn page_box(info: &str, name: &str) -> (f64, f64) {
    let line = info
        .lines()
        .find(|l| l.starts_with(&format!("Page    1 {name}")) || l.starts_with(&format!("{name}:")))
        .unwrap_or_else(|| panic!("no {name} in\n{info}"));
    let numbers: Vec<f64> = line
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    let n = numbers.len();
    (
        numbers[n - 2] - numbers[n - 4],
        numbers[n - 1] - numbers[n - 3],
    )
}

const PT: f64 = 72.0 / 25.4;

fn close(actual: (f64, f64), mm: (f64, f64)) -> bool {
    (actual.0 - mm.0 * PT).abs() < 0.01 && (actual.1 - mm.1 * PT).abs() < 0.01
}

#[test]
fn qpdf_finds_the_file_sound_and_the_boxes_are_the_template_s() {
    let (path, _) = press(&card_pack(photo(), cmyk()), &options(true));
    let check = tool("qpdf", &["--check", path_str(&path)]);
    assert!(
        check.contains("No syntax or stream encoding errors"),
        "{check}"
    );
    let info = tool("pdfinfo", &["-box", path_str(&path)]);
    assert_eq!(field(&info, "Pages"), "2");
    // Business card: 84 x 55 mm cut, 88 x 59 mm bleed, 10 mm all round for the marks.
    assert!(close(page_box(&info, "TrimBox"), (84.0, 55.0)), "{info}");
    assert!(close(page_box(&info, "BleedBox"), (88.0, 59.0)), "{info}");
    assert!(close(page_box(&info, "MediaBox"), (108.0, 79.0)), "{info}");
    assert_eq!(field(&info, "PDF version"), "1.6");
    assert_eq!(field(&info, "Encrypted"), "no");
    assert_eq!(field(&info, "PDF subtype"), "PDF/X-4");

    // The output intent is a registered printing condition, with its profile.
    let expanded = String::from_utf8_lossy(&qdf_bytes(&path, "intent.pdf")).into_owned();
    for needle in [
        "/OutputConditionIdentifier (FOGRA39)",
        "/RegistryName (http://www.color.org)",
        "/DestOutputProfile",
    ] {
        assert!(expanded.contains(needle), "no {needle}");
    }

    // Without marks (a proof) the page is the bleed box.
    let (path, _) = press(&card_pack(photo(), cmyk()), &options(false));
    let info = tool("pdfinfo", &["-box", path_str(&path)]);
    assert!(close(page_box(&info, "MediaBox"), (88.0, 59.0)), "{info}");
}

#[test]
fn fonts_are_embedded_subsets_with_unicode_maps_and_the_text_comes_back() {
    let (path, _) = press(&card_pack(photo(), cmyk()), &options(true));
    let fonts = tool("pdffonts", &[path_str(&path)]);
    let rows: Vec<&str> = fonts.lines().skip(2).collect();
    assert!(!rows.is_empty(), "{fonts}");
    for row in rows {
        // name type encoding emb sub uni object ID
        let columns: Vec<&str> = row.split_whitespace().collect();
        assert!(
            columns[0].len() > 7 && columns[0].as_bytes()[6] == b'+',
            "{row}"
        );
        assert!(row.contains("CID TrueType"), "{row}");
        assert_eq!(
            columns[columns.len() - 5..columns.len() - 2],
            ["yes", "yes", "yes"],
            "{row}"
        );
    }
    let text = tool("pdftotext", &["-f", "2", "-l", "2", path_str(&path), "-"]);
    assert!(text.contains("Ada Lovelace"), "{text}");
    assert!(text.contains("Analytical engines"), "{text}");
    // The slug line names the page and its cards.
    assert!(
        text.contains("Order 1042 | side details.1 | 50 cards"),
        "{text}"
    );
}

#[test]
fn the_photo_is_embedded_at_its_own_pixel_size_and_cmyk_stays_cmyk() {
    let (path, _) = press(&card_pack(photo(), cmyk()), &options(true));
    let (columns, list) = first_image_columns(&path);
    // page num type width height color comp bpc enc
    assert_eq!(
        &columns[3..9],
        ["900", "600", "icc", "3", "8", "jpeg"],
        "{list}"
    );
    // The JPEG is embedded as it is: its bytes are in the file.
    let pdf = std::fs::read(&path).unwrap();
    assert!(occurrences(&pdf, PHOTO) > 0);

    // The CMYK colour's four values, uncompressed, in the page's content.
    let expanded = qdf_bytes(&path, "qdf.pdf");
    let needle = b"0.1 0.9 0 0.05 k";
    assert!(expanded.windows(needle.len()).any(|w| w == needle));

    // A PNG with transparency is embedded losslessly, its alpha as a soft mask.
    let (path, _) = press(&card_pack(logo(), cmyk()), &options(true));
    let list = tool("pdfimages", &["-list", path_str(&path)]);
    let kinds: Vec<Vec<&str>> = list
        .lines()
        .skip(2)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(kinds.len(), 2, "{list}");
    assert_eq!(&kinds[0][2..5], ["image", "200", "200"], "{list}");
    assert_eq!(kinds[0][8], "image", "{list}");
    assert_eq!(&kinds[1][2..5], ["smask", "200", "200"], "{list}");
}

#[test]
fn the_press_file_looks_like_the_engine_s_png() {
    // Black text: poppler gives coloured vector fills inks of its own when it renders to
    // the output intent, so their colour is checked in the page content instead (above).
    let rgb = serde_json::json!({"type": "RGB", "r": 0, "g": 0, "b": 0});
    for (name, front) in [("photo", photo()), ("logo", logo())] {
        looks_like_the_png(name, &card_pack(front, rgb.clone()));
    }
    // Shaped text in every script, marks raised and lines right to left, as drawn.
    looks_like_the_png("scripts", &scripts_pack());
}

fn looks_like_the_png(name: &str, pack: &Pack) {
    let (path, _) = press(pack, &options(false));
    for (page, side) in pack.sides.iter().enumerate() {
        compare_page(&format!("{name}-page-{page}"), &path, page, side, &images());
    }
}

/// The engine's PNG of `side` (bleed box, drawn with `images`) against page `page` of the
/// press file at `path` as the press prints it ([`press_page_as_srgb`]).
fn compare_page(
    name: &str,
    path: &Path,
    page: usize,
    side: &presspack_engine::model::Side,
    images: &HashMap<String, ImageInput<'_>>,
) {
    let request = RenderRequest {
        side: side.clone(),
        overlays: Vec::new(),
        box_type: BoxType::Bleed,
        max_side: 1040,
        partial: false,
    };
    let (canvas, _) = engine().draw(&request, images).unwrap();
    let png = canvas.pixels().encode_png().unwrap();
    let rendered = press_page_as_srgb(path, page, (canvas.width(), canvas.height()));
    compare(name, &png, &rendered);
}

/// Page `page` of the press file at `path` as the press would print it, shown in sRGB, as
/// PNG of `size`: poppler gives the inks (photos separated to the output intent, vector
/// colours as written) and lcms2 shows them through the press profile, as a proofing RIP
/// would.
fn press_page_as_srgb(path: &Path, page: usize, (width, height): (u32, u32)) -> Vec<u8> {
    let out = path.with_extension(format!("page{page}"));
    tool(
        "pdftoppm",
        &[
            "-jpegcmyk",
            "-singlefile",
            "-f",
            &(page + 1).to_string(),
            "-l",
            &(page + 1).to_string(),
            "-scale-to-x",
            &width.to_string(),
            "-scale-to-y",
            &height.to_string(),
            path_str(path),
            path_str(&out),
        ],
    );
    let inks = out.with_extension(format!("page{page}.jpg"));
    let shown = out.with_extension(format!("page{page}.srgb.jpg"));
    let profile = format!("-i{}", press_profile());
    tool(
        "jpgicc",
        &["-t1", "-q100", &profile, path_str(&inks), path_str(&shown)],
    );
    let image = image::load_from_memory(&std::fs::read(&shown).unwrap())
        .unwrap()
        .to_rgb8();
    assert_eq!(image.dimensions(), (width, height));
    presspack_engine::raster::encode_png(width, height, png::ColorType::Rgb, image.as_raw())
        .unwrap()
}

/// The press profile's path, as the tools take it.
fn press_profile() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/icc/FOGRA39-presspack.icc");
    path.to_str().unwrap().to_owned()
}

/// Decodes a PNG to RGB.
fn rgb(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let samples = info.color_type.samples();
    let rgb = buf
        .chunks(samples)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width, info.height, rgb)
}

/// Poppler's rendering against the engine's: the same size, and every 8 x 8 block's average
/// colour within a few levels, as far as the press's gamut allows. Blocks, not pixels: two rasterisers anti-alias text edges and
/// resample photos differently and poppler's JPEG rings round sharp edges, while a glyph or
/// image out of place by a fraction of a millimetre changes whole blocks. On a mismatch
/// writes expected/actual/diff PNGs under `target/press-diffs/`.
fn compare(name: &str, expected_png: &[u8], actual_png: &[u8]) {
    const BLOCK: usize = 8;
    let (ew, eh, expected) = rgb(expected_png);
    let (aw, ah, actual) = rgb(actual_png);
    assert_eq!((aw, ah), (ew, eh), "{name}: sizes differ");
    let (width, height) = (ew as usize, eh as usize);
    let block_means = |pixels: &[u8]| -> Vec<f64> {
        let mut means = Vec::new();
        for top in (0..height - height % BLOCK).step_by(BLOCK) {
            for left in (0..width - width % BLOCK).step_by(BLOCK) {
                for channel in 0..3 {
                    let sum: u32 = (top..top + BLOCK)
                        .flat_map(|y| {
                            (left..left + BLOCK).map(move |x| (y * width + x) * 3 + channel)
                        })
                        .map(|i| u32::from(pixels[i]))
                        .sum();
                    means.push(f64::from(sum) / (BLOCK * BLOCK) as f64);
                }
            }
        }
        means
    };
    let (e, a) = (block_means(&expected), block_means(&actual));
    let block_differences: Vec<f64> = e.iter().zip(&a).map(|(e, a)| (e - a).abs()).collect();
    let mean = block_differences.iter().sum::<f64>() / block_differences.len() as f64;
    let worst = block_differences.iter().copied().fold(0.0, f64::max);
    eprintln!("{name}: mean block difference {mean:.2}, worst {worst:.1}");
    // (5 levels on average: the press cannot print all of sRGB, its black ink alone is a
    // dark grey and its most saturated yellows and blues fall short of the screen's)
    if mean <= 5.0 && worst <= 64.0 {
        return;
    }
    let differences: Vec<u8> = expected
        .iter()
        .zip(&actual)
        .map(|(e, a)| e.abs_diff(*a))
        .collect();
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/press-diffs");
    std::fs::create_dir_all(&out).unwrap();
    let write = |file: &str, pixels: &[u8]| {
        let png =
            presspack_engine::raster::encode_png(ew, eh, png::ColorType::Rgb, pixels).unwrap();
        std::fs::write(out.join(format!("{name}.{file}.png")), png).unwrap();
    };
    write("expected", &expected);
    write("actual", &actual);
    let diff: Vec<u8> = differences
        .iter()
        .map(|d| 255 - d.saturating_mul(4))
        .collect();
    write("diff", &diff);
    panic!(
        "{name}: poppler's rendering differs from the engine's PNG (mean 8 x 8 block difference {mean:.2}, worst {worst:.1}); see {}",
        out.display()
    );
}

#[test]
fn preflight_reports_resolution_and_the_slug_says_so() {
    let (_, report) = press(&card_pack(photo(), cmyk()), &options(true));
    assert_eq!(report.pages.len(), 2);
    assert_eq!(report.pages[0].side, "image.1");
    assert_eq!(report.pages[0].copies, 50);
    let image = &report.pages[0].images[0];
    // 900 pixels over 88.5 mm is 258.3 dpi: printable, with a warning.
    assert_eq!((image.width, image.height, image.dpi), (900, 600, 258.3));
    let finding = &report.pages[0].findings[0];
    assert_eq!(
        (finding.severity, finding.code, finding.link_id.as_str()),
        (
            Severity::Warning,
            FindingCode::LowResolution,
            "variable_image_front"
        )
    );
    assert_eq!(report.verdict, Verdict::Warn);
    assert!(report.pages[1].findings.is_empty(), "{report:?}");
    // The colour facts: the printing condition, and the CMYK colour's 105% as the most ink.
    let colour = report.colour.expect("colour facts");
    assert_eq!(colour.condition, "FOGRA39");
    assert_eq!(colour.max_ink, 105.0);
}

/// One line in each script the fonts cover (and Avant Garde, a CFF face), in the order the
/// test pack puts them on the back of a card.
const SCRIPT_LINES: [(&str, &str); 11] = [
    ("helvetica", "مرحبا بالعالم پچژگ"),
    ("helvetica", "שלום עולם כרטיס ביקור"),
    ("helvetica", "Tel +44 20 7946 0018 שלום"),
    ("helvetica", "नमस्ते दुनिया क्षत्रिय कि"),
    ("helvetica", "আমার সোনার বাংলা"),
    ("helvetica", "வணக்கம் உலகம்"),
    ("helvetica", "สวัสดีชาวโลก น้ำใจ"),
    ("helvetica", "你好世界 繁體中文"),
    ("helvetica", "こんにちは世界 カタカナ"),
    ("helvetica", "안녕하세요 세계"),
    ("avantgarde", "Avant Garde office affiche"),
];

/// Removes what poppler wraps right-to-left lines in (bidi embeddings and marks) and the
/// spaces it puts between glyphs of different fonts, for comparing text.
fn plain(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'))
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// A card whose back holds [`SCRIPT_LINES`].
fn scripts_pack() -> Pack {
    let data: Vec<serde_json::Value> = SCRIPT_LINES
        .iter()
        .enumerate()
        .map(|(i, (family, text))| {
            serde_json::json!({"type": "textData", "linkId": format!("back_line_{}", i + 1),
                "text": text, "font": {"fontFamily": family, "bold": false, "italic": false}})
        })
        .collect();
    let pack = serde_json::json!({
        "sides": [
            {"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape",
             "data": [photo()]},
            {"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape",
             "data": data}
        ],
        "imageBasket": {"items": []}
    });
    let product = Catalogue::builtin().product("businesscard").unwrap();
    Pack::parse(&pack.to_string(), "pack", product).unwrap()
}

#[test]
fn every_script_copies_and_searches_as_the_text_it_shows() {
    let pack = scripts_pack();
    for marks in [true, false] {
        let (path, _) = press(&pack, &options(marks));
        let check = tool("qpdf", &["--check", path_str(&path)]);
        assert!(
            check.contains("No syntax or stream encoding errors"),
            "{check}"
        );
        let fonts = tool("pdffonts", &[path_str(&path)]);
        assert!(fonts.contains("CID Type 0C (OT)"), "the CFF face: {fonts}");
        for row in fonts.lines().skip(2) {
            let columns: Vec<&str> = row.split_whitespace().collect();
            assert!(
                !columns[0].contains("+Face"),
                "a face without its name: {row}"
            );
            assert_eq!(
                columns[columns.len() - 5..columns.len() - 2],
                ["yes", "yes", "yes"],
                "{row}"
            );
        }
        let text = tool("pdftotext", &["-f", "2", "-l", "2", path_str(&path), "-"]);
        let lines: Vec<String> = text.lines().map(plain).filter(|l| !l.is_empty()).collect();
        for (_, expected) in SCRIPT_LINES {
            assert!(
                lines.contains(&plain(expected)),
                "{expected:?} does not come back from the PDF: {lines:#?}"
            );
        }
    }
}

/// Black and grey text prints in black ink alone, as Ghostscript's `inkcov` counts the inks
/// of the page: four-colour black blurs small type at the least misregistration.
#[test]
fn black_and_grey_text_prints_in_black_ink_only() {
    for colour in [
        serde_json::json!({"type": "RGB", "r": 0, "g": 0, "b": 0}),
        serde_json::json!({"type": "RGB", "r": 90, "g": 91, "b": 90}),
    ] {
        let pack = card_pack(photo(), colour.clone());
        let (path, _) = press(
            &pack,
            &PressOptions {
                slug: None,
                ..options(false)
            },
        );
        // The back (page 2): "C M Y K CMYK OK", each the page's mean coverage of that ink.
        let coverage = tool(
            "gs",
            &[
                "-q",
                "-sDEVICE=inkcov",
                "-dFirstPage=2",
                "-dLastPage=2",
                "-o",
                "-",
                path_str(&path),
            ],
        );
        let inks: Vec<f64> = coverage
            .split_whitespace()
            .take(4)
            .map(|ink| ink.parse().unwrap())
            .collect();
        assert_eq!(inks[..3], [0.0, 0.0, 0.0], "{colour}: {coverage}");
        assert!(inks[3] > 0.0, "{colour}: {coverage}");
    }
}

/// Words pdftotext finds on page `page` with their boxes in mm from the sheet's top left.
fn word_boxes(path: &Path, page: u32) -> Vec<(String, [f64; 4])> {
    let page = page.to_string();
    let html = tool(
        "pdftotext",
        &["-bbox", "-f", &page, "-l", &page, path_str(path), "-"],
    );
    let mm = |tag: &str, name: &str| -> f64 {
        let start = tag.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        let end = start + tag[start..].find('"').unwrap();
        tag[start..end].parse::<f64>().unwrap() / PT
    };
    html.lines()
        .filter(|line| line.trim_start().starts_with("<word "))
        .map(|line| {
            let text_start = line.find('>').unwrap() + 1;
            let text_end = line.rfind("</word>").unwrap();
            let text = line[text_start..text_end].to_owned();
            let edges = [
                mm(line, "xMin"),
                mm(line, "yMin"),
                mm(line, "xMax"),
                mm(line, "yMax"),
            ];
            (text, edges)
        })
        .collect()
}

/// The page rendered by poppler at 10 pixels a millimetre, in grey: (width, height, pixels).
fn grey_pixels(path: &Path, page: u32) -> (usize, usize, Vec<u8>) {
    let page = page.to_string();
    let output = Command::new("pdftoppm")
        .args([
            "-gray",
            "-r",
            "254",
            "-f",
            &page,
            "-l",
            &page,
            path_str(path),
        ])
        .output()
        .expect("pdftoppm (poppler-utils)");
    assert!(output.status.success());
    // Binary PGM: "P5\n<width> <height>\n255\n" then the pixels.
    let data = output.stdout;
    let mut fields = Vec::new();
    let mut at = 0;
    while fields.len() < 4 {
        while data[at].is_ascii_whitespace() {
            at += 1;
        }
        let start = at;
        while !data[at].is_ascii_whitespace() {
            at += 1;
        }
        fields.push(String::from_utf8_lossy(&data[start..at]).into_owned());
    }
    let (width, height) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
    (width, height, data[at + 1..].to_vec())
}

/// Crop marks start 3 mm outside the bleed and are 5 mm long; the slug line, however long,
/// wraps between them and never reaches them or the sheet's edge (poppler's word boxes and
/// pixels, from the sheet's own boxes).
#[test]
fn the_slug_keeps_clear_of_the_crop_marks_and_on_the_sheet() {
    let long = format!("Order 1042 pack 7 {}", "reorder-of-PP-1041 ".repeat(9));
    let options = PressOptions {
        slug: Some(long.trim_end().to_owned()),
        ..options(true)
    };
    let (path, _) = press(&card_pack(photo(), cmyk()), &options);
    // Business card: 84 x 55 mm trim, 2 mm bleed, 10 mm of sheet round the bleed.
    let (sheet_width, sheet_height) = (108.0, 79.0);
    let trim_x = [12.0, 96.0];
    let (bleed_top, bleed_bottom) = (10.0, 69.0);
    // The vertical marks: x at the trim's edges, from 3 to 8 mm outside the bleed.
    let vertical_marks: Vec<(f64, f64, f64)> = trim_x
        .iter()
        .flat_map(|&x| {
            [
                (x, bleed_top - 8.0, bleed_top - 3.0),
                (x, bleed_bottom + 3.0, bleed_bottom + 8.0),
            ]
        })
        .collect();
    let words = word_boxes(&path, 1);
    let slug: Vec<&(String, [f64; 4])> = words
        .iter()
        .filter(|(_, [_, top, _, bottom])| *bottom < bleed_top || *top > bleed_bottom)
        .collect();
    let said: Vec<&str> = slug.iter().map(|(text, _)| text.as_str()).collect();
    assert!(
        said.len() > 10,
        "the slug wraps onto several lines: {said:?}"
    );
    assert!(
        said.contains(&"preflight") || said.iter().any(|w| w.ends_with('…')),
        "{said:?}"
    );
    for (text, [left, top, right, bottom]) in &slug {
        assert!(
            *left >= 0.5
                && *top >= 0.5
                && *right <= sheet_width - 0.5
                && *bottom <= sheet_height - 0.5,
            "{text:?} at {left:.1}..{right:.1} x {top:.1}..{bottom:.1} mm leaves the sheet"
        );
        for (x, from, to) in &vertical_marks {
            let crosses = *left - 0.3 < *x && *x < *right + 0.3 && *top < *to && *bottom > *from;
            assert!(
                !crosses,
                "{text:?} at {left:.1}..{right:.1} x {top:.1}..{bottom:.1} mm runs into the mark at x {x}"
            );
        }
    }

    // The marks are where they should be: ink along each, none in the 3 mm before the bleed.
    let (width, _, pixels) = grey_pixels(&path, 1);
    let dark = |x_mm: f64, y_mm: f64| {
        let (x, y) = ((x_mm * 10.0) as usize, (y_mm * 10.0) as usize);
        // (a 0.25 pt line is under a pixel wide: the darkest of the three around)
        (x.saturating_sub(1)..=x + 1).any(|x| pixels[y * width + x] < 160)
    };
    for x in trim_x {
        for step in 1..10 {
            let y = bleed_bottom + 3.0 + f64::from(step) * 0.5;
            assert!(dark(x, y), "the mark at x {x} mm has no ink at y {y} mm");
        }
        for step in 1..5 {
            let y = bleed_bottom + f64::from(step) * 0.6;
            assert!(
                !dark(x, y),
                "ink at x {x}, y {y} mm, inside the marks' 3 mm offset"
            );
        }
    }
}

/// A proof shows the cut line in red and the safe area in green dashes, as the editor does,
/// on a layer named as not printed; a press file has none.
#[test]
fn a_proof_shows_the_cut_line_and_safe_area_on_a_layer_marked_not_printed() {
    let pixel_at = |path: &Path, x_mm: f64, y_mm: f64| -> Vec<[u8; 3]> {
        let output = Command::new("pdftoppm")
            .args(["-r", "254", "-f", "1", "-l", "1", path_str(path)])
            .output()
            .expect("pdftoppm (poppler-utils)");
        // Binary PPM: "P6\n<width> <height>\n255\n" then RGB.
        let data = output.stdout;
        let header: Vec<&[u8]> = data.splitn(5, |b| b.is_ascii_whitespace()).collect();
        let width: usize = std::str::from_utf8(header[1]).unwrap().parse().unwrap();
        let pixels = header[4];
        let (x, y) = ((x_mm * 10.0) as usize, (y_mm * 10.0) as usize);
        (x - 1..=x + 1)
            .map(|x| {
                let at = (y * width + x) * 3;
                [pixels[at], pixels[at + 1], pixels[at + 2]]
            })
            .collect()
    };
    let red = |p: &[u8; 3]| p[0] > 180 && p[1] < 90 && p[2] < 90;
    let green = |p: &[u8; 3]| p[1] > 100 && p[0] < 90 && p[2] < 110;
    let proof_options = PressOptions {
        guides: true,
        ..options(false)
    };
    let (proof, _) = press(&card_pack(photo(), cmyk()), &proof_options);
    // The proof's page is the bleed box (88 x 59 mm); the cut line is 2 mm in, the safe
    // area 4 mm in, dashed.
    assert!(
        pixel_at(&proof, 2.0, 30.0).iter().any(red),
        "no red cut line"
    );
    let safe_edge: Vec<[u8; 3]> = (0..20)
        .flat_map(|step| pixel_at(&proof, 4.0, 20.0 + f64::from(step) * 0.25))
        .collect();
    assert!(safe_edge.iter().any(green), "no green safe line");
    let raw = std::fs::read(&proof).unwrap();
    let name = b"Cut line (red) and safe area (green dashes): not printed";
    assert!(
        raw.windows(name.len()).any(|w| w == name),
        "the layer is named as not printed"
    );

    let (press_file, _) = press(&card_pack(photo(), cmyk()), &options(true));
    // The press file's page has 10 mm of sheet round the bleed: the cut line is at 12 mm.
    assert!(
        !pixel_at(&press_file, 12.0, 40.0).iter().any(red),
        "a press file has no cut line"
    );
}

/// Runs lcms2's `transicc` on `values` (one colour a line) from `input` to `output` profile,
/// relative colorimetric; each colour's values.
fn transicc(input: &str, output: &str, values: &[Vec<f64>]) -> Vec<Vec<f64>> {
    use std::io::Write;
    let mut child = Command::new("transicc")
        .args(["-i", input, "-o", output, "-t1", "-n"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("transicc (liblcms2-utils; tests/run installs it)");
    let lines: String = values
        .iter()
        .map(|v| v.iter().map(f64::to_string).collect::<Vec<_>>().join(" ") + "\n")
        .collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(lines.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            line.split_whitespace()
                .map(|v| v.parse().unwrap())
                .collect()
        })
        .filter(|v: &Vec<f64>| !v.is_empty())
        .collect()
}

/// CIEDE2000 colour difference between two Lab colours.
fn delta_e_2000(lab1: &[f64], lab2: &[f64]) -> f64 {
    use std::f64::consts::PI;
    let (l1, a1, b1) = (lab1[0], lab1[1], lab1[2]);
    let (l2, a2, b2) = (lab2[0], lab2[1], lab2[2]);
    let c_mean = ((a1.hypot(b1)) + (a2.hypot(b2))) / 2.0;
    let g = 0.5 * (1.0 - (c_mean.powi(7) / (c_mean.powi(7) + 25f64.powi(7))).sqrt());
    let (a1p, a2p) = ((1.0 + g) * a1, (1.0 + g) * a2);
    let (c1p, c2p) = (a1p.hypot(b1), a2p.hypot(b2));
    let hue = |b: f64, a: f64| {
        let h = b.atan2(a).to_degrees();
        if h < 0.0 { h + 360.0 } else { h }
    };
    let (h1p, h2p) = (hue(b1, a1p), hue(b2, a2p));
    let dl = l2 - l1;
    let dc = c2p - c1p;
    let dh = if c1p * c2p == 0.0 {
        0.0
    } else if (h2p - h1p).abs() <= 180.0 {
        h2p - h1p
    } else if h2p - h1p > 180.0 {
        h2p - h1p - 360.0
    } else {
        h2p - h1p + 360.0
    };
    let dh_big = 2.0 * (c1p * c2p).sqrt() * (dh.to_radians() / 2.0).sin();
    let l_mean = (l1 + l2) / 2.0;
    let cp_mean = (c1p + c2p) / 2.0;
    let hp_mean = if c1p * c2p == 0.0 {
        h1p + h2p
    } else if (h1p - h2p).abs() <= 180.0 {
        (h1p + h2p) / 2.0
    } else if h1p + h2p < 360.0 {
        (h1p + h2p + 360.0) / 2.0
    } else {
        (h1p + h2p - 360.0) / 2.0
    };
    let t = 1.0 - 0.17 * ((hp_mean - 30.0) * PI / 180.0).cos()
        + 0.24 * ((2.0 * hp_mean) * PI / 180.0).cos()
        + 0.32 * ((3.0 * hp_mean + 6.0) * PI / 180.0).cos()
        - 0.20 * ((4.0 * hp_mean - 63.0) * PI / 180.0).cos();
    let d_theta = 30.0 * (-((hp_mean - 275.0) / 25.0).powi(2)).exp();
    let rc = 2.0 * (cp_mean.powi(7) / (cp_mean.powi(7) + 25f64.powi(7))).sqrt();
    let sl = 1.0 + 0.015 * (l_mean - 50.0).powi(2) / (20.0 + (l_mean - 50.0).powi(2)).sqrt();
    let sc = 1.0 + 0.045 * cp_mean;
    let sh = 1.0 + 0.015 * cp_mean * t;
    let rt = -(2.0 * d_theta * PI / 180.0).sin() * rc;
    ((dl / sl).powi(2) + (dc / sc).powi(2) + (dh_big / sh).powi(2) + rt * (dc / sc) * (dh_big / sh))
        .sqrt()
}

/// An RGB colour is written as the press's CMYK: no page draws in sRGB but its photos.
#[test]
fn rgb_colours_are_written_as_press_cmyk() {
    let red = serde_json::json!({"type": "RGB", "r": 200, "g": 30, "b": 40});
    let (path, _) = press(&card_pack(photo(), red), &options(true));
    let content = String::from_utf8_lossy(&qdf_bytes(&path, "qdf.pdf")).into_owned();
    assert!(!content.contains("/sRGB cs"), "a fill in sRGB");
    let [c, m, y, k] = FOGRA39.press_cmyk(200, 30, 40);
    let written = format!("{} {} {} {} k", c / 100.0, m / 100.0, y / 100.0, k / 100.0);
    assert!(content.contains(&written), "no {written:?}");
    assert!(m > 80.0 && c < 20.0, "{:?}", [c, m, y, k]);
}

/// A card's back: a black background box, and a line of text in `colour`.
fn black_back(colour: serde_json::Value) -> Pack {
    let pack = serde_json::json!({
        "numCards": 50,
        "sides": [{"type": "details", "sideNum": 1,
            "templateCode": "businesscard_full_text_landscape",
            "data": [
                {"type": "boxData", "linkId": "background_box",
                 "colour": {"type": "RGB", "r": 0, "g": 0, "b": 0}},
                {"type": "textData", "linkId": "back_line_1", "text": "Ada Lovelace",
                 "colour": colour}]}],
        "imageBasket": {"items": []}
    });
    let product = Catalogue::builtin().product("businesscard").unwrap();
    Pack::parse(&pack.to_string(), "pack", product).unwrap()
}

/// Page 1 of `path` as Ghostscript separates it (bleed box, 150 dpi): each pixel's inks, 0
/// to 255.
fn separated_pixels(path: &Path) -> Vec<[u8; 4]> {
    let raw = path.with_extension("cmyk");
    tool(
        "gs",
        &[
            "-q",
            "-dNOPAUSE",
            "-dBATCH",
            "-dSAFER",
            "-dUseBleedBox",
            "-dUsePDFX3Profile",
            "-dFirstPage=1",
            "-dLastPage=1",
            "-sDEVICE=bitcmyk",
            "-dGrayValues=256",
            "-r150",
            &format!("-sOutputFile={}", path_str(&raw)),
            path_str(path),
        ],
    );
    std::fs::read(&raw)
        .unwrap()
        .chunks_exact(4)
        .map(|p| [p[0], p[1], p[2], p[3]])
        .collect()
}

/// No colour prints with more than the ink limit: text asking for 400% (registration black)
/// gives up cyan, magenta and yellow, black stays. A large black area prints as the rich
/// black configured; turned off, in black ink alone. Ghostscript separates the page.
#[test]
fn ink_stays_within_the_limit_and_large_black_areas_print_rich() {
    let registration = serde_json::json!({"type": "CMYK", "c": 100, "m": 100, "y": 100, "k": 100});
    let pack = black_back(registration);
    let (path, report) = press(&pack, &options(false));
    let content = String::from_utf8_lossy(&qdf_bytes(&path, "qdf.pdf")).into_owned();
    assert!(
        content.contains("0.6 0.4 0.4 1 k"),
        "the box is not rich black"
    );
    assert!(
        content.contains("0.7333 0.7333 0.7333 1 k"),
        "the text is not limited"
    );
    let colour = report.colour.unwrap();
    assert_eq!((colour.max_ink, colour.ink_limit), (320.0, Some(320.0)));
    let pixels = separated_pixels(&path);
    let most = pixels
        .iter()
        .map(|p| p.iter().map(|&ink| u32::from(ink)).sum::<u32>())
        .max()
        .unwrap();
    // (255 a plate; Ghostscript rounds each plate to its nearest step)
    assert!(
        most <= 320 * 255 / 100 + 4,
        "most ink {}%",
        most * 100 / 255
    );
    let cyan = pixels.iter().filter(|p| p[0] > 0).count();
    assert!(
        cyan > pixels.len() / 2,
        "the black area has no cyan under it"
    );

    let plain = PressOptions {
        ink: InkSettings {
            rich_black: None,
            max_ink: 300.0,
        },
        ..options(false)
    };
    let (path, report) = press(&pack, &plain);
    let content = String::from_utf8_lossy(&qdf_bytes(&path, "qdf.pdf")).into_owned();
    assert!(
        content.contains("0 0 0 1 k"),
        "the box is not black ink alone"
    );
    assert!(
        content.contains("0.6666 0.6666 0.6666 1 k"),
        "the text is not limited to 300%"
    );
    assert_eq!(report.colour.unwrap().max_ink, 300.0);
}

/// The engine's RGB-to-press conversion agrees with lcms2's on 210 sRGB colours (a 6-step
/// cube without its neutrals, which print in black ink alone): the CMYK each gives, seen
/// through the press profile, at most 1 ΔE00 apart and 0.5 on average; and no colour asks
/// for more than the profile's 320% of ink.
#[test]
fn rgb_converts_to_the_press_cmyk_as_lcms2_does() {
    let profile = press_profile();
    let profile = profile.as_str();
    let steps = [0u8, 51, 102, 153, 204, 255];
    let mut colours: Vec<[u8; 3]> = Vec::new();
    for r in steps {
        for g in steps {
            for b in steps {
                if !(r == g && g == b) {
                    colours.push([r, g, b]);
                }
            }
        }
    }
    assert!(colours.len() >= 100);
    let ours: Vec<Vec<f64>> = colours
        .iter()
        .map(|&[r, g, b]| FOGRA39.press_cmyk(r, g, b).to_vec())
        .collect();
    let rgb: Vec<Vec<f64>> = colours
        .iter()
        .map(|c| c.iter().map(|&v| f64::from(v)).collect())
        .collect();
    let theirs = transicc("*sRGB", profile, &rgb);
    assert_eq!(theirs.len(), colours.len());
    let our_lab = transicc(profile, "*Lab", &ours);
    let their_lab = transicc(profile, "*Lab", &theirs);
    let differences: Vec<f64> = our_lab
        .iter()
        .zip(&their_lab)
        .map(|(a, b)| delta_e_2000(a, b))
        .collect();
    let worst = differences.iter().cloned().fold(0.0, f64::max);
    let mean = differences.iter().sum::<f64>() / differences.len() as f64;
    let (at, _) = differences
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .unwrap();
    eprintln!(
        "ΔE00 against lcms2 over {} colours: mean {mean:.3}, worst {worst:.3}",
        colours.len()
    );
    assert!(
        worst <= 1.0 && mean <= 0.5,
        "ΔE00 mean {mean:.3}, worst {worst:.3} at {:?}: ours {:?}, lcms2 {:?}",
        colours[at],
        ours[at],
        theirs[at]
    );
    for (colour, cmyk) in colours.iter().zip(&ours) {
        let total: f64 = cmyk.iter().sum();
        assert!(total <= 320.5, "{colour:?} -> {cmyk:?}: {total}% of ink");
    }
}

/// A picture with its own ICC profile keeps it: the press file tags the picture with that
/// profile, not sRGB, so a RIP separates the colours the photographer saw. For a JPEG in
/// Adobe RGB and in Display P3 (embedded as they are) and a PNG in Display P3 (decoded and
/// deflated). Checked by qpdf (the image's colour space is the picture's profile) and by
/// poppler's rendering next to the engine's PNG of the same photo in sRGB.
#[test]
fn a_photo_with_its_own_profile_is_printed_from_that_profile() {
    let utf16 =
        |name: &str| -> Vec<u8> { name.encode_utf16().flat_map(u16::to_be_bytes).collect() };
    // (the profile's description; how often it is in the file: the JPEG's own bytes carry it
    // too, a PNG's pixels are decoded)
    let cases = [
        (ADOBE_URI, b"Compatible with Adobe RGB (1998)".to_vec(), 2),
        (P3_URI, utf16("Display P3"), 2),
        (P3_PNG_URI, utf16("Display P3"), 1),
    ];
    let srgb_pack = card_pack(photo(), cmyk());
    for (uri, description, copies) in cases {
        let pack = card_pack(full_bleed(uri), cmyk());
        let (path, _) = press(&pack, &options(false));
        let expanded = qdf_bytes(&path, "own-profile.pdf");
        assert_eq!(
            occurrences(&expanded, &description),
            copies,
            "{uri}: its own profile is not its colour space"
        );
        // Poppler, through the profile, shows the colours of the sRGB original.
        let name = format!("{}-page-0", uri.trim_start_matches("store://"));
        compare_page(&name, &path, 0, &srgb_pack.sides[0], &images());
    }
}

/// A CMYK JPEG is already the press's inks: it is embedded as it is, DeviceCMYK (the output
/// intent's), inverted as Adobe's files are, not turned into RGB and back. Checked by
/// pdfimages, the file's bytes and poppler's inks next to the photo's own.
#[test]
fn a_cmyk_photo_keeps_its_inks() {
    let pack = card_pack(full_bleed(CMYK_URI), cmyk());
    let (path, _) = press(&pack, &options(false));
    let (columns, list) = first_image_columns(&path);
    assert_eq!(&columns[5..9], ["cmyk", "4", "8", "jpeg"], "{list}");
    let pdf = std::fs::read(&path).unwrap();
    assert!(occurrences(&pdf, PHOTO_CMYK) > 0, "not as it is");
    // What those inks look like (lcms2, through the press profile), drawn by the engine in
    // the photo's place, against the press file's inks shown the same way: the inks came
    // through unchanged (and the right way up: inverted, every colour would be wrong).
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/images/photo-cmyk.jpg");
    let looks = path.with_extension("cmyk-looks.jpg");
    let profile = format!("-i{}", press_profile());
    tool(
        "jpgicc",
        &[
            "-t1",
            "-q100",
            &profile,
            path_str(&fixture),
            path_str(&looks),
        ],
    );
    let looks = std::fs::read(&looks).unwrap();
    let mut shown = images();
    shown.insert(
        CMYK_URI.to_owned(),
        ImageInput {
            bytes: &looks,
            enhance: false,
        },
    );
    compare_page("cmyk-photo-page-0", &path, 0, &pack.sides[0], &shown);
}

/// A CMYK JPEG separated for another press (uncoated paper) keeps its inks and its profile:
/// embedded as it is, its colour space its own profile (ICCBased, four components), so a RIP
/// converts those inks to the output intent's rather than printing them as if they were
/// FOGRA39's. Checked by pdfimages, qpdf and poppler's rendering next to the sRGB original.
#[test]
fn a_cmyk_photo_with_its_own_profile_is_printed_from_that_profile() {
    let pack = card_pack(full_bleed(CMYK_FOGRA29_URI), cmyk());
    let (path, _) = press(&pack, &options(false));
    let (columns, list) = first_image_columns(&path);
    assert_eq!(&columns[5..9], ["icc", "4", "8", "jpeg"], "{list}");
    let pdf = std::fs::read(&path).unwrap();
    assert!(occurrences(&pdf, PHOTO_CMYK_FOGRA29) > 0, "not as it is");
    let expanded = qdf_bytes(&path, "cmyk-own.pdf");
    // Once in the JPEG's own bytes, once as the picture's colour space.
    assert_eq!(
        occurrences(&expanded, b"Presspack test: FOGRA29 (uncoated)"),
        2,
        "its own profile is not its colour space"
    );
    let srgb_pack = card_pack(photo(), cmyk());
    compare_page(
        "cmyk-fogra29-page-0",
        &path,
        0,
        &srgb_pack.sides[0],
        &images(),
    );
}

/// An operator's own printing condition (here Ghostscript's default CMYK profile) is the
/// output intent, unregistered, and RGB colours are converted to its inks, not FOGRA39's.
#[test]
fn an_operator_s_condition_is_the_output_intent_and_the_conversion() {
    let profile = std::fs::read("/usr/share/color/icc/ghostscript/default_cmyk.icc")
        .expect("Ghostscript's default CMYK profile (tests/run installs ghostscript)");
    let condition =
        presspack_engine::press::colour::PrintingCondition::from_profile("Our press", &profile)
            .unwrap();
    let ours = condition.press_cmyk(200, 30, 40);
    assert_ne!(ours, FOGRA39.press_cmyk(200, 30, 40));
    let red = serde_json::json!({"type": "RGB", "r": 200, "g": 30, "b": 40});
    let options = PressOptions {
        condition_name: Some("Our press".into()),
        condition: Some(std::sync::Arc::new(condition)),
        ..options(true)
    };
    let (path, report) = press(&card_pack(photo(), red), &options);
    assert_eq!(report.colour.unwrap().condition, "Our press");
    let content = String::from_utf8_lossy(&qdf_bytes(&path, "own.pdf")).into_owned();
    assert!(content.contains("/OutputConditionIdentifier (Our press)"));
    assert!(
        !content.contains("/RegistryName"),
        "an operator's condition is not registered"
    );
    let [c, m, y, k] = ours;
    let written = format!("{} {} {} {} k", c / 100.0, m / 100.0, y / 100.0, k / 100.0);
    assert!(content.contains(&written), "no {written:?}");
}
