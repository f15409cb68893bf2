//! `presspack serve` as an operator starts it: its start-up line, and bad settings.

use std::io::{BufRead, BufReader, Lines};
use std::process::{Child, ChildStdout, Command, Stdio};

fn presspack() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_presspack"));
    for (name, _) in std::env::vars() {
        if name.starts_with("PRESSPACK_") {
            command.env_remove(name);
        }
    }
    command
}

/// Starts `presspack serve` with `env`: the process and the lines it prints.
fn serve(env: &[(&str, &str)]) -> (Child, Lines<BufReader<ChildStdout>>) {
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
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    (child, lines)
}

/// The start-up line, and the log lines printed before it.
fn read_start_up(lines: &mut Lines<BufReader<ChildStdout>>) -> (String, Vec<String>) {
    let mut before = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if line.starts_with("presspack listening on ") {
            return (line, before);
        }
        before.push(line);
    }
    panic!(
        "serve ended without a start-up line; it printed:\n{}",
        before.join("\n")
    );
}

/// Starts `presspack serve` with `env`: the process and the address it listens on. What it
/// prints after its start-up line is read and dropped, so its output never fills the pipe.
pub fn serve_at(env: &[(&str, &str)]) -> (Child, String) {
    let (child, mut lines) = serve(env);
    let (line, _) = read_start_up(&mut lines);
    let address = line
        .strip_prefix("presspack listening on http://")
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("not a start-up line: {line}"))
        .to_owned();
    std::thread::spawn(move || lines.for_each(drop));
    (child, address)
}

/// Starts `presspack serve` with `env`: its start-up line and the log lines before it.
fn start_up(env: &[(&str, &str)]) -> (String, Vec<String>) {
    let (mut child, mut lines) = serve(env);
    let read = read_start_up(&mut lines);
    child.kill().unwrap();
    child.wait().unwrap();
    read
}

fn start_up_line(env: &[(&str, &str)]) -> String {
    start_up(env).0
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
    let store = dir.path().join("presspack.sqlite3");
    assert!(
        line.ends_with(&format!(
            "store: embedded SQLite at {} (new: created by this first start)",
            store.display()
        )),
        "{line}"
    );
    // The next start finds the store it made.
    let line = start_up_line(&[("PRESSPACK_DATA_DIR", dir.path().to_str().unwrap())]);
    assert!(
        line.ends_with(&format!("store: embedded SQLite at {}", store.display())),
        "{line}"
    );
}

/// The first start of a build compiles the engine for seconds before it listens; it says so,
/// and the next start loads the compiled module instead.
#[test]
fn the_first_start_says_it_compiles_the_engine_and_the_next_loads_it() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("engine-cache");
    let env = [
        ("PRESSPACK_DATA_DIR", dir.path().to_str().unwrap()),
        ("PRESSPACK_ENGINE_CACHE_DIR", cache.to_str().unwrap()),
    ];
    let (_, logs) = start_up(&env);
    let logs = logs.join("\n");
    assert!(
        logs.contains("compiling the engine module (first start of this build")
            && logs.contains(&cache.display().to_string())
            && logs.contains("compiled the engine module"),
        "{logs}"
    );
    let (_, logs) = start_up(&env);
    let logs = logs.join("\n");
    assert!(
        logs.contains("engine module loaded from the cache") && !logs.contains("compiling"),
        "{logs}"
    );
}

/// `keys create` run from another directory used to make `./presspack-data/` there quietly,
/// and the key was unknown to the running server.
#[test]
fn operator_commands_refuse_a_directory_without_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("presspack-data");
    let run = |args: &[&str]| {
        presspack()
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let refused = run(&["keys", "create", "--name", "Shop"]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{said}");
    assert!(
        said.contains(&format!("no store in {}", data.display())) && said.contains("--init"),
        "{said}"
    );
    assert!(!data.exists(), "a refused command creates nothing");

    let created = run(&["keys", "create", "--name", "Shop", "--json", "--init"]);
    let said = String::from_utf8_lossy(&created.stderr);
    assert!(created.status.success(), "{said}");
    assert_eq!(
        said.trim(),
        format!(
            "store: embedded SQLite at {}",
            data.join("presspack.sqlite3").display()
        )
    );
    // Standard output stays the command's answer.
    let key: serde_json::Value = serde_json::from_slice(&created.stdout).unwrap();
    let listed = run(&["keys", "list"]);
    assert!(listed.status.success());
    assert!(String::from_utf8_lossy(&listed.stdout).contains(key["consumerKey"].as_str().unwrap()));
}

#[test]
fn serve_with_redis_names_it_without_the_password() {
    let line = start_up_line(&[("PRESSPACK_REDIS_URL", &crate::helpers::redis_url())]);
    assert!(line.contains("store: Redis at redis://"), "{line}");
}

#[test]
#[ignore = "needs a Redis Cluster in PRESSPACK_TEST_REDIS_CLUSTER (tests/redis-cluster.sh)"]
fn serve_on_a_redis_cluster_names_it() {
    let seeds = crate::helpers::redis_cluster_urls();
    let line = start_up_line(&[
        ("PRESSPACK_REDIS_URL", &seeds),
        ("PRESSPACK_REDIS_CLUSTER", "true"),
    ]);
    assert!(
        line.contains(&format!("store: Redis Cluster at {seeds}")),
        "{line}"
    );
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

/// Starts `presspack serve` with `log_format`, makes one request with a request id, and
/// returns the log line that says it was served.
fn served_log_line(log_format: &str) -> String {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let (mut child, mut lines) = serve(&[
        ("PRESSPACK_DATA_DIR", dir.path().to_str().unwrap()),
        ("PRESSPACK_LOG_FORMAT", log_format),
    ]);
    let (start_up, _) = read_start_up(&mut lines);
    let address = start_up
        .strip_prefix("presspack listening on http://")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("{start_up}"))
        .to_owned();
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: presspack\r\nX-Request-Id: cli-log-test-1\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("x-request-id: cli-log-test-1"), "{reply}");
    let served = lines
        .map(|line| line.unwrap())
        .find(|line| line.contains("served"))
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    served
}

#[test]
fn serve_logs_each_request_as_json_with_its_id() {
    // Every log line is a JSON object; the request's line carries its id and endpoint.
    let line = served_log_line("json");
    let served: serde_json::Value =
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
    assert_eq!(served["fields"]["message"], "served", "{served}");
    assert_eq!(served["span"]["id"], "cli-log-test-1", "{served}");
    assert_eq!(served["fields"]["endpoint"], "/healthz", "{served}");
    assert_eq!(served["fields"]["status"], 200, "{served}");
}

#[test]
fn text_logs_to_a_pipe_are_plain_text_with_the_request_id() {
    let line = served_log_line("text");
    assert!(!line.contains('\x1b'), "terminal colour codes in {line:?}");
    assert!(line.contains("id=cli-log-test-1"), "{line}");
    assert!(line.contains("endpoint=\"/healthz\""), "{line}");
}
