//! The order-confirmation webhook: besides the browser's callback, the host itself tells a
//! partner that packs it created with a `trackingId` were ordered, as a Standard Webhooks
//! message (<https://www.standardwebhooks.com/>):
//!
//! - `POST` to the key's callback URL, body `{"type":"order.confirmed","timestamp":...,
//!   "data":{"orderNumber","trackingId","packId"}}`;
//! - headers `webhook-id` (stable across retries), `webhook-timestamp` (seconds, this
//!   attempt) and `webhook-signature: v1,<base64 HMAC-SHA256(secret, id.timestamp.body)>`,
//!   the secret being the key's `whsec_` secret without its prefix, base64-decoded.
//!
//! Messages wait in a durable queue in the store (one record each, and an entry on the
//! store's schedule at its next attempt), so a restart loses none. A worker in every serving
//! process delivers those that are due, claiming each with compare-and-swap (a lease) so two
//! processes never send one at once; a failed attempt is
//! retried after the next delay of the schedule (default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
//! 10 h: about 27 hours in all), then given up. Delivered and given-up messages move to a
//! second kind of record the operator lists with `presspack webhooks list`.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use futures_util::StreamExt;
use hmac::{Hmac, KeyInit, Mac};
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::domain::keys;
use crate::domain::orders::record::{self, Order};
use crate::infra::fetch::{FetchPolicy, Fetcher};
use crate::infra::settings;
use crate::infra::store::{self, Kind, SharedStore, Store, StoreError, unix_millis};

/// Record kind: webhook messages waiting to be delivered (and their schedule).
pub const WEBHOOKS_PENDING: Kind = Kind::new("webhook");
/// Record kind: webhook messages delivered, or given up on after the last retry.
pub const WEBHOOKS_DONE: Kind = Kind::new("webhook-done");

pub const EVENT_TYPE: &str = "order.confirmed";

/// The webhooks' settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct WebhookSettings {
    /// Hosts webhooks may be sent to although they resolve to non-public addresses.
    #[serde(rename = "webhook_allow_hosts", deserialize_with = "settings::hosts")]
    pub allow_hosts: Vec<String>,
    /// Delays before the second, third, ... attempt.
    #[serde(rename = "webhook_retry_delays_ms", deserialize_with = "retry_delays")]
    pub retry_delays: Vec<Duration>,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        WebhookSettings {
            allow_hosts: Vec::new(),
            retry_delays: [
                5,
                5 * 60,
                30 * 60,
                2 * 60 * 60,
                5 * 60 * 60,
                10 * 60 * 60,
                10 * 60 * 60,
            ]
            .map(Duration::from_secs)
            .to_vec(),
        }
    }
}

/// Up to 50 comma-separated delays in milliseconds, each at most a week.
fn retry_delays<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<Duration>, D::Error> {
    const EXPECTED: &str = "up to 50 comma-separated delays in milliseconds, each at most a week";
    let delays = settings::list(
        deserializer,
        |delay| {
            let ms = delay.parse::<u64>().ok()?;
            (ms <= 7 * 24 * 60 * 60 * 1000).then(|| Duration::from_millis(ms))
        },
        EXPECTED,
    )?;
    if delays.len() > 50 {
        return Err(serde::de::Error::custom(format!("expected {EXPECTED}")));
    }
    Ok(delays)
}

/// How long one attempt may take, and how long a claim keeps others off a message.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(15);
const LEASE: Duration = Duration::from_secs(60);
/// How often the worker looks for due messages when nothing wakes it.
const POLL: Duration = Duration::from_millis(500);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    Pending,
    Delivered,
    GaveUp,
}

/// One webhook message and its delivery so far.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    /// `webhook-id`: `msg_` and 128 random bits, the same on every attempt.
    pub id: String,
    pub order_number: String,
    pub consumer_key: String,
    pub url: String,
    /// The exact body sent (and signed).
    pub body: String,
    pub state: DeliveryState,
    pub attempts: u32,
    /// Milliseconds since 1970.
    pub created_at: i64,
    pub next_attempt_at: i64,
    #[serde(default)]
    pub leased_until: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<i64>,
}

/// `v1,<signature>` for a message, with the key's `whsec_` secret.
pub fn signature(secret: &str, id: &str, timestamp: i64, body: &str) -> Option<String> {
    let key = STANDARD
        .decode(secret.strip_prefix("whsec_").unwrap_or(secret))
        .ok()?;
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&key).ok()?;
    mac.update(format!("{id}.{timestamp}.{body}").as_bytes());
    Some(format!(
        "v1,{}",
        STANDARD.encode(mac.finalize().into_bytes())
    ))
}

