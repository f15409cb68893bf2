//! Order list benchmark (docs/benchmarks.md): the console's first page of the work to do
//! (with the blocked orders above it) and a page filtered by state, read the way the console
//! reads them (`domain::orders::triage`), with 1,000 and then 100,000 orders in the store, on
//! the embedded store and on Redis. The pages come from indexes, so 100,000 orders should
//! cost within 2x of 1,000. Run with `bench/order-list.sh`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use presspack::app::open_store;
use presspack::config::Config;
use presspack::domain::ids::OrderNumber;
use presspack::domain::orders::press_files::PRESS_FILES;
use presspack::domain::orders::record::{
    self, OPEN, ORDERS, Order, PLACED, PressVerdict, state_index,
};
use presspack::domain::orders::triage;
use presspack::infra::store::{INDEXES_BUILT, IndexEnd, SharedStore};
use serde_json::json;

/// Orders stored at each step, and the page reads timed at each.
const SIZES: [usize; 2] = [1_000, 100_000];
const READS: usize = 30;
/// Writes in flight while filling the store.
const IN_FLIGHT: usize = 64;

/// Order `i` of the store: most shipped, some waiting, in production or cancelled; ten of
/// the waiting ones (among the first 200) blocked, as a floor that keeps up has few.
fn order(template: &serde_json::Value, i: usize) -> (Order, PressVerdict) {
    let mut value = template.clone();
    value["number"] = OrderNumber::random().to_string().into();
    value["placedAt"] = (1_700_000_000 + i as u64 * 60).into();
    let status = match i % 20 {
        0..=11 => json!({"state": "shipped", "carrier": "DHL", "trackingNumber": "JD1"}),
        12..=15 => json!({"state": "placed"}),
        16..=18 => json!({"state": "in_production"}),
        _ => json!({"state": "cancelled"}),
    };
    value["status"] = status;
    let order: Order = serde_json::from_value(value).expect("an order");
    let verdict = match i < 200 && i % 20 == 12 {
        true => PressVerdict::Block,
        false => PressVerdict::NotMade,
    };
    (order, verdict)
}

/// Stores orders `from..to` and puts them in the indexes, `IN_FLIGHT` at a time.
async fn fill(store: &SharedStore, template: &serde_json::Value, from: usize, to: usize) {
    let mut tasks = tokio::task::JoinSet::new();
    for i in from..to {
        if tasks.len() >= IN_FLIGHT {
            tasks.join_next().await.unwrap().unwrap();
        }
        let (store, (order, verdict)) = (Arc::clone(store), order(template, i));
        tasks.spawn(async move {
            let value = serde_json::to_vec(&order).unwrap();
            store.insert(ORDERS, &order.number, &value).await.unwrap();
            if verdict == PressVerdict::Block {
                let failed = json!({"files": [{"line": 0, "state": "failed", "reason": "bench"}]});
                let failed = serde_json::to_vec(&failed).unwrap();
                store
                    .insert(PRESS_FILES, &order.number, &failed)
                    .await
                    .unwrap();
            }
            record::index(store.as_ref(), &order, Some(verdict))
                .await
                .unwrap();
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
}

/// The median of `READS` runs of `read`.
async fn median<F: AsyncFn() -> usize>(read: F) -> (Duration, usize) {
    let mut times = Vec::with_capacity(READS);
    let mut shown = 0;
    for _ in 0..READS {
        let start = Instant::now();
        shown = read().await;
        times.push(start.elapsed());
    }
    times.sort();
    (times[READS / 2], shown)
}

async fn measure(name: &str, config: &Config) {
    let store = open_store(config).await.expect("the store opens");
    // A store that never held orders from before the indexes: nothing to take in.
    for index in [PLACED, OPEN] {
        store
            .insert(INDEXES_BUILT, index.as_str(), b"{}")
            .await
            .unwrap();
    }
    let template: serde_json::Value =
        serde_json::from_str(include_str!("order-template.json")).expect("the template");
    let shipped = state_index("shipped").unwrap();
    let mut stored = 0;
    let mut results = Vec::new();
    for size in SIZES {
        let start = Instant::now();
        fill(&store, &template, stored, size).await;
        stored = size;
        eprintln!("{name}: {size} orders stored in {:.1?}", start.elapsed());
        let to_do = median(async || {
            let blocked = triage::blocked(store.as_ref(), 100).await.unwrap();
            let (_, page) = triage::page(store.as_ref(), OPEN, IndexEnd::Earliest, 0, 25)
                .await
                .unwrap();
            blocked.len() + page.len()
        })
        .await;
        let filtered = median(async || {
            let (_, page) = triage::page(store.as_ref(), shipped, IndexEnd::Latest, 0, 25)
                .await
                .unwrap();
            page.len()
        })
        .await;
        results.push((size, to_do, filtered));
    }
    let (_, (small_to_do, _), (small_filtered, _)) = results[0];
    for (size, (to_do, shown), (filtered, filtered_shown)) in results {
        println!(
            "{name:8} {size:>7} orders  work to do {:>8.2?} ({shown} rows, {:.2}x)  shipped {:>8.2?} ({filtered_shown} rows, {:.2}x)",
            to_do,
            to_do.as_secs_f64() / small_to_do.as_secs_f64(),
            filtered,
            filtered.as_secs_f64() / small_filtered.as_secs_f64(),
        );
    }
}

#[tokio::main]
async fn main() {
    let data = tempfile::tempdir().expect("a temporary directory");
    let mut embedded = Config::default();
    embedded.service.data_dir = data.path().to_owned();
    measure("embedded", &embedded).await;

    let redis_url = std::env::var("PRESSPACK_BENCH_REDIS_URL")
        .unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned());
    let mut redis = Config::default();
    redis.store.redis_url = Some(redis_url);
    redis.store.redis_key_prefix = format!("pp-bench-{:08x}:", rand::random::<u32>());
    println!("(Redis keys under {})", redis.store.redis_key_prefix);
    measure("redis", &redis).await;
}
