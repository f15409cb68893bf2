//! Text measurement against an independent reference: for a table of strings, faces and
//! sizes, the engine's width agrees within 0.5% with HarfBuzz's shaping of the same font
//! files (uharfbuzz, `font_reference.py`).

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

use presspack_engine::render::{Engine, MeasureRequest};
use presspack_engine::text::{FontBook, builtin_face_bytes};

const STRINGS: &[&str] = &[
    "Sphinx of black quartz, judge my vow",
    "AVATAR WAVE To Ta Ty Yo",
    "Ada Lovelace, Analytical Engine",
    "0123456789 +44 (0)20 7946 0000",
    "office@example.com",
    "Ünïcödé façade — “quoted” naïve",
    "LT AT AY Fe P. V. W. Y.",
    "iiiiiiiiii WWWWWWWWWW",
];

/// Face name in the built-in catalogue -> (family, bold, italic) that resolves to it.
const FACES: &[(&str, &str, bool, bool)] = &[
    (
        "liberation/LiberationSans-Regular.ttf",
        "helvetica",
        false,
        false,
    ),
    ("liberation/LiberationSans-Bold.ttf", "arial", true, false),
    ("liberation/LiberationSans-Italic.ttf", "helv", false, true),
    (
        "source-sans-3/SourceSans3_700Bold_Italic.ttf",
        "meta",
        true,
        true,
    ),
    ("gelasio/Gelasio_400Regular.ttf", "georgia", false, false),
    ("liberation/LiberationSerif-Bold.ttf", "times", true, false),
    (
        "liberation/LiberationSerif-Italic.ttf",
        "times",
        false,
        true,
    ),
    ("gelasio/Gelasio_700Bold_Italic.ttf", "georgia", true, true),
    (
        "liberation/LiberationMono-Regular.ttf",
        "courier",
        false,
        false,
    ),
    (
        "texgyre-adventor/texgyreadventor-bold.otf",
        "avantgarde",
        true,
        false,
    ),
    ("dejavu:sans", "dejavu sans", false, false),
];

#[test]
fn widths_agree_with_harfbuzz_within_half_a_percent() {
    let dir = tempfile::tempdir().unwrap();
    let faces = builtin_face_bytes();
    let mut cases = Vec::new();
    for &(face, family, bold, italic) in FACES {
        let (_, bytes) = faces.iter().find(|(name, _)| *name == face).unwrap();
        let path = dir
            .path()
            .join(presspack_engine::package::face_file(face).replace('/', "_"));
        std::fs::write(&path, bytes).unwrap();
        for (i, text) in STRINGS.iter().enumerate() {
            let size = [2.4694, 3.5278, 10.0][i % 3];
            cases.push((path.clone(), family, bold, italic, size, *text));
        }
    }
    let mut input = String::new();
    for (path, _, _, _, size, text) in &cases {
        input.push_str(&format!("{}\t{size}\t{text}\n", path.display()));
    }
    let reference = harfbuzz_widths(&input);
    assert_eq!(reference.len(), cases.len());

    let engine = Engine::new(FontBook::builtin());
    let mut kerned = 0;
    for ((_, family, bold, italic, size, text), expected) in cases.iter().zip(&reference) {
        let measured = engine
            .measure(&MeasureRequest {
                text: text.to_string(),
                font_family: family.to_string(),
                bold: *bold,
                italic: *italic,
                size: *size,
                wrapping_width: None,
                leading: None,
            })
            .unwrap();
        assert!(!measured.font_substituted, "{family} {text}");
        let error = (measured.text_width - expected).abs() / expected;
        assert!(
            error <= 0.005,
            "{family} bold={bold} italic={italic} {size} mm {text:?}: engine {} mm, HarfBuzz {expected} mm",
            measured.text_width
        );
        let advances_only = engine.fonts().resolve(family, *bold, *italic).unwrap();
        let face = engine.fonts().face(advances_only);
        let plain: f64 = text
            .chars()
            .map(|c| face.advance(face.glyph(c).unwrap()))
            .sum::<f64>()
            / face.units_per_em
            * size;
        if (plain - expected).abs() / expected > 0.005 {
            kerned += 1;
        }
    }
    // Shaping (kerning, ligatures) must move some widths by more than the tolerance, or a
    // measurement of plain advances would pass too.
    assert!(
        kerned >= 3,
        "only {kerned} cases are kerned by more than 0.5%"
    );
}

