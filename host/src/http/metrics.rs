//! The service's own metrics (request counts and latencies, engine use, store errors) and
//! the one place a failure is logged and counted ([`record_failure`]).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::domain::error::{CauseSource, DomainError, ErrorKind};

/// Upper bounds of the latency histogram's buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// Store failures since the process started (every store error that reached a request).
static STORE_ERRORS: AtomicU64 = AtomicU64::new(0);

pub fn count_store_error() {
    STORE_ERRORS.fetch_add(1, Ordering::Relaxed);
}

/// Where a failure is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// An API reply: the `exception` envelope carries the code; a client's mistake is routine.
    Api,
    /// A customer page: a failure that reaches the generic error page is never routine.
    Page,
}

/// Logs and counts a failure once, where it is answered: with its cause (a store or engine
/// fault; the cause can name hosts or engine internals, so it goes only here) at error level,
/// as are the server's own faults and anything a page could not handle; a client's mistake
/// at debug. A store failure also counts in `presspack_store_errors_total`.
pub fn record_failure(error: &DomainError, edge: Edge) {
    let code = error.code.number_and_name().1;
    let message = &error.message;
    if error
        .cause
        .as_ref()
        .is_some_and(|cause| cause.source == CauseSource::Store)
    {
        count_store_error();
    }
    let routine = edge == Edge::Api
        && error.cause.is_none()
        && !matches!(error.kind(), ErrorKind::Engine | ErrorKind::Internal);
    match &error.cause {
        Some(cause) => tracing::error!(code, %message, %cause, "request failed"),
        None if routine => tracing::debug!(code, %message, "request failed"),
        None => tracing::error!(code, %message, "request failed"),
    }
}

/// What the API endpoint tells the request log about a call: its method and outcome (`ok` or
/// an error code's name). Set as a response extension.
#[derive(Clone, Copy)]
pub struct ApiOutcome {
    pub method: &'static str,
    pub outcome: &'static str,
    /// The failure is the server's (its store, its engine, a fault), not the client's.
    pub server_fault: bool,
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
    /// Requests that failed by the server's fault, by endpoint: what a 5xx alert watches,
    /// since the API answers a client's mistakes with HTTP 500 too.
    server_faults: Mutex<BTreeMap<&'static str, u64>>,
    latencies: Mutex<BTreeMap<&'static str, Latency>>,
}

impl Metrics {
    pub fn record(
        &self,
        endpoint: &'static str,
        outcome: &'static str,
        server_fault: bool,
        elapsed: Duration,
    ) {
        if server_fault {
            *self
                .server_faults
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(endpoint)
                .or_default() += 1;
        }
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
    pub fn render(&self, engine_usage: (usize, usize), blob_bytes: Option<u64>) -> String {
        let mut out = String::new();
        let requests = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        write_counter(
            &mut out,
            "presspack_requests_total",
            "Requests served, by endpoint (API method or page route) and outcome (ok, an API error code, or an HTTP status class).",
            requests.iter().map(|((endpoint, outcome), count)| {
                (
                    format!("endpoint=\"{endpoint}\",outcome=\"{outcome}\""),
                    *count,
                )
            }),
        );
        drop(requests);
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
        let faults = self.server_faults.lock().unwrap_or_else(|e| e.into_inner());
        write_counter(
            &mut out,
            "presspack_server_faults_total",
            "Requests that failed by the server's fault (store, engine, internal), by endpoint; the API answers client mistakes with HTTP 500 too, so alert on this, not on 5xx.",
            faults
                .iter()
                .map(|(endpoint, count)| (format!("endpoint=\"{endpoint}\""), *count)),
        );
        drop(faults);
        let _ = writeln!(
            out,
            "# HELP presspack_build_info The running build.\n# TYPE presspack_build_info gauge\npresspack_build_info{{version=\"{}\"}} 1",
            env!("CARGO_PKG_VERSION")
        );
        let (busy, instances) = engine_usage;
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

/// One counter in the text exposition: its help and type, then a line per labelled series.
fn write_counter(
    out: &mut String,
    name: &str,
    help: &str,
    series: impl IntoIterator<Item = (String, u64)>,
) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
    for (labels, count) in series {
        let _ = writeln!(out, "{name}{{{labels}}} {count}");
    }
}
