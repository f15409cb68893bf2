//! Durable background jobs on the store (the order webhooks, the press files of orders).
//!
//! A job is one record of its queue's `PENDING` kind and an entry on the store's schedule at
//! its next attempt, so a restart loses none. A worker in every serving process runs the jobs
//! that are due, claiming each with compare-and-swap (a lease, longer than an attempt may
//! take) so two processes never run one at once. A failed attempt is retried after the next
//! delay of the queue's schedule, then given up; a finished or given-up job moves to the
//! queue's `DONE` kind, which the operator lists.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

use crate::infra::clock::system_millis;
use crate::infra::store::{self, Kind, Store, StoreError};

/// One job and its attempts so far. The payload's fields sit beside the job's own in the
/// stored JSON.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Job<P> {
    pub id: String,
    #[serde(flatten)]
    pub payload: P,
    pub state: JobState,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    Pending,
    /// Finished (a webhook stored before the queues were shared says `delivered`).
    #[serde(alias = "delivered")]
    Done,
    GaveUp,
}

impl<P> Job<P> {
    /// When the next attempt may start: its time, or the end of a claim on it.
    fn due_at(&self) -> i64 {
        self.next_attempt_at.max(self.leased_until)
    }
}

/// What one attempt came to.
#[derive(Debug)]
pub enum Outcome {
    Done,
    /// Failed; `retry` says whether a later attempt could succeed.
    Failed {
        reason: String,
        retry: bool,
    },
    /// Not to be tried yet (what it needs is not there yet): looked at again after this long,
    /// without counting an attempt.
    NotYet(Duration),
}

impl Outcome {
    /// A failure a later attempt may get past.
    pub fn retry(reason: impl Into<String>) -> Outcome {
        Outcome::Failed {
            reason: reason.into(),
            retry: true,
        }
    }

    /// A failure no later attempt can change.
    pub fn give_up(reason: impl Into<String>) -> Outcome {
        Outcome::Failed {
            reason: reason.into(),
            retry: false,
        }
    }
}

/// A queue: its record kinds, how long a claim lasts, how many jobs a process runs at once,
/// its retry schedule, and what an attempt does.
#[async_trait]
pub trait Queue: Send + Sync + 'static {
    type Payload: Serialize + DeserializeOwned + Clone + Send + Sync;
    /// Jobs waiting (and their schedule).
    const PENDING: Kind;
    /// Jobs finished or given up (records), and an index of them by when they finished.
    const DONE: Kind;
    /// An index of the jobs given up, by when.
    const GAVE_UP: Kind;
    /// How long a claim keeps other processes off a job; an attempt is cut off at half of it.
    const LEASE: Duration;
    const CONCURRENCY: usize;

    /// Delays before the second, third, ... attempt.
    fn retry_delays(&self) -> &[Duration];

    async fn attempt(&self, store: &dyn Store, job: &Job<Self::Payload>) -> Outcome;
}

/// Queues a job due now, unless one with this id is queued already (`false` then).
pub async fn enqueue<Q: Queue>(
    store: &dyn Store,
    id: &str,
    payload: Q::Payload,
) -> Result<bool, StoreError> {
    let now = system_millis();
    let job = Job {
        id: id.to_owned(),
        payload,
        state: JobState::Pending,
        attempts: 0,
        created_at: now,
        next_attempt_at: now,
        leased_until: 0,
        last_error: None,
        finished_at: None,
    };
    let value = serde_json::to_vec(&job).map_err(|e| StoreError::corrupt(e.to_string()))?;
    if !store.insert(Q::PENDING, id, &value).await? {
        return Ok(false);
    }
    store.schedule(Q::PENDING, id, now).await?;
    Ok(true)
}

/// Takes queued jobs back (work for an order whose checkout failed).
pub async fn withdraw<Q: Queue>(store: &dyn Store, ids: &[String]) -> Result<(), StoreError> {
    for id in ids {
        store.delete(Q::PENDING, id).await?;
        store.unschedule(Q::PENDING, id).await?;
    }
    Ok(())
}

/// Makes job `id`, if it is waiting, due now (what it waited for has happened); a job being
/// attempted is left to its attempt.
pub async fn hurry<Q: Queue>(store: &dyn Store, id: &str) -> Result<(), StoreError> {
    let now = system_millis();
    let hurried = store::modify(store, Q::PENDING, id, |job: &mut Job<Q::Payload>| {
        job.next_attempt_at = job.next_attempt_at.min(now);
        Ok::<_, StoreError>(())
    })
    .await?;
    match hurried {
        Some(job) => store.schedule(Q::PENDING, id, job.due_at()).await,
        None => Ok(()),
    }
}

/// The job with this id, waiting or finished.
pub async fn find<Q: Queue>(
    store: &dyn Store,
    id: &str,
) -> Result<Option<Job<Q::Payload>>, StoreError> {
    for kind in [Q::PENDING, Q::DONE] {
        if let Some((job, _)) = store::load(store, kind, id).await? {
            return Ok(Some(job));
        }
    }
    Ok(None)
}

