//! What every store offers: the [`Store`] trait, the record kinds, the errors, and the
//! typed helpers over it (load, decode, modify with compare-and-swap).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures_util::future::BoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A kind of record: a key space of its own, declared by the module whose records it holds
/// (`domain::packs::PACKS` is "pack"), so a new kind of record needs nothing here. The name is
/// part of every stored key (and of the embedded store's rows): never rename one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind(&'static str);

impl Kind {
    pub const fn new(name: &'static str) -> Kind {
        Kind(name)
    }

    pub fn as_str(self) -> &'static str {
        self.0
    }
}

/// A stored value with the revision it was read at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versioned {
    pub revision: u64,
    pub value: Vec<u8>,
}

/// What kind of store failure: callers answer "try again" to the first and the last, and
/// treat a corrupt record as the server's fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreErrorKind {
    /// The store cannot be reached or failed to answer.
    Unavailable,
    /// A record cannot be read (or written) as what it should be.
    Corrupt,
    /// Other writers kept changing the record; the write did not happen.
    Conflict,
}

#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct StoreError {
    pub kind: StoreErrorKind,
    /// For the log: it can name hosts and paths.
    pub message: String,
}

impl StoreError {
    pub fn unavailable(message: impl Into<String>) -> StoreError {
        StoreError {
            kind: StoreErrorKind::Unavailable,
            message: message.into(),
        }
    }

    pub fn corrupt(message: impl Into<String>) -> StoreError {
        StoreError {
            kind: StoreErrorKind::Corrupt,
            message: message.into(),
        }
    }

    pub fn conflict(message: impl Into<String>) -> StoreError {
        StoreError {
            kind: StoreErrorKind::Conflict,
            message: message.into(),
        }
    }
}

/// A short-lived entry under a record, for [`Claims::get_and_claim`].
#[derive(Debug, Clone, Copy)]
pub struct Claim<'a> {
    pub kind: Kind,
    pub id: &'a str,
    pub ttl: Duration,
}

/// Versioned records: read, insert, compare-and-swap, delete, list.
#[async_trait]
pub trait Records: Send + Sync {
    async fn get(&self, kind: Kind, id: &str) -> Result<Option<Versioned>, StoreError>;

    /// Stores a new record at revision 1; `false` (and no write) if the key exists.
    async fn insert(&self, kind: Kind, id: &str, value: &[u8]) -> Result<bool, StoreError>;

    /// Replaces the record if it is still at `revision`; `false` (and no write) if it has been
    /// written or deleted since.
    async fn replace(
        &self,
        kind: Kind,
        id: &str,
        value: &[u8],
        revision: u64,
    ) -> Result<bool, StoreError>;

    /// Deletes the record if it is still at `revision`; `false` (and no delete) if it has been
    /// written or deleted since.
    async fn remove(&self, kind: Kind, id: &str, revision: u64) -> Result<bool, StoreError>;

    /// Deletes a record or blob; `false` if there was none.
    async fn delete(&self, kind: Kind, id: &str) -> Result<bool, StoreError>;

    /// The ids of every record of `kind`, sorted. For small, operator-managed kinds only (on
    /// Redis it scans the whole key space).
    async fn list(&self, kind: Kind) -> Result<Vec<String>, StoreError>;
}

/// Short-lived claims under a record ("seen before?", as OAuth nonces are).
#[async_trait]
pub trait Claims: Send + Sync {
    /// Reads the record `kind`/`id`, as [`Records::get`], and in the same step claims `claim`
    /// under it: one round trip on Redis, where the claim shares the record's hash slot.
    /// `true` if the claim was free (no unexpired claim of its kind and id under this record).
    /// Claims are a space apart from records, never read, and vanish after their `ttl`: the use
    /// is "seen before?" (an OAuth nonce under its API key).
    async fn get_and_claim(
        &self,
        kind: Kind,
        id: &str,
        claim: &Claim<'_>,
    ) -> Result<(Option<Versioned>, bool), StoreError>;

    /// Frees a claim made by [`Claims::get_and_claim`] (a request that turned out invalid
    /// gives its nonce back).
    async fn release_claim(
        &self,
        kind: Kind,
        id: &str,
        claim: &Claim<'_>,
    ) -> Result<(), StoreError>;
}

/// Fixed-window counters (rate limits, sign-in attempts).
#[async_trait]
pub trait Counters: Send + Sync {
    /// Adds `amount` (events, or bytes) to the count under `kind`/`id` in a fixed window that
    /// opens with its first addition and lasts `window`, in one atomic step: the count in the
    /// window so far (this addition included), and the time left in it. On Redis every host
    /// process shares the count; the embedded store's single serving process keeps it in
    /// memory (a restart starts the windows afresh).
    async fn count_in_window(
        &self,
        kind: Kind,
        id: &str,
        window: Duration,
        amount: u64,
    ) -> Result<(u64, Duration), StoreError>;

    /// Takes `amount` back from the count under `kind`/`id` (never below 0), if its window is
    /// still open: an event counted before the work it limits turned out not to count (a
    /// sign-in that proved the password). A closed window stays closed.
    async fn uncount(&self, kind: Kind, id: &str, amount: u64) -> Result<(), StoreError>;

    /// Ends the window of `kind`/`id` early: the next addition opens a new one.
    async fn forget_window(&self, kind: Kind, id: &str) -> Result<(), StoreError>;
}

/// Plain values that may expire (rendered sides, sessions).
#[async_trait]
pub trait ExpiringValues: Send + Sync {
    /// Stores bytes under `kind`/`id`, replacing any; with `ttl`, they disappear after it.
    async fn put_blob(
        &self,
        kind: Kind,
        id: &str,
        value: &[u8],
        ttl: Option<Duration>,
    ) -> Result<(), StoreError>;

