//! The press files of placed orders.
//!
//! Placing an order queues a job on the durable queue ([`crate::infra::queue`]; its id is the
//! order number). The job makes each pack's press file as ordered (crop marks, a slug line
//! naming the order, pack and copies, every pixel of each image), stores it as a blob and
//! records it, with its preflight report, in the order's press-file record: one pack at a
//! time, so a retry redoes only what is missing. A pack that cannot be printed as it is (its
//! own fault, which no retry changes) is recorded as failed with the reason; a fault of the
//! store or the engine is retried on the queue's schedule.
//!
//! The files reach the operator through `presspack orders artwork` and `orders show`, and
//! partners through signed, expiring addresses (`/press-files/{order}/{line}?expires=&signature=`)
//! carried by the order webhook.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use presspack_engine::press::{PressReport, Verdict};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use crate::domain::error::DomainError;
use crate::domain::ids::OrderNumber;
use crate::domain::orders::record::{self, Order, OrderLine, PressVerdict};
use crate::domain::press::{PackToPrint, PressKind, press_file};
use crate::domain::services::Services;
use crate::infra::queue::{self, Job, Outcome, Queue};
use crate::infra::secrets::SecretKey;
use crate::infra::store::{self, Kind, Records, Store, StoreError};

/// Record kind: an order's press files, by order number.
pub const PRESS_FILES: Kind = Kind::new("press-files");
/// Record kinds: the jobs making them, waiting and finished.
pub const PRESS_JOBS: Kind = Kind::new("press-job");
pub const PRESS_JOBS_DONE: Kind = Kind::new("press-job-done");
/// Index: the jobs given up, by when.
pub const PRESS_JOBS_GAVE_UP: Kind = Kind::new("press-job-gave-up");

/// A pack's press file in the order's record.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PressFile {
    /// The order line, counted from 0 as in the addresses.
    pub line: usize,
    /// [`PressFileState::Produced`] or [`PressFileState::Failed`].
    #[serde(flatten)]
    pub state: PressFileState,
}

/// An order's press-file record.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct OrderPressFiles {
    pub files: Vec<PressFile>,
}

/// Where one pack's press file stands.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum PressFileState {
    /// Stored as a blob.
    #[serde(rename_all = "camelCase")]
    Produced {
        blob: String,
        bytes: u64,
        report: PressReport,
        /// Milliseconds since 1970.
        produced_at: i64,
    },
    /// The pack cannot be printed as it is.
    Failed { reason: String },
    /// Its job has not reached it yet; `last_error` is why the last attempt failed, if one did.
    #[serde(rename_all = "camelCase")]
    InProduction { last_error: Option<String> },
    /// Its job gave up after its last retry.
    #[serde(rename_all = "camelCase")]
    GaveUp { last_error: Option<String> },
    /// Never queued (an order placed before press files were made).
    NotQueued,
}

/// The file name of a pack's press file.
pub fn file_name(number: &str, line: usize) -> String {
    format!("{number}-{}-press.pdf", line + 1)
}

/// The job that makes an order's press files.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PressJob {
    pub order_number: OrderNumber,
}

/// Queues the job making `number`'s press files (nothing if one is queued already).
pub async fn enqueue(store: &dyn Store, number: &OrderNumber) -> Result<bool, StoreError> {
    let job = PressJob {
        order_number: number.clone(),
    };
    queue::enqueue::<PressFileJobs>(store, number, job).await
}

/// Forgets pack `line`'s press file and queues the job that makes the missing ones: the line
/// holds new artwork.
pub async fn make_again(
    store: &dyn Store,
    number: &OrderNumber,
    line: usize,
) -> Result<(), StoreError> {
    store::modify(
        store,
        PRESS_FILES,
        number,
        |record: &mut OrderPressFiles| {
            record.files.retain(|file| file.line != line);
            Ok::<_, StoreError>(())
        },
    )
    .await?;
    enqueue(store, number).await?;
    Ok(())
}

/// Takes the job back (an order whose checkout failed).
pub async fn withdraw(store: &dyn Store, number: &OrderNumber) -> Result<(), StoreError> {
    queue::withdraw::<PressFileJobs>(store, &[number.to_string()]).await
}

/// Whether the job making `number`'s press files is still waiting or running.
pub async fn in_production(store: &dyn Records, number: &OrderNumber) -> Result<bool, StoreError> {
    Ok(store.get(PRESS_JOBS, number).await?.is_some())
}

