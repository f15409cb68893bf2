//! The service's own metrics (requests and their latencies, engine use, store errors, queues,
//! the process) through prometheus-client, and the one place a failure is logged and counted
//! ([`record_failure`]).

use std::sync::LazyLock;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::{ConstGauge, Gauge};
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::{Registry, Unit};

use crate::domain::error::{CauseSource, DomainError, ErrorKind};
use crate::infra::engine::EngineUsage;
use crate::infra::process;
use crate::infra::store::BlobCacheStats;

/// Upper bounds of the latency histogram's buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// Store failures since the process started (every store error that reached a request),
/// counted wherever one is met; every server's registry shows it.
static STORE_ERRORS: LazyLock<Counter> = LazyLock::new(Counter::default);

pub fn count_store_error() {
    STORE_ERRORS.inc();
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

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    endpoint: &'static str,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EndpointLabel {
    endpoint: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct QueueLabel {
    queue: &'static str,
}

type FloatGauge = Gauge<f64, AtomicU64>;

fn latency_histogram() -> Histogram {
    Histogram::new(BUCKETS)
}

/// A background queue as the metrics see it, read from the store's schedule at a scrape.
#[derive(Debug, Clone, Copy)]
pub struct QueueBacklog {
    pub queue: &'static str,
    /// Messages or jobs on the schedule.
    pub items: u64,
    /// How long the most overdue one has been due; zero when none is.
    pub oldest_due: Duration,
}

/// What a scrape reads just before the exposition is written.
pub struct Readings {
    /// What the engine's pool is doing.
    pub engine_usage: EngineUsage,
    /// Bytes in the blob store, if they could be read.
    pub blob_bytes: Option<u64>,
    /// The blob read cache's counts, when the blob store has one (object storage).
    pub blob_cache: Option<BlobCacheStats>,
    pub queues: Vec<QueueBacklog>,
}

/// The metrics of one server: request counters by (endpoint, outcome), server faults and
/// latency histograms by endpoint, and gauges set from [`Readings`] at each scrape. Endpoints
/// and outcomes come from fixed sets (the dispatch table, the routes, the error codes, status
/// classes), so the number of series is bounded.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    /// Requests that failed by the server's fault, by endpoint: what a 5xx alert watches,
    /// since the API answers a client's mistakes with HTTP 500 too.
    server_faults: Family<EndpointLabel, Counter>,
    latencies: Family<EndpointLabel, Histogram, fn() -> Histogram>,
    engine_instances: Gauge,
    engine_busy: Gauge,
    engine_waiting: Gauge,
    blob_bytes: Gauge,
    blob_cache_hits: Gauge,
    blob_cache_misses: Gauge,
    blob_cache_bytes: Gauge,
    queue_items: Family<QueueLabel, Gauge>,
    queue_oldest_due: Family<QueueLabel, FloatGauge>,
}

