//! Operations: a request id and a log line for every request, Prometheus metrics at
//! `/metrics`, and the `/healthz` and `/readyz` probes.
//!
//! Log lines and metrics name a request by its endpoint: the API method for `/api/service/`
//! calls (a known one, else `unknown`) and the route template for pages (`/dropins/{pack_id}/
//! {name}`), never the path or query, which carry pack ids and drop-in tokens.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tracing::Instrument;

use crate::app::AppState;
use crate::store::Kind;

/// The header carrying a request's id, taken from the client (or proxy) when it sends a
/// sensible one, and returned on every response.
pub const REQUEST_ID: &str = "x-request-id";

/// Upper bounds of the latency histogram's buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// Store failures since the process started (every store error that reached a request).
static STORE_ERRORS: AtomicU64 = AtomicU64::new(0);

pub fn count_store_error() {
    STORE_ERRORS.fetch_add(1, Ordering::Relaxed);
}

/// What the API endpoint tells the request log about a call: its method and outcome (`ok` or
/// an error code's name). Set as a response extension.
#[derive(Clone, Copy)]
pub struct ApiOutcome {
    pub method: &'static str,
    pub outcome: &'static str,
}

#[derive(Default)]
struct Latency {
    buckets: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

/// Request counters by (endpoint, outcome) and latency histograms by endpoint. Endpoints and
/// outcomes come from fixed sets (the dispatch table, the routes, the error codes, status
/// classes), so the number of series is bounded.
#[derive(Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(&'static str, &'static str), u64>>,
    latencies: Mutex<BTreeMap<&'static str, Latency>>,
}

impl Metrics {
    fn record(&self, endpoint: &'static str, outcome: &'static str, elapsed: Duration) {
        *self
            .requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry((endpoint, outcome))
            .or_default() += 1;
        let seconds = elapsed.as_secs_f64();
        let mut latencies = self.latencies.lock().unwrap_or_else(|e| e.into_inner());
        let latency = latencies.entry(endpoint).or_default();
        for (bucket, bound) in latency.buckets.iter_mut().zip(BUCKETS) {
            if seconds <= bound {
                *bucket += 1;
            }
        }
        latency.count += 1;
        latency.sum += seconds;
    }

    /// The Prometheus text exposition of every metric; `blob_bytes` if it could be read.
    fn render(&self, state: &AppState, blob_bytes: Option<u64>) -> String {
        let mut out = String::new();
        out.push_str("# HELP presspack_requests_total Requests served, by endpoint (API method or page route) and outcome (ok, an API error code, or an HTTP status class).\n# TYPE presspack_requests_total counter\n");
        for ((endpoint, outcome), count) in self
            .requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            let _ = writeln!(
                out,
                "presspack_requests_total{{endpoint=\"{endpoint}\",outcome=\"{outcome}\"}} {count}"
            );
        }
        out.push_str("# HELP presspack_request_duration_seconds Time from a request's arrival to its response, by endpoint.\n# TYPE presspack_request_duration_seconds histogram\n");
        for (endpoint, latency) in self
            .latencies
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            let series = "presspack_request_duration_seconds";
            for (bound, count) in BUCKETS.iter().zip(latency.buckets) {
                let _ = writeln!(
                    out,
                    "{series}_bucket{{endpoint=\"{endpoint}\",le=\"{bound}\"}} {count}"
                );
            }
            let _ = writeln!(
                out,
                "{series}_bucket{{endpoint=\"{endpoint}\",le=\"+Inf\"}} {}\n{series}_sum{{endpoint=\"{endpoint}\"}} {}\n{series}_count{{endpoint=\"{endpoint}\"}} {}",
                latency.count, latency.sum, latency.count
            );
        }
        let (busy, instances) = state.engine.usage();
        let _ = write!(
            out,
            "# HELP presspack_engine_instances wasm engine instances in the pool.\n# TYPE presspack_engine_instances gauge\npresspack_engine_instances {instances}\n\
             # HELP presspack_engine_instances_busy wasm engine instances running a call now.\n# TYPE presspack_engine_instances_busy gauge\npresspack_engine_instances_busy {busy}\n\
             # HELP presspack_store_errors_total Store operations that failed.\n# TYPE presspack_store_errors_total counter\npresspack_store_errors_total {}\n",
            STORE_ERRORS.load(Ordering::Relaxed)
        );
        if let Some(bytes) = blob_bytes {
            let _ = write!(
                out,
                "# HELP presspack_blob_bytes Bytes held by the blob store (image files and renditions).\n# TYPE presspack_blob_bytes gauge\npresspack_blob_bytes {bytes}\n"
            );
        }
        out
    }
}

