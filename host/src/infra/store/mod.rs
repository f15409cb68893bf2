//! Durable state behind one trait, with two implementations: SQLite in WAL mode (the
//! embedded default, a file under the data directory that the server and the operator CLI can
//! open at once) and Redis.
//!
//! The trait is a small versioned record store. Each record is an opaque value under a
//! `(Kind, id)` key with a revision that grows on every write; updates are compare-and-swap
//! on the revision, so two concurrent read-modify-write cycles can never silently lose one
//! write. Resources keep their own typed records on top (see `domain::packs`).

mod blobs;
mod cache;
mod expiring;
mod interface;
mod migrate;
mod redis;
mod s3;
mod sqlite;

pub use blobs::{BlobCacheStats, BlobStore, Delivery, DirectoryBlobs, SharedBlobs, blob_id};
pub use cache::CachedBlobs;
pub use interface::{
    Claim, Claims, Counters, ExpiringValues, INDEXES_BUILT, IndexEnd, Kind, Records, Schedule,
    SharedStore, Store, StoreError, StoreErrorKind, Versioned, decode, index_once, load, modify,
    random_id,
};
pub use migrate::{MigrateError, Migrated, migrate};
pub use redis::RedisStore;
pub use s3::{S3Blobs, S3Location, S3Settings};
pub use sqlite::SqliteStore;
