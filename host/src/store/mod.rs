//! Durable state behind one trait, with two implementations: SQLite in WAL mode (the
//! embedded default, a file under the data directory that the server and the operator CLI can
//! open at once) and Redis.
//!
//! The trait is a small versioned record store. Each record is an opaque value under a
//! `(Kind, id)` key with a revision that grows on every write; updates are compare-and-swap
//! on the revision, so two concurrent read-modify-write cycles can never silently lose one
//! write. Resources keep their own typed records on top (see `packs::record`).

mod redis;
mod sqlite;

use std::sync::Arc;

use async_trait::async_trait;

pub use self::redis::RedisStore;
pub use self::sqlite::SqliteStore;

/// The kinds of record; each is a separate key space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Pack,
    Design,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Pack => "pack",
            Kind::Design => "design",
        }
    }
}

/// A stored value with the revision it was read at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versioned {
    pub revision: u64,
    pub value: Vec<u8>,
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(pub String);

#[async_trait]
pub trait Store: Send + Sync + 'static {
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

    /// Deletes a record; `false` if there was none.
    async fn delete(&self, kind: Kind, id: &str) -> Result<bool, StoreError>;

    /// The ids of every record of `kind`, sorted. For small, operator-managed kinds only.
    async fn list(&self, kind: Kind) -> Result<Vec<String>, StoreError>;

    /// Where the data lives, for start-up messages (never includes a password).
    fn describe(&self) -> String;
}

pub type SharedStore = Arc<dyn Store>;
