//! The blob store: image files and renditions, content-addressed (a blob's id is the SHA-256
//! of its bytes, so the same bytes are stored once however often they are uploaded). Two
//! implementations behind one trait: a directory under the data directory (the embedded
//! default) and Redis (so that several host processes share the images).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use redis::AsyncCommands;
use sha2::{Digest, Sha256};

use super::{RedisStore, StoreError};

#[async_trait]
pub trait BlobStore: Send + Sync + 'static {
    /// Stores `bytes` (unless already there) and returns their id.
    async fn put(&self, bytes: &[u8]) -> Result<String, StoreError>;

    /// The bytes with this id, if stored.
    async fn get(&self, id: &str) -> Result<Option<Vec<u8>>, StoreError>;
}

pub type SharedBlobs = Arc<dyn BlobStore>;

/// The id of some bytes: their SHA-256, in hex.
pub fn blob_id(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Ids are hex digests; anything else never names a blob (and never reaches a file path).
fn is_blob_id(id: &str) -> bool {
    id.len() == 64
        && id
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// Blobs as files `<root>/<first two hex digits>/<id>`.
pub struct DirectoryBlobs {
    root: PathBuf,
}

impl DirectoryBlobs {
    pub fn open(root: &Path) -> Result<DirectoryBlobs, StoreError> {
        std::fs::create_dir_all(root).map_err(|e| {
            StoreError(format!(
                "cannot create blob directory {}: {e}",
                root.display()
            ))
        })?;
        Ok(DirectoryBlobs {
            root: root.to_owned(),
        })
    }

    fn path(&self, id: &str) -> PathBuf {
        self.root.join(&id[..2]).join(id)
    }
}

#[async_trait]
impl BlobStore for DirectoryBlobs {
    async fn put(&self, bytes: &[u8]) -> Result<String, StoreError> {
        let id = blob_id(bytes);
        let path = self.path(&id);
        let bytes = bytes.to_vec();
        let io = |e: std::io::Error| StoreError(format!("blob {id}: {e}"));
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
        .map_err(|e| StoreError(format!("blob write stopped: {e}")))?;
        written.map_err(io)?;
        Ok(id)
    }

    async fn get(&self, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        if !is_blob_id(id) {
            return Ok(None);
        }
        match tokio::fs::read(self.path(id)).await {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError(format!("blob {id}: {e}"))),
        }
    }
}

#[async_trait]
impl BlobStore for RedisStore {
    async fn put(&self, bytes: &[u8]) -> Result<String, StoreError> {
        let id = blob_id(bytes);
        let mut connection = self.connection.clone();
        // NX: the same id always holds the same bytes; an existing blob is left alone.
        let _: Option<String> = redis::cmd("SET")
            .arg(self.blob_key(&id))
            .arg(bytes)
            .arg("NX")
            .query_async(&mut connection)
            .await
            .map_err(|e| StoreError(format!("redis: {e}")))?;
        Ok(id)
    }

    async fn get(&self, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        if !is_blob_id(id) {
            return Ok(None);
        }
        let mut connection = self.connection.clone();
        connection
            .get(self.blob_key(id))
            .await
            .map_err(|e| StoreError(format!("redis: {e}")))
    }
}
