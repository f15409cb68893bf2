//! Load benchmark for the Presspack service (docs/benchmarks.md).
//!
//! Starts, as separate processes, a trivial axum server (the baseline) and Presspack on each
//! store, then drives each with the same closed-loop load: `--concurrency` clients sending
//! requests back to back over keep-alive connections for `--seconds`. Prints requests per
//! second and latency percentiles, each throughput also as a ratio of the baseline.
//!
//! Presspack calls are signed (OAuth 1.0a HMAC-SHA1, a fresh nonce per request) as partners
//! send them. To measure what signing costs, this binary serves the same store twice, the
//! same way: with `Application::build` (verifying) and with
//! `Application::build_for_benchmark`, which trusts `oauth_consumer_key` without verifying:
//! "getPack, unverified" is the same work minus the signature check.
//!
//! Run it with `bench/run.sh` (which builds in release mode first).

use std::process::Command;
use std::time::{Duration, Instant};

use clap::Parser;
use presspack::app::{Application, open_store};
use presspack::config::Config;
use presspack::domain::keys::{self, NewKey};
use presspack_bench::{presspack_binary, start};

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
    /// Serve a trivial axum handler (the benchmark runs itself with this).
    #[arg(long, hide = true)]
    trivial_server: bool,
    /// Serve Presspack, configured by PRESSPACK_* variables, verifying signatures or trusting
    /// the consumer key (the benchmark runs itself with this).
    #[arg(long, hide = true)]
    server: Option<Verification>,
    /// Run only the baseline and getPack signed and unverified (what signing costs).
    #[arg(long)]
    signing_only: bool,
    /// Run only the cases whose name holds this text (and the baseline), e.g. `createPack`:
    /// one case under a profiler.
    #[arg(long)]
    only: Option<String>,
}

impl Args {
    /// Whether the case named `name` runs.
    fn runs(&self, name: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|only| name.contains(only.as_str()))
    }
}

/// How a benchmark server treats signatures.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Verification {
    Verified,
    Unverified,
}

/// Rounds of the signing comparison. One phase of load differs from the next by 10-20% on
/// this machine; a median of rounds that alternate the two servers is steadier.
const SIGNING_ROUNDS: usize = 3;

/// One round's signed over unverified getPack: server CPU per request at an equal rate and
/// flat out, and throughput flat out.
struct SigningCost {
    paced_cpu: f64,
    flat_cpu: f64,
    throughput: f64,
}

fn with_env(mut command: Command, env: &[(String, String)]) -> Command {
    command
        .env("PRESSPACK_LISTEN", "127.0.0.1:0")
        // Every server of a run (and of later runs of the same build) loads the engine
        // compiled once, rather than compiling it again while the first cases run.
        .env(
            "PRESSPACK_ENGINE_CACHE_DIR",
            std::env::current_exe()
                .unwrap()
                .with_file_name("bench-engine-cache"),
        )
        // The load comes from one key; the benchmark measures the service, not the limit.
        .env("PRESSPACK_RATE_LIMIT_PER_MINUTE", "0")
        .env("PRESSPACK_UNSIGNED_RATE_LIMIT_PER_MINUTE", "0")
        .env("PRESSPACK_UNSIGNED_UPLOAD_BYTES_PER_HOUR", "0")
        .env("RUST_LOG", "warn");
    for (k, v) in env {
        command.env(k, v);
    }
    command
}

