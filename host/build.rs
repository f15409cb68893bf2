//! Builds the engine's plain wasm module (feature `guest`) for wasmtime, so that a plain
//! `cargo build` of the host has it with no manual step. The module is written to
//! `$OUT_DIR/presspack_engine.wasm` and embedded in the binary.
//!
//! The wasm target is installed with rustup when missing (a fresh machine has only the host
//! target). The nested cargo uses its own target directory, so it never waits on the lock of
//! the build that runs this script.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-unknown-unknown";

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let workspace = manifest_dir.parent().unwrap().to_path_buf();
    for watched in [
        "engine/src",
        "engine/Cargo.toml",
        "fonts",
        "Cargo.lock",
        "host/templates",
    ] {
        println!(
            "cargo:rerun-if-changed={}",
            workspace.join(watched).display()
        );
    }
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    embed_templates(&manifest_dir.join("templates"), &out_dir);
    ensure_target();
    let target_dir = wasm_target_dir(&out_dir, &workspace);
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(&workspace)
        .args([
            "build",
            "--package",
            "presspack-engine",
            "--lib",
            "--release",
        ])
        .args([
            "--target",
            TARGET,
            "--no-default-features",
            "--features",
            "guest,pdf",
        ])
        .arg("--target-dir")
        .arg(&target_dir)
        // Size and speed of the module, not debuggability.
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_STRIP", "true")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
        .env("CARGO_PROFILE_RELEASE_PANIC", "abort")
        .env("CARGO_PROFILE_RELEASE_LTO", "fat")
        // 128-bit SIMD lets LLVM vectorise the drawing loops as it does natively with SSE2;
        // it changes no result (no fast-math), so wasm and native pixels stay identical.
        .env("CARGO_ENCODED_RUSTFLAGS", "-Ctarget-feature=+simd128");
    // The outer build's settings are for the host target (and clippy's wrapper for lints).
    for variable in [
        "RUSTFLAGS",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_MAKEFLAGS",
    ] {
        command.env_remove(variable);
    }
    let output = command.output().expect("running cargo for the wasm engine");
    if !output.status.success() {
        panic!(
            "building the engine's wasm module failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let wasm = target_dir
        .join(TARGET)
        .join("release/presspack_engine.wasm");
    std::fs::copy(&wasm, out_dir.join("presspack_engine.wasm"))
        .unwrap_or_else(|e| panic!("copying {}: {e}", wasm.display()));
}

/// Writes `builtin_templates.rs`: every `templates/*.xml` as `(file name, contents)`, so
/// the binary carries its templates wherever it runs.
fn embed_templates(dir: &Path, out_dir: &Path) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
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
    std::fs::write(out_dir.join("builtin_templates.rs"), code).unwrap();
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

/// Installs the wasm target with rustup if the toolchain lacks it.
fn ensure_target() {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let sysroot = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    if sysroot.is_some_and(|root| root.join("lib/rustlib").join(TARGET).exists()) {
        return;
    }
    let status = Command::new("rustup")
        .args(["target", "add", TARGET])
        .status();
    if !status.is_ok_and(|s| s.success()) {
        panic!(
            "the {TARGET} target is missing and `rustup target add {TARGET}` failed; \
             install it and build again"
        );
    }
}
