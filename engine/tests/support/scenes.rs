//! The reference scenes of `engine/tests/scenes/`: loading them as engine render calls and
//! comparing output with the committed reference PNGs. Shared (by `#[path]`) between the
//! engine's native test and the host's wasm test, so both render exactly the same calls.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use presspack_engine::render::ImageInput;
use presspack_engine::wire::{RenderHeaderInput, render_frame};
use serde::Deserialize;

pub fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/scenes")
}

#[derive(Deserialize)]
struct SceneFile {
    scenes: Vec<SceneCase>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SceneCase {
    pub name: String,
    /// The render call, as the engine's wire takes it.
    #[serde(flatten)]
    pub render: RenderHeaderInput,
    /// Resource URI -> file name in `images/`.
    #[serde(default)]
    pub images: std::collections::BTreeMap<String, String>,
}

impl SceneCase {
    /// The engine's `Draw` call for this scene.
    pub fn render_frame(&self) -> Vec<u8> {
        let images: Vec<(String, Vec<u8>)> = self
            .images
            .iter()
            .map(|(uri, file)| (uri.clone(), read(&scenes_dir().join("images").join(file))))
            .collect();
        let refs: Vec<(&str, ImageInput<'_>)> = images
            .iter()
            .map(|(u, b)| {
                let input = ImageInput {
                    bytes: b.as_slice(),
                    enhance: false,
                };
                (u.as_str(), input)
            })
            .collect();
        render_frame(&self.render, &refs)
    }
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn cases() -> Vec<SceneCase> {
    let text = String::from_utf8(read(&scenes_dir().join("scenes.json"))).unwrap();
    serde_json::from_str::<SceneFile>(&text).unwrap().scenes
}

/// Every template XML of the scenes.
pub fn templates() -> Vec<String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(scenes_dir().join("templates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| String::from_utf8(read(p)).unwrap())
        .collect()
}

/// The PNG of a `Draw` answer, encoded as the host encodes it.
pub fn png_of(output: &[u8]) -> Vec<u8> {
    let (_, pixels) = presspack_engine::wire::read_drawn(output).unwrap();
    pixels.encode_png().unwrap()
}

fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    // Opaque renders are RGB; compare everything as RGBA.
    decoder.set_transformations(
        png::Transformations::normalize_to_color8() | png::Transformations::ALPHA,
    );
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) {
    std::fs::write(
        path,
        presspack_engine::raster::encode_png(width, height, png::ColorType::Rgba, rgba).unwrap(),
    )
    .unwrap();
}

/// Compares a rendered PNG with `reference/<name>.png`: same size, every channel within 1.
/// On a mismatch writes `<name>.{expected,actual,diff}.png` under `target/scene-diffs/` and
/// says where. With `PRESSPACK_BLESS=1` the reference is (re)written instead.
pub fn check_reference(name: &str, actual_png: &[u8]) -> Result<(), String> {
    check_reference_in(&scenes_dir().join("reference"), name, actual_png)
}

/// [`check_reference`] against `<reference_dir>/<name>.png`.
pub fn check_reference_in(
    reference_dir: &Path,
    name: &str,
    actual_png: &[u8],
) -> Result<(), String> {
    let reference = reference_dir.join(format!("{name}.png"));
    if std::env::var_os("PRESSPACK_BLESS").is_some() {
        std::fs::create_dir_all(reference.parent().unwrap()).unwrap();
        std::fs::write(&reference, actual_png).unwrap();
        return Ok(());
    }
    let (aw, ah, actual) = decode(actual_png);
    let Ok(expected_png) = std::fs::read(&reference) else {
        return Err(format!(
            "{name}: no reference {}; look at the render and bless it with PRESSPACK_BLESS=1",
            reference.display()
        ));
    };
    let (ew, eh, expected) = decode(&expected_png);
    let mut worst = 0u8;
    let mut diff = Vec::with_capacity(actual.len());
    if (aw, ah) == (ew, eh) {
        for (a, e) in actual.chunks(4).zip(expected.chunks(4)) {
            let d = a.iter().zip(e).map(|(a, e)| a.abs_diff(*e)).max().unwrap();
            worst = worst.max(d);
            diff.extend_from_slice(&if d > 1 {
                [255, 0, 0, 255]
            } else {
                [e[0] / 3, e[1] / 3, e[2] / 3, 255]
            });
        }
        if worst <= 1 {
            return Ok(());
        }
    }
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/scene-diffs");
    std::fs::create_dir_all(&out).unwrap();
    write_png(&out.join(format!("{name}.expected.png")), ew, eh, &expected);
    write_png(&out.join(format!("{name}.actual.png")), aw, ah, &actual);
    if !diff.is_empty() {
        write_png(&out.join(format!("{name}.diff.png")), ew, eh, &diff);
    }
    Err(format!(
        "{name}: differs from its reference ({aw}x{ah} vs {ew}x{eh}, largest channel difference {worst}); see {}",
        out.display()
    ))
}
