//! Blobs on S3-compatible object storage (AWS S3, Garage, MinIO, Ceph ...), through Apache
//! Arrow's `object_store` crate: a maintained client that signs requests (SigV4), retries
//! with backoff within a time limit, uploads large objects in parts, and runs on the
//! reqwest and rustls the host already has (no second TLS stack: its `ring` signer).
//!
//! Objects are `<prefix>/<first two hex digits>/<id>`, the id being the content address
//! ([`blob_id`]): a retried upload writes the same key with the same bytes, so writes are
//! idempotent without asking first. Every call is bounded by `s3_timeout_ms` (retries
//! included): a slow or absent store is an `Unavailable` error within that time, never a
//! hung request.

use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt};
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as ObjectPath;
use object_store::signer::{SignedUrlOptions, Signer};
use object_store::{ClientOptions, ObjectStore, ObjectStoreExt, PutPayload, RetryConfig};
use reqwest::Method;
use serde::Deserialize;

use super::blobs::{BlobStore, Delivery, StoredBytes, is_blob_id};
use super::interface::StoreError;
use crate::infra::settings;

/// Objects larger than this are uploaded in parts of this size (S3's parts are at least
/// 5 MiB but the last).
const PART_BYTES: usize = 8 * 1024 * 1024;

/// How to reach the object storage named by `blob_store = "s3://bucket/prefix"`.
#[derive(Clone, Deserialize)]
#[serde(default)]
pub struct S3Settings {
    /// The service's URL (`https://s3.example.com`, `http://127.0.0.1:3900`); `None`: AWS S3
    /// in `s3_region`.
    #[serde(deserialize_with = "settings::some_text")]
    pub s3_endpoint: Option<String>,
    /// The signing region (Garage: `garage`; MinIO: anything).
    pub s3_region: String,
    #[serde(deserialize_with = "settings::some_text")]
    pub s3_access_key_id: Option<String>,
    #[serde(deserialize_with = "settings::some_text")]
    pub s3_secret_access_key: Option<String>,
    /// Buckets in the path (`https://host/bucket/key`) instead of the host name
    /// (`https://bucket.host/key`): most self-hosted servers want this.
    #[serde(deserialize_with = "settings::flag")]
    pub s3_path_style: bool,
    /// The longest one blob call may take, retries included.
    #[serde(
        rename = "s3_timeout_ms",
        deserialize_with = "settings::millis::<_, 100, 600_000>"
    )]
    pub timeout: Duration,
    /// Bytes of blobs each host keeps in memory (least recently used dropped first), so a
    /// warm render never waits on the network; 0: none.
    #[serde(
        rename = "s3_cache_bytes",
        deserialize_with = "settings::count::<_, u64, 0, { 64 * 1024 * 1024 * 1024 }>"
    )]
    pub cache_bytes: u64,
    /// How long a signed object URL stays valid when the host answers a browser's request
    /// for an image or a press file with a redirect to the object store instead of the
    /// bytes (`s3_redirect_seconds`); zero: the host sends the bytes itself.
    #[serde(
        rename = "s3_redirect_seconds",
        deserialize_with = "settings::seconds::<_, 0, 604_800>"
    )]
    pub redirect: Duration,
}

impl Default for S3Settings {
    fn default() -> Self {
        S3Settings {
            s3_endpoint: None,
            s3_region: "us-east-1".to_owned(),
            s3_access_key_id: None,
            s3_secret_access_key: None,
            s3_path_style: false,
            timeout: Duration::from_secs(10),
            cache_bytes: 256 * 1024 * 1024,
            redirect: Duration::ZERO,
        }
    }
}

impl std::fmt::Debug for S3Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Settings")
            .field("s3_endpoint", &self.s3_endpoint)
            .field("s3_region", &self.s3_region)
            .field("s3_access_key_id", &self.s3_access_key_id)
            .field(
                "s3_secret_access_key",
                &self.s3_secret_access_key.as_ref().map(|_| ".."),
            )
            .field("s3_path_style", &self.s3_path_style)
            .field("timeout", &self.timeout)
            .field("cache_bytes", &self.cache_bytes)
            .field("redirect", &self.redirect)
            .finish()
    }
}

