//! The embedded store: SQLite in WAL mode, which lets the server and the operator CLI use
//! the records at the same time. `presspack.sqlite3` holds the records with
//! `synchronous=FULL`: every acknowledged write is on disk, and every write is in one
//! transaction, so a crash never leaves half a record. Short-lived entries (OAuth nonces)
//! are kept by [`ExpiringSet`] and its own file.

use crate::infra::clock::system_millis;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params};

use super::expiring::ExpiringSet;
use super::interface::{
    Claim, Claims, Counters, ExpiringValues, IndexEnd, Kind, Records, Schedule, Store, StoreError,
    Versioned,
};

/// The key of a claim under the record `kind`/`id` in the [`ExpiringSet`].
/// A claim's key in the expiring set, in parts: `{claim kind}:{kind}:{id}:{claim id}`.
fn claim_key<'a>(kind: Kind, id: &'a str, claim: &Claim<'a>) -> [&'a str; 4] {
    [claim.kind.as_str(), kind.as_str(), id, claim.id]
}

/// How long a write waits for another process's write lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

fn error(e: rusqlite::Error) -> StoreError {
    StoreError::unavailable(format!("sqlite: {e}"))
}

/// One SQLite file: a pool of read connections and one writer thread.
struct Database {
    path: PathBuf,
    /// Idle read connections; SQLite connections are cheap to keep and costly to open per call.
    idle: Mutex<Vec<Connection>>,
    /// Writes for the writer thread. SQLite allows one writer at a time, so this process
    /// queues its writes here (rather than in SQLite's busy handler, which sleeps and
    /// retries), and the thread commits whatever has queued up in one transaction: one
    /// `fsync` for many writes under load. Other processes (the operator CLI) wait in the
    /// busy handler.
    writes: std::sync::mpsc::Sender<WriteJob>,
}

/// A write: runs inside the writer's transaction (`None`: it cannot run) and returns what to
/// do once the transaction has committed (or failed to).
type WriteJob = Box<dyn FnOnce(Option<&Connection>) -> Completion + Send>;
type Completion = Box<dyn FnOnce(Option<&StoreError>) + Send>;

/// Most writes committed together.
const MAX_BATCH: usize = 256;

fn writer_thread(conn: Connection, jobs: std::sync::mpsc::Receiver<WriteJob>) {
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
            let e = error(e);
            for job in batch {
                job(None)(Some(&e));
            }
            continue;
        }
        let completions: Vec<Completion> = batch
            .into_iter()
            // A failure that rolled the whole transaction back leaves the connection in
            // autocommit mode: the remaining writes must not run outside it.
            .map(|job| job((!conn.is_autocommit()).then_some(&conn)))
            .collect();
        let failed = conn.execute_batch("COMMIT").map_err(error).err();
        if failed.is_some() {
            let _ = conn.execute_batch("ROLLBACK");
        }
        for complete in completions {
            complete(failed.as_ref());
        }
    }
}

impl Database {
    fn open(path: PathBuf, schema: &str) -> Result<Database, StoreError> {
        let conn = connect(&path)?;
        conn.execute_batch(schema).map_err(error)?;
        let (writes, jobs) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name(format!("sqlite-writer {}", path.display()))
            .spawn(move || writer_thread(conn, jobs))
            .map_err(|e| StoreError::unavailable(format!("cannot start the SQLite writer: {e}")))?;
        Ok(Database {
            path,
            idle: Mutex::new(Vec::new()),
            writes,
        })
    }

    /// Runs the write `f` in the writer thread's next transaction; the result arrives once
    /// that transaction has committed.
    async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        let (done, result) = tokio::sync::oneshot::channel();
        let job: WriteJob = Box::new(move |conn| {
            let outcome = match conn {
                Some(conn) => f(conn).map_err(error),
                None => Err(StoreError::unavailable(
                    "sqlite: the write transaction was rolled back",
                )),
            };
            Box::new(move |commit_failed| {
                let _ = done.send(match commit_failed {
                    Some(e) => Err(e.clone()),
                    None => outcome,
                });
            })
        });
        self.writes
            .send(job)
            .map_err(|_| StoreError::unavailable("the SQLite writer has stopped"))?;
        result
            .await
            .map_err(|_| StoreError::unavailable("the SQLite writer has stopped"))?
    }

    /// Runs the read `f` with a pooled connection, right on the calling task. WAL readers
    /// never wait for writers, and a point read from the page cache takes microseconds,
    /// less than handing it to the blocking thread pool would (measured in
    /// docs/benchmarks.md).
    async fn read<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        F: FnOnce(&Connection) -> rusqlite::Result<T>,
    {
        let pooled = self.idle.lock().expect("pool lock").pop();
        let conn = match pooled {
            Some(conn) => conn,
            None => connect(&self.path)?,
        };
        let result = f(&conn).map_err(error);
        self.idle.lock().expect("pool lock").push(conn);
        result
    }
}

