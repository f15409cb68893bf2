//! The blob store: image files and renditions, content-addressed within their owner (a blob's
//! id is the SHA-256 of its owner's id and its bytes: the same image stores its bytes once
//! however often it is uploaded, and deleting one image's blobs never takes another's). Three
//! implementations behind one trait: a directory under the data directory (the embedded
//! default), Redis (so that several host processes share the images, for small setups) and
//! S3-compatible object storage ([`super::s3`], for deployments past one machine).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use redis::AsyncCommands;
use sha2::{Digest, Sha256};

use super::interface::StoreError;
use super::redis::RedisStore;

#[async_trait]
pub trait BlobStore: Send + Sync + 'static {
    /// Stores `bytes` of `owner` (unless already there) and returns their id.
    /// `Bytes` throughout: a blob is shared, never copied, between the request that brought
    /// it, the cache and the upload to object storage.
    async fn put(&self, owner: &str, bytes: Bytes) -> Result<String, StoreError> {
        let id = blob_id(owner, &bytes);
        self.put_at(&id, bytes).await?;
        Ok(id)
    }

    /// Stores `bytes` under `id` (unless already there): `id` must be their address as
    /// [`blob_id`] made it (what `put` does, and a copy from another blob store).
    async fn put_at(&self, id: &str, bytes: Bytes) -> Result<(), StoreError>;

    /// Up to `limit` blob ids after `after`, in order: every blob, page by page.
    async fn list_page(&self, after: Option<&str>, limit: usize)
    -> Result<Vec<String>, StoreError>;

    /// The bytes with this id, if stored.
    async fn get(&self, id: &str) -> Result<Option<Bytes>, StoreError>;

    /// Deletes the blob; the bytes it held (0 if there was none).
    async fn delete(&self, id: &str) -> Result<u64, StoreError>;

    /// The bytes every blob holds together.
    async fn stored_bytes(&self) -> Result<u64, StoreError>;

    /// A URL from which a browser may fetch the blob itself for a while, delivered `how`:
    /// object storage with `s3_redirect_seconds` makes signed, expiring ones, so the host
    /// answers with a redirect rather than carry the bytes. `None`: the host sends them.
    async fn direct_url(
        &self,
        _id: &str,
        _how: &Delivery<'_>,
    ) -> Result<Option<String>, StoreError> {
        Ok(None)
    }

    /// The origin of [`BlobStore::direct_url`]'s URLs, which pages must allow images and
    /// fetches from.
    fn direct_origin(&self) -> Option<String> {
        None
    }

    /// A read cache's counts, for a store that has one.
    fn cache_stats(&self) -> Option<BlobCacheStats> {
        None
    }
}

/// The response headers a blob fetched straight from the store is to arrive with.
pub struct Delivery<'a> {
    pub content_type: &'a str,
    pub cache_control: &'a str,
    /// `attachment; filename="..."` for a download.
    pub disposition: Option<&'a str>,
}

/// A blob read cache's counts since start, for `/metrics`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlobCacheStats {
    pub hits: u64,
    pub misses: u64,
    /// Bytes held now.
    pub bytes: u64,
}

pub type SharedBlobs = Arc<dyn BlobStore>;

/// The id of `owner`'s `bytes`: the SHA-256 of both, in hex.
pub fn blob_id(owner: &str, bytes: &[u8]) -> String {
    let mut hasher = Sha256::new();
    hasher.update((owner.len() as u64).to_le_bytes());
    hasher.update(owner.as_bytes());
    hasher.update(bytes);
    hex::encode(hasher.finalize())
}

