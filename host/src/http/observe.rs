//! Operations: a request id and a log line for every request, the first holder of its engine
//! calls (its network), Prometheus metrics at `/metrics`, and the `/healthz` and `/readyz`
//! probes.
//!
//! Log lines and metrics name a request by its endpoint: the API method for `/api/service/`
//! calls (a known one, else `unknown`) and the route template for pages (`/dropins/{pack_id}/
//! {name}`), never the path or query, which carry pack ids and drop-in tokens.

use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::prometheus_text;
use tower_http::request_id::{MakeRequestId, RequestId};
use tracing::Instrument;

use crate::domain::images::IMAGES;
use crate::domain::keys::API_KEYS;
use crate::domain::mail::MAILS_PENDING;
use crate::domain::orders::press_files::PRESS_JOBS;
use crate::domain::webhooks::WEBHOOKS_PENDING;
use crate::http::metrics::{ApiOutcome, QueueBacklog, Readings, count_store_error};
use crate::http::state::{AppState, ServicesState};
use crate::infra::clock::system_millis;
use crate::infra::engine::Starting;
use crate::infra::engine::holders::Holders;
use crate::infra::store::Kind;

/// The header carrying a request's id, taken from the client (or proxy) when it sends a
/// plain one (see [`keep_plain_request_id`]), else made by [`RandomRequestId`]; tower-http
/// sets it on the request and returns it on the response.
pub const REQUEST_ID: &str = "x-request-id";

/// Drops a client's request id unless it is short and plain (it goes into every log line).
pub fn keep_plain_request_id(mut request: Request) -> Request {
    let plain = request
        .headers()
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|id| {
            (1..=64).contains(&id.len())
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        });
    if !plain {
        request.headers_mut().remove(REQUEST_ID);
    }
    request
}

/// New request ids: 96 random bits in hex.
#[derive(Debug, Clone, Copy)]
pub struct RandomRequestId;

impl MakeRequestId for RandomRequestId {
    fn make_request_id<B>(&mut self, _: &axum::http::Request<B>) -> Option<RequestId> {
        let id = hex::encode(rand::random::<[u8; 12]>());
        HeaderValue::from_str(&id).ok().map(RequestId::new)
    }
}

fn status_class(status: StatusCode) -> &'static str {
    match status.as_u16() {
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    }
}

/// The middleware of every route, inside the request-id layers: runs the request in a
/// tracing span with its id (so every log line of the request carries it), logs one line when
/// it is answered and counts it. tower-http's `TraceLayer` cannot do this: its response hook
/// does not see the route or the API method that label both the line and the metrics.
pub async fn observe(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let id = request
        .headers()
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|path| path.as_str().to_owned());
    let span = tracing::info_span!("request", id = %id);
    let started = Instant::now();
    let response = next.run(request).instrument(span.clone()).await;
    let elapsed = started.elapsed();
    let status = response.status();
    let (endpoint, outcome, server_fault) = match response.extensions().get::<ApiOutcome>() {
        Some(api) => (api.method, api.outcome, api.server_fault),
        None => (
            route.as_deref().map_or("unmatched", intern),
            status_class(status),
            status.is_server_error(),
        ),
    };
    state
        .metrics
        .record(endpoint, outcome, server_fault, elapsed);
    // The spec answers a client's mistakes with HTTP 500 too: `fault` says whose it was.
    let fault = match (server_fault, status.is_success() || status.is_redirection()) {
        (true, _) => "server",
        (false, true) => "none",
        (false, false) => "client",
    };
    let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
    let status = status.as_u16();
    macro_rules! served {
        ($level:expr) => {
            tracing::event!($level, endpoint, outcome, fault, status, micros, "served")
        };
    }
    // Probes and scrapes come every few seconds: their lines are for debugging only.
    let probe = matches!(endpoint, "/healthz" | "/readyz" | "/metrics");
    span.in_scope(|| {
        if probe {
            served!(tracing::Level::DEBUG)
        } else {
            served!(tracing::Level::INFO)
        }
    });
    response
}

