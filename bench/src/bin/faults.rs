//! `presspack-faults` (run by `bench/faults.sh`; docs/benchmarks.md): a mixed workload at a
//! fixed rate against two `presspack serve` hosts on one Redis with AOF (`appendfsync
//! always`), all on loopback and private to the run. Blobs are in that Redis, or with
//! `--blobs s3` on an S3 server of the run's own (`tests/s3-server.sh`: s3s-fs, or Garage
//! with PRESSPACK_S3_SERVER=garage).
//! Faults: one host is killed with SIGKILL and started again 10 s later; then Redis is killed
//! with SIGKILL and started again 5 s later from its AOF; with `--blobs s3`, then the S3
//! server is killed and started again 5 s later. They are spread evenly over the run.
//! Afterwards every pack write and every image upload that was acknowledged is read back.
//! Reported: requests and errors by operation and kind, inside and outside the fault windows,
//! latency percentiles outside them, and each host's peak memory. Exits non-zero if an
//! acknowledged write is lost or an error happened outside a fault window.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use presspack::app::open_store;
use presspack::config::Config;
use presspack::domain::keys::{self, NewKey, Permission};
use presspack_bench::presspack_binary;
use serde_json::{Value, json};

#[derive(Parser)]
struct Args {
    /// Length of the run.
    #[arg(long, default_value_t = 180)]
    seconds: u64,
    /// Requests started per second (spread evenly, whatever the answers take).
    #[arg(long, default_value_t = 40)]
    rate: u64,
    /// Where the hosts keep image files and press files.
    #[arg(long, value_enum, default_value_t = BlobPlace::Redis)]
    blobs: BlobPlace,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum BlobPlace {
    Redis,
    S3,
}

/// The public URL both hosts sit behind; signatures cover it.
const PUBLIC_URL: &str = "http://presspack.faults";
const OPERATIONS: [&str; 6] = ["create", "get", "update", "render", "measure", "upload"];
/// Answers slower than this count as errors (`timeout`).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child process whose output is drained to a file (a full pipe would stall it).
struct Process {
    child: Child,
    first_line: String,
}

impl Process {
    fn start(mut command: Command, log: &Path) -> Process {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{command:?}: {e}"));
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let first_line = lines.next().and_then(Result::ok).unwrap_or_default();
        let log = log.to_owned();
        std::thread::spawn(move || {
            let text: String = lines.map_while(Result::ok).map(|l| l + "\n").collect();
            let _ = std::fs::write(log, text);
        });
        Process { child, first_line }
    }

