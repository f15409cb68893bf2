//! Copying every blob from one blob store to another (`presspack blobs migrate`), so that an
//! operator can move a deployment's images and press files, e.g. from the data directory to
//! object storage. Page by page in id order; a blob already in the destination with the same
//! bytes is skipped, so a run that stopped is simply run again. Each copy is read back from
//! the destination and compared by SHA-256 with the source before it counts.

use sha2::{Digest, Sha256};

use super::blobs::BlobStore;
use super::interface::StoreError;

/// Blobs listed at a time.
const PAGE: usize = 500;

/// What a migration did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Migrated {
    /// Blobs copied (and verified) by this run.
    pub copied: u64,
    /// Blobs the destination already held with the same bytes.
    pub present: u64,
    /// Bytes copied by this run.
    pub bytes: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("blob {0}: listed in the source but gone when read (is something deleting?)")]
    Vanished(String),
    #[error("blob {id}: the destination holds other bytes (SHA-256 {found}, source {expected})")]
    Differs {
        id: String,
        expected: String,
        found: String,
    },
}

/// Copies every blob of `from` into `to`; `progress` hears of each blob done, with the
/// running totals.
pub async fn migrate(
    from: &dyn BlobStore,
    to: &dyn BlobStore,
    mut progress: impl FnMut(&Migrated),
) -> Result<Migrated, MigrateError> {
    let digest = |bytes: &[u8]| hex::encode(Sha256::digest(bytes));
    let mut done = Migrated::default();
    let mut after: Option<String> = None;
    loop {
        let page = from.list_page(after.as_deref(), PAGE).await?;
        let Some(last) = page.last().cloned() else {
            return Ok(done);
        };
        for id in page {
            let bytes = from
                .get(&id)
                .await?
                .ok_or_else(|| MigrateError::Vanished(id.clone()))?;
            let expected = digest(&bytes);
            let copied = match to.get(&id).await? {
                Some(held) if digest(&held) == expected => false,
                Some(held) => {
                    return Err(MigrateError::Differs {
                        id,
                        expected,
                        found: digest(&held),
                    });
                }
                None => {
                    to.put_at(&id, bytes.clone()).await?;
                    let back = to.get(&id).await?.unwrap_or_default();
                    if digest(&back) != expected {
                        return Err(MigrateError::Differs {
                            id,
                            expected,
                            found: digest(&back),
                        });
                    }
                    true
                }
            };
            if copied {
                done.copied += 1;
                done.bytes += bytes.len() as u64;
            } else {
                done.present += 1;
            }
            progress(&done);
        }
        after = Some(last);
    }
}
