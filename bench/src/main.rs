//! Load benchmark for the Presspack service (docs/benchmarks.md).
//!
//! Starts, as separate processes, a trivial axum server (the baseline) and `presspack serve`
//! on each store, then drives each with the same closed-loop load: `--concurrency` clients
//! sending requests back to back over keep-alive connections for `--seconds`. Prints
//! requests/second and latency percentiles, and each figure as a ratio of the baseline.
//!
//! Run it with `bench/run.sh` (which builds in release mode first).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;

#[derive(Parser)]
struct Args {
    /// Seconds of measured load per case (after a one-second warm-up).
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// Concurrent clients.
    #[arg(long, default_value_t = 64)]
    concurrency: usize,
    /// Redis for the Redis-store cases.
    #[arg(long, default_value = "redis://127.0.0.1:6379")]
    redis_url: String,
    /// Run as the baseline server instead (used by the benchmark itself).
    #[arg(long, hide = true)]
    trivial_server: bool,
}

/// A server process, killed when dropped.
struct Server {
    child: Child,
    address: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `command` and reads the address from its first line (`... http://ADDR ...`).
fn start(mut command: Command) -> Server {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("server starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_owned();
    Server { child, address }
}

fn sibling_binary(name: &str) -> PathBuf {
    let me = std::env::current_exe().unwrap();
    let path = me.with_file_name(name);
    assert!(
        path.exists(),
        "{} is missing: build it with `cargo build --release -p presspack`",
        path.display()
    );
    path
}

fn presspack(env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(sibling_binary("presspack"));
    command
        .arg("serve")
        .env("PRESSPACK_LISTEN", "127.0.0.1:0")
        .env("RUST_LOG", "warn");
    for (k, v) in env {
        command.env(k, v);
    }
    command
}

#[derive(Clone)]
enum Request {
    Get(String),
    PostForm(String, Vec<(String, String)>),
}

struct Figures {
    requests_per_second: f64,
    p50: Duration,
    p99: Duration,
    errors: usize,
}

async fn load(request: Request, concurrency: usize, seconds: u64) -> Figures {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency)
        .build()
        .unwrap();
    let run = |duration: Duration| {
        let client = client.clone();
        let request = request.clone();
        async move {
            let deadline = Instant::now() + duration;
            let workers: Vec<_> = (0..concurrency)
                .map(|_| {
                    let (client, request) = (client.clone(), request.clone());
                    tokio::spawn(async move {
                        let mut latencies = Vec::new();
                        let mut errors = 0;
                        while Instant::now() < deadline {
                            let started = Instant::now();
                            let sent = match &request {
                                Request::Get(url) => client.get(url).send().await,
                                Request::PostForm(url, form) => {
                                    client.post(url).form(form).send().await
                                }
                            };
                            let ok = match sent {
                                Ok(response) => {
                                    let status = response.status();
                                    response.bytes().await.is_ok() && status.is_success()
                                }
                                Err(_) => false,
                            };
                            if ok {
                                latencies.push(started.elapsed());
                            } else {
                                errors += 1;
                            }
                        }
                        (latencies, errors)
                    })
                })
                .collect();
            let mut latencies = Vec::new();
            let mut errors = 0;
            for worker in workers {
                let (l, e) = worker.await.unwrap();
                latencies.extend(l);
                errors += e;
            }
            (latencies, errors)
        }
    };
    run(Duration::from_secs(1)).await;
    let started = Instant::now();
    let (mut latencies, errors) = run(Duration::from_secs(seconds)).await;
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort();
    let percentile =
        |p: f64| latencies[((latencies.len() as f64 * p) as usize).min(latencies.len() - 1)];
    Figures {
        requests_per_second: latencies.len() as f64 / elapsed,
        p50: percentile(0.50),
        p99: percentile(0.99),
        errors,
    }
}

/// A business card pack with a few text lines, as partners send them.
fn sample_pack() -> String {
    let lines: Vec<String> = (1..=6)
        .map(|i| {
            format!(
                r#"{{"type":"textData","linkId":"back_line_{i}","text":"Line {i} of the card","pointSize":2.8222,
                "font":{{"fontFamily":"helvetica","bold":false,"italic":false}},"colour":{{"type":"CMYK","c":0,"m":0,"y":0,"k":100}}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"numCards":50,"productCode":"businesscard","sides":[
        {{"type":"image","sideNum":1,"templateCode":"businesscard_full_image_landscape","data":[]}},
        {{"type":"details","sideNum":1,"templateCode":"businesscard_full_text_landscape","data":[{}]}}]}}"#,
        lines.join(",")
    )
}

fn create_form(pack: &str) -> Vec<(String, String)> {
    vec![
        ("method".into(), "svc.pack.createPack".into()),
        ("product".into(), "businesscard".into()),
        ("pack".into(), pack.into()),
    ]
}

async fn create_pack(address: &str, pack: &str) -> String {
    let body: serde_json::Value = reqwest::Client::new()
        .post(format!("{address}/api/service/"))
        .form(&create_form(pack))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    body["packId"]
        .as_str()
        .expect("createPack works")
        .to_owned()
}

fn row(name: &str, figures: &Figures, baseline: &Figures) {
    println!(
        "| {name} | {:.0} | {:.2} | {:.2} | {:.2} | {} |",
        figures.requests_per_second,
        figures.requests_per_second / baseline.requests_per_second,
        figures.p50.as_secs_f64() * 1e3,
        figures.p99.as_secs_f64() * 1e3,
        figures.errors,
    );
}

async fn trivial_server() {
    let app = axum::Router::new().route("/", axum::routing::get(|| async { "ok" }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    println!(
        "trivial listening on http://{}",
        listener.local_addr().unwrap()
    );
    axum::serve(listener, app).await.unwrap();
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    if args.trivial_server {
        return trivial_server().await;
    }
    let (seconds, concurrency) = (args.seconds, args.concurrency);
    let pack = sample_pack();

    let trivial = start({
        let mut command = Command::new(std::env::current_exe().unwrap());
        command.arg("--trivial-server");
        command
    });
    let baseline = load(
        Request::Get(format!("{}/", trivial.address)),
        concurrency,
        seconds,
    )
    .await;
    drop(trivial);

    let data_dir = tempfile::tempdir().unwrap();
    let prefix = format!("presspack-bench:{:016x}:", rand::random::<u64>());
    let stores: [(&str, Vec<(&str, &str)>); 2] = [
        (
            "embedded",
            vec![("PRESSPACK_DATA_DIR", data_dir.path().to_str().unwrap())],
        ),
        (
            "redis",
            vec![
                ("PRESSPACK_REDIS_URL", &args.redis_url),
                ("PRESSPACK_REDIS_KEY_PREFIX", &prefix),
            ],
        ),
    ];

    println!(
        "{concurrency} concurrent clients, {seconds} s per case, on {} cores\n",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!("| case | requests/s | ratio to trivial | p50 ms | p99 ms | errors |");
    println!("|---|---|---|---|---|---|");
    row("trivial axum handler", &baseline, &baseline);
    for (store, env) in &stores {
        let server = start(presspack(env));
        let endpoint = format!("{}/api/service/", server.address);
        let id = create_pack(&server.address, &pack).await;
        let get = load(
            Request::Get(format!("{endpoint}?method=svc.pack.getPack&packId={id}")),
            concurrency,
            seconds,
        )
        .await;
        row(&format!("getPack, {store} store"), &get, &baseline);
        let create = load(
            Request::PostForm(endpoint, create_form(&pack)),
            concurrency,
            seconds,
        )
        .await;
        row(&format!("createPack, {store} store"), &create, &baseline);
    }
    clean_redis(&args.redis_url, &prefix);
}

/// Deletes the benchmark's keys from Redis (one Lua call, in batches within Lua's limits).
fn clean_redis(url: &str, prefix: &str) {
    const SCRIPT: &str = "local keys = redis.call('KEYS', ARGV[1]) \
        for i = 1, #keys, 5000 do redis.call('DEL', unpack(keys, i, math.min(i + 4999, #keys))) end \
        return #keys";
    let pattern = format!("{prefix}*");
    let _ = Command::new("redis-cli")
        .args(["-u", url, "EVAL", SCRIPT, "0", &pattern])
        .output();
}