/// The middleware of every route: a request's engine calls are its client network's, until
/// the edge learns better (its customer, its API key: [`crate::infra::engine::holders`]).
pub async fn engine_holders(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let network = request
        .extensions()
        .get::<ConnectInfo<std::net::SocketAddr>>()
        .map(|info| {
            crate::http::client::limit_key(
                state
                    .edge
                    .trusted_proxies
                    .client(info.0.ip(), request.headers()),
            )
        });
    let holder = format!("network {}", network.as_deref().unwrap_or("unknown"));
    Holders::new(holder).scope(next.run(request)).await
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

/// The background queues `/metrics` reports, by the schedule each worker reads.
const QUEUES: [(Kind, &str); 4] = [
    (WEBHOOKS_PENDING, "webhook"),
    (PRESS_JOBS, "press_file"),
    (MAILS_PENDING, "mail"),
    (IMAGES, "image"),
];

/// `GET /metrics`: Prometheus text format. What is read from the store (blob bytes, queue
/// backlogs) waits at most 2 s each; a value that could not be read is left out or stale.
pub async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    const WAIT: Duration = Duration::from_secs(2);
    let blob_bytes = match tokio::time::timeout(WAIT, state.services.blobs.stored_bytes()).await {
        Ok(Ok(bytes)) => Some(bytes),
        Ok(Err(error)) => {
            tracing::warn!(%error, "metrics: cannot read the blob store's size");
            None
        }
        Err(_) => None,
    };
    // Jobs are stamped with the system clock.
    let now = system_millis();
    let mut queues = Vec::new();
    for (kind, queue) in QUEUES {
        match tokio::time::timeout(WAIT, state.services.store.backlog(kind)).await {
            Ok(Ok((items, earliest))) => queues.push(QueueBacklog {
                queue,
                items,
                oldest_due: Duration::from_millis(
                    earliest.map_or(0, |at| u64::try_from(now - at).unwrap_or(0)),
                ),
            }),
            Ok(Err(error)) => tracing::warn!(%error, queue, "metrics: cannot read a queue"),
            Err(_) => {}
        }
    }
    let readings = Readings {
        engine_usage: state.services.engine.usage(),
        blob_bytes,
        blob_cache: state.services.blobs.cache_stats(),
        queues,
    };
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static(prometheus_text::CONTENT_TYPE),
        )],
        state.metrics.render(&readings),
    )
        .into_response()
}

/// `GET /healthz`: the process serves requests.
pub async fn healthz() -> &'static str {
    "ok\n"
}

/// A blob id no content has (all zeros): what the readiness probe asks the blob store for.
const NO_SUCH_BLOB: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// `GET /readyz`: the store and the blob store answer and the engine has started and has
/// instances; 503 naming what is not ready otherwise, so a load balancer sends traffic
/// elsewhere.
pub async fn readyz(State(ServicesState(services)): State<ServicesState>) -> Response {
    let store = tokio::time::timeout(
        Duration::from_secs(2),
        services.store.get(API_KEYS, "readiness-probe"),
    )
    .await;
    // The blob store too (object storage may be down while the records are not): a read of
    // a blob that is never there.
    let blobs =
        tokio::time::timeout(Duration::from_secs(2), services.blobs.get(NO_SUCH_BLOB)).await;
    let blob_problem = match blobs {
        Ok(Ok(_)) => None,
        Ok(Err(error)) => {
            tracing::warn!(%error, "readiness: the blob store failed");
            count_store_error();
            Some("the blob store is unavailable")
        }
        Err(_) => Some("the blob store did not answer within 2 s"),
    };
    let problem = match (store, services.engine.state()) {
        (Ok(Ok(_)), _) if blob_problem.is_some() => blob_problem,
        (Ok(Ok(_)), Starting::Ready(pool)) if pool.usage().instances > 0 => None,
        (Ok(Ok(_)), Starting::Ready(_)) => Some("the engine has no instances"),
        (Ok(Ok(_)), Starting::Pending) => Some("the engine is starting"),
        (Ok(Ok(_)), Starting::Failed(_)) => Some("the engine could not start (see the log)"),
        (Ok(Err(error)), _) => {
            tracing::warn!(%error, "readiness: the store failed");
            count_store_error();
            Some("the store is unavailable")
        }
        (Err(_), _) => Some("the store did not answer within 2 s"),
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
