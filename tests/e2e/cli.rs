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

/// The start-up line, and the log lines printed before it. With JSON logs the start-up line
/// is a JSON line too; its message is returned.
fn read_start_up(lines: &mut Lines<BufReader<ChildStdout>>) -> (String, Vec<String>) {
    let mut before = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let json_message = serde_json::from_str::<serde_json::Value>(&line)
            .ok()
            .and_then(|json| json["fields"]["message"].as_str().map(str::to_owned));
        let message = json_message.unwrap_or_else(|| line.clone());
        if message.starts_with("presspack listening on ") {
            return (message, before);
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
    let (child, lines) = serve(env);
    listening(child, lines)
}

/// Runs `command` (a `presspack serve`): the process and the address it listens on.
pub fn started(mut command: Command) -> (Child, String) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    listening(child, lines)
}

/// The address a started server's start-up line names; its later lines are dropped.
fn listening(child: Child, mut lines: Lines<BufReader<ChildStdout>>) -> (Child, String) {
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

/// The first start of a build listens at once and compiles the engine meanwhile: it says so,
/// and is ready once the engine is; the next start loads the compiled module instead.
#[test]
fn the_first_start_listens_at_once_and_compiles_the_engine_meanwhile() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("engine-cache");
    let env = [
        ("PRESSPACK_DATA_DIR", dir.path().to_str().unwrap()),
        ("PRESSPACK_ENGINE_CACHE_DIR", cache.to_str().unwrap()),
    ];
    // Every line until the engine says it is ready, and the address.
    let start = || {
        let (mut child, mut lines) = serve(&env);
        let (start_up, mut logs) = read_start_up(&mut lines);
        for line in lines.by_ref() {
            let line = line.unwrap();
            let ready =
                line.contains("the engine is ready") || line.contains("the engine could not start");
            logs.push(line);
            if ready {
                break;
            }
        }
        let address = start_up
            .strip_prefix("presspack listening on http://")
            .and_then(|rest| rest.split(' ').next())
            .unwrap()
            .to_owned();
        let mut stream = std::net::TcpStream::connect(&address).unwrap();
        stream
            .write_all(b"GET /readyz HTTP/1.1\r\nHost: presspack\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut readiness = String::new();
        stream.read_to_string(&mut readiness).unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
        (logs.join("\n"), readiness)
    };
    let (logs, readiness) = start();
    assert!(
        logs.contains("compiling the engine module (first start of this build")
            && logs.contains(&cache.display().to_string())
            && logs.contains("compiled the engine module")
            && logs.contains("the engine is ready"),
        "{logs}"
    );
    assert!(readiness.starts_with("HTTP/1.1 200"), "{readiness}");
    let (logs, _) = start();
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
    let listed = String::from_utf8_lossy(&listed.stdout);
    let mut lines = listed.lines();
    let header = lines.next().unwrap();
    let row = lines.next().unwrap();
    assert!(
        header.starts_with("CONSUMER KEY") && header.contains("PERMISSIONS"),
        "{listed}"
    );
    assert!(
        row.starts_with(key["consumerKey"].as_str().unwrap()),
        "{listed}"
    );
    // Columns line up under their headings.
    assert_eq!(row.find("Shop"), header.find("NAME"), "{listed}");
    assert_eq!(row.find("enabled"), header.find("STATE"), "{listed}");
}

#[test]
fn help_lists_every_setting_with_its_default_and_the_grantable_permissions() {
    // `presspack --help` stays a page: the commands, and where the settings are.
    let short = presspack().arg("--help").output().unwrap();
    assert!(short.status.success());
    let short = String::from_utf8_lossy(&short.stdout);
    assert!(short.lines().count() < 40, "{short}");
    assert!(short.contains("presspack serve --help"), "{short}");
    let help = presspack().args(["serve", "--help"]).output().unwrap();
    assert!(help.status.success());
    let help = String::from_utf8_lossy(&help.stdout);
    let readme = include_str!("../../README.md");
    let variables: Vec<&str> = readme
        .lines()
        .filter_map(|line| line.strip_prefix("| `PRESSPACK_"))
        .filter_map(|rest| rest.split('`').next())
        .collect();
    assert!(variables.len() > 30, "{variables:?}");
    for variable in variables {
        assert!(
            help.contains(&format!("PRESSPACK_{variable} (")),
            "{variable}: {help}"
        );
    }
    assert!(
        help.contains("PRESSPACK_LISTEN (listen; default 127.0.0.1:8080)"),
        "{help}"
    );
    let grant = presspack()
        .args(["keys", "grant", "--help"])
        .output()
        .unwrap();
    let grant = String::from_utf8_lossy(&grant.stdout);
    for permission in [
        "create_trial_pack",
        "add_to_cart",
        "render_side",
        "import_image",
    ] {
        assert!(grant.contains(permission), "{grant}");
    }
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

/// What `presspack serve` with `log_format` printed: the lines before its start-up line,
/// and the lines after it until it stopped, having answered a health probe and then a page
/// with a request id, and been sent SIGTERM.
fn serve_one_request(log_format: &str) -> (Vec<String>, Vec<String>) {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let (mut child, mut lines) = serve(&[
        ("PRESSPACK_DATA_DIR", dir.path().to_str().unwrap()),
        ("PRESSPACK_LOG_FORMAT", log_format),
    ]);
    let (start_up, before) = read_start_up(&mut lines);
    let address = start_up
        .strip_prefix("presspack listening on http://")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("{start_up}"))
        .to_owned();
    for (path, id) in [
        ("/healthz", "cli-probe-1"),
        ("/account/signin", "cli-log-test-1"),
    ] {
        let mut stream = std::net::TcpStream::connect(&address).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: presspack\r\nX-Request-Id: {id}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
        assert!(reply.contains(&format!("x-request-id: {id}")), "{reply}");
    }
    let stopped = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let after: Vec<String> = lines.map(|line| line.unwrap()).collect();
    assert!(
        child.wait().unwrap().success(),
        "a SIGTERM stops it cleanly"
    );
    (before, after)
}

#[test]
fn serve_logs_as_json_from_start_to_stop() {
    let (before, after) = serve_one_request("json");
    let json = |line: &String| -> serde_json::Value {
        serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    };
    let before: Vec<serde_json::Value> = before.iter().map(json).collect();
    let after: Vec<serde_json::Value> = after.iter().map(json).collect();
    let message =
        |line: &serde_json::Value| line["fields"]["message"].as_str().unwrap_or("").to_owned();
    assert_eq!(message(&before[0]), "presspack starting", "{before:?}");
    assert_eq!(before[0]["fields"]["version"], env!("CARGO_PKG_VERSION"));
    // One served line, the page's: probes log at debug only.
    let served: Vec<&serde_json::Value> = after.iter().filter(|l| message(l) == "served").collect();
    assert_eq!(served.len(), 1, "{after:?}");
    let served = served[0];
    assert_eq!(served["span"]["id"], "cli-log-test-1", "{served}");
    assert_eq!(served["fields"]["endpoint"], "/account/signin", "{served}");
    assert_eq!(served["fields"]["status"], 200, "{served}");
    assert_eq!(served["fields"]["fault"], "none", "{served}");
    assert!(served["fields"]["micros"].is_u64(), "{served}");
    // (The engine may still be starting in the background: its lines can come at any point.)
    let said: Vec<String> = after.iter().map(message).collect();
    let position = |text: &str| said.iter().position(|m| m == text);
    let shutting_down = position("shutting down: finishing the requests in flight");
    let stopped = position("presspack stopped");
    assert!(
        shutting_down.is_some() && stopped > shutting_down,
        "{said:?}"
    );
}

#[test]
fn text_logs_to_a_pipe_are_plain_text_with_the_request_id() {
    let (_, after) = serve_one_request("text");
    let line = after.iter().find(|line| line.contains("served")).unwrap();
    assert!(!line.contains('\x1b'), "terminal colour codes in {line:?}");
    assert!(line.contains("id=cli-log-test-1"), "{line}");
    assert!(line.contains("endpoint=\"/account/signin\""), "{line}");
    assert!(
        !after.iter().any(|line| line.contains("/healthz")),
        "{after:?}"
    );
}
