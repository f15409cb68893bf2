//! The HTTP server loop: connections accepted from a listener and served by hyper, with the
//! bounds a public server needs and `axum::serve` does not offer.
//!
//! - Request headers must arrive within [`ServerLimits::header_timeout`] (a client that
//!   opens connections and sends nothing holds no more than a socket for that long).
//! - Request bodies must keep arriving at [`ServerLimits::min_body_rate`], checked over
//!   windows of [`BODY_WINDOW`]: a body that trickles fails with [`BodyTooSlow`], which the
//!   reader sees as a read error, and whatever the request held (an upload permit) is let go.
//! - A shutdown stops accepting, lets requests in flight finish, and closes what is left
//!   after [`ServerLimits::drain_timeout`]: idle or stalled connections never hold it up.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use axum::http::Request;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::time::{Instant, Sleep};
use tower::ServiceExt;

use crate::infra::settings;

/// The window over which a body's rate is checked.
pub const BODY_WINDOW: Duration = Duration::from_secs(5);

/// The server loop's settings.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
#[serde(default)]
pub struct ServerLimits {
    /// Longest time from a connection's first byte (or its previous request) to the end of a
    /// request's headers.
    #[serde(
        rename = "header_timeout_ms",
        deserialize_with = "settings::millis::<_, 100, 600_000>"
    )]
    pub header_timeout: Duration,
    /// Fewest bytes a second a request body must arrive at, over each [`BODY_WINDOW`].
    #[serde(
        rename = "min_body_bytes_per_second",
        deserialize_with = "settings::count::<_, _, 0, 1_073_741_824>"
    )]
    pub min_body_rate: u64,
    /// Longest a shutdown waits for requests in flight before closing their connections.
    #[serde(
        rename = "shutdown_drain_ms",
        deserialize_with = "settings::millis::<_, 0, 3_600_000>"
    )]
    pub drain_timeout: Duration,
}

impl Default for ServerLimits {
    fn default() -> Self {
        ServerLimits {
            header_timeout: Duration::from_secs(10),
            min_body_rate: 16 * 1024,
            drain_timeout: Duration::from_secs(10),
        }
    }
}

/// Serves `router` on `listener` until `shutdown` completes, then drains (see the module).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ServerLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    builder.http2().timer(TokioTimer::new());
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, or a connection reset before it was taken:
                    // wait a moment rather than spin.
                    tracing::warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            let mut request = request.map(|body| Body::new(PacedBody::new(body, limits)));
            request.extensions_mut().insert(ConnectInfo(peer));
            router.clone().oneshot(request)
        });
        let connection = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), service)
            .into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(error = %error, "connection ended with an error");
            }
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(limits.drain_timeout) => {
            tracing::warn!(
                drain_ms = limits.drain_timeout.as_millis() as u64,
                "connections still open when the drain time ran out; closing them"
            );
        }
    }
    Ok(())
}

/// A request body that arrived slower than the server's minimum rate.
#[derive(Debug, thiserror::Error)]
#[error(
    "the request body arrived slower than {min_rate} bytes a second; send it at least that fast"
)]
pub struct BodyTooSlow {
    pub min_rate: u64,
}

/// Whether a body read failed because the body was too slow; the rate it had to keep.
pub fn too_slow(error: &(dyn std::error::Error + 'static)) -> Option<u64> {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if let Some(slow) = error.downcast_ref::<BodyTooSlow>() {
            return Some(slow.min_rate);
        }
        cause = error.source();
    }
    None
}

pin_project_lite::pin_project! {
    /// A body that fails with [`BodyTooSlow`] when fewer than the minimum bytes arrive in a
    /// window. Checked when a window ends while the reader waits; a body that ends first
    /// was fast enough.
    struct PacedBody {
        #[pin]
        inner: Incoming,
        #[pin]
        window_end: Sleep,
        received: u64,
        min_rate: u64,
    }
}

impl PacedBody {
    fn new(inner: Incoming, limits: ServerLimits) -> PacedBody {
        PacedBody {
            inner,
            window_end: tokio::time::sleep(BODY_WINDOW),
            received: 0,
            min_rate: limits.min_body_rate,
        }
    }
}

impl http_body::Body for PacedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let mut this = self.project();
        loop {
            match this.inner.as_mut().poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => {
                    if let Some(data) = frame.data_ref() {
                        *this.received += data.len() as u64;
                    }
                    return Poll::Ready(Some(Ok(frame)));
                }
                Poll::Ready(Some(Err(error))) => {
                    return Poll::Ready(Some(Err(axum::Error::new(error))));
                }
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => {}
            }
            if this.window_end.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            let needed = *this.min_rate * BODY_WINDOW.as_secs();
            if *this.received < needed {
                let slow = BodyTooSlow {
                    min_rate: *this.min_rate,
                };
                return Poll::Ready(Some(Err(axum::Error::new(slow))));
            }
            *this.received = 0;
            this.window_end.as_mut().reset(Instant::now() + BODY_WINDOW);
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
