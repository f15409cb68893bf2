//! Building the engine as a wasm module, one way for every user: the host's build script
//! (the plain module wasmtime runs, features `guest,pdf`, and the browser build its design
//! canvas serves) and the npm package's build (the wasm-bindgen surface, feature `web`).
//! Same settings, so the browser and the server run the same code compiled the same way.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const TARGET: &str = "wasm32-unknown-unknown";

/// Builds `presspack-engine` for wasm with `features` (and no default ones) into
/// `target_dir`; the path of the module. The nested cargo uses its own target directory, so
/// it never waits on the lock of a build that runs it.
pub fn build_engine(
    workspace: &Path,
    target_dir: &Path,
    features: &str,
) -> Result<PathBuf, String> {
    ensure_target()?;
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(workspace)
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
            features,
        ])
        .arg("--target-dir")
        .arg(target_dir)
        // Size and speed of the module, not debuggability.
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_STRIP", "true")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
        .env("CARGO_PROFILE_RELEASE_PANIC", "abort")
        .env("CARGO_PROFILE_RELEASE_LTO", "fat")
        // 128-bit SIMD lets LLVM vectorise the drawing loops as it does natively with SSE2;
        // it changes no result (no fast-math), so wasm and native pixels stay identical.
        .env("CARGO_ENCODED_RUSTFLAGS", "-Ctarget-feature=+simd128");
    // An outer build's settings are for the host target (and clippy's wrapper for lints).
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
    let output = command
        .output()
        .map_err(|e| format!("running cargo for the wasm engine: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "building the engine's wasm module ({features}) failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(target_dir
        .join(TARGET)
        .join("release/presspack_engine.wasm"))
}

/// Builds the engine's browser surface (feature `web`) in `target_dir` and writes its
/// wasm-bindgen ES module into `out_dir`: `presspack_engine.js`, `presspack_engine.d.ts` and
/// `presspack_engine_bg.wasm`.
pub fn build_web_bindings(
    workspace: &Path,
    target_dir: &Path,
    out_dir: &Path,
) -> Result<(), String> {
    let wasm = build_engine(workspace, target_dir, "web")?;
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(&wasm)
        .web(true)
        .map_err(|e| e.to_string())?
        .typescript(true)
        .out_name("presspack_engine")
        .generate(out_dir)
        .map_err(|e| format!("wasm-bindgen: {e}"))
}

/// Installs the wasm target with rustup if the toolchain lacks it (a fresh machine has only
/// the host target).
pub fn ensure_target() -> Result<(), String> {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let sysroot = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    if sysroot.is_some_and(|root| root.join("lib/rustlib").join(TARGET).exists()) {
        return Ok(());
    }
    let status = Command::new("rustup")
        .args(["target", "add", TARGET])
        .status();
    if status.is_ok_and(|s| s.success()) {
        Ok(())
    } else {
        Err(format!(
            "the {TARGET} target is missing and `rustup target add {TARGET}` failed; \
             install it and build again"
        ))
    }
}
