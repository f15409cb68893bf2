//! The tool as `npm run build` runs it: what it writes, and what it says when it cannot.

use std::path::Path;
use std::process::{Command, Output};

fn build(out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_presspack-npm"))
        .arg(out)
        .output()
        .expect("presspack-npm runs")
}

/// The relative paths of `new URL("./…", import.meta.url)` in `assets.js`.
fn asset_paths(assets: &str) -> Vec<String> {
    assets
        .split("new URL(\"./")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().to_owned())
        .collect()
}

/// Every file under `dir`, in its folders too, as `prefix/…`, sorted.
fn files_under(dir: &Path, prefix: &str) -> Vec<String> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = format!("{prefix}/{}", entry.file_name().to_string_lossy());
        if entry.file_type().unwrap().is_dir() {
            files.extend(files_under(&entry.path(), &path));
        } else {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Is this shipped file a licence, copyright notice or README rather than an asset?
fn is_notice(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap();
    ["OFL", "COPYRIGHT", "LICENSE", "GUST", "README"]
        .iter()
        .any(|start| name.starts_with(start))
}

#[test]
fn the_package_directory_holds_the_module_and_every_asset_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pkg");
    // A file left from an earlier build is not shipped again.
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("stale.txt"), "from an earlier build").unwrap();

    let output = build(&out);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!out.join("stale.txt").exists());

    let wasm = std::fs::read(out.join("presspack_engine_bg.wasm")).unwrap();
    assert_eq!(&wasm[..4], b"\0asm");
    let glue = std::fs::read_to_string(out.join("presspack_engine.js")).unwrap();
    assert!(glue.contains("export class WebEngine"), "{glue}");
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for file in ["index.js", "index.d.ts", "README.md"] {
        assert_eq!(
            std::fs::read(out.join(file)).unwrap(),
            std::fs::read(workspace.join("npm").join(file)).unwrap(),
            "{file}"
        );
    }
    for file in ["LICENSE-MIT", "LICENSE-APACHE"] {
        assert_eq!(
            std::fs::read(out.join(file)).unwrap(),
            std::fs::read(workspace.join(file)).unwrap(),
            "{file}"
        );
    }

    // The directory is the package as published: its manifest is the root one, publishable
    // (the root is private, so its README never becomes the package's), paths inside pkg/.
    let root: serde_json::Value =
        serde_json::from_slice(&std::fs::read(workspace.join("package.json")).unwrap()).unwrap();
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("package.json")).unwrap()).unwrap();
    assert_eq!(root["private"], true);
    assert_eq!(manifest["private"], serde_json::Value::Null);
    assert_eq!(manifest["scripts"], serde_json::Value::Null);
    for field in ["name", "version", "license", "type", "engines"] {
        assert_eq!(manifest[field], root[field], "{field}");
    }
    assert_eq!(manifest["main"], "./index.js");
    assert_eq!(manifest["types"], "./index.d.ts");
    assert_eq!(manifest["exports"]["."]["default"], "./index.js");
    assert_eq!(manifest["exports"]["."]["types"], "./index.d.ts");

    // The model's types, generated from the engine's Rust types; index.d.ts exports them.
    let model = std::fs::read_to_string(out.join("model.d.ts")).unwrap();
    for declared in [
        "Side",
        "Pack",
        "Datum",
        "TextDatum",
        "Colour",
        "ImageBasket",
    ] {
        assert!(
            model.contains(&format!("\nexport type {declared} = ")),
            "{declared}: {model}"
        );
    }
    assert!(model.contains("templateCode: string"), "{model}");

    // assets.js names the wasm and every font and template file in the package, and only
    // files it holds.
    let mut named = asset_paths(&std::fs::read_to_string(out.join("assets.js")).unwrap());
    named.sort();
    let fonts = files_under(&out.join("fonts"), "fonts");
    let (notices, mut shipped): (Vec<String>, Vec<String>) =
        fonts.into_iter().partition(|path| is_notice(path));
    shipped.extend(files_under(&out.join("templates"), "templates"));
    let wasm = presspack_engine::package::WASM_FILE;
    assert!(out.join(wasm).is_file(), "{wasm}");
    shipped.push(wasm.to_owned());
    shipped.sort();
    assert_eq!(named, shipped);
    assert!(named.contains(&"fonts/catalogue.json".to_owned()));
    assert!(named.iter().filter(|p| p.ends_with(".ttf")).count() >= 12);
    // Every face travels with its licence: a notice in its directory (the compiled-in DejaVu
    // faces' in fonts/dejavu/), and the fonts README saying which is which.
    assert!(
        notices.contains(&"fonts/README.md".to_owned()),
        "{notices:?}"
    );
    for face in named
        .iter()
        .filter(|p| p.ends_with(".ttf") || p.ends_with(".otf"))
    {
        let dir = match face.rsplit_once('/').unwrap() {
            ("fonts", file) if file.starts_with("dejavu-") => "fonts/dejavu".to_owned(),
            (dir, _) => dir.to_owned(),
        };
        assert!(
            notices.iter().any(|n| n.starts_with(&format!("{dir}/"))),
            "no licence beside {face}: {notices:?}"
        );
    }
    assert_eq!(
        named.iter().filter(|p| p.ends_with(".xml")).count(),
        files_under(&workspace.join("assets/templates"), "templates")
            .iter()
            .filter(|p| p.ends_with(".xml"))
            .count()
    );
}

#[test]
fn an_output_it_cannot_write_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let out = blocker.join("pkg");

    let output = build(&out);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("presspack-npm: ") && stderr.contains(&out.display().to_string()),
        "{stderr}"
    );
}

/// The package's types name every failure code the engine throws with.
#[test]
fn the_types_name_every_failure_code() {
    use strum::IntoEnumIterator;
    let types = include_str!("../../../npm/index.d.ts");
    for code in presspack_engine::failure::FailureCode::iter() {
        let quoted = format!("\"{}\"", code.as_str());
        assert!(types.contains(&quoted), "npm/index.d.ts lacks {quoted}");
    }
}