/// Where blobs are kept: `s3://bucket` or `s3://bucket/prefix`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Location {
    pub bucket: String,
    /// No leading or trailing slash; may be empty.
    pub prefix: String,
}

impl S3Location {
    pub fn parse(url: &str) -> Option<S3Location> {
        let rest = url.strip_prefix("s3://")?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let bucket_ok = (3..=63).contains(&bucket.len())
            && bucket
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
        let prefix = prefix.trim_matches('/');
        let prefix_ok = prefix.len() <= 512
            && prefix
                .split('/')
                .all(|part| !matches!(part, "." | "..") && !part.contains(['\\', '\0']));
        (bucket_ok && prefix_ok).then(|| S3Location {
            bucket: bucket.to_owned(),
            prefix: prefix.to_owned(),
        })
    }
}

pub struct S3Blobs {
    store: AmazonS3,
    prefix: String,
    stored: StoredBytes,
    /// How long the URLs of [`BlobStore::direct_url`] last; zero: none are made.
    redirect: Duration,
    /// Their origin (`https://bucket.s3.region.amazonaws.com`), for the pages' policy.
    origin: Option<String>,
}

fn unavailable(what: &str, error: object_store::Error) -> StoreError {
    StoreError::unavailable(format!("object storage: {what}: {error}"))
}

impl S3Blobs {
    pub async fn open(location: &S3Location, settings: &S3Settings) -> Result<S3Blobs, StoreError> {
        // The same TLS provider as every other client of the host.
        crate::infra::fetch::install_tls_provider();
        let mut builder = AmazonS3Builder::new()
            .with_bucket_name(&location.bucket)
            .with_region(&settings.s3_region)
            .with_virtual_hosted_style_request(!settings.s3_path_style)
            .with_client_options(
                ClientOptions::new()
                    .with_connect_timeout(settings.timeout.min(Duration::from_secs(5)))
                    .with_timeout(settings.timeout),
            )
            .with_retry(RetryConfig {
                max_retries: 3,
                retry_timeout: settings.timeout,
                ..RetryConfig::default()
            });
        if let Some(endpoint) = &settings.s3_endpoint {
            builder = builder
                .with_endpoint(endpoint)
                .with_allow_http(endpoint.starts_with("http://"));
        }
        if let (Some(key), Some(secret)) =
            (&settings.s3_access_key_id, &settings.s3_secret_access_key)
        {
            builder = builder
                .with_access_key_id(key)
                .with_secret_access_key(secret);
        }
        let store = builder.build().map_err(|e| {
            StoreError::unavailable(format!("object storage s3://{}: {e}", location.bucket))
        })?;
        let mut blobs = S3Blobs {
            store,
            prefix: location.prefix.clone(),
            stored: StoredBytes::default(),
            redirect: settings.redirect,
            origin: None,
        };
        if !settings.redirect.is_zero() {
            // Where the store's URLs point, as the client builds them (virtual-hosted or
            // path style, AWS's host names or the endpoint): sign one and look.
            let url = blobs
                .store
                .signed_url(Method::GET, &blobs.path(&"0".repeat(64)), settings.redirect)
                .await
                .map_err(|e| unavailable("signing a URL", e))?;
            blobs.origin = Some(url.origin().ascii_serialization());
        }
        Ok(blobs)
    }

    fn path(&self, id: &str) -> ObjectPath {
        let key = format!("{}/{id}", &id[..2]);
        if self.prefix.is_empty() {
            ObjectPath::from(key)
        } else {
            ObjectPath::from(format!("{}/{key}", self.prefix))
        }
    }
}

#[async_trait]
impl BlobStore for S3Blobs {
    async fn put_at(&self, id: &str, body: Bytes) -> Result<(), StoreError> {
        if !is_blob_id(id) {
            return Err(StoreError::corrupt(format!("{id:?} is not a blob id")));
        }
        let path = self.path(id);
        if body.len() <= PART_BYTES {
            self.store
                .put(&path, PutPayload::from(body))
                .await
                .map_err(|e| unavailable(id, e))?;
        } else {
            // In parts: a failed part is retried alone, and an abandoned upload is aborted so
            // that the bucket keeps no orphan parts.
            let mut upload = self
                .store
                .put_multipart(&path)
                .await
                .map_err(|e| unavailable(id, e))?;
            let mut sent = Ok(());
            for offset in (0..body.len()).step_by(PART_BYTES) {
                let part = body.slice(offset..(offset + PART_BYTES).min(body.len()));
                sent = upload.put_part(PutPayload::from(part)).await;
                if sent.is_err() {
                    break;
                }
            }
            let finished = match sent {
                Ok(()) => upload.complete().await.map(drop),
                Err(e) => {
                    let _ = upload.abort().await;
                    Err(e)
                }
            };
            finished.map_err(|e| unavailable(id, e))?;
        }
        self.stored.forget();
        Ok(())
    }

