//! Short-lived "seen before?" entries (OAuth nonces) for the embedded store.
//!
//! A signed request must claim its nonce before it is answered, so the claim is on the hot
//! path of every signed call. Claims are decided in memory, under one lock, and logged to
//! `presspack-expiring.sqlite3` by a background thread in batches (whatever queued while the
//! previous batch was written), so that a restart remembers them: a claim is not reported
//! made until its batch has committed ([`ExpiringSet::durable`]), so a nonce answered once
//! is refused after a crash and restart too. This makes the embedded store a one-server store: the server holds an
//! exclusive lock on that file while it runs, and a second `presspack serve` on the same data
//! directory stops at start-up with a message saying so (several servers need Redis). The
//! operator CLI never opens this file.
//!
//! An entry is known by the first 128 bits of the SHA-256 of its key: fixed-size entries, so
//! a claim allocates nothing (heap blocks handed to the log thread and freed there made the
//! request threads' allocator slow), and memory per entry is small and independent of the
//! key. A release is logged as the entry again with expiry 0: the latest line for an entry
//! wins; it is not waited for (a release lost in a crash leaves a nonce refused, the safe
//! way round).

use rusqlite::{Connection, params};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use super::StoreError;

/// The fewest entries at which expired ones are swept from memory.
const MIN_SWEEP: usize = 4096;

/// An entry's key, hashed.
type EntryId = [u8; 16];

/// A logged line: an entry and its expiry in Unix milliseconds (0: released).
type Line = (EntryId, i64);

/// An entry's id: the hash of its key, whose parts are joined by `:` (hashed part by part,
/// so the key is never put together).
fn entry_id(key: &[&str]) -> EntryId {
    let mut hasher = Sha256::new();
    for (i, part) in key.iter().enumerate() {
        if i > 0 {
            hasher.update(b":");
        }
        hasher.update(part.as_bytes());
    }
    let digest = hasher.finalize();
    let mut id = [0; 16];
    id.copy_from_slice(&digest[..16]);
    id
}

pub struct ExpiringSet {
    /// Unexpired entries and their expiry, in Unix milliseconds.
    entries: Mutex<Entries>,
    log: Arc<Log>,
    thread: Option<JoinHandle<()>>,
}

struct Entries {
    map: HashMap<EntryId, i64>,
    /// Expired entries are swept when the map reaches this size, which is then set to twice
    /// what is left: a sweep's cost is spread over as many claims as it visits entries.
    sweep_at: usize,
}

/// Lines waiting for the log thread, which is woken when the first one arrives, and how far
/// the log has been written.
struct Log {
    pending: Mutex<Pending>,
    arrived: Condvar,
    /// The number of lines written so far (committed, or failed and listed in `failed`).
    written: tokio::sync::watch::Sender<u64>,
    /// Line numbers `(first, end)` of batches that could not be written, latest last.
    failed: Mutex<VecDeque<(u64, u64)>>,
}

#[derive(Default)]
struct Pending {
    lines: Vec<Line>,
    /// The number of lines pushed so far: the next line's number.
    pushed: u64,
    closing: bool,
}

/// Failed batches remembered for the claims waiting on them.
const MAX_FAILED: usize = 64;

impl Log {
    /// Queues a line; its number, for [`ExpiringSet::durable`].
    fn push(&self, line: Line) -> u64 {
        let mut pending = self.pending.lock().expect("log lock");
        pending.lines.push(line);
        pending.pushed += 1;
        if pending.lines.len() == 1 {
            self.arrived.notify_one();
        }
        pending.pushed - 1
    }

