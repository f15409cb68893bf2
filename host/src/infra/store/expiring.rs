//! Short-lived "seen before?" entries (OAuth nonces) for the embedded store.
//!
//! A signed request must claim its nonce before it is answered, so the claim is on the hot
//! path of every signed call. Claims are decided in memory, under one lock, and each is
//! appended to a log file (one `write` of 24 bytes, under the same lock) before the claim
//! returns: once the call is answered, its nonce is in the operating system's hands, so a
//! crash of the process (`kill -9`) never forgets it and a restart refuses the replay. (A
//! power cut may lose the last writes: the log is not synced, as `synchronous=NORMAL` would
//! not sync either.) A background hand-over per claim, as before, cost more CPU than the
//! write itself.
//!
//! The log is a directory of segment files, `<first write in ms>.log`, a new one each
//! [`SEGMENT_SPAN`]; a segment whose every entry has expired is deleted whole. The server
//! holds an exclusive lock on `lock` in that directory while it runs: the embedded store is a
//! one-server store, and a second `presspack serve` on the same data directory stops at
//! start-up saying so (several servers need Redis). The operator CLI never opens the log.
//!
//! An entry is known by the first 128 bits of the SHA-256 of its key: fixed-size entries, so
//! a claim allocates nothing, and memory per entry is small and independent of the key. A
//! release is logged as the entry again with expiry 0: the latest line for an entry wins.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use super::interface::StoreError;

/// The fewest entries at which expired ones are swept from memory.
const MIN_SWEEP: usize = 4096;

/// How long one segment file takes writes before the next begins, in milliseconds.
const SEGMENT_SPAN: i64 = 60_000;

/// An entry's key, hashed.
type EntryId = [u8; 16];

/// A logged line: an entry and its expiry in Unix milliseconds (0: released).
type Line = (EntryId, i64);

/// The bytes of a logged line: the entry id, then the expiry (i64 LE).
const LINE_BYTES: usize = 24;

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
    state: Mutex<State>,
    /// Held (locked) while this process serves.
    _lock: File,
}

struct State {
    /// Unexpired entries and their expiry, in Unix milliseconds.
    map: HashMap<EntryId, i64>,
    /// Expired entries are swept when the map reaches this size, which is then set to twice
    /// what is left: a sweep's cost is spread over as many claims as it visits entries.
    sweep_at: usize,
    dir: PathBuf,
    /// The segment written now.
    current: Segment,
    /// Earlier segments, oldest first.
    older: VecDeque<Segment>,
}

struct Segment {
    path: PathBuf,
    /// Open for appending (the current segment only).
    file: Option<File>,
    started: i64,
    /// The latest expiry written to it: once past, the whole segment can go.
    latest: i64,
}

fn io_error(path: &Path, e: std::io::Error) -> StoreError {
    StoreError::unavailable(format!("nonce log {}: {e}", path.display()))
}

/// Lines as bytes: per line, the entry id (16 bytes) and the expiry (i64 LE).
fn pack(lines: &[Line]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(lines.len() * LINE_BYTES);
    for (id, expires_at) in lines {
        bytes.extend_from_slice(id);
        bytes.extend_from_slice(&expires_at.to_le_bytes());
    }
    bytes
}

/// The lines of bytes made by [`pack`]; a torn last line (a crash mid-write) is skipped.
fn unpack(bytes: &[u8]) -> impl Iterator<Item = Line> + '_ {
    bytes.chunks_exact(LINE_BYTES).map(|line| {
        let (id, expires_at) = line.split_at(16);
        (
            id.try_into().expect("16 bytes"),
            i64::from_le_bytes(expires_at.try_into().expect("8 bytes")),
        )
    })
}

