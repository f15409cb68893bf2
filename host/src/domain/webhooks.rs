//! The order webhooks: besides the browser's callback, the host itself tells a partner that
//! packs it created with a `trackingId` were ordered, and how their order moves on, as
//! Standard Webhooks messages (<https://www.standardwebhooks.com/>):
//!
//! - `POST` to the key's callback URL, body `{"type":"order.confirmed","timestamp":...,
//!   "data":{"orderNumber","trackingId","packId"}}`; later `order.in_production`,
//!   `order.on_hold` (with `reason`), `order.shipped` (with `carrier` and `trackingNumber`) and
//!   `order.cancelled`, and of its
//!   payment `order.paid` and `order.refunded` (with `payment` = `{"state","reference","at"}`);
//! - headers `webhook-id` (stable across retries), `webhook-timestamp` (seconds, this
//!   attempt) and `webhook-signature: v1,<base64 HMAC-SHA256(secret, id.timestamp.body)>`,
//!   the secret being the key's `whsec_` secret without its prefix, base64-decoded;
//! - for a pack whose order has press files, `data.pressFile` = `{"url","expiresAt"}`: a
//!   signed address of the pack's press file that works until `expiresAt`
//!   (`press_file_link_hours` after the order).
//!
//! Messages wait in the store's durable job queue ([`crate::infra::queue`]): a restart loses
//! none, two processes never send one at once, and a failed attempt is retried after the
//! next delay of the schedule (default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: about 27
//! hours in all), then given up. A message waits (up to [`PRESS_FILE_WAIT`]) for its order's
//! press files, so that the address it carries answers with the file. Delivered and given-up
//! messages move to a second kind of record the operator lists with `presspack webhooks list`.

use std::time::Duration;

use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::domain::ids::OrderNumber;
use crate::domain::keys;
use crate::domain::orders::press_files::{self, PressFileLinks};
use crate::domain::orders::record::{
    self, Order, OrderStatus, PaymentChange, PaymentState, StatusChange,
};
use crate::infra::clock::system_millis;
use crate::infra::fetch::{FetchPolicy, Fetcher};
use crate::infra::queue::{self, Job, Outcome, Queue};
use crate::infra::settings;
use crate::infra::store::{Kind, Store, StoreError};

/// Record kind: webhook messages waiting to be delivered (and their schedule).
pub const WEBHOOKS_PENDING: Kind = Kind::new("webhook");
/// Record kind: webhook messages delivered, or given up on after the last retry.
pub const WEBHOOKS_DONE: Kind = Kind::new("webhook-done");
/// Index: the jobs given up, by when.
pub const WEBHOOKS_GAVE_UP: Kind = Kind::new("webhook-gave-up");

pub const EVENT_TYPE: &str = "order.confirmed";

/// The webhooks' settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct WebhookSettings {
    /// Hosts webhooks may be sent to although they resolve to non-public addresses.
    #[serde(rename = "webhook_allow_hosts", deserialize_with = "settings::hosts")]
    pub allow_hosts: Vec<String>,
    /// Delays before the second, third, ... attempt.
    #[serde(
        rename = "webhook_retry_delays_ms",
        deserialize_with = "settings::retry_delays"
    )]
    pub retry_delays: Vec<Duration>,
    /// How long the press-file addresses in a message work, from the order.
    #[serde(
        rename = "press_file_link_hours",
        deserialize_with = "settings::hours::<_, 1, 2160>"
    )]
    pub press_file_link: Duration,
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
            press_file_link: Duration::from_secs(7 * 24 * 60 * 60),
        }
    }
}

/// How long one attempt may take; a claim keeps other processes off a message for longer.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(15);

/// How long a message waits for its order's press files before it goes without them (their
/// address then answers "not ready yet" until they are).
pub const PRESS_FILE_WAIT: Duration = Duration::from_secs(120);

/// One webhook message.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookMessage {
    pub order_number: OrderNumber,
    pub consumer_key: String,
    pub url: String,
    /// The exact body sent (and signed).
    pub body: String,
    /// The order change it tells (none: the order's confirmation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
}

/// A message and its delivery so far; its id (`webhook-id`) is `msg_` and 128 random bits,
/// the same on every attempt.
pub type Delivery = Job<WebhookMessage>;

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

