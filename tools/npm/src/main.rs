//! `presspack-npm [OUT_DIR]` (run by `npm run build`): builds the engine's npm package into
//! `OUT_DIR` (default `pkg/`):
//!
//! - `presspack_engine.js`, `.d.ts` and `_bg.wasm`: the engine's `web` surface through
//!   wasm-bindgen (ES module, `--target web`), built like the server's module;
//! - `fonts/`: the font catalogue, every built-in face and, beside the faces of each directory,
//!   its licence and copyright files (the OFL and its peers ask that they travel with the
//!   fonts) with `fonts/README.md`, which says where each came from; `templates/`: every
//!   template;
//! - `assets.js`: their URLs as literal `new URL("./…", import.meta.url)` expressions, which
//!   bundlers such as Vite follow and copy;
//! - `index.js` and `index.d.ts` from `npm/`: `createEngine()` and its types;
//! - `model.d.ts`: the pack model's types (`Side`, `Pack`, `Datum`, …), generated from the
//!   engine's Rust types, which `index.d.ts` uses and exports;
//! - `package.json`, `README.md` (from `npm/README.md`) and the licences: the directory is the
//!   package as published (`npm publish ./pkg`), with its own README rather than the
//!   repository's. The root package.json is its source and is private.

use std::path::{Path, PathBuf};

use presspack_engine::package::{assets_module, face_file};
use presspack_engine::text::builtin_face_bytes;

fn main() {
    if let Err(message) = run() {
        eprintln!("presspack-npm: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = std::env::args()
        .nth(1)
        .map_or_else(|| workspace.join("pkg"), PathBuf::from);
    if out.exists() {
        std::fs::remove_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    // Before the wasm build, so an output that cannot be written is named at once.
    create_dir(&out)?;
    // The host's build uses the same wasm target directory, so one build serves both.
    presspack_wasm_build::build_web_bindings(
        &workspace,
        &workspace.join("target/engine-wasm"),
        &out,
    )?;

    let fonts = out.join("fonts");
    create_dir(&fonts)?;
    write(
        &fonts.join("catalogue.json"),
        presspack_assets::FONT_CATALOGUE.as_bytes(),
    )?;
    for (name, bytes) in builtin_face_bytes() {
        let file = fonts.join(face_file(name));
        if let Some(parent) = file.parent() {
            create_dir(parent)?;
        }
        write(&file, bytes)?;
    }
    ship_font_licences(&workspace.join("fonts"), &fonts)?;
    let templates = out.join("templates");
    create_dir(&templates)?;
    let mut codes = Vec::new();
    for (file, xml) in presspack_assets::TEMPLATES {
        write(&templates.join(file), xml.as_bytes())?;
        codes.extend(file.strip_suffix(".xml"));
    }
    let assets = assets_module(
        builtin_face_bytes().iter().map(|(name, _)| *name),
        codes,
        |_| String::new(),
    );
    write(&out.join("assets.js"), assets.as_bytes())?;
    write(
        &out.join("model.d.ts"),
        presspack_engine::model::typescript_declarations().as_bytes(),
    )?;
    for file in ["index.js", "index.d.ts", "README.md"] {
        copy(&workspace.join("npm").join(file), &out.join(file))?;
    }
    for file in ["LICENSE-MIT", "LICENSE-APACHE"] {
        copy(&workspace.join(file), &out.join(file))?;
    }
    let manifest = std::fs::read_to_string(workspace.join("package.json"))
        .map_err(|e| format!("package.json: {e}"))?;
    write(
        &out.join("package.json"),
        published_manifest(&manifest)?.as_bytes(),
    )?;
    println!("built the npm package in {}", out.display());
    Ok(())
}

/// The package's manifest as published from `pkg/`: the root one without what only the
/// repository uses (`private`, `scripts`, `files`), its paths made relative to `pkg/`.
fn published_manifest(root: &str) -> Result<String, String> {
    let mut manifest: serde_json::Value =
        serde_json::from_str(root).map_err(|e| format!("package.json: {e}"))?;
    let fields = manifest
        .as_object_mut()
        .ok_or("package.json: not a JSON object")?;
    for repository_only in ["private", "scripts", "files"] {
        fields.remove(repository_only);
    }
    for entry in ["main", "types", "exports"] {
        if let Some(value) = fields.get_mut(entry) {
            strip_pkg_prefix(value);
        }
    }
    Ok(serde_json::to_string_pretty(&manifest).expect("JSON values serialise") + "\n")
}

fn strip_pkg_prefix(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(path) => {
            if let Some(inside) = path.strip_prefix("./pkg/") {
                *path = format!("./{inside}");
            }
        }
        serde_json::Value::Object(map) => map.values_mut().for_each(strip_pkg_prefix),
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_pkg_prefix),
        _ => {}
    }
}

/// The licence and copyright files of every font directory (the package ships faces from each;
/// `dejavu/` holds the licence of the `dejavu-*` faces), and the fonts README.
fn ship_font_licences(source: &Path, out: &Path) -> Result<(), String> {
    copy(&source.join("README.md"), &out.join("README.md"))?;
    let entries = std::fs::read_dir(source).map_err(|e| format!("{}: {e}", source.display()))?;
    for entry in entries {
        let dir = entry
            .map_err(|e| format!("{}: {e}", source.display()))?
            .path();
        if !dir.is_dir() {
            continue;
        }
        let shipped = out.join(dir.file_name().unwrap_or_default());
        create_dir(&shipped)?;
        let files = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for file in files {
            let file = file.map_err(|e| format!("{}: {e}", dir.display()))?.path();
            // Faces and word lists are written from the engine's own copies above.
            let is_font_file = matches!(
                file.extension().and_then(|e| e.to_str()),
                Some("ttf" | "otf" | "dict")
            );
            if !is_font_file {
                copy(&file, &shipped.join(file.file_name().unwrap_or_default()))?;
            }
        }
    }
    Ok(())
}

fn create_dir(path: &Path) -> Result<(), String> {
    std::fs::create_dir_all(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("{} -> {}: {e}", from.display(), to.display()))
}