/// Every job, pending first, for the operator. A job caught moving from pending to done is
/// shown once, done.
pub async fn list<Q: Queue>(store: &dyn Store) -> Result<Vec<Job<Q::Payload>>, StoreError> {
    index_earlier_finished::<Q>(store).await?;
    let pending = store.latest(Q::PENDING, 0, usize::MAX).await?;
    let finished = store.latest(Q::DONE, 0, usize::MAX).await?;
    load_jobs::<Q>(store, pending, finished).await
}

/// What the operator's page of a queue shows: how many jobs are done, and every job waiting
/// or given up (pending first), read through the indexes: a count and what is outstanding,
/// not every job there ever was.
pub async fn outstanding<Q: Queue>(
    store: &dyn Store,
) -> Result<(u64, Vec<Job<Q::Payload>>), StoreError> {
    index_earlier_finished::<Q>(store).await?;
    let (finished, _) = store.backlog(Q::DONE).await?;
    let gave_up = store.latest(Q::GAVE_UP, 0, usize::MAX).await?;
    let done = finished.saturating_sub(gave_up.len() as u64);
    let pending = store.latest(Q::PENDING, 0, usize::MAX).await?;
    Ok((done, load_jobs::<Q>(store, pending, gave_up).await?))
}

/// The jobs `pending` and `finished`, pending first and then by when they were queued.
async fn load_jobs<Q: Queue>(
    store: &dyn Store,
    pending: Vec<String>,
    finished: Vec<String>,
) -> Result<Vec<Job<Q::Payload>>, StoreError> {
    let mut all: Vec<Job<Q::Payload>> = Vec::new();
    for (kind, ids) in [(Q::PENDING, pending), (Q::DONE, finished)] {
        for id in ids {
            if let Some((job, _)) = store::load::<Job<Q::Payload>>(store, kind, &id).await? {
                all.retain(|j| j.id != job.id);
                all.push(job);
            }
        }
    }
    all.sort_by_key(|j| (j.state != JobState::Pending, j.created_at));
    Ok(all)
}

/// Puts a finished job in the index of finished jobs, and in (or out of) the index of those
/// given up. Doing it again does nothing.
async fn index_finished<Q: Queue>(
    store: &dyn Store,
    job: &Job<Q::Payload>,
) -> Result<(), StoreError> {
    let at = job.finished_at.unwrap_or_default();
    store.schedule(Q::DONE, &job.id, at).await?;
    match job.state {
        JobState::GaveUp => store.schedule(Q::GAVE_UP, &job.id, at).await,
        _ => store.unschedule(Q::GAVE_UP, &job.id).await,
    }
}

/// Indexes the jobs that finished before the indexes existed (once per store and queue).
async fn index_earlier_finished<Q: Queue>(store: &dyn Store) -> Result<(), StoreError> {
    store::index_once(store, Q::DONE, Q::DONE, |id| {
        Box::pin(async move {
            match store::load::<Job<Q::Payload>>(store, Q::DONE, &id).await? {
                Some((job, _)) => index_finished::<Q>(store, &job).await,
                None => Ok(()),
            }
        })
    })
    .await
}

/// Puts every finished job of queue `Q` in its indexes again (`presspack indexes rebuild`).
pub async fn rebuild_indexes<Q: Queue>(store: &dyn Store) -> Result<(), StoreError> {
    store.delete(store::INDEXES_BUILT, Q::DONE.as_str()).await?;
    index_earlier_finished::<Q>(store).await
}

/// How many due jobs the worker takes at a time.
const BATCH: usize = 64;
/// How often the worker looks for due jobs when nothing wakes it.
const POLL: Duration = Duration::from_millis(500);

/// Runs due jobs until `stop` turns true. An attempt under way is finished first, so a server
/// that shuts down leaves no job claimed (which would hold it for a lease).
pub async fn run_worker<Q: Queue>(
    store: Arc<dyn Store>,
    queue: Arc<Q>,
    wake: Arc<Notify>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let (store, queue) = (store.as_ref(), queue.as_ref());
    let name = Q::PENDING.as_str();
    if let Err(error) = reschedule_all::<Q>(store).await {
        tracing::warn!(%error, queue = name, "could not check the queue's schedule at start");
    }
    while !*stop.borrow() {
        match store.due(Q::PENDING, system_millis(), BATCH).await {
            Ok(ids) => {
                // Several at once, so that one slow job does not hold up the others; each is
                // claimed on its own.
                let runs: Vec<_> = ids
                    .iter()
                    .map(|id| run_logged(store, queue, &stop, id))
                    .collect();
                futures_util::stream::iter(runs)
                    .buffer_unordered(Q::CONCURRENCY)
                    .collect::<Vec<()>>()
                    .await;
            }
            Err(error) => tracing::warn!(%error, queue = name, "queue unreadable"),
        }
        tokio::select! {
            () = tokio::time::sleep(POLL) => {}
            () = wake.notified() => {}
            _ = stop.changed() => {}
        }
    }
}