/// Ids are hex digests; anything else never names a blob (and never reaches a file path).
pub(super) fn is_blob_id(id: &str) -> bool {
    id.len() == 64
        && id
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// The last sum of the blobs' sizes and when it was taken: walking a directory or listing a
/// bucket is costly, and the sum is only a metric. Reused for a minute.
#[derive(Default)]
pub(super) struct StoredBytes(tokio::sync::Mutex<Option<(std::time::Instant, u64)>>);

/// How long a sum of the blobs' sizes is reused.
const STORED_BYTES_AGE: std::time::Duration = std::time::Duration::from_secs(60);

impl StoredBytes {
    /// The sum, taken again by `sum` when the last is older than a minute or forgotten.
    pub(super) async fn get_or_sum<F>(&self, sum: impl FnOnce() -> F) -> Result<u64, StoreError>
    where
        F: std::future::Future<Output = Result<u64, StoreError>>,
    {
        let mut stored = self.0.lock().await;
        if let Some((at, bytes)) = *stored
            && at.elapsed() < STORED_BYTES_AGE
        {
            return Ok(bytes);
        }
        let bytes = sum().await?;
        *stored = Some((std::time::Instant::now(), bytes));
        Ok(bytes)
    }

    /// After a write: the next sum is taken afresh.
    pub(super) fn forget(&self) {
        if let Ok(mut stored) = self.0.try_lock() {
            *stored = None;
        }
    }
}

/// Blobs as files `<root>/<first two hex digits>/<id>`.
pub struct DirectoryBlobs {
    root: PathBuf,
    stored: StoredBytes,
}

impl DirectoryBlobs {
    pub fn open(root: &Path) -> Result<DirectoryBlobs, StoreError> {
        std::fs::create_dir_all(root).map_err(|e| {
            StoreError::unavailable(format!(
                "cannot create blob directory {}: {e}",
                root.display()
            ))
        })?;
        Ok(DirectoryBlobs {
            root: root.to_owned(),
            stored: StoredBytes::default(),
        })
    }

    fn path(&self, id: &str) -> PathBuf {
        self.root.join(&id[..2]).join(id)
    }
}

#[async_trait]
impl BlobStore for DirectoryBlobs {
    async fn put_at(&self, id: &str, bytes: Bytes) -> Result<(), StoreError> {
        if !is_blob_id(id) {
            return Err(StoreError::corrupt(format!("{id:?} is not a blob id")));
        }
        let path = self.path(id);
        let io = |e: std::io::Error| StoreError::unavailable(format!("blob {id}: {e}"));
        let written = tokio::task::spawn_blocking(move || -> std::io::Result<()> {
            if path.exists() {
                return Ok(());
            }
            let dir = path.parent().expect("blob paths have a directory");
            std::fs::create_dir_all(dir)?;
            // Write aside, flush, then rename: a reader never sees half a file, and a crash
            // leaves at worst a stray temporary file, never a damaged blob.
            let temporary = dir.join(format!(".{:032x}.tmp", rand::random::<u128>()));
            let result = (|| {
                let mut file = std::fs::File::create(&temporary)?;
                std::io::Write::write_all(&mut file, &bytes)?;
                file.sync_all()?;
                std::fs::rename(&temporary, &path)
            })();
            if result.is_err() {
                let _ = std::fs::remove_file(&temporary);
            }
            result
        })
        .await
        .map_err(|e| StoreError::unavailable(format!("blob write stopped: {e}")))?;
        written.map_err(io)
    }

    async fn list_page(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let root = self.root.clone();
        let after = after.unwrap_or_default().to_owned();
        tokio::task::spawn_blocking(move || -> std::io::Result<Vec<String>> {
            // `ab/<id>`: the directories in order from `after`'s, each's ids in order.
            let mut dirs: Vec<String> = std::fs::read_dir(&root)?
                .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
                .filter(|name| name.len() == 2 && after.get(..2).is_none_or(|a| name.as_str() >= a))
                .collect();
            dirs.sort();
            let mut page = Vec::new();
            for dir in dirs {
                let mut ids: Vec<String> = std::fs::read_dir(root.join(&dir))?
                    .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
                    .filter(|id| is_blob_id(id) && id.as_str() > after.as_str())
                    .collect();
                ids.sort();
                page.extend(ids.into_iter().take(limit - page.len()));
                if page.len() == limit {
                    break;
                }
            }
            Ok(page)
        })
        .await
        .map_err(|e| StoreError::unavailable(format!("listing blobs stopped: {e}")))?
        .map_err(|e| StoreError::unavailable(format!("listing blobs: {e}")))
    }

    async fn get(&self, id: &str) -> Result<Option<Bytes>, StoreError> {
        if !is_blob_id(id) {
            return Ok(None);
        }
        match tokio::fs::read(self.path(id)).await {
            Ok(bytes) => Ok(Some(Bytes::from(bytes))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::unavailable(format!("blob {id}: {e}"))),
        }
    }

    async fn delete(&self, id: &str) -> Result<u64, StoreError> {
        if !is_blob_id(id) {
            return Ok(0);
        }
        let path = self.path(id);
        let io = |e: std::io::Error| StoreError::unavailable(format!("blob {id}: {e}"));
        let size = match tokio::fs::metadata(&path).await {
            Ok(metadata) => metadata.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(io(e)),
        };
        match tokio::fs::remove_file(&path).await {
            Ok(()) => Ok(size),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
            Err(e) => Err(io(e)),
        }
    }

    async fn stored_bytes(&self) -> Result<u64, StoreError> {
        let root = self.root.clone();
        let sum = || async move {
            tokio::task::spawn_blocking(move || -> std::io::Result<u64> {
                let mut total = 0;
                for dir in std::fs::read_dir(&root)? {
                    let dir = dir?;
                    if !dir.file_type()?.is_dir() {
                        continue;
                    }
                    for file in std::fs::read_dir(dir.path())? {
                        let metadata = file?.metadata()?;
                        if metadata.is_file() {
                            total += metadata.len();
                        }
                    }
                }
                Ok(total)
            })
            .await
            .map_err(|e| StoreError::unavailable(format!("blob sizes: {e}")))?
            .map_err(|e| StoreError::unavailable(format!("blob sizes: {e}")))
        };
        self.stored.get_or_sum(sum).await
    }
}

#[async_trait]
impl BlobStore for RedisStore {
    async fn put_at(&self, id: &str, bytes: Bytes) -> Result<(), StoreError> {
        if !is_blob_id(id) {
            return Err(StoreError::corrupt(format!("{id:?} is not a blob id")));
        }
        let mut connection = self.connection.clone();
        // NX: the same id always holds the same bytes; an existing blob is left alone.
        let set: Option<String> = redis::cmd("SET")
            .arg(self.blob_key(id))
            .arg(bytes.as_ref())
            .arg("NX")
            .query_async(&mut connection)
            .await
            .map_err(redis_error)?;
        // The running total is its own key (its own slot on a cluster), so it is changed in
        // a second command: a crash in between leaves the metric off by one blob.
        if set.is_some() {
            let _: i64 = connection
                .incr(self.blob_bytes_key(), bytes.len())
                .await
                .map_err(redis_error)?;
        }
        Ok(())
    }

    async fn list_page(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        // SCAN has no order: every id is read and the page cut from them (Redis keeps blobs
        // for small setups).
        let ids = self.ids_under("blob").await?;
        Ok(ids
            .into_iter()
            .filter(|id| is_blob_id(id) && after.is_none_or(|a| id.as_str() > a))
            .take(limit)
            .collect())
    }

    async fn delete(&self, id: &str) -> Result<u64, StoreError> {
        if !is_blob_id(id) {
            return Ok(0);
        }
        let mut connection = self.connection.clone();
        let key = self.blob_key(id);
        let (size, deleted): (u64, i64) = redis::pipe()
            .cmd("STRLEN")
            .arg(&key)
            .cmd("DEL")
            .arg(&key)
            .query_async(&mut connection)
            .await
            .map_err(redis_error)?;
        if deleted == 0 {
            return Ok(0);
        }
        let _: i64 = connection
            .decr(self.blob_bytes_key(), size)
            .await
            .map_err(redis_error)?;
        Ok(size)
    }

    async fn stored_bytes(&self) -> Result<u64, StoreError> {
        let mut connection = self.connection.clone();
        let bytes: Option<i64> = connection
            .get(self.blob_bytes_key())
            .await
            .map_err(redis_error)?;
        Ok(bytes.unwrap_or(0).max(0) as u64)
    }

    async fn get(&self, id: &str) -> Result<Option<Bytes>, StoreError> {
        if !is_blob_id(id) {
            return Ok(None);
        }
        let mut connection = self.connection.clone();
        let bytes: Option<Vec<u8>> = connection
            .get(self.blob_key(id))
            .await
            .map_err(redis_error)?;
        Ok(bytes.map(Bytes::from))
    }
}

fn redis_error(e: redis::RedisError) -> StoreError {
    StoreError::unavailable(format!("redis: {e}"))
}