    /// The bytes stored under `kind`/`id`, unless absent or expired.
    async fn get_blob(&self, kind: Kind, id: &str) -> Result<Option<Vec<u8>>, StoreError>;
}

/// Ids kept in order of a time: the work schedules of background workers (webhook
/// deliveries, the image sweep) and indexes (placed orders by when they were placed).
#[async_trait]
pub trait Schedule: Send + Sync {
    /// Puts `id` on the work schedule of `kind`, due at `at` (milliseconds since 1970),
    /// replacing any earlier time: the queue of a background worker, read with [`Schedule::due`]
    /// at a cost that grows with what is due, not with the whole store.
    async fn schedule(&self, kind: Kind, id: &str, at: i64) -> Result<(), StoreError>;

    /// Takes `id` off the schedule of `kind`.
    async fn unschedule(&self, kind: Kind, id: &str) -> Result<(), StoreError>;

    /// Up to `limit` ids of `kind` due at `now` or earlier, earliest first.
    async fn due(&self, kind: Kind, now: i64, limit: usize) -> Result<Vec<String>, StoreError>;

    /// How many ids are on the schedule of `kind`, and the earliest time one is due (for the
    /// queue metrics).
    async fn backlog(&self, kind: Kind) -> Result<(u64, Option<i64>), StoreError>;

    /// Up to `limit` ids of `kind` from one end of the schedule, after skipping `skip` of
    /// them: a page of an index, read at a cost that grows with the page and what it skips,
    /// not with the whole store. From the latest end, ids of one time come in reverse order;
    /// from the earliest, in order.
    async fn page(
        &self,
        kind: Kind,
        from: IndexEnd,
        skip: usize,
        limit: usize,
    ) -> Result<Vec<String>, StoreError>;

    /// [`Schedule::page`] from the latest end.
    async fn latest(
        &self,
        kind: Kind,
        skip: usize,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        self.page(kind, IndexEnd::Latest, skip, limit).await
    }
}

/// Which end of a schedule a page of it starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexEnd {
    Latest,
    Earliest,
}

/// A whole store: every capability, and what a serving process needs of it.
#[async_trait]
pub trait Store:
    Records + Claims + Counters + ExpiringValues + Schedule + Send + Sync + 'static
{
    /// Takes what only a serving process needs; called once when a server starts. The
    /// embedded store locks its nonce file here, so a second server on it stops at start-up.
    async fn prepare_to_serve(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Where the data lives, for start-up messages (never includes a password).
    fn describe(&self) -> String;
}

pub type SharedStore = Arc<dyn Store>;

/// How often [`modify`] retries when another write to the same record got in first.
const MAX_ATTEMPTS: usize = 16;

/// Reads the JSON record `kind`/`id`; `None` if there is none.
pub async fn load<T: DeserializeOwned>(
    store: &dyn Records,
    kind: Kind,
    id: &str,
) -> Result<Option<(T, u64)>, StoreError> {
    store
        .get(kind, id)
        .await?
        .map(|stored| decode(kind, id, stored))
        .transpose()
}

/// The JSON record `kind`/`id` read from `stored`, with its revision.
pub fn decode<T: DeserializeOwned>(
    kind: Kind,
    id: &str,
    stored: Versioned,
) -> Result<(T, u64), StoreError> {
    let record = serde_json::from_slice(&stored.value).map_err(|e| {
        StoreError::corrupt(format!("stored {} {id} is unreadable: {e}", kind.as_str()))
    })?;
    Ok((record, stored.revision))
}

/// Applies `change` to the JSON record `kind`/`id` and writes it back with compare-and-swap,
/// re-reading and re-applying if another writer got in between, so no write is lost.
/// `Ok(None)` if there is no such record.
pub async fn modify<T, E>(
    store: &dyn Records,
    kind: Kind,
    id: &str,
    mut change: impl FnMut(&mut T) -> Result<(), E>,
) -> Result<Option<T>, E>
where
    T: Serialize + DeserializeOwned,
    E: From<StoreError>,
{
    for _ in 0..MAX_ATTEMPTS {
        let Some((mut record, revision)) = load::<T>(store, kind, id).await? else {
            return Ok(None);
        };
        change(&mut record)?;
        let value = serde_json::to_vec(&record).map_err(|e| StoreError::corrupt(e.to_string()))?;
        if store.replace(kind, id, &value, revision).await? {
            return Ok(Some(record));
        }
        tokio::task::yield_now().await;
    }
    Err(StoreError::conflict(format!(
        "{} {id} is being changed by many requests at once; try again",
        kind.as_str()
    ))
    .into())
}

/// Record kind: one record per index (by the index's kind), written once the index holds the
/// records from before it existed.
pub const INDEXES_BUILT: Kind = Kind::new("index-built");

/// Fills the index `index` with the records of `kind` from before it existed, once per store:
/// `add` puts one (by its id) in it. The first reader of a new index does it; readers that
/// meet in that moment each do it, so `add` must do nothing the second time.
pub async fn index_once<'a>(
    store: &'a dyn Store,
    index: Kind,
    kind: Kind,
    add: impl Fn(String) -> BoxFuture<'a, Result<(), StoreError>>,
) -> Result<(), StoreError> {
    if store.get(INDEXES_BUILT, index.as_str()).await?.is_some() {
        return Ok(());
    }
    for id in store.list(kind).await? {
        add(id).await?;
    }
    store.insert(INDEXES_BUILT, index.as_str(), b"{}").await?;
    Ok(())
}

/// 128 random bits as 32 lower-case hex digits, from the thread's CSPRNG.
pub fn random_id() -> String {
    format!("{:032x}", rand::random::<u128>())
}