/// The standard `process_*` metrics, read from `/proc` at each scrape.
#[derive(Debug)]
struct ProcessCollector;

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let Some(stats) = process::read() else {
            return Ok(());
        };
        let cpu = ConstCounter::new(stats.cpu_seconds);
        cpu.encode(encoder.encode_descriptor(
            "process_cpu_seconds",
            "Total user and system CPU time spent in seconds",
            None,
            cpu.metric_type(),
        )?)?;
        let gauges = [
            (
                "process_resident_memory_bytes",
                "Resident memory size in bytes",
                stats.resident_bytes as f64,
            ),
            (
                "process_virtual_memory_bytes",
                "Virtual memory size in bytes",
                stats.virtual_bytes as f64,
            ),
            (
                "process_threads",
                "Number of OS threads in the process",
                stats.threads as f64,
            ),
            (
                "process_open_fds",
                "Number of open file descriptors",
                stats.open_fds as f64,
            ),
            (
                "process_max_fds",
                "Maximum number of open file descriptors",
                stats.max_fds as f64,
            ),
            (
                "process_start_time_seconds",
                "Start time of the process since unix epoch in seconds",
                stats.start_time_seconds,
            ),
        ];
        for (name, help, value) in gauges {
            let gauge = ConstGauge::new(value);
            gauge.encode(encoder.encode_descriptor(name, help, None, gauge.metric_type())?)?;
        }
        Ok(())
    }
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "presspack_requests",
            "Requests served, by endpoint (API method or page route) and outcome (ok, an API error code, or an HTTP status class)",
            requests.clone(),
        );
        let latencies: Family<EndpointLabel, Histogram, fn() -> Histogram> =
            Family::new_with_constructor(latency_histogram);
        registry.register_with_unit(
            "presspack_request_duration",
            "Time from a request's arrival to its response, by endpoint",
            Unit::Seconds,
            latencies.clone(),
        );
        let server_faults = Family::<EndpointLabel, Counter>::default();
        registry.register(
            "presspack_server_faults",
            "Requests that failed by the server's fault (store, engine, internal), by endpoint; the API answers client mistakes with HTTP 500 too, so alert on this, not on 5xx",
            server_faults.clone(),
        );
        registry.register(
            "presspack_build",
            "The running build",
            Info::new([("version", env!("CARGO_PKG_VERSION"))]),
        );
        let gauge = |registry: &mut Registry, name: &str, help: &str| {
            let gauge = Gauge::default();
            registry.register(name, help, gauge.clone());
            gauge
        };
        let engine_instances = gauge(
            &mut registry,
            "presspack_engine_instances",
            "wasm engine instances in the pool",
        );
        let engine_busy = gauge(
            &mut registry,
            "presspack_engine_instances_busy",
            "wasm engine instances running a call now",
        );
        let engine_waiting = gauge(
            &mut registry,
            "presspack_engine_calls_waiting",
            "engine calls waiting for an instance",
        );
        registry.register(
            "presspack_store_errors",
            "Store operations that failed",
            STORE_ERRORS.clone(),
        );
        let blob_bytes = gauge(
            &mut registry,
            "presspack_blob_bytes",
            "Bytes held by the blob store (image files and renditions)",
        );
        let blob_cache_hits = gauge(
            &mut registry,
            "presspack_blob_cache_hits",
            "Blob reads answered from this host's memory since it started (object storage only)",
        );
        let blob_cache_misses = gauge(
            &mut registry,
            "presspack_blob_cache_misses",
            "Blob reads that went to the blob store since this host started (object storage only)",
        );
        let blob_cache_bytes = gauge(
            &mut registry,
            "presspack_blob_cache_bytes",
            "Bytes of blobs this host keeps in memory (at most s3_cache_bytes)",
        );
        let queue_items = Family::<QueueLabel, Gauge>::default();
        registry.register(
            "presspack_queue_items",
            "Messages or jobs on a background queue's schedule (webhook: deliveries; press_file: orders whose press files are being made; image: uploads the sweep will look at)",
            queue_items.clone(),
        );
        let queue_oldest_due = Family::<QueueLabel, FloatGauge>::default();
        registry.register_with_unit(
            "presspack_queue_oldest_due",
            "How long the most overdue item of a queue has been due (0: none is); growing means its worker is behind or stopped",
            Unit::Seconds,
            queue_oldest_due.clone(),
        );
        registry.register_collector(Box::new(ProcessCollector));
        Metrics {
            registry,
            requests,
            server_faults,
            latencies,
            engine_instances,
            engine_busy,
            engine_waiting,
            blob_bytes,
            blob_cache_hits,
            blob_cache_misses,
            blob_cache_bytes,
            queue_items,
            queue_oldest_due,
        }
    }
}

fn as_gauge(n: impl TryInto<i64>) -> i64 {
    n.try_into().unwrap_or(i64::MAX)
}

impl Metrics {
    pub fn record(
        &self,
        endpoint: &'static str,
        outcome: &'static str,
        server_fault: bool,
        elapsed: Duration,
    ) {
        let by_endpoint = EndpointLabel { endpoint };
        if server_fault {
            self.server_faults.get_or_create(&by_endpoint).inc();
        }
        self.requests
            .get_or_create(&RequestLabels { endpoint, outcome })
            .inc();
        self.latencies
            .get_or_create(&by_endpoint)
            .observe(elapsed.as_secs_f64());
    }

    /// The Prometheus text exposition (format 0.0.4) of every metric, after setting the gauges
    /// from `readings`.
    pub fn render(&self, readings: &Readings) -> String {
        let engine = readings.engine_usage;
        self.engine_instances.set(as_gauge(engine.instances));
        self.engine_busy.set(as_gauge(engine.busy));
        self.engine_waiting.set(as_gauge(engine.waiting));
        if let Some(cache) = readings.blob_cache {
            self.blob_cache_hits.set(as_gauge(cache.hits));
            self.blob_cache_misses.set(as_gauge(cache.misses));
            self.blob_cache_bytes.set(as_gauge(cache.bytes));
        }
        if let Some(bytes) = readings.blob_bytes {
            self.blob_bytes.set(as_gauge(bytes));
        }
        for backlog in &readings.queues {
            let queue = QueueLabel {
                queue: backlog.queue,
            };
            self.queue_items
                .get_or_create(&queue)
                .set(as_gauge(backlog.items));
            self.queue_oldest_due
                .get_or_create(&queue)
                .set(backlog.oldest_due.as_secs_f64());
        }
        let mut out = String::new();
        prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry)
            .expect("writing to a String cannot fail");
        out
    }
}