    /// The next batch and the number of its first line: waits for a first line. `None`
    /// once closing and drained.
    fn next_batch(&self, spare: Vec<Line>) -> Option<(u64, Vec<Line>)> {
        let mut pending = self.pending.lock().expect("log lock");
        while pending.lines.is_empty() && !pending.closing {
            pending = self.arrived.wait(pending).expect("log lock");
        }
        if pending.lines.is_empty() {
            return None;
        }
        let first = pending.pushed - pending.lines.len() as u64;
        Some((first, std::mem::replace(&mut pending.lines, spare)))
    }
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
        // Take the exclusive lock now rather than at the first write. The log is append-only,
        // one row per batch of lines packed in one blob: a row insert per claim cost more
        // than the claim itself.
        conn.execute_batch(
            "BEGIN EXCLUSIVE;
             CREATE TABLE IF NOT EXISTS batches (entries BLOB NOT NULL);
             COMMIT;",
        )
        .map_err(in_use)?;
        let (map, kept) = compact(&conn, now).map_err(error)?;
        let log = Arc::new(Log {
            pending: Mutex::new(Pending::default()),
            arrived: Condvar::new(),
            written: tokio::sync::watch::Sender::new(0),
            failed: Mutex::new(VecDeque::new()),
        });
        let thread = {
            let log = log.clone();
            std::thread::Builder::new()
                .name("expiring-log".into())
                .spawn(move || log_thread(conn, &log, kept))
                .map_err(|e| StoreError(format!("cannot start the expiring-entries log: {e}")))?
        };
        Ok(ExpiringSet {
            entries: Mutex::new(Entries {
                sweep_at: (2 * map.len()).max(MIN_SWEEP),
                map,
            }),
            log,
            thread: Some(thread),
        })
    }

    /// Claims `key` until `expires_at`: the claim's line number (see [`Self::durable`]), or
    /// `None` if the key is claimed and unexpired.
    pub fn claim(&self, key: &[&str], now: i64, expires_at: i64) -> Option<u64> {
        let id = entry_id(key);
        let mut entries = self.entries.lock().expect("entries lock");
        if entries.map.len() >= entries.sweep_at {
            entries.map.retain(|_, until| *until > now);
            entries.sweep_at = (2 * entries.map.len()).max(MIN_SWEEP);
        }
        // One lookup: a new entry starts out expired.
        let until = entries.map.entry(id).or_insert(0);
        if *until > now {
            return None;
        }
        *until = expires_at;
        drop(entries);
        Some(self.log.push((id, expires_at)))
    }

    /// Waits until the claim with this line number is in the log file, which a crash of this
    /// process no longer loses; an error if its batch could not be written.
    pub async fn durable(&self, line: u64) -> Result<(), StoreError> {
        let mut written = self.log.written.subscribe();
        written
            .wait_for(|written| *written > line)
            .await
            .map_err(|_| StoreError("the nonce log has stopped".into()))?;
        let failed = self.log.failed.lock().expect("failed lock");
        if failed
            .iter()
            .any(|(first, end)| (*first..*end).contains(&line))
        {
            return Err(StoreError(
                "the nonce could not be written to the nonce log".into(),
            ));
        }
        Ok(())
    }

    /// Frees `key` (claimed or not).
    pub fn release(&self, key: &[&str]) {
        let id = entry_id(key);
        self.entries.lock().expect("entries lock").map.remove(&id);
        self.log.push((id, 0));
    }
}

