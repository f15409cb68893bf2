//! Short-lived "seen before?" entries (OAuth nonces) for the embedded store.
//!
//! A signed request must claim its nonce before it is answered, so the claim is on the hot
//! path of every signed call. Claims are decided in memory, under one lock, and logged to
//! `presspack-expiring.sqlite3` by a background thread in batches, so that a restart
//! remembers them. This makes the embedded store a one-server store: the server holds an
//! exclusive lock on that file while it runs, and a second `presspack serve` on the same data
//! directory stops at start-up with a message saying so (several servers need Redis). The
//! operator CLI never opens this file.
//!
//! A claim is logged within [`LINGER`] of being made; a crash in that time forgets it.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{Connection, params};

use super::StoreError;

/// How long the log thread lets claims gather before writing them in one transaction.
const LINGER: Duration = Duration::from_millis(5);

/// Expired entries are dropped from memory on one claim in this many.
const SWEEP_EVERY: u64 = 4096;

pub struct ExpiringSet {
    /// Unexpired entries: key and expiry, in Unix milliseconds.
    entries: Mutex<Entries>,
    log: Option<Sender<(String, i64)>>,
    thread: Option<JoinHandle<()>>,
}

struct Entries {
    map: HashMap<String, i64>,
    claims: u64,
}

fn error(e: rusqlite::Error) -> StoreError {
    StoreError(format!("sqlite: {e}"))
}

impl ExpiringSet {
    /// Opens the log at `path`, locking it for this process, and loads its unexpired entries.
    pub fn open(path: &Path, now: i64) -> Result<ExpiringSet, StoreError> {
        let conn = Connection::open(path)
            .map_err(|e| StoreError(format!("cannot open {}: {e}", path.display())))?;
        let in_use = |_| {
            StoreError(format!(
                "{} is in use by another presspack server: an embedded store serves one server \
                 process (the operator CLI may run beside it); use Redis to run several",
                path.display()
            ))
        };
        conn.execute_batch(
            "PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
             PRAGMA wal_autocheckpoint=10000;",
        )
        .map_err(in_use)?;
        // Take the exclusive lock now rather than at the first write. The log is append-only
        // (rowid order, no index): a batch of claims fills a few pages at the end instead of
        // dirtying a page per claim, as a keyed table would.
        conn.execute_batch(
            "BEGIN EXCLUSIVE;
             CREATE TABLE IF NOT EXISTS claims (id TEXT NOT NULL, expires_at INTEGER NOT NULL);
             COMMIT;",
        )
        .map_err(in_use)?;
        conn.execute("DELETE FROM claims WHERE expires_at <= ?1", params![now])
            .map_err(error)?;
        let map = conn
            .prepare("SELECT id, max(expires_at) FROM claims GROUP BY id")
            .and_then(|mut statement| {
                statement
                    .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect::<rusqlite::Result<HashMap<String, i64>>>()
            })
            .map_err(error)?;
        let (log, claims) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("expiring-log".into())
            .spawn(move || log_thread(conn, claims))
            .map_err(|e| StoreError(format!("cannot start the expiring-entries log: {e}")))?;
        Ok(ExpiringSet {
            entries: Mutex::new(Entries { map, claims: 0 }),
            log: Some(log),
            thread: Some(thread),
        })
    }

    /// Claims `key` until `expires_at`; `false` if it is claimed and unexpired.
    pub fn claim(&self, key: String, now: i64, expires_at: i64) -> bool {
        let mut entries = self.entries.lock().expect("entries lock");
        if entries.map.get(&key).is_some_and(|&until| until > now) {
            return false;
        }
        entries.claims += 1;
        if entries.claims.is_multiple_of(SWEEP_EVERY) {
            entries.map.retain(|_, until| *until > now);
        }
        entries.map.insert(key.clone(), expires_at);
        drop(entries);
        if let Some(log) = &self.log {
            // The thread only stops when this set is dropped.
            let _ = log.send((key, expires_at));
        }
        true
    }
}

impl Drop for ExpiringSet {
    fn drop(&mut self) {
        // Closing the channel ends the thread after it has written what is queued; joining
        // it releases the file lock before a new server on this store starts.
        self.log.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn log_thread(conn: Connection, claims: Receiver<(String, i64)>) {
    // Logged batches, oldest first: the last rowid of each and the latest expiry in it. A
    // prefix of batches that have all expired is deleted by rowid range.
    let mut logged: VecDeque<(i64, i64)> = VecDeque::new();
    while let Ok(first) = claims.recv() {
        std::thread::sleep(LINGER);
        let mut batch = vec![first];
        batch.extend(claims.try_iter());
        let now = super::unix_millis();
        let mut expired_up_to = None;
        while logged.front().is_some_and(|&(_, latest)| latest <= now) {
            expired_up_to = logged.pop_front().map(|(rowid, _)| rowid);
        }
        let written = (|| -> rusqlite::Result<i64> {
            let transaction = conn.unchecked_transaction()?;
            {
                let mut insert = transaction
                    .prepare_cached("INSERT INTO claims (id, expires_at) VALUES (?1, ?2)")?;
                for (key, expires_at) in &batch {
                    insert.execute(params![key, expires_at])?;
                }
                if let Some(rowid) = expired_up_to {
                    transaction.execute("DELETE FROM claims WHERE rowid <= ?1", params![rowid])?;
                }
            }
            let last = transaction.last_insert_rowid();
            transaction.commit()?;
            Ok(last)
        })();
        match written {
            Ok(last) => {
                let latest = batch
                    .iter()
                    .map(|(_, expires_at)| *expires_at)
                    .max()
                    .unwrap_or(now);
                logged.push_back((last, latest));
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot log claimed nonces; a restart may forget them")
            }
        }
    }
}