    fn kill(&mut self) {
        // Child::kill is SIGKILL on Unix: no shutdown, as in a crash.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Peak resident memory (VmHWM) in MiB.
    fn peak_memory_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(0.0, |kib| kib / 1024.0)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

struct Redis {
    port: u16,
    dir: tempfile::TempDir,
    process: Option<Process>,
}

impl Redis {
    fn start(&mut self) {
        let mut command = Command::new("redis-server");
        command.args([
            "--port",
            &self.port.to_string(),
            "--bind",
            "127.0.0.1",
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
            "--save",
            "",
            "--dir",
            self.dir.path().to_str().unwrap(),
        ]);
        self.process = Some(Process::start(command, &self.dir.path().join("redis.log")));
        for _ in 0..100 {
            let ping = Command::new("redis-cli")
                .args(["-p", &self.port.to_string(), "ping"])
                .output();
            if ping.is_ok_and(|o| o.stdout.starts_with(b"PONG")) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("redis-server on port {} did not start", self.port);
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

/// An S3 server private to the run (`tests/s3-server.sh`: s3s-fs, or Garage with
/// PRESSPACK_S3_SERVER=garage), to be killed and started again.
struct ObjectStore {
    dir: tempfile::TempDir,
    /// `endpoint,access key,secret,bucket`, as the script prints it.
    named: String,
}

impl ObjectStore {
    fn script(dir: &Path, command: &str) -> String {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/s3-server.sh");
        let output = Command::new(&script)
            .arg(command)
            .arg(dir)
            .stderr(Stdio::inherit())
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", script.display()));
        assert!(
            output.status.success(),
            "{} {command} failed",
            script.display()
        );
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    fn start() -> ObjectStore {
        let dir = tempfile::tempdir().unwrap();
        let named = Self::script(dir.path(), "start");
        ObjectStore { dir, named }
    }

    fn kill(&self) {
        Self::script(self.dir.path(), "kill");
    }

    fn resume(&self) {
        Self::script(self.dir.path(), "start");
    }

    /// The hosts' settings for blobs here.
    fn settings(&self) -> Vec<(&'static str, String)> {
        let parts: Vec<&str> = self.named.split(',').collect();
        let [endpoint, key, secret, bucket] = parts[..] else {
            panic!("tests/s3-server.sh printed {:?}", self.named);
        };
        vec![
            ("PRESSPACK_BLOB_STORE", format!("s3://{bucket}/faults")),
            ("PRESSPACK_S3_ENDPOINT", endpoint.to_owned()),
            ("PRESSPACK_S3_ACCESS_KEY_ID", key.to_owned()),
            ("PRESSPACK_S3_SECRET_ACCESS_KEY", secret.to_owned()),
            ("PRESSPACK_S3_PATH_STYLE", "true".to_owned()),
            ("PRESSPACK_S3_TIMEOUT_MS", "3000".to_owned()),
        ]
    }
}

impl Drop for ObjectStore {
    fn drop(&mut self) {
        Self::script(self.dir.path(), "stop");
    }
}

struct Host {
    process: Process,
    address: String,
}

/// Where and how the hosts keep their state.
#[derive(Clone)]
struct HostSettings {
    redis_url: String,
    /// More settings (the blob store's).
    extra: Vec<(&'static str, String)>,
}

fn start_host(settings: &HostSettings, work: &Path, name: &str) -> Host {
    let mut command = Command::new(presspack_binary());
    command
        .arg("serve")
        .envs(settings.extra.iter().map(|(k, v)| (k, v)))
        .env("PRESSPACK_LISTEN", "127.0.0.1:0")
        .env("PRESSPACK_BASE_URL", PUBLIC_URL)
        .env("PRESSPACK_REDIS_URL", &settings.redis_url)
        .env("PRESSPACK_DATA_DIR", work.join(name))
        .env("PRESSPACK_ENGINE_CACHE_DIR", work.join("engine-cache"))
        .env("PRESSPACK_RATE_LIMIT_PER_MINUTE", "0")
        .env("PRESSPACK_UNSIGNED_RATE_LIMIT_PER_MINUTE", "0")
        .env("PRESSPACK_UNSIGNED_UPLOAD_BYTES_PER_HOUR", "0")
        .env("RUST_LOG", "warn");
    let process = Process::start(command, &work.join(format!("{name}.log")));
    let address = process
        .first_line
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap_or_else(|| panic!("{name} did not start: {:?}", process.first_line))
        .to_owned();
    Host { process, address }
}

/// What one request came to.
struct Outcome {
    operation: &'static str,
    /// Seconds since the run started, when it was sent.
    at: f64,
    latency: Duration,
    /// `None`: success; else the error's kind.
    error: Option<String>,
}

/// Pack writes the service acknowledged, and the updates in flight or unanswered, per pack.
#[derive(Default)]
struct Writes {
    /// pack id -> the text of its last acknowledged write.
    acknowledged: HashMap<String, String>,
    /// pack id -> texts written without an answer (they may or may not have been stored).
    unanswered: HashMap<String, Vec<String>>,
    /// Packs with an update in flight (one at a time per pack, so "last" is well defined).
    busy: std::collections::HashSet<String>,
}

struct Client {
    http: reqwest::Client,
    key: String,
    secret: String,
    /// The hosts' current addresses (a restarted host has a new port).
    hosts: Mutex<Vec<String>>,
    image: Value,
    writes: Mutex<Writes>,
    /// Uploads the service acknowledged: the image's cacheId and the file sent.
    uploads: Mutex<Vec<(String, Vec<u8>)>>,
    started: Instant,
}

fn pack_with(text: &str) -> String {
    json!({"sides": [{"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape",
        "data": [{"type": "textData", "linkId": "back_line_1", "text": text}]}]})
    .to_string()
}

impl Client {
    async fn call(
        &self,
        host: usize,
        params: &[(&str, &str)],
        sign: bool,
    ) -> Result<Value, String> {
        let address = self.hosts.lock().unwrap()[host].clone();
        let mut request = self
            .http
            .post(format!("{address}/api/service/"))
            .form(params)
            .timeout(REQUEST_TIMEOUT);
        if sign {
            let list = oauth1_request::ParameterList::new(params.to_vec());
            let header = oauth1_request::Builder::<_, _>::new(
                oauth1_request::Credentials::new(self.key.as_str(), self.secret.as_str()),
                oauth1_request::HMAC_SHA1,
            )
            .authorize("POST", format!("{PUBLIC_URL}/api/service/"), &list);
            request = request.header("authorization", header);
        }
        Self::answer(request.send().await).await
    }

    async fn answer(sent: reqwest::Result<reqwest::Response>) -> Result<Value, String> {
        let response = sent.map_err(|e| {
            if e.is_timeout() {
                "timeout".to_owned()
            } else if e.is_connect() {
                "connection refused (host down)".to_owned()
            } else {
                "connection broken".to_owned()
            }
        })?;
        let is_png = response
            .headers()
            .get("content-type")
            .is_some_and(|t| t.as_bytes().starts_with(b"image/png"));
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(|_| "connection broken".to_owned())?;
        if is_png && status.is_success() {
            return Ok(Value::Null);
        }
        let body: Value = serde_json::from_slice(&bytes).map_err(|_| format!("HTTP {status}"))?;
        match body["exception"]["name"].as_str() {
            Some(name) => Err(name.to_owned()),
            None if status.is_success() => Ok(body),
            None => Err(format!("HTTP {status}")),
        }
    }

    async fn run(&self, operation: &'static str, host: usize, n: u64) -> Result<(), String> {
        match operation {
            "create" => {
                let text = format!("created {n}");
                let pack = pack_with(&text);
                let params = [
                    ("method", "svc.pack.createPack"),
                    ("product", "businesscard"),
                    ("pack", pack.as_str()),
                ];
                let reply = self.call(host, &params, true).await?;
                let id = reply["packId"].as_str().ok_or("no packId")?.to_owned();
                self.writes.lock().unwrap().acknowledged.insert(id, text);
                Ok(())
            }
            "get" => {
                let Some(id) = self.some_pack(n) else {
                    return Ok(());
                };
                let params = [("method", "svc.pack.getPack"), ("packId", id.as_str())];
                self.call(host, &params, true).await.map(|_| ())
            }
            "update" => {
                let Some(id) = self.claim_pack(n) else {
                    return Ok(());
                };
                let text = format!("updated {n}");
                let pack = pack_with(&text);
                let params = [
                    ("method", "svc.pack.updatePack"),
                    ("packId", id.as_str()),
                    ("pack", pack.as_str()),
                ];
                let result = self.call(host, &params, true).await;
                let mut writes = self.writes.lock().unwrap();
                writes.busy.remove(&id);
                match &result {
                    Ok(_) => {
                        writes.unanswered.remove(&id);
                        writes.acknowledged.insert(id, text);
                    }
                    // An update refused by the service was not stored; one without an answer
                    // may have been.
                    Err(kind) if is_unanswered(kind) => {
                        writes.unanswered.entry(id).or_default().push(text);
                    }
                    Err(_) => {}
                }
                result.map(|_| ())
            }
            "render" => {
                let side = json!({"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape",
                    "data": [{"type": "imageData", "linkId": "variable_image_front", "resourceUri": self.image["resourceUri"],
                              "imageBox": {"center": {"x": 44, "y": 29.5}, "width": 88, "height": 59, "angle": 0}}]})
                .to_string();
                let basket = json!({"items": [self.image]}).to_string();
                let params = [
                    ("method", "svc.pack.renderSide"),
                    ("side", side.as_str()),
                    ("imageBasket", basket.as_str()),
                    ("maxSide", "300"),
                ];
                self.call(host, &params, true).await.map(|_| ())
            }
            "measure" => {
                let text = format!("Measure line {n}");
                let params = [
                    ("method", "svc.text.measure"),
                    ("text", text.as_str()),
                    (
                        "font",
                        r#"{"fontFamily": "helvetica", "bold": false, "italic": false}"#,
                    ),
                    ("fontSize", "10"),
                    ("fontSizeUnits", "pt"),
                ];
                self.call(host, &params, false).await.map(|_| ())
            }
            _ => {
                let address = self.hosts.lock().unwrap()[host].clone();
                let file = small_jpeg(n);
                let form = reqwest::multipart::Form::new()
                    .text("method", "svc.image.uploadImage")
                    .part(
                        "imageFile",
                        reqwest::multipart::Part::bytes(file.clone()).file_name("n.jpg"),
                    );
                let sent = self
                    .http
                    .post(format!("{address}/api/service/"))
                    .multipart(form)
                    .timeout(REQUEST_TIMEOUT)
                    .send()
                    .await;
                let reply = Self::answer(sent).await?;
                let Some(cache_id) = reply["imageBasketItem"]["items"][0]["cacheId"].as_str()
                else {
                    return Err("upload refused".into());
                };
                self.uploads
                    .lock()
                    .unwrap()
                    .push((cache_id.to_owned(), file));
                Ok(())
            }
        }
    }

    fn some_pack(&self, n: u64) -> Option<String> {
        let writes = self.writes.lock().unwrap();
        let count = writes.acknowledged.len();
        (count > 0).then(|| {
            writes
                .acknowledged
                .keys()
                .nth(n as usize % count)
                .unwrap()
                .clone()
        })
    }

    fn claim_pack(&self, n: u64) -> Option<String> {
        let mut writes = self.writes.lock().unwrap();
        let free: Vec<String> = writes
            .acknowledged
            .keys()
            .filter(|id| !writes.busy.contains(*id))
            .cloned()
            .collect();
        let id = free.get(n as usize % free.len().max(1))?.clone();
        writes.busy.insert(id.clone());
        Some(id)
    }
}

fn is_unanswered(kind: &str) -> bool {
    matches!(kind, "timeout" | "connection broken")
}

/// A 32 x 32 JPEG whose pixels depend on `n`, so every upload is a new image.
fn small_jpeg(n: u64) -> Vec<u8> {
    let image = image::RgbImage::from_fn(32, 32, |x, y| {
        image::Rgb([
            (x * 8) as u8,
            (y * 8) as u8,
            (n.wrapping_mul(2_654_435_761) >> (x % 24)) as u8,
        ])
    });
    let mut bytes = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 90)
        .encode_image(&image)
        .unwrap();
    bytes
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// What the fault injector hands back: the processes (still running) and what it did.
struct Faults {
    hosts: Vec<Host>,
    redis: Redis,
    object_store: Option<ObjectStore>,
    /// (from, to, what), seconds since the start.
    windows: Vec<(f64, f64, &'static str)>,
    peak_memory: BTreeMap<String, f64>,
}

/// Kills host B and starts it again 10 s later, then Redis and starts it again 5 s later,
/// then (if there is one) the S3 server and starts it again 5 s later, at even intervals.
/// Starting a process blocks, so it runs off the async threads, and the workload goes on
/// meanwhile.
async fn inject_faults(
    client: Arc<Client>,
    mut hosts: Vec<Host>,
    mut redis: Redis,
    mut object_store: Option<ObjectStore>,
    settings: HostSettings,
    work: std::path::PathBuf,
    seconds: f64,
) -> Faults {
    let now = || client.started.elapsed().as_secs_f64();
    let until = |at: f64| tokio::time::sleep(Duration::from_secs_f64((at - now()).max(0.0)));
    let mut windows = Vec::new();
    let mut peak_memory = BTreeMap::new();
    let step = seconds / if object_store.is_some() { 4.0 } else { 3.0 };

    until(step).await;
    let mut host_b = hosts.pop().unwrap();
    peak_memory.insert(
        "host-b (until killed)".into(),
        host_b.process.peak_memory_mib(),
    );
    // The window opens as the kill starts: requests under way then fail because of it.
    let killed = now();
    host_b.process.kill();
    until(killed + 10.0).await;
    let host_b = tokio::task::spawn_blocking(move || start_host(&settings, &work, "host-b-again"))
        .await
        .unwrap();
    client.hosts.lock().unwrap()[1].clone_from(&host_b.address);
    hosts.push(host_b);
    windows.push((killed, now(), "host-b killed (SIGKILL), then started again"));

    until(step * 2.0).await;
    let killed = now();
    if let Some(process) = &mut redis.process {
        process.kill();
    }
    until(killed + 5.0).await;
    let redis = tokio::task::spawn_blocking(move || {
        redis.start();
        redis
    })
    .await
    .unwrap();
    // The hosts reconnect on their next commands; two seconds are allowed for it.
    windows.push((
        killed,
        now() + 2.0,
        "redis killed (SIGKILL), then started again from its AOF",
    ));

    if let Some(store) = object_store.take() {
        until(step * 3.0).await;
        let killed = now();
        store.kill();
        until(killed + 5.0).await;
        let store = tokio::task::spawn_blocking(move || {
            store.resume();
            store
        })
        .await
        .unwrap();
        // Calls under way when it came back may still be in their retries.
        windows.push((
            killed,
            now() + 2.0,
            "the S3 server killed (SIGKILL), then started again",
        ));
        object_store = Some(store);
    }
    Faults {
        hosts,
        redis,
        object_store,
        windows,
        peak_memory,
    }
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let work = tempfile::tempdir().unwrap();
    let mut redis = Redis {
        port: free_port(),
        dir: tempfile::tempdir().unwrap(),
        process: None,
    };
    redis.start();
    let object_store = (args.blobs == BlobPlace::S3).then(ObjectStore::start);
    let settings = HostSettings {
        redis_url: redis.url(),
        extra: object_store
            .as_ref()
            .map(ObjectStore::settings)
            .unwrap_or_default(),
    };
    let config = Config::load(None, |name| match name {
        "PRESSPACK_REDIS_URL" => Some(redis.url()),
        _ => None,
    })
    .unwrap();
    let key = keys::create(
        open_store(&config).await.unwrap().as_ref(),
        NewKey {
            name: "faults".into(),
            grant: vec![Permission::RenderSide],
            ..NewKey::default()
        },
    )
    .await
    .unwrap();
    let hosts = vec![
        start_host(&settings, work.path(), "host-a"),
        start_host(&settings, work.path(), "host-b"),
    ];
    let image = presspack_bench::upload(
        &format!("{}/api/service/", hosts[0].address),
        small_jpeg(u64::MAX),
    )
    .await;
    let client = Arc::new(Client {
        http: presspack_bench::http_client(),
        key: key.consumer_key.clone(),
        secret: key.secret.clone(),
        hosts: Mutex::new(hosts.iter().map(|h| h.address.clone()).collect()),
        image,
        writes: Mutex::default(),
        uploads: Mutex::default(),
        started: Instant::now(),
    });
    let blob_place = match &object_store {
        Some(store) => format!(
            "blobs on S3 ({}, {})",
            std::env::var("PRESSPACK_S3_SERVER").unwrap_or_else(|_| "s3s-fs".into()),
            store.named.split(',').next().unwrap_or_default()
        ),
        None => "blobs in Redis".to_owned(),
    };
    println!(
        "{} s at {} requests/s over two hosts on Redis (AOF, appendfsync always), port {}; {blob_place}",
        args.seconds, args.rate, redis.port
    );

    let outcomes: Arc<Mutex<Vec<Outcome>>> = Arc::default();
    let faults = tokio::spawn(inject_faults(
        Arc::clone(&client),
        hosts,
        redis,
        object_store,
        settings,
        work.path().to_owned(),
        args.seconds as f64,
    ));
    let total = args.seconds * args.rate;
    let mut ticker = tokio::time::interval(Duration::from_secs_f64(1.0 / args.rate as f64));
    let mut tasks = Vec::with_capacity(total as usize);
    for n in 0..total {
        ticker.tick().await;
        let operation = OPERATIONS[(n % OPERATIONS.len() as u64) as usize];
        let host = (n / OPERATIONS.len() as u64 % 2) as usize;
        let (client, outcomes) = (Arc::clone(&client), Arc::clone(&outcomes));
        tasks.push(tokio::spawn(async move {
            let at = client.started.elapsed();
            let result = client.run(operation, host, n).await;
            outcomes.lock().unwrap().push(Outcome {
                operation,
                at: at.as_secs_f64(),
                latency: client.started.elapsed() - at,
                error: result.err(),
            });
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let Faults {
        hosts,
        redis: _redis,
        object_store: _object_store,
        windows,
        mut peak_memory,
    } = faults.await.unwrap();
    peak_memory.insert("host-a".into(), hosts[0].process.peak_memory_mib());
    peak_memory.insert(
        "host-b (restarted)".into(),
        hosts[1].process.peak_memory_mib(),
    );

    // Every acknowledged write must be there, read through the host that never went down.
    let (acknowledged, unanswered) = {
        let writes = client.writes.lock().unwrap();
        (writes.acknowledged.clone(), writes.unanswered.clone())
    };
    let mut lost = Vec::new();
    for (id, text) in &acknowledged {
        let params = [("method", "svc.pack.getPack"), ("packId", id.as_str())];
        let stored = client.call(0, &params, true).await;
        let found = stored
            .as_ref()
            .ok()
            .and_then(|reply| reply["pack"]["sides"][0]["data"][0]["text"].as_str())
            .map(str::to_owned);
        let may_be = |t: &String| unanswered.get(id).is_some_and(|texts| texts.contains(t));
        match found {
            Some(found) if found == *text || may_be(&found) => {}
            other => lost.push(format!(
                "{id}: expected {text:?}, found {other:?} ({stored:?})"
            )),
        }
    }

    // Every acknowledged upload must be served byte for byte (the print rendition of a small
    // JPEG is the file itself).
    let uploads = std::mem::take(&mut *client.uploads.lock().unwrap());
    let host_a = client.hosts.lock().unwrap()[0].clone();
    for (cache_id, file) in &uploads {
        let served = client
            .http
            .get(format!("{host_a}/images/{cache_id}/print"))
            .timeout(REQUEST_TIMEOUT)
            .send()
            .await;
        let bytes = match served {
            Ok(response) if response.status().is_success() => response.bytes().await.ok(),
            _ => None,
        };
        if bytes.as_deref() != Some(file.as_slice()) {
            lost.push(format!("image {cache_id}: not served as uploaded"));
        }
    }

    // The report.
    let outcomes = outcomes.lock().unwrap();
    // An error belongs to a fault if the request was under way at any time of its window.
    let in_window = |o: &Outcome| {
        let until = o.at + o.latency.as_secs_f64();
        windows
            .iter()
            .any(|(from, to, _)| o.at <= *to && until >= *from)
    };
    for (from, to, what) in &windows {
        println!("fault: {what} from {from:.1} s to {to:.1} s");
    }
    println!(
        "\n| operation | requests | errors in fault windows | errors outside | p50 ms | p95 ms | p99 ms (outside fault windows) |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut all_latencies = Vec::new();
    let mut errors_outside = 0;
    let mut kinds: BTreeMap<(String, bool), usize> = BTreeMap::new();
    for operation in OPERATIONS {
        let mine: Vec<&Outcome> = outcomes
            .iter()
            .filter(|o| o.operation == operation)
            .collect();
        let mut latencies: Vec<f64> = mine
            .iter()
            .filter(|o| o.error.is_none() && !in_window(o))
            .map(|o| o.latency.as_secs_f64() * 1000.0)
            .collect();
        latencies.sort_by(f64::total_cmp);
        all_latencies.extend(&latencies);
        let (inside, outside) = mine
            .iter()
            .filter_map(|o| o.error.as_ref().map(|e| (e, in_window(o))))
            .fold((0, 0), |(i, out), (kind, window)| {
                *kinds.entry((kind.clone(), window)).or_default() += 1;
                if window { (i + 1, out) } else { (i, out + 1) }
            });
        errors_outside += outside;
        println!(
            "| {operation} | {} | {inside} | {outside} | {:.2} | {:.2} | {:.2} |",
            mine.len(),
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.95),
            percentile(&latencies, 0.99)
        );
    }
    all_latencies.sort_by(f64::total_cmp);
    println!(
        "| all | {} | | {errors_outside} | {:.2} | {:.2} | {:.2} |",
        outcomes.len(),
        percentile(&all_latencies, 0.5),
        percentile(&all_latencies, 0.95),
        percentile(&all_latencies, 0.99)
    );
    println!("\nerrors by kind:");
    for ((kind, window), count) in &kinds {
        let place = if *window {
            "in a fault window"
        } else {
            "OUTSIDE the fault windows"
        };
        println!("  {kind}: {count} ({place})");
    }
    for o in outcomes
        .iter()
        .filter(|o| o.error.is_some() && !in_window(o))
    {
        println!(
            "  outside the fault windows: {} sent at {:.2} s, answered after {:.0} ms: {}",
            o.operation,
            o.at,
            o.latency.as_secs_f64() * 1000.0,
            o.error.as_deref().unwrap_or_default()
        );
    }
    println!("\npeak memory (VmHWM):");
    for (host, mib) in &peak_memory {
        println!("  {host}: {mib:.0} MiB");
    }
    let p99 = percentile(&all_latencies, 0.99);
    println!(
        "\nacknowledged writes: {} packs and {} uploads checked, {} lost; p99 outside fault windows {p99:.2} ms (target under 50 ms)",
        acknowledged.len(),
        uploads.len(),
        lost.len()
    );
    for problem in &lost {
        println!("  LOST {problem}");
    }
    if !lost.is_empty() || errors_outside > 0 {
        std::process::exit(1);
    }
}