impl Segment {
    /// A new segment file starting at `now`, with `lines` in it.
    fn create(dir: &Path, now: i64, lines: &[Line]) -> Result<Segment, StoreError> {
        let mut started = now;
        let mut path = dir.join(format!("{started:016}.log"));
        // Two segments started in one millisecond (a restart right after one): the next name.
        while path.exists() {
            started += 1;
            path = dir.join(format!("{started:016}.log"));
        }
        let mut file = File::options()
            .create_new(true)
            .append(true)
            .open(&path)
            .map_err(|e| io_error(&path, e))?;
        file.write_all(&pack(lines))
            .map_err(|e| io_error(&path, e))?;
        Ok(Segment {
            latest: lines.iter().map(|(_, at)| *at).max().unwrap_or(0),
            path,
            file: Some(file),
            started,
        })
    }

    fn append(&mut self, line: Line) -> Result<(), StoreError> {
        let file = self.file.as_mut().expect("the current segment is open");
        file.write_all(&pack(&[line]))
            .map_err(|e| io_error(&self.path, e))?;
        self.latest = self.latest.max(line.1);
        Ok(())
    }
}

impl ExpiringSet {
    /// Opens the log in `dir` (creating it), locking it for this process, and loads its
    /// unexpired entries. The entries are written again into one fresh segment and the old
    /// segments deleted, so no release outlives its claim.
    pub fn open(dir: &Path, now: i64) -> Result<ExpiringSet, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
        let lock_path = dir.join("lock");
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| io_error(&lock_path, e))?;
        lock.try_lock().map_err(|_| {
            StoreError::unavailable(format!(
                "{} is in use by another presspack server: an embedded store serves one server \
                 process (the operator CLI may run beside it); use Redis to run several",
                dir.display()
            ))
        })?;
        let mut segments: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| io_error(dir, e))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "log"))
            .collect();
        // Named by their start time, zero-padded: name order is write order.
        segments.sort();
        let mut map = HashMap::new();
        for path in &segments {
            let mut bytes = Vec::new();
            File::open(path)
                .and_then(|mut file| file.read_to_end(&mut bytes))
                .map_err(|e| io_error(path, e))?;
            map.extend(unpack(&bytes));
        }
        map.retain(|_, expires_at| *expires_at > now);
        let lines: Vec<Line> = map.iter().map(|(id, at)| (*id, *at)).collect();
        let current = Segment::create(dir, now, &lines)?;
        for path in segments {
            if path != current.path {
                std::fs::remove_file(&path).map_err(|e| io_error(&path, e))?;
            }
        }
        Ok(ExpiringSet {
            state: Mutex::new(State {
                sweep_at: (2 * map.len()).max(MIN_SWEEP),
                map,
                dir: dir.to_owned(),
                current,
                older: VecDeque::new(),
            }),
            _lock: lock,
        })
    }

    /// Claims `key` until `expires_at`, in memory and in the log: `false` if it is claimed
    /// and unexpired. An error (the log could not be written) leaves it unclaimed.
    pub fn claim(&self, key: &[&str], now: i64, expires_at: i64) -> Result<bool, StoreError> {
        let id = entry_id(key);
        let mut state = self.state.lock().expect("nonce lock");
        if state.map.len() >= state.sweep_at {
            state.map.retain(|_, until| *until > now);
            state.sweep_at = (2 * state.map.len()).max(MIN_SWEEP);
        }
        // One lookup: a new entry starts out expired.
        let until = state.map.entry(id).or_insert(0);
        if *until > now {
            return Ok(false);
        }
        *until = expires_at;
        if let Err(e) = state.log(now, (id, expires_at)) {
            state.map.remove(&id);
            return Err(e);
        }
        Ok(true)
    }

    /// Frees `key` (claimed or not).
    pub fn release(&self, key: &[&str], now: i64) {
        let id = entry_id(key);
        let mut state = self.state.lock().expect("nonce lock");
        state.map.remove(&id);
        // A release lost leaves the nonce refused: the safe way round.
        if let Err(e) = state.log(now, (id, 0)) {
            tracing::warn!(error = %e, "could not log a released nonce");
        }
    }
}

