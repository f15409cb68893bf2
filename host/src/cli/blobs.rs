//! `presspack blobs`: moving the blob stores' contents (image files, renditions, press files).

use anyhow::{Context, anyhow, bail};
use clap::Subcommand;

use crate::config::Config;

#[derive(Subcommand)]
pub(super) enum BlobCommand {
    /// Copy every blob from one blob store to another, verifying each copy by SHA-256; run
    /// it again to resume. Then set blob_store to the destination and restart the servers.
    Migrate {
        /// Where the blobs are: dir:PATH, redis (redis_url) or s3://bucket/prefix (the s3_*
        /// settings).
        #[arg(long)]
        from: String,
        /// Where they go, in the same form.
        #[arg(long)]
        to: String,
    },
}

/// A blob store named on the command line: `dir:PATH`, `redis` or `s3://bucket/prefix` (no
/// read cache: a copy is verified against the store itself).
async fn named_blobs(
    config: &Config,
    name: &str,
) -> anyhow::Result<Box<dyn crate::infra::store::BlobStore>> {
    use crate::infra::store::{DirectoryBlobs, RedisStore, S3Blobs, S3Location};
    let opened: Result<Box<dyn crate::infra::store::BlobStore>, _> =
        if let Some(path) = name.strip_prefix("dir:") {
            DirectoryBlobs::open(std::path::Path::new(path)).map(|b| Box::new(b) as _)
        } else if name == "redis" {
            let store = &config.store;
            let url = store
                .redis_url
                .as_deref()
                .ok_or_else(|| anyhow!("redis: redis_url (PRESSPACK_REDIS_URL) is not set"))?;
            RedisStore::connect(url, &store.redis_key_prefix, store.redis_cluster)
                .await
                .map(|b| Box::new(b) as _)
        } else if let Some(location) = S3Location::parse(name) {
            S3Blobs::open(&location, &config.s3)
                .await
                .map(|b| Box::new(b) as _)
        } else {
            bail!("{name:?}: expected dir:PATH, redis or s3://bucket/prefix");
        };
    opened.with_context(|| name.to_owned())
}

/// `blobs migrate`: every blob of `from` copied into `to`, with the progress on standard
/// error.
pub(super) async fn migrate_blobs(config: &Config, from: &str, to: &str) -> anyhow::Result<()> {
    let source = named_blobs(config, from).await?;
    let destination = named_blobs(config, to).await?;
    let mut shown = std::time::Instant::now();
    let done = crate::infra::store::migrate(source.as_ref(), destination.as_ref(), |done| {
        if shown.elapsed() >= std::time::Duration::from_millis(500) {
            shown = std::time::Instant::now();
            eprint!(
                "\rcopied {} blobs ({} bytes), {} already there",
                done.copied, done.bytes, done.present
            );
        }
    })
    .await
    .map_err(|e| anyhow!("{e} (run the command again to resume)"))?;
    eprintln!();
    println!(
        "copied {} blobs ({} bytes), {} already there; every copy verified by SHA-256",
        done.copied, done.bytes, done.present
    );
    Ok(())
}