/// What a message tells.
pub enum OrderEvent<'a> {
    /// `order.confirmed`: the order was placed; each pack's message carries its press file's
    /// address.
    Confirmed(&'a PressFileLinks<'a>),
    /// `order.in_production`, `order.shipped` (with carrier and tracking number) or
    /// `order.cancelled`: an operator moved the order on.
    Changed(&'a StatusChange),
    /// `order.paid` or `order.refunded` (with the payment's reference and time): an operator
    /// or the shop's back office recorded a payment.
    Payment(&'a PaymentChange),
    /// `order.artwork_replaced` (with the line and its new pack): the customer's new artwork
    /// replaced pack `line`'s, and the order left its hold (`change`).
    ArtworkReplaced {
        change: &'a StatusChange,
        line: usize,
    },
}

impl OrderEvent<'_> {
    fn type_name(&self) -> &'static str {
        match self {
            OrderEvent::Confirmed(_) => EVENT_TYPE,
            OrderEvent::Changed(change) => match change.status {
                OrderStatus::Placed => EVENT_TYPE,
                OrderStatus::InProduction => "order.in_production",
                OrderStatus::OnHold { .. } => "order.on_hold",
                OrderStatus::Shipped { .. } => "order.shipped",
                OrderStatus::Cancelled => "order.cancelled",
            },
            OrderEvent::ArtworkReplaced { .. } => "order.artwork_replaced",
            OrderEvent::Payment(change) => match change.state {
                PaymentState::AwaitingInvoicePayment => EVENT_TYPE,
                PaymentState::Paid => "order.paid",
                PaymentState::Refunded => "order.refunded",
            },
        }
    }
}

/// Queues one message about `order` per ordered pack that has a trackingId and whose API key
/// has a callback URL; their ids. They wait until the order is committed (see
/// [`crate::domain::orders`]), or the change they tell is written
/// ([`crate::domain::orders::status`]).
pub async fn enqueue_order_event(
    store: &dyn Store,
    order: &Order,
    event: &OrderEvent<'_>,
) -> Result<Vec<String>, StoreError> {
    let mut ids = Vec::new();
    for (index, line) in order.lines.iter().enumerate() {
        let Some(tracking_id) = &line.tracking_id else {
            continue;
        };
        let Some(key) = keys::find(store, &line.created_by).await? else {
            continue;
        };
        let Some(url) = key.order_callback_url else {
            continue;
        };
        let mut data = serde_json::json!({
            "orderNumber": order.number,
            "trackingId": tracking_id,
            "packId": line.pack_id,
        });
        let (timestamp, change) = match event {
            OrderEvent::Confirmed(links) => {
                let link = links.link(&order.number, index);
                data["pressFile"] = serde_json::json!({
                    "url": link.url,
                    "expiresAt": rfc3339(link.expires),
                });
                (order.placed_at, None)
            }
            OrderEvent::Changed(change) => {
                match &change.status {
                    OrderStatus::Shipped {
                        carrier,
                        tracking_number,
                    } => {
                        data["carrier"] = carrier.as_str().into();
                        data["trackingNumber"] = tracking_number.as_str().into();
                    }
                    OrderStatus::OnHold { reason } => data["reason"] = reason.as_str().into(),
                    _ => {}
                }
                (change.at, Some(change.id.clone()))
            }
            OrderEvent::ArtworkReplaced { change, line } => {
                data["artwork"] = serde_json::json!({
                    "line": line,
                    "packId": order.lines.get(*line).map(|l| l.pack_id.to_string()),
                });
                (change.at, Some(change.id.clone()))
            }
            OrderEvent::Payment(change) => {
                data["payment"] = serde_json::json!({
                    "state": change.state.code(),
                    "reference": change.reference,
                    "at": rfc3339(change.at),
                });
                (change.at, Some(change.id.clone()))
            }
        };
        let body = serde_json::json!({
            "type": event.type_name(),
            "timestamp": rfc3339(timestamp),
            "data": data,
        });
        let message = WebhookMessage {
            order_number: order.number.clone(),
            consumer_key: key.consumer_key,
            url,
            body: body.to_string(),
            change,
        };
        let id = format!("msg_{:032x}", rand::random::<u128>());
        queue::enqueue::<Webhooks>(store, &id, message).await?;
        ids.push(id);
    }
    Ok(ids)
}