/// Where each pack of `order` stands, in line order.
pub async fn states(store: &dyn Store, order: &Order) -> Result<Vec<PressFileState>, StoreError> {
    let record = store::load::<OrderPressFiles>(store, PRESS_FILES, &order.number)
        .await?
        .map(|(record, _)| record)
        .unwrap_or_default();
    let job = queue::find::<PressFileJobs>(store, &order.number).await?;
    Ok((0..order.lines.len())
        .map(|line| {
            if let Some(file) = record.files.iter().find(|f| f.line == line) {
                return file.state.clone();
            }
            let Some(job) = &job else {
                return PressFileState::NotQueued;
            };
            let last_error = job.last_error.clone();
            match job.state {
                queue::JobState::Pending => PressFileState::InProduction { last_error },
                // A finished job recorded every pack; one without a record gave up.
                queue::JobState::Done | queue::JobState::GaveUp => {
                    PressFileState::GaveUp { last_error }
                }
            }
        })
        .collect())
}

/// What the printer's check says of one pack's press file.
pub fn verdict_of_file(state: &PressFileState) -> PressVerdict {
    match state {
        PressFileState::Produced { report, .. } => match report.verdict {
            Verdict::Block => PressVerdict::Block,
            Verdict::Warn => PressVerdict::Warning,
            Verdict::Pass => PressVerdict::Pass,
        },
        PressFileState::Failed { .. } | PressFileState::GaveUp { .. } => PressVerdict::Block,
        PressFileState::InProduction { .. } | PressFileState::NotQueued => PressVerdict::NotMade,
    }
}

/// What the printer's check says of `states` (an order's packs'), the worst first: a file that
/// blocks, or a pack that cannot be printed or whose job gave up, blocks the order.
pub fn verdict_of(states: &[PressFileState]) -> PressVerdict {
    states
        .iter()
        .map(verdict_of_file)
        .min()
        .unwrap_or(PressVerdict::Pass)
}

/// The press verdict of `order` as its files stand now.
pub async fn verdict(store: &dyn Store, order: &Order) -> Result<PressVerdict, StoreError> {
    Ok(verdict_of(&states(store, order).await?))
}

/// Delays before the second, third, ... attempt of a press-file job (about a day in all).
const RETRY_DELAYS: [Duration; 7] = [
    Duration::from_secs(10),
    Duration::from_secs(60),
    Duration::from_secs(5 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(2 * 60 * 60),
    Duration::from_secs(6 * 60 * 60),
    Duration::from_secs(12 * 60 * 60),
];

/// The queue of press-file jobs, run with the services that make the files.
pub struct PressFileJobs(pub Arc<Services>);

#[async_trait]
impl Queue for PressFileJobs {
    type Payload = PressJob;
    const PENDING: Kind = PRESS_JOBS;
    const DONE: Kind = PRESS_JOBS_DONE;
    const GAVE_UP: Kind = PRESS_JOBS_GAVE_UP;
    /// A pack of large photos takes seconds; a busy engine queues it.
    const LEASE: Duration = Duration::from_secs(10 * 60);
    /// One at a time per process: each is CPU work for the engine, which also renders.
    const CONCURRENCY: usize = 1;

    fn retry_delays(&self) -> &[Duration] {
        &RETRY_DELAYS
    }

    async fn attempt(&self, store: &dyn Store, job: &Job<PressJob>) -> Outcome {
        let number = &job.payload.order_number;
        if let Some(waiting) = record::hold_until_placed(store, number, job.created_at).await {
            return waiting;
        }
        match self.make_missing(store, number).await {
            Ok(()) => Outcome::Done,
            Err(error) => Outcome::retry(match error.cause {
                Some(cause) => format!("{} ({cause})", error.message),
                None => error.message,
            }),
        }
    }
}

impl PressFileJobs {
    /// Makes and records the press file of every pack of order `number` that has none yet.
    async fn make_missing(
        &self,
        store: &dyn Store,
        number: &OrderNumber,
    ) -> Result<(), DomainError> {
        let order = record::load(store, number)
            .await?
            .ok_or_else(|| StoreError::corrupt(format!("order {number} vanished")))?;
        // The order is placed: in the indexes, should the checkout's own write have been lost.
        record::index(store, &order, None).await?;
        let recorded = store::load::<OrderPressFiles>(store, PRESS_FILES, number)
            .await?
            .map(|(record, _)| record)
            .unwrap_or_default();
        for (line, ordered) in order.lines.iter().enumerate() {
            if recorded.files.iter().any(|file| file.line == line) {
                continue;
            }
            let state = match self.make(&order, line, ordered).await {
                Ok(made) => made,
                // The store or the engine: a later attempt may get through.
                Err(error) if error.code.kind().is_server_fault() => return Err(error),
                Err(error) => PressFileState::Failed {
                    reason: error.message,
                },
            };
            if let PressFileState::Failed { reason } = &state {
                tracing::warn!(order = %number, line, %reason, "a pack's press file cannot be made");
            }
            save(store, number, PressFile { line, state }).await?;
        }
        // Blocked orders go on top of the console's list. The order is read again: an
        // operator may have moved it while its files were made, and its state decides its
        // indexes.
        let order = record::load(store, number)
            .await?
            .ok_or_else(|| StoreError::corrupt(format!("order {number} vanished")))?;
        let verdict = verdict(store, &order).await?;
        record::index(store, &order, Some(verdict)).await?;
        tracing::info!(order = %number, packs = order.lines.len(), verdict = verdict.code(), "press files made");
        Ok(())
    }

    async fn make(
        &self,
        order: &Order,
        line: usize,
        ordered: &OrderLine,
    ) -> Result<PressFileState, DomainError> {
        let services = &self.0;
        let print = PackToPrint::ordered(services, ordered)?;
        let slug = format!(
            "Order {} pack {} of {}, {} x{}",
            order.number,
            line + 1,
            order.lines.len(),
            ordered.product,
            ordered.quantity
        );
        let title = format!("Order {} pack {}: {}", order.number, line + 1, ordered.name);
        let (report, pdf) =
            press_file(services, &print, &title, PressKind::Press { slug: &slug }).await?;
        let bytes = pdf.len() as u64;
        let blob = services
            .blobs
            .put(&format!("order:{}", order.number), pdf.into())
            .await?;
        Ok(PressFileState::Produced {
            blob,
            bytes,
            report,
            produced_at: services.clock.unix_millis(),
        })
    }
}

/// Records one pack's file in the order's press-file record (made by the first).
async fn save(store: &dyn Store, number: &OrderNumber, file: PressFile) -> Result<(), StoreError> {
    loop {
        let changed = store::modify(
            store,
            PRESS_FILES,
            number,
            |record: &mut OrderPressFiles| {
                record.files.retain(|f| f.line != file.line);
                record.files.push(file.clone());
                record.files.sort_by_key(|f| f.line);
                Ok::<_, StoreError>(())
            },
        )
        .await?;
        if changed.is_some() {
            return Ok(());
        }
        let first = OrderPressFiles {
            files: vec![file.clone()],
        };
        let value = serde_json::to_vec(&first).map_err(|e| StoreError::corrupt(e.to_string()))?;
        if store.insert(PRESS_FILES, number, &value).await? {
            return Ok(());
        }
    }
}

/// Signed, expiring addresses of press files, for the order webhook.
pub struct PressFileLinks<'a> {
    pub base_url: &'a str,
    pub key: &'a SecretKey,
    /// When they stop working, seconds since 1970.
    pub expires: u64,
}