impl Drop for ExpiringSet {
    fn drop(&mut self) {
        // The thread writes what is pending and ends; joining it releases the file lock
        // before a new server on this store starts.
        self.log.pending.lock().expect("log lock").closing = true;
        self.log.arrived.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Reads the log (the latest line of an entry wins: a release follows its claim) and
/// rewrites it as one batch of the unexpired entries, so no release outlives its claim. The
/// entries, and the written batch as the log thread tracks it.
fn compact(
    conn: &Connection,
    now: i64,
) -> rusqlite::Result<(HashMap<EntryId, i64>, Option<Logged>)> {
    let transaction = conn.unchecked_transaction()?;
    // The earlier layout (a row per claim, keyed by the key itself) holds nothing a claim
    // made now would match.
    transaction.execute("DROP TABLE IF EXISTS claims", [])?;
    let mut map = HashMap::new();
    {
        let mut rows = transaction.prepare("SELECT entries FROM batches ORDER BY rowid")?;
        for row in rows.query_map([], |row| row.get::<_, Vec<u8>>(0))? {
            map.extend(unpack(&row?));
        }
    }
    map.retain(|_, expires_at| *expires_at > now);
    transaction.execute("DELETE FROM batches", [])?;
    let kept = if map.is_empty() {
        None
    } else {
        let lines: Vec<Line> = map.iter().map(|(id, at)| (*id, *at)).collect();
        transaction.execute(
            "INSERT INTO batches (entries) VALUES (?1)",
            params![pack(&lines)],
        )?;
        Some(Logged {
            rowid: transaction.last_insert_rowid(),
            latest: map.values().copied().max().unwrap_or(now),
        })
    };
    transaction.commit()?;
    Ok((map, kept))
}

/// Lines as one blob: per line, the entry id (16 bytes) and the expiry (i64 LE).
fn pack(lines: &[Line]) -> Vec<u8> {
    let mut blob = Vec::with_capacity(lines.len() * 24);
    for (id, expires_at) in lines {
        blob.extend_from_slice(id);
        blob.extend_from_slice(&expires_at.to_le_bytes());
    }
    blob
}

/// The lines of a blob made by [`pack`]; a damaged tail is skipped.
fn unpack(blob: &[u8]) -> impl Iterator<Item = Line> + '_ {
    blob.chunks_exact(24).map(|line| {
        let (id, expires_at) = line.split_at(16);
        (
            id.try_into().expect("16 bytes"),
            i64::from_le_bytes(expires_at.try_into().expect("8 bytes")),
        )
    })
}

/// A batch written to the log: its rowid and the latest expiry in it.
struct Logged {
    rowid: i64,
    latest: i64,
}

fn log_thread(conn: Connection, log: &Log, kept: Option<Logged>) {
    // Logged batches, oldest first. A prefix of batches that have all expired is deleted by
    // rowid range.
    let mut logged: VecDeque<Logged> = kept.into_iter().collect();
    let mut spare = Vec::new();
    while let Some((first, mut batch)) = log.next_batch(spare) {
        let now = super::unix_millis();
        let mut expired_up_to = None;
        while logged.front().is_some_and(|batch| batch.latest <= now) {
            expired_up_to = logged.pop_front().map(|batch| batch.rowid);
        }
        let written = (|| -> rusqlite::Result<i64> {
            let transaction = conn.unchecked_transaction()?;
            transaction
                .prepare_cached("INSERT INTO batches (entries) VALUES (?1)")?
                .execute(params![pack(&batch)])?;
            let rowid = transaction.last_insert_rowid();
            if let Some(rowid) = expired_up_to {
                transaction.execute("DELETE FROM batches WHERE rowid <= ?1", params![rowid])?;
            }
            transaction.commit()?;
            Ok(rowid)
        })();
        match written {
            Ok(rowid) => {
                let latest = batch.iter().map(|(_, at)| *at).max().unwrap_or(now);
                logged.push_back(Logged { rowid, latest });
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot log claimed nonces; their requests fail");
                let mut failed = log.failed.lock().expect("failed lock");
                if failed.len() == MAX_FAILED {
                    failed.pop_front();
                }
                failed.push_back((first, first + batch.len() as u64));
            }
        }
        log.written.send_replace(first + batch.len() as u64);
        batch.clear();
        spare = batch;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hashed part by part, a key has the id of its parts joined: entries logged before
    /// keys came in parts are still found.
    #[test]
    fn a_key_in_parts_is_the_joined_key() {
        let digest = Sha256::digest(b"nonce:apikey:k:1:a");
        assert_eq!(entry_id(&["nonce", "apikey", "k", "1:a"]), digest[..16]);
    }

    #[test]
    fn packed_lines_read_back_and_a_damaged_tail_is_skipped() {
        let lines = vec![
            (entry_id(&["nonce", "apikey", "k", "1:a"]), 5),
            (entry_id(&[""]), -1),
        ];
        let blob = pack(&lines);
        assert_eq!(unpack(&blob).collect::<Vec<_>>(), lines);
        assert_eq!(
            unpack(&blob[..blob.len() - 3]).collect::<Vec<_>>(),
            lines[..1]
        );
    }

    #[test]
    fn a_release_outlives_no_claim_across_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.sqlite3");
        // Real times: the log thread drops batches by the clock.
        let t = super::super::unix_millis();
        let hour = t + 3_600_000;
        let set = ExpiringSet::open(&path, t).unwrap();
        assert!(set.claim(&["a"], t, hour).is_some());
        assert!(set.claim(&["b"], t, hour).is_some());
        assert!(set.claim(&["gone"], t, t + 500).is_some());
        set.release(&["b"]);
        drop(set);
        // Reopened: the compaction keeps claims and drops releases and expired entries.
        let set = ExpiringSet::open(&path, t + 1000).unwrap();
        assert!(
            set.claim(&["a"], t + 1000, hour).is_none(),
            "a is remembered"
        );
        assert!(
            set.claim(&["gone"], t + 1000, t + 1500).is_some(),
            "gone had expired"
        );
        drop(set);
        let set = ExpiringSet::open(&path, t + 1100).unwrap();
        assert!(
            set.claim(&["a"], t + 1100, hour).is_none(),
            "a survives a second compaction"
        );
        assert!(
            set.claim(&["gone"], t + 1100, t + 1500).is_none(),
            "claimed again before"
        );
        drop(set);
        let set = ExpiringSet::open(&path, t + 2000).unwrap();
        assert!(
            set.claim(&["gone"], t + 2000, t + 2500).is_some(),
            "expired again"
        );
        assert!(
            set.claim(&["b"], t + 2000, hour).is_some(),
            "b was released"
        );
    }
}