/// An RFC 3339 UTC time (`2026-11-23T16:05:00Z`) from seconds since 1970 (the times given
/// are the server's clock, far inside what RFC 3339 can write).
fn rfc3339(seconds: u64) -> String {
    i64::try_from(seconds)
        .ok()
        .and_then(|seconds| time::OffsetDateTime::from_unix_timestamp(seconds).ok())
        .and_then(|time| {
            time.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| "1970-01-01T00:00:00Z".to_owned())
}

/// Queues one message per ordered pack that has a trackingId and whose API key has a
/// callback URL; their ids. They wait until the order is committed (see [`crate::domain::orders`]).
pub async fn enqueue_order_confirmations(
    store: &dyn Store,
    order: &Order,
) -> Result<Vec<String>, StoreError> {
    let now = unix_millis();
    let mut ids = Vec::new();
    for line in &order.lines {
        let Some(tracking_id) = &line.tracking_id else {
            continue;
        };
        let Some(key) = keys::find(store, &line.created_by).await? else {
            continue;
        };
        let Some(url) = key.order_callback_url else {
            continue;
        };
        let body = serde_json::json!({
            "type": EVENT_TYPE,
            "timestamp": rfc3339(order.placed_at),
            "data": {
                "orderNumber": order.number,
                "trackingId": tracking_id,
                "packId": line.pack_id,
            }
        });
        let delivery = Delivery {
            id: format!("msg_{:032x}", rand::random::<u128>()),
            order_number: order.number.clone(),
            consumer_key: key.consumer_key,
            url,
            body: body.to_string(),
            state: DeliveryState::Pending,
            attempts: 0,
            created_at: now,
            next_attempt_at: now,
            leased_until: 0,
            last_error: None,
            finished_at: None,
        };
        let value =
            serde_json::to_vec(&delivery).map_err(|e| StoreError::corrupt(e.to_string()))?;
        store.insert(WEBHOOKS_PENDING, &delivery.id, &value).await?;
        store.schedule(WEBHOOKS_PENDING, &delivery.id, now).await?;
        ids.push(delivery.id);
    }
    Ok(ids)
}

/// The delivery side: the HTTP client (public addresses only, unless allowed), the retry
/// schedule and the worker's wake-up call.
pub struct Webhooks {
    fetcher: Fetcher,
    retry_delays: Vec<Duration>,
    wake: tokio::sync::Notify,
}

impl Webhooks {
    /// Makes the worker look at the queue now.
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    pub fn new(settings: WebhookSettings) -> Result<Webhooks, String> {
        let WebhookSettings {
            allow_hosts,
            retry_delays,
        } = settings;
        let fetcher = Fetcher::new(FetchPolicy {
            allow_hosts,
            resolve: Vec::new(),
            timeout: ATTEMPT_TIMEOUT,
            max_bytes: 64 * 1024,
        })
        .map_err(|e| e.to_string())?;
        Ok(Webhooks {
            fetcher,
            retry_delays,
            wake: tokio::sync::Notify::new(),
        })
    }
}

/// How many due messages the worker takes at a time, and sends at once.
const BATCH: usize = 64;
const CONCURRENT_DELIVERIES: usize = 8;

/// Delivers due messages until `stop` turns true. A delivery under way is finished first, so
/// a server that shuts down leaves no message claimed (which would hold it for a lease).
pub async fn run_worker(
    store: SharedStore,
    webhooks: Arc<Webhooks>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let (store, webhooks) = (store.as_ref(), webhooks.as_ref());
    if let Err(error) = reschedule_all(store).await {
        tracing::warn!(%error, "webhook queue: could not check the schedule at start");
    }
    while !*stop.borrow() {
        let now = unix_millis();
        match store.due(WEBHOOKS_PENDING, now, BATCH).await {
            Ok(ids) => {
                // Several at once, so that one slow receiver does not hold up the others;
                // each message is claimed on its own.
                let deliveries: Vec<_> = ids
                    .iter()
                    .map(|id| deliver_logged(store, webhooks, &stop, id))
                    .collect();
                futures_util::stream::iter(deliveries)
                    .buffer_unordered(CONCURRENT_DELIVERIES)
                    .collect::<Vec<()>>()
                    .await;
            }
            Err(error) => tracing::warn!(%error, "webhook queue unreadable"),
        }
        tokio::select! {
            () = tokio::time::sleep(POLL) => {}
            () = webhooks.wake.notified() => {}
            _ = stop.changed() => {}
        }
    }
}

/// One message's turn: delivered if due, unless the server is stopping (which starts no new
/// attempt); a failure of the queue itself is logged.
async fn deliver_logged(
    store: &dyn Store,
    webhooks: &Webhooks,
    stop: &tokio::sync::watch::Receiver<bool>,
    id: &str,
) {
    if *stop.borrow() {
        return;
    }
    if let Err(error) = deliver_if_due(store, webhooks, id).await {
        tracing::warn!(%error, webhook = %id, "webhook queue");
    }
}

/// Puts every pending message on the schedule at its own time: a process that stopped
/// between storing a message and scheduling it loses nothing. Runs once, at start.
async fn reschedule_all(store: &dyn Store) -> Result<(), StoreError> {
    for id in store.list(WEBHOOKS_PENDING).await? {
        if let Some((delivery, _)) = store::load::<Delivery>(store, WEBHOOKS_PENDING, &id).await? {
            store
                .schedule(WEBHOOKS_PENDING, &id, delivery.due_at())
                .await?;
        }
    }
    Ok(())
}

impl Delivery {
    /// When the next attempt may start: its time, or the end of a claim on it.
    fn due_at(&self) -> i64 {
        self.next_attempt_at.max(self.leased_until)
    }
}

/// Writes the message back with compare-and-swap and puts it on the schedule at its time.
async fn save(store: &dyn Store, delivery: &Delivery) -> Result<(), StoreError> {
    store::modify(
        store,
        WEBHOOKS_PENDING,
        &delivery.id,
        |stored: &mut Delivery| {
            *stored = delivery.clone();
            Ok::<_, StoreError>(())
        },
    )
    .await?;
    store
        .schedule(WEBHOOKS_PENDING, &delivery.id, delivery.due_at())
        .await
}

async fn deliver_if_due(
    store: &dyn Store,
    webhooks: &Webhooks,
    id: &str,
) -> Result<(), StoreError> {
    let Some((mut delivery, revision)) =
        store::load::<Delivery>(store, WEBHOOKS_PENDING, id).await?
    else {
        return store.unschedule(WEBHOOKS_PENDING, id).await;
    };
    let now = unix_millis();
    if delivery.due_at() > now {
        return store
            .schedule(WEBHOOKS_PENDING, id, delivery.due_at())
            .await;
    }
    // Claim it: another process that reads it now sees the lease and leaves it alone.
    delivery.leased_until = now + LEASE.as_millis() as i64;
    let value = serde_json::to_vec(&delivery).map_err(|e| StoreError::corrupt(e.to_string()))?;
    if !store
        .replace(WEBHOOKS_PENDING, id, &value, revision)
        .await?
    {
        return Ok(()); // another worker took it
    }
    store
        .schedule(WEBHOOKS_PENDING, id, delivery.leased_until)
        .await?;
    let outcome = match order_state(store, &delivery).await? {
        OrderState::Committed => attempt(store, webhooks, &delivery).await,
        OrderState::NotYet => {
            // The checkout is still between queueing and committing: look again shortly.
            delivery.leased_until = 0;
            delivery.next_attempt_at = now + 1000;
            return save(store, &delivery).await;
        }
        OrderState::Never => Err(Failed {
            // No retry can make an abandoned order placed.
            reason: "the order was never placed (its checkout did not complete)".to_owned(),
            retry: false,
        }),
    };
    delivery.attempts += 1;
    delivery.leased_until = 0;
    let now = unix_millis();
    let retry = match &outcome {
        Ok(()) => None,
        Err(failed) => {
            let error = &failed.reason;
            tracing::info!(webhook = %id, attempt = delivery.attempts, %error, "webhook attempt failed");
            delivery.last_error = Some(error.clone());
            let delays = &webhooks.retry_delays;
            delays
                .get(delivery.attempts as usize - 1)
                .filter(|_| failed.retry)
        }
    };
    match (outcome, retry) {
        (Err(_), Some(delay)) => {
            delivery.next_attempt_at = now + delay.as_millis() as i64;
            save(store, &delivery).await?;
        }
        (result, _) => {
            delivery.state = if result.is_ok() {
                DeliveryState::Delivered
            } else {
                DeliveryState::GaveUp
            };
            delivery.finished_at = Some(now);
            let value =
                serde_json::to_vec(&delivery).map_err(|e| StoreError::corrupt(e.to_string()))?;
            store.insert(WEBHOOKS_DONE, id, &value).await?;
            store.delete(WEBHOOKS_PENDING, id).await?;
            store.unschedule(WEBHOOKS_PENDING, id).await?;
            tracing::info!(webhook = %id, state = ?delivery.state, attempts = delivery.attempts, "webhook finished");
        }
    }
    Ok(())
}

/// Takes queued messages back (an order that lost its checkout).
pub async fn withdraw(store: &dyn Store, ids: &[String]) -> Result<(), StoreError> {
    for id in ids {
        store.delete(WEBHOOKS_PENDING, id).await?;
        store.unschedule(WEBHOOKS_PENDING, id).await?;
    }
    Ok(())
}

enum OrderState {
    Committed,
    NotYet,
    Never,
}

/// How long a checkout may take between queueing its webhooks and committing the order.
const COMMIT_GRACE: Duration = Duration::from_secs(120);

/// Whether the message's order was placed; a message is only ever sent for a placed order.
async fn order_state(store: &dyn Store, delivery: &Delivery) -> Result<OrderState, StoreError> {
    let placed = match record::load(store, &delivery.order_number).await? {
        Some(order) => record::is_committed(store, &order).await?,
        None => false,
    };
    let waited = unix_millis() - delivery.created_at;
    Ok(if placed {
        OrderState::Committed
    } else if waited < COMMIT_GRACE.as_millis() as i64 {
        OrderState::NotYet
    } else {
        OrderState::Never
    })
}

/// A failed attempt: why, and whether a later one could succeed.
struct Failed {
    reason: String,
    retry: bool,
}

impl From<String> for Failed {
    fn from(reason: String) -> Self {
        Failed {
            reason,
            retry: true,
        }
    }
}

impl From<&str> for Failed {
    fn from(reason: &str) -> Self {
        reason.to_owned().into()
    }
}

/// One attempt: `Ok` on a 2xx answer.
async fn attempt(
    store: &dyn Store,
    webhooks: &Webhooks,
    delivery: &Delivery,
) -> Result<(), Failed> {
    let key = keys::find(store, &delivery.consumer_key)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("the API key no longer exists")?;
    let secret = key
        .webhook_secret
        .ok_or("the API key has no webhook secret; set its callback URL again")?;
    let timestamp = unix_millis() / 1000;
    let signature = signature(&secret, &delivery.id, timestamp, &delivery.body)
        .ok_or("the API key's webhook secret is not valid base64")?;
    let mut headers = HeaderMap::new();
    let value = |text: &str| HeaderValue::from_str(text).map_err(|e| e.to_string());
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert("webhook-id", value(&delivery.id)?);
    headers.insert("webhook-timestamp", value(&timestamp.to_string())?);
    headers.insert("webhook-signature", value(&signature)?);
    let status = webhooks
        .fetcher
        .post(&delivery.url, headers, delivery.body.clone().into_bytes())
        .await
        .map_err(|e| Failed {
            // A URL the policy refuses stays refused: no retry can deliver it.
            retry: !e.is_refusal(),
            reason: match e.refused_address() {
                Some(address) => format!("the callback URL reaches {address}, which is not public"),
                None => e.to_string().trim_start_matches("imageUrl: ").to_owned(),
            },
        })?;
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("the callback URL answered HTTP {status}").into())
    }
}