/// One press file's address.
pub struct Link {
    pub url: String,
    pub expires: u64,
}

const LINK_PURPOSE: &str = "press-file-link";

fn link_signature(key: &SecretKey, number: &str, line: usize, expires: u64) -> String {
    key.mac(
        LINK_PURPOSE,
        &[
            number.as_bytes(),
            line.to_string().as_bytes(),
            expires.to_string().as_bytes(),
        ],
    )
}

impl PressFileLinks<'_> {
    pub fn link(&self, number: &str, line: usize) -> Link {
        let signature = link_signature(self.key, number, line, self.expires);
        Link {
            url: format!(
                "{}/press-files/{number}/{line}?expires={}&signature={signature}",
                self.base_url, self.expires
            ),
            expires: self.expires,
        }
    }
}

/// Why an address does not give its file.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error("signature: this address was not made by this service, or was changed")]
    Forged,
    #[error("expires: this address stopped working; ask the shop for a new one")]
    Expired,
}

/// Checks an address's signature (in constant time), then its expiry at `now` (seconds).
pub fn check_link(
    key: &SecretKey,
    number: &str,
    line: usize,
    expires: u64,
    signature: &str,
    now: u64,
) -> Result<(), LinkError> {
    let expected = link_signature(key, number, line, expires);
    if !bool::from(expected.as_bytes().ct_eq(signature.as_bytes())) {
        return Err(LinkError::Forged);
    }
    if now >= expires {
        return Err(LinkError::Expired);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_checks_only_with_its_own_order_line_and_time() {
        let key = SecretKey::random();
        let links = PressFileLinks {
            base_url: "https://print.example",
            key: &key,
            expires: 2_000,
        };
        let url = links.link("PP-ABC", 1).url;
        let signature = url.rsplit_once("signature=").unwrap().1;
        assert!(url.starts_with("https://print.example/press-files/PP-ABC/1?expires=2000&"));
        assert_eq!(
            check_link(&key, "PP-ABC", 1, 2_000, signature, 1_999),
            Ok(())
        );
        for (number, line, expires) in [
            ("PP-ABD", 1, 2_000),
            ("PP-ABC", 0, 2_000),
            ("PP-ABC", 1, 2_001),
        ] {
            assert_eq!(
                check_link(&key, number, line, expires, signature, 1_000),
                Err(LinkError::Forged)
            );
        }
        assert_eq!(
            check_link(&key, "PP-ABC", 1, 2_000, signature, 2_000),
            Err(LinkError::Expired)
        );
        let other = SecretKey::random();
        assert_eq!(
            check_link(&other, "PP-ABC", 1, 2_000, signature, 1_000),
            Err(LinkError::Forged)
        );
    }
}
