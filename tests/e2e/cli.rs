//! `presspack serve` as an operator starts it: its start-up line, and bad settings.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn presspack() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_presspack"));
    for (name, _) in std::env::vars() {
        if name.starts_with("PRESSPACK_") {
            command.env_remove(name);
        }
    }
    command
}

/// Starts `presspack serve` with `env` and returns the first line it prints.
fn start_up_line(env: &[(&str, &str)]) -> String {
    let mut command = presspack();
    // The compiled engine the other tests share: no start compiles it again, and none
    // writes a cache into the working directory.
    let engine_cache =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/test-engine-cache");
    command
        .arg("serve")
        .env("PRESSPACK_LISTEN", "127.0.0.1:0")
        .env("PRESSPACK_ENGINE_CACHE_DIR", engine_cache);
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    line
}

#[test]
fn serve_prints_where_it_listens_and_which_store_it_uses() {
    let dir = tempfile::tempdir().unwrap();
    let line = start_up_line(&[
        ("PRESSPACK_DATA_DIR", dir.path().to_str().unwrap()),
        ("PRESSPACK_BASE_URL", "https://print.example.com"),
    ]);
    assert!(
        line.starts_with("presspack listening on http://127.0.0.1:"),
        "{line}"
    );
    assert!(
        line.contains("public base URL https://print.example.com"),
        "{line}"
    );
    assert!(line.contains("store: embedded SQLite at"), "{line}");
}

#[test]
fn serve_with_redis_names_it_without_the_password() {
    let line = start_up_line(&[("PRESSPACK_REDIS_URL", &crate::helpers::redis_url())]);
    assert!(line.contains("store: Redis at redis://"), "{line}");
}

#[test]
fn a_bad_setting_stops_start_up_naming_it() {
    let cases = [
        ("PRESSPACK_LISTEN", "nowhere"),
        ("PRESSPACK_BASE_URL", "/relative"),
        ("PRESSPACK_MAX_BODY_BYTES", "lots"),
        ("PRESSPACK_REDIS_URL", "postgres://localhost"),
    ];
    for (name, value) in cases {
        let output = presspack().arg("serve").env(name, value).output().unwrap();
        assert!(
            !output.status.success(),
            "{name}={value} must stop start-up"
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(name), "{name}: {stderr}");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("presspack.toml");
    std::fs::write(&file, "listen = 8080\n").unwrap();
    let output = presspack()
        .args(["--config", file.to_str().unwrap(), "serve"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("presspack.toml"));
    // An unreachable Redis stops start-up too, with a clear message.
    let output = presspack()
        .arg("serve")
        .env("PRESSPACK_REDIS_URL", "redis://127.0.0.1:1")
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot connect to Redis"));
}