fn connect(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path)
        .map_err(|e| StoreError::unavailable(format!("cannot open {}: {e}", path.display())))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(error)?;
    // No memory-mapped reads: a read transaction that finds the file changed (under writes,
    // nearly every one) unmaps the whole mapping, and the munmap's TLB shootdown cost more
    // than the preads it saves (docs/benchmarks.md).
    conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
        .map_err(error)?;
    Ok(conn)
}

pub struct SqliteStore {
    records: Database,
    expiring_path: PathBuf,
    /// Opened by the serving process only (it locks its file).
    expiring: tokio::sync::OnceCell<ExpiringSet>,
    /// Rate-limit windows: key -> (events, when the window ends). In memory: one process
    /// serves a data directory.
    windows: Mutex<HashMap<String, (u64, Instant)>>,
}

/// Past this many windows, the ended ones are dropped as new ones open.
const MAX_WINDOWS: usize = 10_000;

/// The records database in the data directory.
const RECORDS_FILE: &str = "presspack.sqlite3";

impl SqliteStore {
    async fn expiring(&self) -> Result<&ExpiringSet, StoreError> {
        self.expiring
            .get_or_try_init(|| async { ExpiringSet::open(&self.expiring_path, system_millis()) })
            .await
    }

    /// Opens (creating if needed) the store's files in `dir`.
    /// Whether `dir` holds a store (its records database).
    pub fn exists_in(dir: &Path) -> bool {
        dir.join(RECORDS_FILE).is_file()
    }

    pub fn open(dir: &Path) -> Result<SqliteStore, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| {
            StoreError::unavailable(format!("cannot create {}: {e}", dir.display()))
        })?;
        let records = Database::open(
            dir.join(RECORDS_FILE),
            // A rowid table: records are kilobytes, which a WITHOUT ROWID table (an index
            // b-tree, about 1 KB of payload per cell) would spill into overflow pages.
            "CREATE TABLE IF NOT EXISTS records (
                 kind TEXT NOT NULL,
                 id TEXT NOT NULL,
                 revision INTEGER NOT NULL,
                 value BLOB NOT NULL,
                 PRIMARY KEY (kind, id)
             );
             CREATE TABLE IF NOT EXISTS blobs (
                 kind TEXT NOT NULL,
                 id TEXT NOT NULL,
                 value BLOB NOT NULL,
                 expires_at INTEGER,
                 PRIMARY KEY (kind, id)
             );
             CREATE INDEX IF NOT EXISTS blobs_expiry ON blobs (expires_at)
                 WHERE expires_at IS NOT NULL;
             CREATE TABLE IF NOT EXISTS schedule (
                 kind TEXT NOT NULL,
                 id TEXT NOT NULL,
                 at INTEGER NOT NULL,
                 PRIMARY KEY (kind, id)
             );
             CREATE INDEX IF NOT EXISTS schedule_order ON schedule (kind, at, id);
             DROP INDEX IF EXISTS schedule_due;
             -- How many entries each kind's schedule holds, kept by triggers: counting a
             -- kind's rows would read them all (the console counts indexes of 100,000s).
             CREATE TABLE IF NOT EXISTS schedule_counts (
                 kind TEXT PRIMARY KEY,
                 entries INTEGER NOT NULL
             ) WITHOUT ROWID;
             -- Counted once from the entries a store of an earlier version holds.
             INSERT INTO schedule_counts (kind, entries)
                 SELECT kind, COUNT(*) FROM schedule
                 WHERE NOT EXISTS (SELECT 1 FROM schedule_counts) GROUP BY kind;
             CREATE TRIGGER IF NOT EXISTS schedule_counted AFTER INSERT ON schedule BEGIN
                 INSERT INTO schedule_counts (kind, entries) VALUES (NEW.kind, 1)
                     ON CONFLICT (kind) DO UPDATE SET entries = entries + 1;
             END;
             CREATE TRIGGER IF NOT EXISTS schedule_uncounted AFTER DELETE ON schedule BEGIN
                 UPDATE schedule_counts SET entries = entries - 1 WHERE kind = OLD.kind;
             END;",
        )?;
        Ok(SqliteStore {
            records,
            expiring_path: dir.join("nonces"),
            expiring: tokio::sync::OnceCell::new(),
            windows: Mutex::new(HashMap::new()),
        })
    }
}

#[async_trait]
impl Records for SqliteStore {
    async fn get(&self, kind: Kind, id: &str) -> Result<Option<Versioned>, StoreError> {
        let id = id.to_owned();
        self.records
            .read(move |conn| {
                conn.prepare_cached(
                    "SELECT revision, value FROM records WHERE kind = ?1 AND id = ?2",
                )?
                .query_row(params![kind.as_str(), id], |row| {
                    let revision: i64 = row.get(0)?;
                    Ok(Versioned {
                        revision: revision as u64,
                        value: row.get(1)?,
                    })
                })
                .optional()
            })
            .await
    }

