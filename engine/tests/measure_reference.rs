//! Text measurement against an independent reference: for a table of strings, faces and
//! sizes, the engine's width agrees within 0.5% with HarfBuzz's shaping of the same font
//! files (uharfbuzz, `font_reference.py`).

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
    let mut python = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/font_reference.py"
        ))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs (tests/requirements.txt lists uharfbuzz)");
    let mut input = String::new();
    for (path, _, _, _, size, text) in &cases {
        input.push_str(&format!("{}\t{size}\t{text}\n", path.display()));
    }
    python
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = python.wait_with_output().unwrap();
    assert!(output.status.success(), "font_reference.py failed");
    let reference: Vec<f64> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
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