/// A client's id if it is short and plain, else a new random one.
fn request_id(request: &Request) -> String {
    request
        .headers()
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|id| {
            (1..=64).contains(&id.len())
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        })
        .map_or_else(|| hex::encode(rand::random::<[u8; 12]>()), str::to_owned)
}

fn status_class(status: StatusCode) -> &'static str {
    match status.as_u16() {
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    }
}

/// The middleware of every route: gives the request an id (in a tracing span, so every log
/// line of the request carries it, and in the `x-request-id` response header), logs one line
/// when it is answered and counts it.
pub async fn observe(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let id = request_id(&request);
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|path| path.as_str().to_owned());
    let span = tracing::info_span!("request", id = %id);
    let started = Instant::now();
    let mut response = next.run(request).instrument(span.clone()).await;
    let elapsed = started.elapsed();
    let status = response.status();
    let (endpoint, outcome) = match response.extensions().get::<ApiOutcome>() {
        Some(api) => (api.method, api.outcome),
        None => (
            route.as_deref().map_or("unmatched", intern),
            status_class(status),
        ),
    };
    state.metrics.record(endpoint, outcome, elapsed);
    span.in_scope(|| {
        tracing::info!(
            endpoint,
            outcome,
            status = status.as_u16(),
            millis = elapsed.as_secs_f64() * 1000.0,
            "served"
        );
    });
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID, value);
    }
    // Every reply is what its Content-Type says, never sniffed into something else.
    response.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// A route template as a `'static` label: routes are fixed at start-up, so the set is small;
/// each is leaked once.
fn intern(route: &str) -> &'static str {
    static ROUTES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut routes = ROUTES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = routes.iter().find(|known| **known == route) {
        return known;
    }
    let leaked: &'static str = Box::leak(route.to_owned().into_boxed_str());
    routes.push(leaked);
    leaked
}

/// `GET /metrics`: Prometheus text format.
pub async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    let blob_bytes =
        match tokio::time::timeout(Duration::from_secs(2), state.blobs.stored_bytes()).await {
            Ok(Ok(bytes)) => Some(bytes),
            Ok(Err(error)) => {
                tracing::warn!(%error, "metrics: cannot read the blob store's size");
                None
            }
            Err(_) => None,
        };
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        state.metrics.render(&state, blob_bytes),
    )
        .into_response()
}

/// `GET /healthz`: the process serves requests.
pub async fn healthz() -> &'static str {
    "ok\n"
}

/// `GET /readyz`: the store answers and the engine pool has instances; 503 naming what is
/// not ready otherwise, so a load balancer sends traffic elsewhere.
pub async fn readyz(State(state): State<Arc<AppState>>) -> Response {
    let store = tokio::time::timeout(
        Duration::from_secs(2),
        state.store.get(Kind::ApiKey, "readiness-probe"),
    )
    .await;
    let problem = match store {
        Ok(Ok(_)) if state.engine.usage().1 > 0 => None,
        Ok(Ok(_)) => Some("the engine has no instances"),
        Ok(Err(error)) => {
            tracing::warn!(%error, "readiness: the store failed");
            count_store_error();
            Some("the store is unavailable")
        }
        Err(_) => Some("the store did not answer within 2 s"),
    };
    match problem {
        None => (StatusCode::OK, "ready\n").into_response(),
        Some(problem) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {problem}\n"),
        )
            .into_response(),
    }
}