    async fn insert(&self, kind: Kind, id: &str, value: &[u8]) -> Result<bool, StoreError> {
        let (id, value) = (id.to_owned(), value.to_owned());
        self.records
            .write(move |conn| {
                let inserted = conn
                    .prepare_cached(
                        "INSERT INTO records (kind, id, revision, value) VALUES (?1, ?2, 1, ?3)
                         ON CONFLICT (kind, id) DO NOTHING",
                    )?
                    .execute(params![kind.as_str(), id, value])?;
                Ok(inserted == 1)
            })
            .await
    }

    async fn replace(
        &self,
        kind: Kind,
        id: &str,
        value: &[u8],
        revision: u64,
    ) -> Result<bool, StoreError> {
        let (id, value) = (id.to_owned(), value.to_owned());
        // Revisions count writes from 1; they stay far below i64::MAX.
        let revision = revision as i64;
        self.records
            .write(move |conn| {
                let updated = conn
                    .prepare_cached(
                        "UPDATE records SET value = ?3, revision = revision + 1
                         WHERE kind = ?1 AND id = ?2 AND revision = ?4",
                    )?
                    .execute(params![kind.as_str(), id, value, revision])?;
                Ok(updated == 1)
            })
            .await
    }

    async fn remove(&self, kind: Kind, id: &str, revision: u64) -> Result<bool, StoreError> {
        let id = id.to_owned();
        let revision = revision as i64;
        self.records
            .write(move |conn| {
                let deleted = conn
                    .prepare_cached(
                        "DELETE FROM records WHERE kind = ?1 AND id = ?2 AND revision = ?3",
                    )?
                    .execute(params![kind.as_str(), id, revision])?;
                Ok(deleted == 1)
            })
            .await
    }

    async fn delete(&self, kind: Kind, id: &str) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.records
            .write(move |conn| {
                let records = conn
                    .prepare_cached("DELETE FROM records WHERE kind = ?1 AND id = ?2")?
                    .execute(params![kind.as_str(), id])?;
                let blobs = conn
                    .prepare_cached("DELETE FROM blobs WHERE kind = ?1 AND id = ?2")?
                    .execute(params![kind.as_str(), id])?;
                Ok(records + blobs > 0)
            })
            .await
    }

    async fn list(&self, kind: Kind) -> Result<Vec<String>, StoreError> {
        self.records
            .read(move |conn| {
                conn.prepare_cached("SELECT id FROM records WHERE kind = ?1 ORDER BY id")?
                    .query_map(params![kind.as_str()], |row| row.get(0))?
                    .collect()
            })
            .await
    }
}

#[async_trait]
impl Claims for SqliteStore {
    async fn get_and_claim(
        &self,
        kind: Kind,
        id: &str,
        claim: &Claim<'_>,
    ) -> Result<(Option<Versioned>, bool), StoreError> {
        let record = self.get(kind, id).await?;
        let now = system_millis();
        let expires_at =
            now.saturating_add(i64::try_from(claim.ttl.as_millis()).unwrap_or(i64::MAX));
        let claimed = self
            .expiring()
            .await?
            .claim(&claim_key(kind, id, claim), now, expires_at)?;
        Ok((record, claimed))
    }

    async fn release_claim(
        &self,
        kind: Kind,
        id: &str,
        claim: &Claim<'_>,
    ) -> Result<(), StoreError> {
        self.expiring()
            .await?
            .release(&claim_key(kind, id, claim), system_millis());
        Ok(())
    }
}

#[async_trait]
impl Counters for SqliteStore {
    async fn count_in_window(
        &self,
        kind: Kind,
        id: &str,
        window: Duration,
        amount: u64,
    ) -> Result<(u64, Duration), StoreError> {
        let now = Instant::now();
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        if windows.len() >= MAX_WINDOWS {
            windows.retain(|_, (_, ends)| *ends > now);
        }
        let entry = windows
            .entry(format!("{}:{id}", kind.as_str()))
            .or_insert((0, now + window));
        if entry.1 <= now {
            *entry = (0, now + window);
        }
        entry.0 = entry.0.saturating_add(amount);
        Ok((entry.0, entry.1 - now))
    }

    async fn uncount(&self, kind: Kind, id: &str, amount: u64) -> Result<(), StoreError> {
        let now = Instant::now();
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(entry) = windows.get_mut(&format!("{}:{id}", kind.as_str()))
            && entry.1 > now
        {
            entry.0 = entry.0.saturating_sub(amount);
        }
        Ok(())
    }

