//! Press-file archive benchmark (docs/benchmarks.md): the console's ZIP of the press files of
//! 200 orders in production, downloaded by a fast client and by a slow one, and the server's
//! resident memory meanwhile. The archive streams one file at a time, so the server should
//! grow by at most the largest single file plus a fixed buffer, however many orders and
//! however slow the client. The files are incompressible bytes of press-file sizes (the
//! archive stores them as they are; their content does not matter to it). Run with
//! `bench/press-archive.sh`.

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use presspack::app::{open_blobs, open_store};
use presspack::config::Config;
use presspack::domain::customers::CUSTOMERS;
use presspack::domain::ids::OrderNumber;
use presspack::domain::orders::press_files::PRESS_FILES;
use presspack::domain::orders::record::{self, ORDERS, Order, PressVerdict};
use serde_json::json;

const ORDERS_IN_ARCHIVE: usize = 200;
/// Most press files are this big; one is [`LARGEST`].
const TYPICAL: usize = 2 << 20;
const LARGEST: usize = 16 << 20;
/// The slow client's pace.
const SLOW_BYTES_PER_SECOND: f64 = 32.0 * 1024.0 * 1024.0;
const PASSWORD: &str = "bench operator password";

/// `len` random bytes: incompressible, like a press file's compressed streams.
fn file_bytes(len: usize) -> Vec<u8> {
    let mut bytes = vec![0; len];
    rand::fill(&mut bytes[..]);
    bytes
}

/// Stores a customer with `ORDERS_IN_ARCHIVE` orders in production, each with one press file
/// in the blob store.
async fn seed(config: &Config) -> usize {
    let store = open_store(config).await.expect("the store opens");
    let blobs = open_blobs(config).await.expect("the blob store opens");
    let template: serde_json::Value =
        serde_json::from_str(include_str!("order-template.json")).expect("the template");
    let customer_id = template["customerId"].as_str().unwrap().to_owned();
    let mut numbers = Vec::new();
    let mut total = 0;
    for i in 0..ORDERS_IN_ARCHIVE {
        let mut value = template.clone();
        value["number"] = OrderNumber::random().to_string().into();
        value["placedAt"] = (1_790_000_000 + i as u64 * 60).into();
        value["status"] = json!({"state": "in_production"});
        let order: Order = serde_json::from_value(value).expect("an order");
        let size = if i == ORDERS_IN_ARCHIVE / 2 {
            LARGEST
        } else {
            TYPICAL
        };
        total += size;
        let blob = blobs
            .put("press-file", file_bytes(size).into())
            .await
            .unwrap();
        let files = json!({"files": [{
            "line": 0, "state": "produced", "blob": blob, "bytes": size,
            "report": {"verdict": "pass", "pages": []}, "producedAt": 0,
        }]});
        store
            .insert(
                PRESS_FILES,
                &order.number,
                &serde_json::to_vec(&files).unwrap(),
            )
            .await
            .unwrap();
        store
            .insert(ORDERS, &order.number, &serde_json::to_vec(&order).unwrap())
            .await
            .unwrap();
        record::index(store.as_ref(), &order, Some(PressVerdict::Pass))
            .await
            .unwrap();
        numbers.push(order.number.to_string());
    }
    let customer = json!({
        "id": customer_id, "email": "bench@example.com", "name": "Bench",
        "passwordHash": "-", "createdAt": 0, "orders": numbers,
    });
    store
        .insert(
            CUSTOMERS,
            &customer_id,
            &serde_json::to_vec(&customer).unwrap(),
        )
        .await
        .unwrap();
    total
}

/// Kibibytes of `field` (`VmRSS`, `VmHWM`) in the process's status.
fn memory_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// The cookies set by `response`, added to `jar`.
fn keep_cookies(jar: &mut HashMap<String, String>, response: &reqwest::Response) {
    for value in response.headers().get_all("set-cookie") {
        let pair = value.to_str().unwrap().split(';').next().unwrap();
        if let Some((name, value)) = pair.split_once('=') {
            jar.insert(name.to_owned(), value.to_owned());
        }
    }
}

fn cookie_header(jar: &HashMap<String, String>) -> String {
    let pairs: Vec<String> = jar.iter().map(|(k, v)| format!("{k}={v}")).collect();
    pairs.join("; ")
}

