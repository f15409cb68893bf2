//! Builds the engine's two wasm modules, so that a plain `cargo build` of the host has them
//! with no manual step: the plain module (features `guest,pdf`) that wasmtime runs, written to
//! `$OUT_DIR/presspack_engine.wasm.gz`, and the browser build (feature `web`, through
//! wasm-bindgen) that the design canvas runs, written to `$OUT_DIR/web/`. The wasm is
//! gzipped, a third of its size in the binary: the host inflates the plain module once at
//! start and sends the browser build as it is to browsers that accept gzip.
//!
//! The build itself is `presspack_wasm_build::build_engine` (shared with the npm package's
//! build): it installs the wasm target with rustup when missing and uses its own target
//! directory, so it never waits on the lock of the build that runs this script.

use std::env;
use std::path::{Path, PathBuf};

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let workspace = manifest_dir.ancestors().nth(2).unwrap().to_path_buf();
    // The wasm modules embed the engine and the assets it compiles in (products, fonts).
    for watched in [
        "engine/src",
        "engine/Cargo.toml",
        "assets",
        "fonts",
        "Cargo.lock",
    ] {
        println!(
            "cargo:rerun-if-changed={}",
            workspace.join(watched).display()
        );
    }
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    let target_dir = wasm_target_dir(&out_dir, &workspace);
    let wasm = presspack_wasm_build::build_engine(&workspace, &target_dir, "guest,pdf")
        .unwrap_or_else(|e| panic!("{e}"));
    gzip(&wasm, &out_dir.join("presspack_engine.wasm.gz"));
    let web = out_dir.join("web");
    std::fs::create_dir_all(&web).unwrap_or_else(|e| panic!("{}: {e}", web.display()));
    presspack_wasm_build::build_web_bindings(&workspace, &target_dir, &web)
        .unwrap_or_else(|e| panic!("{e}"));
    gzip(
        &web.join("presspack_engine_bg.wasm"),
        &web.join("presspack_engine_bg.wasm.gz"),
    );
}

fn gzip(from: &Path, to: &Path) {
    use std::io::Write;
    let bytes = std::fs::read(from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(&bytes).expect("gzip in memory");
    let gzipped = encoder.finish().expect("gzip in memory");
    std::fs::write(to, gzipped).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
}

/// `target/engine-wasm` beside the outer build's `target` directory (found from OUT_DIR,
/// which is `<target>/<profile>/build/<pkg>/out`), so every profile shares one wasm build.
fn wasm_target_dir(out_dir: &Path, workspace: &Path) -> PathBuf {
    out_dir
        .ancestors()
        .find(|dir| dir.file_name().is_some_and(|name| name == "build"))
        .and_then(|build| build.parent()?.parent())
        .map(|target| target.join("engine-wasm"))
        .unwrap_or_else(|| workspace.join("target/engine-wasm"))
}