/// The delivery side: the HTTP client (public addresses only, unless allowed) and the retry
/// schedule.
pub struct Webhooks {
    fetcher: Fetcher,
    retry_delays: Vec<Duration>,
}

impl Webhooks {
    pub fn new(settings: WebhookSettings) -> Result<Webhooks, String> {
        let fetcher = Fetcher::new(FetchPolicy {
            allow_hosts: settings.allow_hosts,
            resolve: Vec::new(),
            timeout: ATTEMPT_TIMEOUT,
            max_bytes: 64 * 1024,
        })
        .map_err(|e| e.to_string())?;
        Ok(Webhooks {
            fetcher,
            retry_delays: settings.retry_delays,
        })
    }
}

#[async_trait]
impl Queue for Webhooks {
    type Payload = WebhookMessage;
    const PENDING: Kind = WEBHOOKS_PENDING;
    const DONE: Kind = WEBHOOKS_DONE;
    const GAVE_UP: Kind = WEBHOOKS_GAVE_UP;
    const LEASE: Duration = Duration::from_secs(60);
    /// Several at once, so that one slow receiver does not hold up the others.
    const CONCURRENCY: usize = 8;

    fn retry_delays(&self) -> &[Duration] {
        &self.retry_delays
    }

    async fn attempt(&self, store: &dyn Store, delivery: &Delivery) -> Outcome {
        let (number, queued_at) = (&delivery.payload.order_number, delivery.created_at);
        let waiting = record::hold_until_written(
            store,
            number,
            delivery.payload.change.as_deref(),
            queued_at,
        )
        .await;
        if let Some(waiting) = waiting {
            return waiting;
        }
        // A confirmation carries the press files' addresses: it waits for them a while.
        if delivery.payload.change.is_none() {
            match press_files::in_production(store, number).await {
                Ok(true) if system_millis() - queued_at < PRESS_FILE_WAIT.as_millis() as i64 => {
                    return Outcome::NotYet(Duration::from_secs(1));
                }
                Ok(_) => {}
                Err(error) => return Outcome::retry(error.to_string()),
            }
        }
        match self.send(store, delivery).await {
            Ok(()) => Outcome::Done,
            Err(failed) => failed,
        }
    }
}

impl Webhooks {
    /// One attempt: `Ok` on a 2xx answer.
    async fn send(&self, store: &dyn Store, delivery: &Delivery) -> Result<(), Outcome> {
        let message = &delivery.payload;
        let key = keys::find(store, &message.consumer_key)
            .await
            .map_err(|e| Outcome::retry(e.to_string()))?
            .ok_or_else(|| Outcome::retry("the API key no longer exists"))?;
        let secret = key.webhook_secret.ok_or_else(|| {
            Outcome::retry("the API key has no webhook secret; set its callback URL again")
        })?;
        // The receiver checks it against its own clock: the system's, never a test's.
        let timestamp = system_millis() / 1000;
        let signature = signature(&secret, &delivery.id, timestamp, &message.body)
            .ok_or_else(|| Outcome::retry("the API key's webhook secret is not valid base64"))?;
        let timestamp = timestamp.to_string();
        let headers = [
            ("content-type", "application/json"),
            ("webhook-id", delivery.id.as_str()),
            ("webhook-timestamp", timestamp.as_str()),
            ("webhook-signature", signature.as_str()),
        ];
        let status = self
            .fetcher
            .post(&message.url, &headers, message.body.clone().into_bytes())
            .await
            .map_err(|e| Outcome::Failed {
                // A URL the policy refuses stays refused: no retry can deliver it.
                retry: !e.is_refusal(),
                reason: match e.refused_address() {
                    Some(address) => {
                        format!("the callback URL reaches {address}, which is not public")
                    }
                    None => e.to_string().trim_start_matches("imageUrl: ").to_owned(),
                },
            })?;
        if status.is_success() {
            Ok(())
        } else {
            Err(Outcome::retry(format!(
                "the callback URL answered HTTP {status}"
            )))
        }
    }
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
