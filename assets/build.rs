//! Writes `templates.rs`: every `templates/*.xml` as `(file name, contents)`, in file-name
//! order, so whatever embeds this crate carries its templates wherever it runs;
//! `starter_art.rs`: the starter designs' pictures, the same way; and
//! `fonts.rs`: every face and word-list file `fonts/catalogue.json` names, deflated, as
//! `(name, bytes)`.

use std::env;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    templates(&manifest.join("templates"), &out);
    starter_art(&manifest.join("designs/art"), &out);
    fonts(&manifest.join("../fonts"), &out);
}

fn templates(dir: &Path, out: &Path) {
    embed_dir(dir, "xml", "include_str", &out.join("templates.rs"));
}

/// Writes `starter_art.rs`: every `designs/art/*.png` as `(file name, bytes)`, in file-name
/// order.
fn starter_art(dir: &Path, out: &Path) {
    embed_dir(dir, "png", "include_bytes", &out.join("starter_art.rs"));
}

/// Writes to `out` a slice of `(file name, contents)`, each file of `dir` ending in
/// `.extension` taken in by `include` (`include_str` or `include_bytes`), in file-name order.
fn embed_dir(dir: &Path, extension: &str, include: &str, out: &Path) {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == extension))
        .collect();
    files.sort();
    let mut code = String::from("&[\n");
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        code.push_str(&format!(
            "    ({name:?}, {include}!({:?})),\n",
            path.display().to_string()
        ));
    }
    code.push_str("]\n");
    std::fs::write(out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}

/// The face files the catalogue names, each deflated once here: the binary carries about half
/// the bytes, and the engine inflates them once at start. The `dejavu:` names are DejaVu Sans,
/// in `dejavu/` (see [`face_path`]).
fn fonts(dir: &Path, out: &Path) {
    let catalogue = dir.join("catalogue.json");
    println!("cargo:rerun-if-changed={}", catalogue.display());
    let text = std::fs::read_to_string(&catalogue)
        .unwrap_or_else(|e| panic!("{}: {e}", catalogue.display()));
    let json: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", catalogue.display()));
    let mut names: Vec<String> = json["families"]
        .as_object()
        .expect("families")
        .values()
        .flat_map(|faces| {
            let faces = faces.as_object().expect("a family's faces");
            ["regular", "bold", "italic", "boldItalic"]
                .into_iter()
                .filter_map(|style| faces.get(style)?.as_str())
        })
        .chain(
            json.get("wordBreak")
                .and_then(|lists| lists.as_object())
                .into_iter()
                .flat_map(|lists| lists.values().filter_map(|name| name.as_str())),
        )
        .map(str::to_owned)
        .collect();
    names.sort();
    names.dedup();
    let deflated = out.join("fonts");
    let mut code = String::from("&[\n");
    for name in names {
        let file = face_path(&name);
        let path = dir.join(&file);
        println!("cargo:rerun-if-changed={}", path.display());
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let packed = miniz_oxide::deflate::compress_to_vec(&bytes, 9);
        let target = deflated.join(format!("{file}.deflate"));
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(&target, packed).unwrap_or_else(|e| panic!("{}: {e}", target.display()));
        code.push_str(&format!(
            "    ({name:?}, include_bytes!({:?})),\n",
            target.display().to_string()
        ));
    }
    code.push_str("]\n");
    let out = out.join("fonts.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}

/// The file of a face the catalogue names. The DejaVu Sans faces keep the names they had when
/// the `dejavu` crate supplied them (`dejavu:sans`...), which operators' catalogues may use;
/// their files are the crate's, in `fonts/dejavu/`.
fn face_path(name: &str) -> String {
    let style = match name.strip_prefix("dejavu:sans") {
        Some("") => "",
        Some("-bold") => "-Bold",
        Some("-oblique") => "-Oblique",
        Some("-bold-oblique") => "-BoldOblique",
        _ => return name.to_owned(),
    };
    format!("dejavu/DejaVuSans{style}.ttf")
}