/// Starts a Presspack server and waits until `/readyz` says its store and engine are ready,
/// so that no case measures the engine's start.
async fn start_ready(command: Command) -> presspack_bench::Server {
    let server = start(command);
    let url = format!("{}/readyz", server.address);
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        match reqwest::get(&url).await {
            Ok(response) if response.status().is_success() => return server,
            _ if Instant::now() > deadline => panic!("{url} did not answer 200 within 180 s"),
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

fn myself(flag: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.arg(flag);
    command
}

/// One kind of request, sent over and over.
#[derive(Clone)]
struct Request {
    post: bool,
    endpoint: String,
    params: Vec<(String, String)>,
    /// Consumer key and secret to sign with (a fresh nonce and timestamp per request).
    signer: Option<(String, String)>,
}

impl Request {
    /// A fresh `Authorization` header (new nonce and timestamp), if the request is signed.
    fn authorization(&self) -> Option<String> {
        let (key, secret) = self.signer.as_ref()?;
        let pairs: Vec<(&str, &str)> = self
            .params
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let list = oauth1_request::ParameterList::new(pairs);
        let header = oauth1_request::Builder::<_, _>::new(
            oauth1_request::Credentials::new(key.as_str(), secret.as_str()),
            oauth1_request::HMAC_SHA1,
        )
        .authorize(
            if self.post { "POST" } else { "GET" },
            &self.endpoint,
            &list,
        );
        Some(header)
    }

    /// The request, with `authorization` if given, else a freshly signed one.
    fn send(
        &self,
        client: &reqwest::Client,
        authorization: Option<String>,
    ) -> reqwest::RequestBuilder {
        let builder = if self.post {
            client.post(&self.endpoint).form(&self.params)
        } else {
            client.get(&self.endpoint).query(&self.params)
        };
        match authorization.or_else(|| self.authorization()) {
            Some(header) => builder.header("authorization", header),
            None => builder,
        }
    }

    /// Signed headers made ahead, so that the client's signing work (done by partners on
    /// their own machines) does not take CPU from the server during the measured run.
    fn presigned(&self, count: usize) -> Vec<String> {
        if self.signer.is_none() {
            return Vec::new();
        }
        (0..count).filter_map(|_| self.authorization()).collect()
    }
}

/// Upper bound on the request rate, for sizing the presigned headers.
const MAX_RATE: u64 = 60_000;

struct Figures {
    requests_per_second: f64,
    p50: Duration,
    p95: Duration,
    p99: Duration,
    errors: usize,
    /// CPU time the server side (the server process, plus Redis when it is the store)
    /// spent per successful request during the measured run.
    server_cpu_per_request: Option<Duration>,
}

/// Where the server side's CPU time is read from.
#[derive(Clone)]
struct ServerSide {
    pid: u32,
    redis_url: Option<String>,
}

impl ServerSide {
    /// CPU seconds used so far by the server process and, if any, the Redis server.
    fn cpu_seconds(&self) -> f64 {
        process_cpu_seconds(self.pid) + self.redis_url.as_deref().map_or(0.0, redis_cpu_seconds)
    }
}

/// utime + stime of a process, from /proc (clock ticks of 1/100 s on Linux).
fn process_cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

/// used_cpu_user + used_cpu_sys from Redis's INFO.
fn redis_cpu_seconds(url: &str) -> f64 {
    let output = Command::new("redis-cli")
        .args(["-u", url, "INFO", "cpu"])
        .output();
    let text = output
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    text.lines()
        .filter_map(|line| line.split_once(':'))
        .filter(|(name, _)| *name == "used_cpu_user" || *name == "used_cpu_sys")
        .filter_map(|(_, value)| value.trim().parse::<f64>().ok())
        .sum()
}

async fn load(
    request: &Request,
    concurrency: usize,
    seconds: u64,
    server: Option<&ServerSide>,
) -> Figures {
    load_at(request, concurrency, seconds, server, None).await
}

/// [`load`], with `rate` (requests per second in all) an open loop: each client sends on a
/// fixed schedule instead of back to back, so that two servers can be compared at the same
/// load rather than each at its own saturation (where CPU per request includes more or
/// less idle-to-busy scheduling).
async fn load_at(
    request: &Request,
    concurrency: usize,
    seconds: u64,
    server: Option<&ServerSide>,
    rate: Option<f64>,
) -> Figures {
    let client = presspack::infra::fetch::http_client_builder()
        .pool_max_idle_per_host(concurrency)
        .build()
        .unwrap();
    let run = |duration: Duration| {
        let (client, request) = (client.clone(), request.clone());
        async move {
            let per_worker = (duration.as_secs() * MAX_RATE) as usize / concurrency + 1;
            let mut presigned: Vec<Vec<String>> = (0..concurrency)
                .map(|_| request.presigned(per_worker))
                .collect();
            let started = Instant::now();
            let deadline = started + duration;
            let workers: Vec<_> = (0..concurrency)
                .map(|worker| {
                    let (client, request) = (client.clone(), request.clone());
                    let mut headers = presigned.pop().unwrap_or_default();
                    // Each client's share of the rate, the clients' first sends spread out.
                    let mut schedule = rate.map(|rate| {
                        let period = Duration::from_secs_f64(concurrency as f64 / rate);
                        let first = tokio::time::Instant::from_std(started)
                            + period.mul_f64(worker as f64 / concurrency as f64);
                        let mut ticks = tokio::time::interval_at(first, period);
                        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
                        ticks
                    });
                    tokio::spawn(async move {
                        let mut latencies = Vec::new();
                        let mut errors = 0;
                        while Instant::now() < deadline {
                            if let Some(ticks) = &mut schedule {
                                ticks.tick().await;
                            }
                            let started = Instant::now();
                            let ok = match request.send(&client, headers.pop()).send().await {
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
            (latencies, errors, started.elapsed().as_secs_f64())
        }
    };
    run(Duration::from_secs(1)).await;
    let cpu_before = server.map(ServerSide::cpu_seconds);
    let (mut latencies, errors, elapsed) = run(Duration::from_secs(seconds)).await;
    let server_cpu_per_request = server.zip(cpu_before).map(|(server, before)| {
        Duration::from_secs_f64(
            (server.cpu_seconds() - before).max(0.0) / latencies.len().max(1) as f64,
        )
    });
    latencies.sort();
    let percentile = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
            .copied()
            .unwrap_or_default()
    };
    Figures {
        requests_per_second: latencies.len() as f64 / elapsed,
        p50: percentile(0.50),
        p95: percentile(0.95),
        p99: percentile(0.99),
        errors,
        server_cpu_per_request,
    }
}

/// A business card pack with a few text lines, as partners send them, and `image_sides`
/// picture sides (one design per card at most: 50 is a pack of 50 different cards).
fn sample_pack(image_sides: usize) -> String {
    let lines: Vec<String> = (1..=6)
        .map(|i| {
            format!(
                r#"{{"type":"textData","linkId":"back_line_{i}","text":"Line {i} of the card","pointSize":2.8222,
                "font":{{"fontFamily":"helvetica","bold":false,"italic":false}},"colour":{{"type":"CMYK","c":0,"m":0,"y":0,"k":100}}}}"#
            )
        })
        .collect();
    let images: Vec<String> = (1..=image_sides)
        .map(|n| {
            format!(
                r#"{{"type":"image","sideNum":{n},"templateCode":"businesscard_full_image_landscape","data":[]}}"#
            )
        })
        .collect();
    format!(
        r#"{{"numCards":50,"productCode":"businesscard","sides":[{},
        {{"type":"details","sideNum":1,"templateCode":"businesscard_full_text_landscape","data":[{}]}}]}}"#,
        images.join(","),
        lines.join(",")
    )
}

/// Sends a createPack and returns the new pack's id.
async fn created_pack_id(create: &Request) -> String {
    let created =
        presspack_bench::json_reply(create.send(&presspack_bench::http_client(), None)).await;
    created["packId"]
        .as_str()
        .unwrap_or_else(|| panic!("createPack failed: {created}"))
        .to_owned()
}

fn params(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn row(name: &str, figures: &Figures, baseline: &Figures) {
    println!(
        "| {name} | {:.0} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} |",
        figures.requests_per_second,
        figures.requests_per_second / baseline.requests_per_second,
        figures.p50.as_secs_f64() * 1e3,
        figures.p95.as_secs_f64() * 1e3,
        figures.p99.as_secs_f64() * 1e3,
        figures
            .server_cpu_per_request
            .map_or("-".to_owned(), |d| format!("{:.0}", d.as_secs_f64() * 1e6)),
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

/// Presspack as `presspack serve` starts it (configuration, logging), verifying signatures
/// or, for the baseline of what verification costs, trusting the consumer key.
async fn bench_server(verification: Verification) {
    let config = Config::from_env(None).expect("configuration");
    presspack::cli::init_logs(config.service.log_format);
    let app = match verification {
        Verification::Verified => Application::build(&config).await,
        Verification::Unverified => Application::build_for_benchmark(&config).await,
    }
    .expect("server starts");
    println!("presspack listening on http://{}", app.local_addr());
    app.run_until(std::future::pending()).await.unwrap();
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    if args.trivial_server {
        return trivial_server().await;
    }
    if let Some(verification) = args.server {
        return bench_server(verification).await;
    }
    let (seconds, concurrency) = (args.seconds, args.concurrency);
    let pack = sample_pack(1);

    let trivial = start(myself("--trivial-server"));
    let trivial_get = Request {
        post: false,
        endpoint: format!("{}/", trivial.address),
        params: Vec::new(),
        signer: None,
    };
    let trivial_side = ServerSide {
        pid: trivial.child.id(),
        redis_url: None,
    };
    let baseline = load(&trivial_get, concurrency, seconds, Some(&trivial_side)).await;
    drop(trivial);

    let data_dir = tempfile::tempdir().unwrap();
    let prefix = format!("presspack-bench:{:016x}:", rand::random::<u64>());
    let stores: [(&str, Vec<(String, String)>); 2] = [
        (
            "embedded",
            vec![(
                "PRESSPACK_DATA_DIR".into(),
                data_dir.path().display().to_string(),
            )],
        ),
        (
            "redis",
            vec![
                ("PRESSPACK_REDIS_URL".into(), args.redis_url.clone()),
                ("PRESSPACK_REDIS_KEY_PREFIX".into(), prefix.clone()),
            ],
        ),
    ];

    println!(
        "{concurrency} concurrent clients, {seconds} s per case, on {} cores\n",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!(
        "| case | requests/s | ratio to trivial | p50 ms | p95 ms | p99 ms | server CPU µs/request | errors |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    row("trivial axum handler", &baseline, &baseline);
    let mut signing_costs = Vec::new();
    for (store, env) in &stores {
        let redis_url = (*store == "redis").then(|| args.redis_url.clone());
        let config = Config::load(None, |name| {
            env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
        .unwrap();
        let key = keys::create(
            open_store(&config).await.unwrap().as_ref(),
            NewKey {
                name: "bench".into(),
                grant: vec![keys::Permission::RenderSide],
                ..NewKey::default()
            },
        )
        .await
        .unwrap();
        let signer = Some((key.consumer_key.clone(), key.secret.clone()));

        let server = start_ready(with_env(
            {
                let mut command = Command::new(presspack_binary());
                command.arg("serve");
                command
            },
            env,
        ))
        .await;
        let endpoint = format!("{}/api/service/", server.address);
        let side = ServerSide {
            pid: server.child.id(),
            redis_url: redis_url.clone(),
        };
        let create = Request {
            post: true,
            endpoint: endpoint.clone(),
            params: params(&[
                ("method", "svc.pack.createPack"),
                ("product", "businesscard"),
                ("pack", &pack),
            ]),
            signer: signer.clone(),
        };
        let pack_id = created_pack_id(&create).await;
        let get = Request {
            post: false,
            endpoint: endpoint.clone(),
            params: params(&[("method", "svc.pack.getPack"), ("packId", &pack_id)]),
            signer: signer.clone(),
        };
        if !args.signing_only {
            if *store == "embedded" {
                render_cases(&args, &endpoint, &signer, &side, &baseline).await;
            }
            let getpack = format!("getPack, signed, {store} store, presspack serve");
            case(&args, &getpack, &get, concurrency, &side, &baseline).await;
            let createpack = format!("createPack, signed, {store} store");
            case(&args, &createpack, &create, concurrency, &side, &baseline).await;
            // What a big pack costs to read: 49 picture sides and the details side.
            let big_name = format!("getPack of a 50-side pack, signed, {store} store");
            if args.runs(&big_name) {
                let big_pack = sample_pack(49);
                let big_create = Request {
                    params: params(&[
                        ("method", "svc.pack.createPack"),
                        ("product", "businesscard"),
                        ("pack", &big_pack),
                    ]),
                    ..create.clone()
                };
                let big_get = Request {
                    params: params(&[
                        ("method", "svc.pack.getPack"),
                        ("packId", &created_pack_id(&big_create).await),
                    ]),
                    ..get.clone()
                };
                case(&args, &big_name, &big_get, concurrency, &side, &baseline).await;
            }
        }
        drop(server);
        let rounds_run = (1..=SIGNING_ROUNDS).any(|round| {
            ["signed", "unverified"]
                .iter()
                .any(|name| args.runs(&format!("getPack, {name}, {store} store, round {round}")))
        });
        if !rounds_run {
            continue;
        }

        // What verification costs: one binary, started the same way, serves getPack verifying
        // and then trusting the consumer key, so that the two differ in verification only.
        // Rounds alternate the two; each round's ratios are kept and their medians reported.
        let signed_get = get;
        let unverified_get = Request {
            params: params(&[
                ("method", "svc.pack.getPack"),
                ("packId", &pack_id),
                ("oauth_consumer_key", &key.consumer_key),
            ]),
            signer: None,
            ..signed_get.clone()
        };
        let mut equal_rate = None;
        let mut rounds = Vec::new();
        for round in 1..=SIGNING_ROUNDS {
            let mut measured = Vec::new();
            for (verification, request, name) in [
                (Verification::Verified, &signed_get, "signed"),
                (Verification::Unverified, &unverified_get, "unverified"),
            ] {
                let server = start_ready(with_env(
                    myself(&format!(
                        "--server={}",
                        clap::ValueEnum::to_possible_value(&verification)
                            .expect("every variant is a value")
                            .get_name()
                    )),
                    env,
                ))
                .await;
                let request = Request {
                    endpoint: format!("{}/api/service/", server.address),
                    ..request.clone()
                };
                let side = ServerSide {
                    pid: server.child.id(),
                    redis_url: redis_url.clone(),
                };
                let flat = load(&request, concurrency, seconds, Some(&side)).await;
                row(
                    &format!("getPack, {name}, {store} store, round {round}"),
                    &flat,
                    &baseline,
                );
                // Half what the signed server first managed: both servers below saturation.
                let rate = *equal_rate.get_or_insert((flat.requests_per_second / 2.0).round());
                let paced = load_at(&request, concurrency, seconds, Some(&side), Some(rate)).await;
                row(
                    &format!("getPack, {name}, {store} store, round {round}, at {rate} requests/s"),
                    &paced,
                    &baseline,
                );
                measured.push((flat, paced));
            }
            let cpu = |f: &Figures| f.server_cpu_per_request.unwrap_or_default().as_secs_f64();
            let [(signed, signed_paced), (plain, plain_paced)] = &measured[..] else {
                unreachable!("two servers a round")
            };
            rounds.push(SigningCost {
                paced_cpu: cpu(signed_paced) / cpu(plain_paced),
                flat_cpu: cpu(signed) / cpu(plain),
                throughput: plain.requests_per_second / signed.requests_per_second,
            });
        }
        signing_costs.push((store, equal_rate.unwrap_or_default(), rounds));
    }
    println!();
    for (store, rate, rounds) in signing_costs {
        // The median, then each round's figure in the order run.
        let median = |ratio: fn(&SigningCost) -> f64| {
            let each: Vec<f64> = rounds.iter().map(ratio).collect();
            let mut sorted = each.clone();
            sorted.sort_by(f64::total_cmp);
            let each: Vec<String> = each.iter().map(|r| format!("{r:.2}")).collect();
            format!("{:.2}x ({})", sorted[sorted.len() / 2], each.join(", "))
        };
        println!(
            "signed getPack costs {} the server CPU of an unverified one at the same {rate} \
             requests/s; flat out {} by CPU and {} by throughput ({store} store; medians of \
             {SIGNING_ROUNDS} rounds, each round's in brackets; target: at most 1.3x)",
            median(|c| c.paced_cpu),
            median(|c| c.flat_cpu),
            median(|c| c.throughput),
        );
    }
    clean_redis(&args.redis_url, &prefix);
}

/// renderSide of a text-only business card side and of one with a photo (both 1024 px,
/// signed), and text.measure of a 40-character line (unsigned), over HTTP. Renders are
/// sent by as many clients as the server has engine instances, so latency is service time,
/// not queueing.
async fn render_cases(
    args: &Args,
    endpoint: &str,
    signer: &Option<(String, String)>,
    side: &ServerSide,
    baseline: &Figures,
) {
    let photo = include_bytes!("../../engine/tests/scenes/images/photo.jpg");
    let item = presspack_bench::upload(endpoint, photo.to_vec()).await;
    let photo_uri = item["resourceUri"].as_str().unwrap().to_owned();
    let lines: Vec<serde_json::Value> = (1..=11)
        .map(|n| {
            serde_json::json!({"type": "textData", "linkId": format!("back_line_{n}"),
            "text": format!("Line {n}: Ada Lovelace, Analytical Engine")})
        })
        .collect();
    let text_side = serde_json::json!({"type": "details", "sideNum": 1,
        "templateCode": "businesscard_full_text_landscape", "data": lines})
    .to_string();
    let photo_side = serde_json::json!({"type": "image", "sideNum": 1,
        "templateCode": "businesscard_full_image_landscape", "data": [{"type": "imageData",
        "linkId": "variable_image_front", "resourceUri": photo_uri,
        "imageBox": {"center": {"x": 44, "y": 29.5}, "width": 90, "height": 60, "angle": 0}}]})
    .to_string();
    let basket = serde_json::json!({"items": [item]}).to_string();
    let instances = std::thread::available_parallelism().map_or(2, |n| n.get());
    for (name, side_json) in [("text-only", &text_side), ("with a photo", &photo_side)] {
        let render = Request {
            post: true,
            endpoint: endpoint.to_owned(),
            params: params(&[
                ("method", "svc.pack.renderSide"),
                ("side", side_json),
                ("imageBasket", &basket),
                ("boxType", "bleed"),
                ("maxSide", "1024"),
            ]),
            signer: signer.clone(),
        };
        let name = format!("renderSide {name}, 1024 px, {instances} clients");
        case(args, &name, &render, instances, side, baseline).await;
    }
    let measure = Request {
        post: false,
        endpoint: endpoint.to_owned(),
        params: params(&[
            ("method", "svc.text.measure"),
            ("text", "Sphinx of black quartz, judge my vow! 40"),
            ("fontSize", "10"),
            ("fontSizeUnits", "pt"),
            (
                "font",
                r#"{"fontFamily": "helvetica", "bold": false, "italic": false}"#,
            ),
        ]),
        signer: None,
    };
    let name = "text.measure, 40 characters";
    case(args, name, &measure, args.concurrency, side, baseline).await;
}

/// Runs the case `name` with `clients` clients, when `args` selects it, and prints its row.
async fn case(
    args: &Args,
    name: &str,
    request: &Request,
    clients: usize,
    side: &ServerSide,
    baseline: &Figures,
) {
    if args.runs(name) {
        let figures = load(request, clients, args.seconds, Some(side)).await;
        row(name, &figures, baseline);
    }
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