/// The face file of each family's regular face, written where Python can read it.
fn face_files(dir: &std::path::Path) -> HashMap<String, std::path::PathBuf> {
    let mut files = HashMap::new();
    for (name, bytes) in builtin_face_bytes() {
        let path = dir.join(presspack_engine::package::face_file(name).replace('/', "_"));
        std::fs::write(&path, bytes).unwrap();
        files.insert((*name).to_owned(), path);
    }
    files
}

/// `text_corpus.tsv`: 318 strings (family, then text) in Latin with Vietnamese, Greek,
/// Cyrillic, Arabic with Persian and Urdu, Hebrew, Devanagari, Bengali, Tamil, Thai, Lao,
/// Khmer, Myanmar, Chinese,
/// Japanese, Korean and emoji, each measured in the family that has its script, so one face
/// sets the whole string (fallback is tested elsewhere): the engine's width equals HarfBuzz's
/// for the same face within 0.5%.
#[test]
fn shaped_widths_in_every_script_agree_with_harfbuzz() {
    let corpus = include_str!("text_corpus.tsv");
    let cases: Vec<(&str, &str)> = corpus
        .lines()
        .map(|line| line.split_once('\t').unwrap())
        .collect();
    assert!(cases.len() >= 200, "{}", cases.len());
    let dir = tempfile::tempdir().unwrap();
    let files = face_files(dir.path());
    let engine = Engine::new(FontBook::builtin());
    let face_of = |family: &str| {
        let id = engine.fonts().resolve(family, false, false).unwrap();
        engine.fonts().face(id)
    };
    let mut input = String::new();
    for (family, text) in &cases {
        let path = &files[&face_of(family).name];
        input.push_str(&format!("{}\t10\t{text}\n", path.display()));
    }
    let reference = harfbuzz_widths(&input);
    assert_eq!(reference.len(), cases.len());
    let mut shaped = 0;
    for ((family, text), expected) in cases.iter().zip(&reference) {
        let measured = engine
            .measure(&MeasureRequest {
                text: text.to_string(),
                font_family: family.to_string(),
                bold: false,
                italic: false,
                size: 10.0,
                wrapping_width: None,
                leading: None,
            })
            .unwrap();
        let error = (measured.text_width - expected).abs() / expected.max(1e-9);
        assert!(
            error <= 0.005,
            "{family} {text:?}: engine {} mm, HarfBuzz {expected} mm",
            measured.text_width
        );
        let face = face_of(family);
        let plain: f64 = text
            .chars()
            .map(|c| face.glyph(c).map_or(0.0, |g| face.advance(g)))
            .sum::<f64>()
            / face.units_per_em
            * 10.0;
        if (plain - expected).abs() / expected.max(1e-9) > 0.005 {
            shaped += 1;
        }
    }
    // Joining, ligatures, conjuncts and kerning change many widths: a measurement of plain
    // advances would fail this test.
    assert!(shaped >= 60, "only {shaped} widths are changed by shaping");
}

/// Widths in mm from `font_reference.py` for its input lines.
fn harfbuzz_widths(input: &str) -> Vec<f64> {
    let mut python = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/font_reference.py"
        ))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs (tests/requirements.txt lists uharfbuzz)");
    python
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = python.wait_with_output().unwrap();
    assert!(output.status.success(), "font_reference.py failed");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect()
}