    async fn forget_window(&self, kind: Kind, id: &str) -> Result<(), StoreError> {
        self.windows
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&format!("{}:{id}", kind.as_str()));
        Ok(())
    }
}

#[async_trait]
impl ExpiringValues for SqliteStore {
    async fn put_blob(
        &self,
        kind: Kind,
        id: &str,
        value: &[u8],
        ttl: Option<Duration>,
    ) -> Result<(), StoreError> {
        let (id, value) = (id.to_owned(), value.to_owned());
        let now = system_millis();
        let expires_at =
            ttl.map(|ttl| now.saturating_add(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)));
        self.records
            .write(move |conn| {
                conn.prepare_cached(
                    "INSERT INTO blobs (kind, id, value, expires_at) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (kind, id) DO UPDATE SET value = ?3, expires_at = ?4",
                )?
                .execute(params![kind.as_str(), id, value, expires_at])?;
                // The sweeper: every write clears a batch of expired blobs, so expired
                // renders never pile up (reads already ignore them).
                conn.prepare_cached(
                    "DELETE FROM blobs WHERE rowid IN (SELECT rowid FROM blobs
                     WHERE expires_at IS NOT NULL AND expires_at <= ?1 LIMIT 64)",
                )?
                .execute(params![now])?;
                Ok(())
            })
            .await
    }

    async fn get_blob(&self, kind: Kind, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let id = id.to_owned();
        let now = system_millis();
        self.records
            .read(move |conn| {
                conn.prepare_cached(
                    "SELECT value FROM blobs WHERE kind = ?1 AND id = ?2
                     AND (expires_at IS NULL OR expires_at > ?3)",
                )?
                .query_row(params![kind.as_str(), id, now], |row| row.get(0))
                .optional()
            })
            .await
    }
}

#[async_trait]
impl Schedule for SqliteStore {
    async fn schedule(&self, kind: Kind, id: &str, at: i64) -> Result<(), StoreError> {
        let id = id.to_owned();
        self.records
            .write(move |conn| {
                conn.prepare_cached(
                    "INSERT INTO schedule (kind, id, at) VALUES (?1, ?2, ?3)
                     ON CONFLICT (kind, id) DO UPDATE SET at = ?3",
                )?
                .execute(params![kind.as_str(), id, at])?;
                Ok(())
            })
            .await
    }

    async fn unschedule(&self, kind: Kind, id: &str) -> Result<(), StoreError> {
        let id = id.to_owned();
        self.records
            .write(move |conn| {
                conn.prepare_cached("DELETE FROM schedule WHERE kind = ?1 AND id = ?2")?
                    .execute(params![kind.as_str(), id])?;
                Ok(())
            })
            .await
    }

    async fn due(&self, kind: Kind, now: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.records
            .read(move |conn| {
                conn.prepare_cached(
                    "SELECT id FROM schedule WHERE kind = ?1 AND at <= ?2 ORDER BY at LIMIT ?3",
                )?
                .query_map(params![kind.as_str(), now, limit], |row| row.get(0))?
                .collect()
            })
            .await
    }

    async fn page(
        &self,
        kind: Kind,
        from: IndexEnd,
        skip: usize,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let skip = i64::try_from(skip).unwrap_or(i64::MAX);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let query = match from {
            IndexEnd::Latest => {
                "SELECT id FROM schedule WHERE kind = ?1 ORDER BY at DESC, id DESC LIMIT ?2 OFFSET ?3"
            }
            IndexEnd::Earliest => {
                "SELECT id FROM schedule WHERE kind = ?1 ORDER BY at, id LIMIT ?2 OFFSET ?3"
            }
        };
        self.records
            .read(move |conn| {
                conn.prepare_cached(query)?
                    .query_map(params![kind.as_str(), limit, skip], |row| row.get(0))?
                    .collect()
            })
            .await
    }

    async fn backlog(&self, kind: Kind) -> Result<(u64, Option<i64>), StoreError> {
        self.records
            .read(move |conn| {
                conn.prepare_cached(
                    "SELECT (SELECT entries FROM schedule_counts WHERE kind = ?1),
                            (SELECT MIN(at) FROM schedule WHERE kind = ?1)",
                )?
                .query_row(params![kind.as_str()], |row| {
                    let entries = row.get::<_, Option<i64>>(0)?.unwrap_or(0);
                    Ok((entries.unsigned_abs(), row.get(1)?))
                })
            })
            .await
    }
}

#[async_trait]
impl Store for SqliteStore {
    async fn prepare_to_serve(&self) -> Result<(), StoreError> {
        self.expiring().await.map(|_| ())
    }

    fn describe(&self) -> String {
        let path = std::path::absolute(&self.records.path).unwrap_or(self.records.path.clone());
        format!("embedded SQLite at {}", path.display())
    }
}
