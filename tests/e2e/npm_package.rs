//! The engine's npm package (root package.json): `npm test` builds it into pkg/ and runs its
//! Node tests, `npm pack ./pkg` packs it as published, and a fresh Vite app installs the packed
//! tarball and renders a side in headless Chromium, where the canvas holds exactly the pixels
//! of the server's renderSide for the same side; TypeScript checks that app's typed side and
//! refuses a misspelt one.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::chromium::{browser, screenshot_dir};
use crate::helpers::{StoreKind, spawn_app};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `npm args` in `dir`; its standard output. A failure shows everything npm said.
fn npm(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("npm")
        .args(args)
        .current_dir(dir)
        .env("NO_UPDATE_NOTIFIER", "1")
        .output()
        .unwrap_or_else(|e| panic!("npm does not run ({e}): install Node.js and npm"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "npm {args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The side both renders draw: a green front with the template's defaults.
fn side() -> Value {
    json!({"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape",
    "data": [
        {"type": "boxData", "linkId": "background_box", "colour": {"type": "RGB", "r": 240, "g": 248, "b": 242}},
        {"type": "textData", "linkId": "back_line_1", "text": "Ann Example"},
        {"type": "textData", "linkId": "back_line_2", "text": "Letterpress & Design"}
    ]})
}

const MAX_SIDE: u32 = 500;

/// The app: renders the side with renderPixels into a canvas and publishes the SHA-256 of the
/// pixels it drew and of those the canvas holds.
const MAIN_JS: &str = r#"
import { createEngine } from "@presspack/engine";

const hex = async (bytes) => [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
  .map((b) => b.toString(16).padStart(2, "0")).join("");

const engine = await createEngine();
const side = JSON.parse(document.getElementById("side").textContent);
const { pixels, width, height, report } = engine.renderPixels(
  { side, boxType: "print", maxSide: MAX_SIDE }, []);
const canvas = document.querySelector("canvas");
canvas.width = width;
canvas.height = height;
const context = canvas.getContext("2d");
context.putImageData(new ImageData(new Uint8ClampedArray(pixels), width), 0, 0);
const held = context.getImageData(0, 0, width, height).data;
window.presspackResult = {
  width, height, overflows: report.overflows.length,
  drawn: await hex(pixels), canvas: await hex(held),
};
"#;

/// The Vite release range the installed Node runs: Vite 8 needs Node 20.19 or later, so
/// Debian 12's Node 18 gets Vite 5 (the package works with both). `PRESSPACK_TEST_VITE`
/// overrides it.
fn vite_range() -> String {
    if let Ok(range) = std::env::var("PRESSPACK_TEST_VITE") {
        return range;
    }
    let output = Command::new("node")
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("node does not run ({e}): install Node.js"));
    let version = String::from_utf8_lossy(&output.stdout);
    let mut numbers = version
        .trim()
        .trim_start_matches('v')
        .split('.')
        .map(|n| n.parse::<u32>().unwrap_or(0));
    let (major, minor) = (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0));
    if (major, minor) >= (20, 19) {
        "^8.3.0".into()
    } else {
        "^5.4.0".into()
    }
}

fn write_app(dir: &Path, tarball: &Path) {
    let package = json!({
        "name": "presspack-vite-check", "private": true, "type": "module",
        "dependencies": { "@presspack/engine": format!("file:{}", tarball.display()) },
        "devDependencies": { "vite": vite_range(), "typescript": "^5.4.0" }
    });
    std::fs::write(dir.join("package.json"), package.to_string()).unwrap();
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Vite check</title></head>\
         <body><canvas></canvas><script type=\"application/json\" id=\"side\">{}</script>\
         <script type=\"module\" src=\"/main.js\"></script></body></html>",
        side()
    );
    std::fs::write(dir.join("index.html"), html).unwrap();
    let typed = format!(
        "import type {{ Side }} from \"@presspack/engine\";\nexport const side: Side = {};\n",
        side()
    );
    std::fs::write(dir.join("typed.ts"), &typed).unwrap();
    std::fs::write(
        dir.join("misspelt.ts"),
        typed.replace("\"templateCode\"", "\"templateCod\""),
    )
    .unwrap();
    std::fs::write(
        dir.join("main.js"),
        MAIN_JS.replace("MAX_SIDE", &MAX_SIDE.to_string()),
    )
    .unwrap();
}

/// `tsc` (strict, Node's module resolution, the package's types checked too) on one file of
/// the app. wasm-bindgen's glue declares `Symbol.dispose`, hence `esnext.disposable`.
fn tsc(dir: &Path, file: &str) -> std::process::Output {
    Command::new("npm")
        .args(["exec", "--", "tsc", "--noEmit", "--strict"])
        .args([
            "--target",
            "es2022",
            "--lib",
            "es2022,dom,esnext.disposable",
        ])
        .args([
            "--module",
            "nodenext",
            "--moduleResolution",
            "nodenext",
            file,
        ])
        .current_dir(dir)
        .output()
        .unwrap()
}

/// `vite preview` of the built app on a free port, stopped when dropped.
struct Preview(Child);

impl Drop for Preview {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn preview(dir: &Path) -> (Preview, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Preview(
        Command::new("npx")
            .args([
                "vite",
                "preview",
                "--host",
                "127.0.0.1",
                "--strictPort",
                "--port",
            ])
            .arg(port.to_string())
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("npx runs"),
    );
    let url = format!("http://127.0.0.1:{port}/");
    for _ in 0..300 {
        // The helper's client: it installs the TLS provider, which a test run alone has not.
        if crate::helpers::http_client()
            .get(&url)
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return (child, url);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("vite preview did not answer at {url}");
}

/// SHA-256 of the RGBA pixels of a PNG (an opaque render is RGB: alpha is added).
fn pixel_hash(png_bytes: &[u8]) -> (u32, u32, String) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    let pixels = &buffer[..info.buffer_size()];
    (info.width, info.height, hex::encode(Sha256::digest(pixels)))
}

#[tokio::test]
async fn the_npm_package_packs_passes_its_tests_and_renders_the_servers_pixels_in_a_vite_app() {
    let root = workspace();
    let out = tempfile::tempdir().unwrap();
    // `npm test` builds pkg/ first; pkg/ is the package as published.
    npm(&root, &["test"]);
    let packed = npm(
        &root,
        &[
            "pack",
            "./pkg",
            "--pack-destination",
            &out.path().display().to_string(),
        ],
    );
    let tarball = out.path().join(packed.lines().last().unwrap().trim());
    assert!(tarball.exists(), "{packed}");
    // What the tarball holds: the package, its fonts and templates, no sources.
    let listing = Command::new("tar")
        .arg("-tzf")
        .arg(&tarball)
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&listing.stdout);
    for file in [
        "package/package.json",
        "package/README.md",
        // The declared licence, "MIT OR Apache-2.0": both texts.
        "package/LICENSE-MIT",
        "package/LICENSE-APACHE",
        "package/index.js",
        "package/index.d.ts",
        "package/model.d.ts",
        "package/presspack_engine_bg.wasm",
        "package/fonts/catalogue.json",
        "package/fonts/dejavu-sans.ttf",
        "package/fonts/gelasio/Gelasio_400Regular.ttf",
        // Each face's licence travels with it, as the OFL and its peers ask.
        "package/fonts/README.md",
        "package/fonts/dejavu/LICENSE.txt",
        "package/fonts/gelasio/OFL.txt",
        "package/fonts/liberation/COPYRIGHT.txt",
        "package/fonts/texgyre-adventor/GUST-FONT-LICENSE.txt",
        "package/templates/businesscard_full_text_landscape.xml",
    ] {
        assert!(
            listing.lines().any(|l| l == file),
            "{file} missing:\n{listing}"
        );
    }
    // The package's own README, not the server's.
    let readme = Command::new("tar")
        .arg("-xzOf")
        .arg(&tarball)
        .arg("package/README.md")
        .output()
        .unwrap();
    let readme = String::from_utf8_lossy(&readme.stdout);
    assert!(
        readme.starts_with("# @presspack/engine") && !readme.contains("tests/run"),
        "{readme}"
    );
    assert!(!listing.contains("package/engine/"), "{listing}");
    // The issue's bound on the download: the wasm under 1 MB gzipped (fonts apart).
    let gzipped = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(root.join("pkg/presspack_engine_bg.wasm"))
        .output()
        .unwrap()
        .stdout
        .len();
    assert!(gzipped < 1_000_000, "the wasm is {gzipped} bytes gzipped");

    // A fresh Vite app installs the tarball, builds, and renders in Chromium.
    let app_dir = tempfile::tempdir().unwrap();
    write_app(app_dir.path(), &tarball);
    npm(app_dir.path(), &["install", "--no-audit", "--no-fund"]);
    // The types are the engine's model: a side as the API writes it checks, a misspelt
    // property does not.
    let typed = tsc(app_dir.path(), "typed.ts");
    assert!(
        typed.status.success(),
        "{}",
        String::from_utf8_lossy(&typed.stdout)
    );
    let misspelt = tsc(app_dir.path(), "misspelt.ts");
    let said = String::from_utf8_lossy(&misspelt.stdout);
    assert!(
        !misspelt.status.success() && said.contains("templateCod"),
        "{said}"
    );
    npm(app_dir.path(), &["exec", "--", "vite", "build"]);
    let (_preview, url) = preview(app_dir.path()).await;
    let (client, _driver) = browser().await;
    client.goto(&url).await.unwrap();
    let mut result = Value::Null;
    for _ in 0..300 {
        result = client
            .execute("return window.presspackResult ?? null", vec![])
            .await
            .unwrap();
        if !result.is_null() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(!result.is_null(), "the app did not render");
    let shot = client.screenshot().await.unwrap();
    std::fs::write(screenshot_dir().join("npm-vite-app.png"), shot).unwrap();
    client.close().await.unwrap();

    // The server's renderSide of the same side: the same pixels, bit for bit.
    let app = spawn_app(StoreKind::Embedded).await;
    let max_side = MAX_SIDE.to_string();
    let rendered = app
        .post(&[
            ("method", "svc.pack.renderSide"),
            ("side", &side().to_string()),
            ("imageBasket", r#"{"items": []}"#),
            ("maxSide", &max_side),
        ])
        .await;
    assert_eq!(rendered.content_type, "image/png", "{}", rendered.body);
    let (width, height, server) = pixel_hash(&rendered.bytes);
    assert_eq!(result["width"], width);
    assert_eq!(result["height"], height);
    assert_eq!(result["overflows"], 0);
    assert_eq!(
        result["drawn"],
        server.as_str(),
        "the browser's pixels are the server's"
    );
    assert_eq!(
        result["canvas"],
        server.as_str(),
        "the canvas holds them unchanged"
    );
}
