//! Engine share benchmark (docs/benchmarks.md): another partner's renderSide while one key
//! keeps six renderPackPdf calls of a heavy pack (16 sides of long text) in flight, against
//! the same renderSide on the idle server in the same run. Each holder of engine calls (a
//! key, a customer, a network) holds at most half the instances, so the other partner's
//! p99 should stay within 2x of its idle p99. For scale, the same calls while a plain thread
//! keeps one core busy (what any other program would cost). Run with `bench/engine-share.sh`.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use presspack::app::open_store;
use presspack::config::Config;
use presspack::domain::keys::{self, NewKey, Permission};
use serde_json::json;

/// renderSide calls measured in each phase.
const SAMPLES: usize = 1000;
/// The heavy key's calls in flight at once.
const HEAVY_CALLS: usize = 6;

/// A key with every permission: (consumer key, secret).
async fn new_key(config: &Config, name: &str) -> (String, String) {
    let store = open_store(config).await.expect("the store opens");
    let grant = <Permission as strum::IntoEnumIterator>::iter()
        .filter(|p| !p.is_inherent())
        .collect();
    let new = NewKey {
        name: name.to_owned(),
        grant,
        ..NewKey::default()
    };
    let key = keys::create(store.as_ref(), new).await.expect("a key");
    (key.consumer_key, key.secret)
}

/// A signed POST of `params` to `endpoint`.
fn signed_post(
    client: &reqwest::Client,
    endpoint: &str,
    (key, secret): &(String, String),
    params: &[(&str, &str)],
) -> reqwest::RequestBuilder {
    let list = oauth1_request::ParameterList::new(params.to_vec());
    let header = oauth1_request::Builder::<_, _>::new(
        oauth1_request::Credentials::new(key.as_str(), secret.as_str()),
        oauth1_request::HMAC_SHA1,
    )
    .authorize("POST", endpoint, &list);
    client
        .post(endpoint)
        .header("authorization", header)
        .form(params)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

/// `SAMPLES` renderSide calls of a business card, one after another: their times, sorted.
async fn render_sides(
    client: &reqwest::Client,
    endpoint: &str,
    key: &(String, String),
) -> Vec<Duration> {
    let side = json!({"type": "details", "sideNum": 1,
        "templateCode": "businesscard_full_text_landscape",
        "data": [{"type": "textData", "linkId": "back_line_1", "text": "Grace Hopper"}]})
    .to_string();
    let params = [
        ("method", "svc.pack.renderSide"),
        ("side", side.as_str()),
        ("imageBasket", r#"{"items": []}"#),
        ("maxSide", "600"),
    ];
    let mut times = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        let started = Instant::now();
        let response = signed_post(client, endpoint, key, &params)
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success());
        let png = response.bytes().await.unwrap();
        assert!(png.starts_with(b"\x89PNG"), "renderSide failed");
        times.push(started.elapsed());
    }
    times.sort();
    times
}

#[tokio::main]
async fn main() {
    let work = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.service.data_dir = work.path().join("data");
    let heavy = new_key(&config, "heavy partner").await;
    let other = new_key(&config, "other partner").await;

    let mut command = Command::new(presspack_bench::presspack_binary());
    command
        .arg("serve")
        .env("PRESSPACK_LISTEN", "127.0.0.1:0")
        .env("PRESSPACK_DATA_DIR", &config.service.data_dir)
        .env("PRESSPACK_RATE_LIMIT_PER_MINUTE", "0")
        .env("RUST_LOG", "warn");
    let server = presspack_bench::start(command);
    let endpoint = format!("{}/api/service/", server.address);
    let client = presspack_bench::http_client();
    let instances = std::thread::available_parallelism().map_or(2, |n| n.get());

    // The heavy pack: 16 sides of eleven long lines each.
    let lines: Vec<_> = (1..=11)
        .map(|n| {
            json!({"type": "textData", "linkId": format!("back_line_{n}"),
            "text": "Ann Example, letterpress printer and typefounder, ".repeat(6)})
        })
        .collect();
    let sides: Vec<_> = (1..=16)
        .map(|n| {
            json!({"type": "details", "sideNum": n,
            "templateCode": "businesscard_full_text_landscape", "data": lines})
        })
        .collect();
    let pack = json!({"sides": sides}).to_string();
    let created: serde_json::Value = signed_post(
        &client,
        &endpoint,
        &heavy,
        &[
            ("method", "svc.pack.createPack"),
            ("product", "businesscard"),
            ("pack", &pack),
        ],
    )
    .send()
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    let pack_id = created["packId"]
        .as_str()
        .expect("the heavy pack")
        .to_owned();

    // Warm-up, then the idle baseline.
    render_sides(&client, &endpoint, &other).await;
    let idle = render_sides(&client, &endpoint, &other).await;

    // What any program keeping one core busy does to the same calls: the machine's own share
    // of the figure below (a thread of this process spinning, no engine work).
    let spinning = Arc::new(AtomicBool::new(true));
    let spinner = std::thread::spawn({
        let spinning = Arc::clone(&spinning);
        move || {
            let mut n = 0u64;
            while spinning.load(Ordering::Relaxed) {
                n = std::hint::black_box(n.wrapping_add(1));
            }
        }
    });
    let hogged = render_sides(&client, &endpoint, &other).await;
    spinning.store(false, Ordering::Relaxed);
    spinner.join().unwrap();

    // The heavy key's calls, kept in flight until the measurement ends.
    let stop = Arc::new(AtomicBool::new(false));
    let pdfs = Arc::new(AtomicUsize::new(0));
    let mut load = Vec::new();
    for _ in 0..HEAVY_CALLS {
        let (client, endpoint, heavy, pack_id) = (
            client.clone(),
            endpoint.clone(),
            heavy.clone(),
            pack_id.clone(),
        );
        let (stop, pdfs) = (Arc::clone(&stop), Arc::clone(&pdfs));
        load.push(tokio::spawn(async move {
            let params = [
                ("method", "svc.pack.renderPackPdf"),
                ("packId", pack_id.as_str()),
            ];
            while !stop.load(Ordering::Relaxed) {
                let response = signed_post(&client, &endpoint, &heavy, &params)
                    .send()
                    .await
                    .unwrap();
                let pdf = response.bytes().await.unwrap();
                if pdf.starts_with(b"%PDF-") {
                    pdfs.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    let loaded = render_sides(&client, &endpoint, &other).await;
    let elapsed = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    for task in load {
        task.await.unwrap();
    }
    drop(server);

    let row = |name: &str, times: &[Duration], base: &[Duration]| {
        let (p50, p99) = (percentile(times, 0.5), percentile(times, 0.99));
        println!(
            "| {name} | {:.1} ms | {:.1} ms | {:.2}x |",
            p50.as_secs_f64() * 1000.0,
            p99.as_secs_f64() * 1000.0,
            p99.as_secs_f64() / percentile(base, 0.99).as_secs_f64()
        );
    };
    println!(
        "another partner's renderSide (600 px business card), {SAMPLES} calls one after another; \
         {instances} engine instances\n"
    );
    println!("| | p50 | p99 | p99 ratio to idle |");
    println!("|---|---|---|---|");
    row("idle server", &idle, &idle);
    row(
        "idle server, one core kept busy by another program",
        &hogged,
        &idle,
    );
    row(
        &format!("one key keeping {HEAVY_CALLS} renderPackPdf (16 sides) in flight"),
        &loaded,
        &idle,
    );
    println!(
        "\nthe heavy key's PDFs finished during the loaded phase: {} in {:.1} s",
        pdfs.load(Ordering::Relaxed),
        elapsed.as_secs_f64()
    );
}