/// Signs operator `bench` in: the console's cookies.
async fn sign_in(client: &reqwest::Client, address: &str) -> String {
    let mut jar = HashMap::new();
    let form = client
        .get(format!("{address}/admin/signin"))
        .send()
        .await
        .unwrap();
    keep_cookies(&mut jar, &form);
    let body = form.text().await.unwrap();
    let csrf = body
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a CSRF field");
    let signed_in = client
        .post(format!("{address}/admin/signin"))
        .header("cookie", cookie_header(&jar))
        .form(&[
            ("csrf", csrf),
            ("name", "bench"),
            ("password", PASSWORD),
            ("code", ""),
        ])
        .send()
        .await
        .unwrap();
    keep_cookies(&mut jar, &signed_in);
    assert!(
        jar.contains_key("pp_console"),
        "signed in: {}",
        signed_in.status()
    );
    cookie_header(&jar)
}

/// Downloads the archive (at `pace` bytes a second, if given) while sampling the server's
/// resident memory: the bytes, the time, and the most resident memory seen (KiB).
async fn download(
    client: &reqwest::Client,
    url: &str,
    cookies: &str,
    pid: u32,
    pace: Option<f64>,
) -> (usize, Duration, u64) {
    let peak = Arc::new(AtomicU64::new(memory_kib(pid, "RssAnon")));
    let sampling = {
        let peak = Arc::clone(&peak);
        tokio::spawn(async move {
            loop {
                peak.fetch_max(memory_kib(pid, "RssAnon"), Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    let started = Instant::now();
    let mut response = client
        .get(url)
        .header("cookie", cookies)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut received = 0;
    while let Some(chunk) = response.chunk().await.unwrap() {
        received += chunk.len();
        if let Some(pace) = pace {
            let due = Duration::from_secs_f64(received as f64 / pace);
            if let Some(wait) = due.checked_sub(started.elapsed()) {
                tokio::time::sleep(wait).await;
            }
        }
    }
    let elapsed = started.elapsed();
    sampling.abort();
    (received, elapsed, peak.load(Ordering::Relaxed))
}

#[tokio::main]
async fn main() {
    let work = tempfile::tempdir().expect("a temporary directory");
    let data = work.path().join("data");
    let mut config = Config::default();
    config.service.data_dir = data.clone();
    let files = seed(&config).await;

    let mut add = Command::new(presspack_bench::presspack_binary())
        .args(["operators", "add", "bench"])
        .env("PRESSPACK_DATA_DIR", &data)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("the CLI runs");
    writeln!(add.stdin.take().unwrap(), "{PASSWORD}").unwrap();
    assert!(add.wait().unwrap().success(), "operator added");

    let mut command = Command::new(presspack_bench::presspack_binary());
    command
        .arg("serve")
        .env("PRESSPACK_LISTEN", "127.0.0.1:0")
        .env("PRESSPACK_DATA_DIR", &data)
        .env("RUST_LOG", "warn");
    let server = presspack_bench::start(command);
    let pid = server.child.id();
    let client = presspack::infra::fetch::http_client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    // Measured once the engine is ready: its instances take memory as they start.
    for _ in 0..600 {
        let ready = client
            .get(format!("{}/readyz", server.address))
            .send()
            .await;
        if ready.is_ok_and(|r| r.status() == 200) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let cookies = sign_in(&client, &server.address).await;
    let url = format!(
        "{}/admin/orders/press-files.zip?state=in_production",
        server.address
    );

    // The first download finds the server as it started; the later ones reuse the memory the
    // allocator kept from it.
    let mut rows = Vec::new();
    for (name, pace) in [
        ("first, fast client", None),
        ("again, fast client", None),
        ("again, slow client (32 MiB/s)", Some(SLOW_BYTES_PER_SECOND)),
    ] {
        let before = memory_kib(pid, "RssAnon");
        let (bytes, elapsed, peak) = download(&client, &url, &cookies, pid, pace).await;
        assert!(bytes > files, "the archive holds every file");
        rows.push((name, bytes, elapsed, before, peak));
    }
    drop(server);

    println!(
        "{ORDERS_IN_ARCHIVE} orders, one press file each: {} of {} MiB and one of {} MiB ({} MiB in all)\n",
        ORDERS_IN_ARCHIVE - 1,
        TYPICAL >> 20,
        LARGEST >> 20,
        files >> 20
    );
    println!(
        "| download | archive | time | server memory before | peak while sending | growth | growth / largest file |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (name, bytes, elapsed, before, peak) in rows {
        let growth_kib = peak.saturating_sub(before);
        println!(
            "| {name} | {} MiB | {:.2} s | {} MiB | {} MiB | {:.1} MiB | {:.2}x |",
            bytes >> 20,
            elapsed.as_secs_f64(),
            before / 1024,
            peak / 1024,
            growth_kib as f64 / 1024.0,
            (growth_kib * 1024) as f64 / LARGEST as f64
        );
    }
}
