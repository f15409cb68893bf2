//! A bounded in-memory cache in front of a blob store on the network (object storage): the
//! renditions a render draws are read once, so a warm render never waits on the network.
//! Blobs are immutable (an id is its content's address), so a cached copy is never stale;
//! the least recently used are dropped beyond `blob_cache_bytes`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use bytes::Bytes;

use super::blobs::{BlobCacheStats, BlobStore, Delivery, SharedBlobs};
use super::interface::StoreError;

#[derive(Default)]
struct Entries {
    /// id -> (bytes, the use that touched it last)
    by_id: HashMap<String, (Bytes, u64)>,
    /// last use -> id: the least recently used first.
    by_use: BTreeMap<u64, String>,
    uses: u64,
    bytes: u64,
}

impl Entries {
    fn touch(&mut self, id: &str) -> Option<Bytes> {
        self.uses += 1;
        let uses = self.uses;
        let (bytes, used) = self.by_id.get_mut(id)?;
        self.by_use.remove(used);
        *used = uses;
        self.by_use.insert(uses, id.to_owned());
        Some(bytes.clone())
    }

    fn insert(&mut self, id: &str, bytes: Bytes, limit: u64) {
        let size = bytes.len() as u64;
        if size > limit / 4 || self.touch(id).is_some() {
            return; // one blob may not take most of the cache; one already there stays
        }
        self.uses += 1;
        self.by_use.insert(self.uses, id.to_owned());
        self.by_id.insert(id.to_owned(), (bytes, self.uses));
        self.bytes += size;
        while self.bytes > limit {
            let Some((_, oldest)) = self.by_use.pop_first() else {
                break;
            };
            if let Some((dropped, _)) = self.by_id.remove(&oldest) {
                self.bytes -= dropped.len() as u64;
            }
        }
    }

    fn remove(&mut self, id: &str) {
        if let Some((bytes, used)) = self.by_id.remove(id) {
            self.by_use.remove(&used);
            self.bytes -= bytes.len() as u64;
        }
    }
}

pub struct CachedBlobs {
    inner: SharedBlobs,
    limit: u64,
    entries: Mutex<Entries>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl CachedBlobs {
    pub fn new(inner: SharedBlobs, limit: u64) -> CachedBlobs {
        CachedBlobs {
            inner,
            limit,
            entries: Mutex::new(Entries::default()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[async_trait]
impl BlobStore for CachedBlobs {
    async fn put_at(&self, id: &str, bytes: Bytes) -> Result<(), StoreError> {
        self.inner.put_at(id, bytes.clone()).await?;
        // What was just uploaded is what is drawn next (its renditions, the preview).
        self.entries().insert(id, bytes, self.limit);
        Ok(())
    }

    async fn list_page(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        self.inner.list_page(after, limit).await
    }

    async fn get(&self, id: &str) -> Result<Option<Bytes>, StoreError> {
        if let Some(bytes) = self.entries().touch(id) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(Some(bytes));
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let bytes = self.inner.get(id).await?;
        if let Some(bytes) = &bytes {
            self.entries().insert(id, bytes.clone(), self.limit);
        }
        Ok(bytes)
    }

    async fn delete(&self, id: &str) -> Result<u64, StoreError> {
        self.entries().remove(id);
        self.inner.delete(id).await
    }

    async fn direct_url(&self, id: &str, how: &Delivery<'_>) -> Result<Option<String>, StoreError> {
        self.inner.direct_url(id, how).await
    }

    fn direct_origin(&self) -> Option<String> {
        self.inner.direct_origin()
    }

    async fn stored_bytes(&self) -> Result<u64, StoreError> {
        self.inner.stored_bytes().await
    }

    fn cache_stats(&self) -> Option<BlobCacheStats> {
        Some(BlobCacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            bytes: self.entries().bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_go_first_and_the_bytes_stay_within_the_limit() {
        let mut entries = Entries::default();
        let blob = |n: usize| Bytes::from(vec![7u8; n]);
        entries.insert("a", blob(25), 100);
        entries.insert("b", blob(20), 100);
        entries.insert("c", blob(20), 100);
        assert!(entries.touch("a").is_some()); // a is now the most recent
        entries.insert("d", blob(25), 100);
        entries.insert("e", blob(15), 100); // 105 > 100: b, the least recent, goes
        assert!(entries.touch("b").is_none());
        assert!(entries.touch("c").is_some());
        assert_eq!(entries.bytes, 85);
        entries.insert("huge", blob(30), 100); // over a quarter of the cache: not kept
        assert!(entries.touch("huge").is_none());
        entries.remove("a");
        assert_eq!(entries.bytes, 60);
        assert_eq!(entries.by_id.len(), entries.by_use.len());
    }
}