/// One job's turn, unless the server is stopping (which starts no new attempt); a failure of
/// the queue itself is logged.
async fn run_logged<Q: Queue>(
    store: &dyn Store,
    queue: &Q,
    stop: &tokio::sync::watch::Receiver<bool>,
    id: &str,
) {
    if *stop.borrow() {
        return;
    }
    if let Err(error) = run_if_due(store, queue, id).await {
        tracing::warn!(%error, queue = Q::PENDING.as_str(), job = %id, "queue");
    }
}

/// Puts every pending job on the schedule at its own time: a process that stopped between
/// storing a job and scheduling it loses nothing. Runs once, at start.
async fn reschedule_all<Q: Queue>(store: &dyn Store) -> Result<(), StoreError> {
    for id in store.list(Q::PENDING).await? {
        if let Some((job, _)) = store::load::<Job<Q::Payload>>(store, Q::PENDING, &id).await? {
            store.schedule(Q::PENDING, &id, job.due_at()).await?;
        }
    }
    Ok(())
}

/// Writes the job back with compare-and-swap and puts it on the schedule at its time.
async fn save<P: Serialize + DeserializeOwned + Clone>(
    store: &dyn Store,
    kind: Kind,
    job: &Job<P>,
) -> Result<(), StoreError> {
    store::modify(store, kind, &job.id, |stored: &mut Job<P>| {
        *stored = job.clone();
        Ok::<_, StoreError>(())
    })
    .await?;
    store.schedule(kind, &job.id, job.due_at()).await
}

async fn run_if_due<Q: Queue>(store: &dyn Store, queue: &Q, id: &str) -> Result<(), StoreError> {
    let Some((mut job, revision)) = store::load::<Job<Q::Payload>>(store, Q::PENDING, id).await?
    else {
        return store.unschedule(Q::PENDING, id).await;
    };
    let now = system_millis();
    if job.due_at() > now {
        return store.schedule(Q::PENDING, id, job.due_at()).await;
    }
    // Claim it: another process that reads it now sees the lease and leaves it alone.
    job.leased_until = now + Q::LEASE.as_millis() as i64;
    let value = serde_json::to_vec(&job).map_err(|e| StoreError::corrupt(e.to_string()))?;
    if !store.replace(Q::PENDING, id, &value, revision).await? {
        return Ok(()); // another worker took it
    }
    store.schedule(Q::PENDING, id, job.leased_until).await?;
    let outcome = tokio::time::timeout(Q::LEASE / 2, queue.attempt(store, &job))
        .await
        .unwrap_or_else(|_| {
            Outcome::retry(format!(
                "the attempt took longer than {} s",
                (Q::LEASE / 2).as_secs()
            ))
        });
    job.leased_until = 0;
    let now = system_millis();
    let failure = match outcome {
        Outcome::NotYet(after) => {
            job.next_attempt_at = now + after.as_millis() as i64;
            return save(store, Q::PENDING, &job).await;
        }
        Outcome::Done => None,
        Outcome::Failed { reason, retry } => Some((reason, retry)),
    };
    job.attempts += 1;
    let retry_after = match &failure {
        None => None,
        Some((reason, retry)) => {
            tracing::info!(queue = Q::PENDING.as_str(), job = %id, attempt = job.attempts, error = %reason, "attempt failed");
            job.last_error = Some(reason.clone());
            queue
                .retry_delays()
                .get(job.attempts as usize - 1)
                .filter(|_| *retry)
        }
    };
    if let Some(delay) = retry_after {
        job.next_attempt_at = now + delay.as_millis() as i64;
        return save(store, Q::PENDING, &job).await;
    }
    job.state = if failure.is_none() {
        JobState::Done
    } else {
        JobState::GaveUp
    };
    job.finished_at = Some(now);
    let value = serde_json::to_vec(&job).map_err(|e| StoreError::corrupt(e.to_string()))?;
    // A job queued again under a finished one's id (the same order's files made again)
    // replaces its record.
    if !store.insert(Q::DONE, id, &value).await? {
        store.delete(Q::DONE, id).await?;
        store.insert(Q::DONE, id, &value).await?;
    }
    // Indexed before the pending record goes: a crash in between runs the job again, which
    // indexes it then.
    index_finished::<Q>(store, &job).await?;
    store.delete(Q::PENDING, id).await?;
    store.unschedule(Q::PENDING, id).await?;
    tracing::info!(queue = Q::PENDING.as_str(), job = %id, state = ?job.state, attempts = job.attempts, "job finished");
    Ok(())
}