/// Every message, pending first, for the operator. A message caught moving from pending to
/// done is shown once, done.
pub async fn list(store: &dyn Store) -> Result<Vec<Delivery>, StoreError> {
    let mut all: Vec<Delivery> = Vec::new();
    for kind in [WEBHOOKS_PENDING, WEBHOOKS_DONE] {
        for id in store.list(kind).await? {
            if let Some((delivery, _)) = store::load::<Delivery>(store, kind, &id).await? {
                all.retain(|d| d.id != delivery.id);
                all.push(delivery);
            }
        }
    }
    all.sort_by_key(|d| (d.state != DeliveryState::Pending, d.created_at));
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_the_standard_webhooks_example() {
        // The example of the Standard Webhooks specification (and its reference libraries).
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = r#"{"test": 2432232314}"#;
        assert_eq!(
            signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body).unwrap(),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn times_are_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_795_392_000), "2026-11-23T00:00:00Z");
        assert_eq!(rfc3339(951_825_599), "2000-02-29T11:59:59Z");
    }

    #[test]
    fn the_default_schedule_retries_for_more_than_a_day() {
        let total: Duration = WebhookSettings::default().retry_delays.iter().sum();
        assert!(total > Duration::from_secs(24 * 60 * 60), "{total:?}");
    }
}
