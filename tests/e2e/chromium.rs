//! Real headless Chromium for the browser tests: Debian's `chromium` driven over WebDriver by
//! `chromedriver` (or the programs named by PRESSPACK_TEST_CHROMIUM and
//! PRESSPACK_TEST_CHROMEDRIVER), and where screenshots are kept.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::{Client, ClientBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

/// How a test browser's profile directory is named: `presspack-test-chromium-RUN-`, RUN
/// being `tests/run`'s `PRESSPACK_TEST_RUN`, so that it can look for its own browsers still
/// running when the tests are over (and not a killed run's).
fn profile_prefix() -> String {
    let run = std::env::var("PRESSPACK_TEST_RUN").unwrap_or_else(|_| "local".into());
    format!("presspack-test-chromium-{run}-")
}

/// chromedriver on a free port, in a process group of its own that the browser it starts
/// joins; the whole group is stopped when dropped, also when a test fails.
pub struct Driver {
    process: Child,
    url: String,
    _profile: tempfile::TempDir,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // Killing chromedriver alone leaves its browser (and the browser's renderers,
        // 200 MB or so) running with no parent: the group goes.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.process.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

fn program(variable: &str, default: &str) -> String {
    std::env::var(variable).unwrap_or_else(|_| default.to_owned())
}

/// Headless Chromium with a desktop window (1280 x 1100).
pub async fn browser() -> (Client, Driver) {
    start(json!({"args": ["--window-size=1280,1100"]})).await
}

/// Headless Chromium as a phone: a 390 x 844 viewport at 3x, touch events, a phone's user
/// agent (Chrome's device emulation).
pub async fn phone() -> (Client, Driver) {
    start(json!({
        "args": ["--window-size=390,844"],
        "mobileEmulation": {
            "deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 3.0, "touch": true},
            "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36"
        }
    }))
    .await
}

/// Starts chromedriver and a browser with `options` added to the shared Chrome options.
async fn start(options: serde_json::Value) -> (Client, Driver) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let chromedriver = program("PRESSPACK_TEST_CHROMEDRIVER", "/usr/bin/chromedriver");
    let process = Command::new(&chromedriver)
        .arg(format!("--port={port}"))
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("{chromedriver} does not run ({e}): install Debian's chromium and chromium-driver (.ci/run does)")
        });
    let driver = Driver {
        process,
        url: format!("http://127.0.0.1:{port}"),
        _profile: tempfile::Builder::new()
            .prefix(&profile_prefix())
            .tempdir()
            .unwrap(),
    };
    let mut chrome = json!({
        "binary": program("PRESSPACK_TEST_CHROMIUM", "/usr/bin/chromium"),
        "args": [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-component-update", "--no-first-run",
            format!("--user-data-dir={}", driver._profile.path().display()),
        ]
    });
    for (name, value) in options.as_object().unwrap() {
        match (name.as_str(), value) {
            ("args", serde_json::Value::Array(extra)) => chrome["args"]
                .as_array_mut()
                .unwrap()
                .extend(extra.iter().cloned()),
            _ => chrome[name] = value.clone(),
        }
    }
    let capabilities = json!({ "goog:chromeOptions": chrome });
    let capabilities = capabilities.as_object().unwrap().clone();
    for _ in 0..100 {
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities.clone())
            .connect(&driver.url)
            .await;
        if let Ok(client) = client {
            return (client, driver);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("chromedriver at {} did not start a browser", driver.url);
}

pub fn screenshot_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/browser-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