impl State {
    /// Appends `line` to the current segment, starting a new one (and deleting the segments
    /// whose entries have all expired) when the current one is [`SEGMENT_SPAN`] old.
    fn log(&mut self, now: i64, line: Line) -> Result<(), StoreError> {
        if now - self.current.started >= SEGMENT_SPAN {
            let next = Segment::create(&self.dir, now, &[])?;
            let mut finished = std::mem::replace(&mut self.current, next);
            finished.file = None;
            self.older.push_back(finished);
            while self.older.front().is_some_and(|s| s.latest <= now) {
                let expired = self.older.pop_front().expect("a segment");
                if let Err(e) = std::fs::remove_file(&expired.path) {
                    tracing::warn!(error = %e, path = %expired.path.display(), "could not delete an expired nonce segment");
                }
            }
        }
        self.current.append(line)
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
    fn packed_lines_read_back_and_a_torn_line_is_skipped() {
        let lines = vec![
            (entry_id(&["nonce", "apikey", "k", "1:a"]), 5),
            (entry_id(&[""]), -1),
        ];
        let bytes = pack(&lines);
        assert_eq!(unpack(&bytes).collect::<Vec<_>>(), lines);
        assert_eq!(
            unpack(&bytes[..bytes.len() - 3]).collect::<Vec<_>>(),
            lines[..1]
        );
    }

    #[test]
    fn a_release_outlives_no_claim_across_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nonces");
        let t = 1_000_000;
        let hour = t + 3_600_000;
        let set = ExpiringSet::open(&path, t).unwrap();
        assert!(set.claim(&["a"], t, hour).unwrap());
        assert!(set.claim(&["b"], t, hour).unwrap());
        assert!(set.claim(&["gone"], t, t + 500).unwrap());
        set.release(&["b"], t);
        // One server per log.
        assert!(ExpiringSet::open(&path, t).is_err());
        drop(set);
        // Reopened: claims are kept, releases and expired entries dropped.
        let set = ExpiringSet::open(&path, t + 1000).unwrap();
        assert!(
            !set.claim(&["a"], t + 1000, hour).unwrap(),
            "a is remembered"
        );
        assert!(
            set.claim(&["gone"], t + 1000, t + 1500).unwrap(),
            "gone had expired"
        );
        drop(set);
        let set = ExpiringSet::open(&path, t + 1100).unwrap();
        assert!(
            !set.claim(&["a"], t + 1100, hour).unwrap(),
            "a survives a second compaction"
        );
        assert!(
            !set.claim(&["gone"], t + 1100, t + 1500).unwrap(),
            "claimed again before"
        );
        drop(set);
        let set = ExpiringSet::open(&path, t + 2000).unwrap();
        assert!(
            set.claim(&["gone"], t + 2000, t + 2500).unwrap(),
            "expired again"
        );
        assert!(set.claim(&["b"], t + 2000, hour).unwrap(), "b was released");
    }

    #[test]
    fn segments_roll_over_and_expired_ones_are_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let logs = || {
            std::fs::read_dir(dir.path())
                .unwrap()
                .filter(|e| {
                    let path = e.as_ref().unwrap().path();
                    path.extension().is_some_and(|x| x == "log")
                })
                .count()
        };
        let (t, span) = (1_000_000, SEGMENT_SPAN);
        let set = ExpiringSet::open(dir.path(), t).unwrap();
        assert!(set.claim(&["brief"], t, t + 1000).unwrap());
        assert!(set.claim(&["kept"], t, t + 10 * span).unwrap());
        // A minute on, a second segment; the first still holds an unexpired entry.
        assert!(set.claim(&["later"], t + span, t + 20 * span).unwrap());
        assert_eq!(logs(), 2);
        // Once everything in the first has expired, it goes at the next roll-over.
        assert!(set.claim(&["last"], t + 11 * span, t + 30 * span).unwrap());
        assert_eq!(logs(), 2);
        drop(set);
        let now = t + 11 * span;
        let set = ExpiringSet::open(dir.path(), now).unwrap();
        assert!(
            set.claim(&["kept"], now, now + 1).unwrap(),
            "kept had expired"
        );
        for key in ["later", "last"] {
            assert!(
                !set.claim(&[key], now, now + 1).unwrap(),
                "{key} is remembered"
            );
        }
    }
}