    async fn list_page(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        // Keys `prefix/ab/<id>` sort as their ids do; S3 lists in key order from an offset.
        let prefix = (!self.prefix.is_empty()).then(|| ObjectPath::from(self.prefix.as_str()));
        let offset = after.filter(|a| is_blob_id(a)).map(|a| self.path(a));
        let listed = match &offset {
            Some(offset) => self.store.list_with_offset(prefix.as_ref(), offset),
            None => self.store.list(prefix.as_ref()),
        };
        listed
            .map_ok(|meta| meta.location.filename().unwrap_or_default().to_owned())
            .try_filter(|id| std::future::ready(is_blob_id(id)))
            .take(limit)
            .try_collect()
            .await
            .map_err(|e| unavailable("listing the blobs", e))
    }

    async fn get(&self, id: &str) -> Result<Option<Bytes>, StoreError> {
        if !is_blob_id(id) {
            return Ok(None);
        }
        let read = async {
            let object = self.store.get(&self.path(id)).await?;
            object.bytes().await
        };
        match read.await {
            Ok(bytes) => Ok(Some(bytes)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(unavailable(id, e)),
        }
    }

    async fn delete(&self, id: &str) -> Result<u64, StoreError> {
        if !is_blob_id(id) {
            return Ok(0);
        }
        let path = self.path(id);
        let size = match self.store.head(&path).await {
            Ok(meta) => meta.size,
            Err(object_store::Error::NotFound { .. }) => return Ok(0),
            Err(e) => return Err(unavailable(id, e)),
        };
        match self.store.delete(&path).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => return Err(unavailable(id, e)),
        }
        self.stored.forget();
        Ok(size)
    }

    async fn direct_url(&self, id: &str, how: &Delivery<'_>) -> Result<Option<String>, StoreError> {
        if self.redirect.is_zero() || !is_blob_id(id) {
            return Ok(None);
        }
        // The response headers ride in the signed query: the object itself has none of its
        // own, and the browser must get the type, name and caching the host would send.
        let mut query = vec![
            ("response-content-type", how.content_type.to_owned()),
            ("response-cache-control", how.cache_control.to_owned()),
        ];
        if let Some(disposition) = how.disposition {
            query.push(("response-content-disposition", disposition.to_owned()));
        }
        let options = SignedUrlOptions::new().with_query(query);
        let url = self
            .store
            .signed_url_opts(Method::GET, &self.path(id), self.redirect, &options)
            .await
            .map_err(|e| unavailable(id, e))?;
        Ok(Some(url.into()))
    }

    fn direct_origin(&self) -> Option<String> {
        self.origin.clone()
    }

    async fn stored_bytes(&self) -> Result<u64, StoreError> {
        let prefix = (!self.prefix.is_empty()).then(|| ObjectPath::from(self.prefix.as_str()));
        self.stored
            .get_or_sum(|| async {
                self.store
                    .list(prefix.as_ref())
                    .try_fold(0u64, |total, meta| async move { Ok(total + meta.size) })
                    .await
                    .map_err(|e| unavailable("listing the blobs", e))
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_name_a_bucket_and_a_prefix() {
        let parse = |url| S3Location::parse(url).map(|l| (l.bucket, l.prefix));
        assert_eq!(parse("s3://images"), Some(("images".into(), "".into())));
        assert_eq!(
            parse("s3://my.images/presspack/prod/"),
            Some(("my.images".into(), "presspack/prod".into()))
        );
        for bad in [
            "s3://",
            "s3://ab",
            "s3://Images",
            "s3://a_b/x",
            "http://images",
            "s3://images/../x",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
