//! Writes `templates.rs`: every `templates/*.xml` as `(file name, contents)`, in file-name
//! order, so whatever embeds this crate carries its templates wherever it runs.

use std::env;
use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("templates");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "xml"))
        .collect();
    files.sort();
    let mut code = String::from("&[\n");
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        code.push_str(&format!(
            "    ({name:?}, include_str!({:?})),\n",
            path.display().to_string()
        ));
    }
    code.push_str("]\n");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("templates.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
