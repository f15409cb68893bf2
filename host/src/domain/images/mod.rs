//! Images: checking a file, storing it with its renditions, and reading a rendition back
//! for a render. `svc.image.uploadImage` and `importImage` ([`crate::http::rpc::images`]) call
//! [`store_image`].
//!
//! The host never decodes an image: the engine's wasm module checks the file and makes the
//! renditions inside its sandbox ([`presspack_engine::ingest`]). The host stores the original
//! and the renditions as content-addressed blobs and an image record with their ids, and
//! answers with the basket item of wire-formats section 3. The image id is a MAC of the
//! file's bytes under the deployment's secret key: uploading the same file twice stores it
//! once and skips the engine, yet nobody holding a file can work out its address here.
//!
//! Images nothing refers to are deleted after the retention time ([`retention`]).

pub mod retention;
pub mod service;

use presspack_engine::images::{PlanError, PlannedImage};
use presspack_engine::ingest::{IngestReport, RenditionKind};
use presspack_engine::render::ImageInput;
use serde::{Deserialize, Serialize};

use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::services::Services;
use crate::infra::engine::EngineCallError;
use crate::infra::store::{Kind, StoreError, load};

/// Record kind: image records (facts and rendition blob ids), by image id; also the retention
/// schedule.
pub const IMAGES: Kind = Kind::new("image");

/// The prefix of every image and rendition URI.
pub const STORE_SCHEME: &str = "store://";

/// What the store keeps about an image: the engine's findings and each rendition's blob.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageRecord {
    pub report: IngestReport,
    /// Blob id of the file as it was sent.
    original: String,
    /// Blob id of each rendition, in the report's order.
    rendition_blobs: Vec<String>,
    /// A pack or design refers to the image: it is kept for good (see [`retention`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pinned: bool,
    /// The image is being deleted; it no longer exists for anyone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    swept: bool,
}

impl ImageRecord {
    /// The image's basket item (wire-formats section 3): `kind` is its `type`.
    pub fn basket_item(
        &self,
        id: &str,
        kind: &str,
        should_enhance: bool,
        name: &str,
        source: &str,
    ) -> serde_json::Value {
        let image_items: Vec<serde_json::Value> = self
            .report
            .renditions
            .iter()
            .map(|r| {
                serde_json::json!({
                    "type": r.kind.name(),
                    "resourceUri": format!("{STORE_SCHEME}{id}/{}", r.kind.name()),
                    "width": r.width,
                    "height": r.height,
                    "rotation": 0,
                })
            })
            .collect();
        serde_json::json!({
            "resourceUri": format!("{STORE_SCHEME}{id}"),
            "cacheId": id,
            "type": kind,
            "removable": true,
            "croppable": true,
            "shouldEnhance": should_enhance,
            "copyrightOwner": "",
            "name": name,
            "source": source,
            "imageItems": image_items,
        })
    }

    /// Every blob of the image, each once.
    fn blobs(&self) -> Vec<&str> {
        let mut blobs: Vec<&str> = std::iter::once(self.original.as_str())
            .chain(self.rendition_blobs.iter().map(String::as_str))
            .collect();
        blobs.sort_unstable();
        blobs.dedup();
        blobs
    }
}

/// An image the engine refused, for the client.
pub struct Refusal {
    pub code: String,
    pub message: String,
    pub reason: String,
}

/// Puts the unpinned image `id` on the schedule, due after the retention time from now.
async fn keep_unused(state: &Services, id: &str) -> Result<(), StoreError> {
    let due = state.clock.unix_millis() + state.images.settings().retention.as_millis() as i64;
    state.store.schedule(IMAGES, id, due).await
}

/// Stores an image (once per distinct file) and returns its id and record, or the engine's
/// refusal of it. An image nothing refers to yet is kept for the retention time from now.
pub async fn store_image(
    state: &Services,
    bytes: bytes::Bytes,
) -> Result<Result<(String, ImageRecord), Refusal>, DomainError> {
    // 128 bits of a MAC of the file: stable for equal files, unguessable without the file
    // and the deployment's key.
    let id = state.secret_key.mac("image", &[&bytes])[..32].to_owned();
    let store = state.store.as_ref();
    let mut attempts = 0;
    let tombstone = loop {
        let existing = store.get(IMAGES, &id).await?;
        match existing
            .map(|stored| crate::infra::store::decode::<ImageRecord>(IMAGES, &id, stored))
            .transpose()?
        {
            Some((record, _)) if record.pinned && !record.swept => return Ok(Ok((id, record))),
            Some((record, revision)) if !record.swept => {
                // Written again, not only given a new due time: a sweep that read the record
                // before this upload then fails its compare-and-swap and keeps the image.
                let value =
                    serde_json::to_vec(&record).map_err(|e| StoreError::corrupt(e.to_string()))?;
                if store.replace(IMAGES, &id, &value, revision).await? {
                    keep_unused(state, &id).await?;
                    return Ok(Ok((id, record)));
                }
                // Pinned or being swept since it was read: read it again.
                attempts += 1;
                if attempts == 8 {
                    return Err(StoreError::conflict(format!(
                        "image {id} is being changed by many requests at once; try again"
                    ))
                    .into());
                }
            }
            Some((_, revision)) => break Some(revision),
            None => break None,
        }
    };
    let request = state.images.ingest_request(bytes.len());
    let ingested = match state.engine.ingest(&request, &bytes).await {
        Ok(ingested) => ingested,
        Err(EngineCallError::Refused(failure)) if failure.reason.is_some() => {
            return Ok(Err(Refusal {
                code: failure.code.as_str().to_owned(),
                message: failure.message,
                reason: failure.reason.unwrap_or_default(),
            }));
        }
        Err(error) => return Err(error.into()),
    };
    // The blobs of an image made again after it was swept are apart from the old ones,
    // which the sweep may still be deleting.
    let owner = match tombstone {
        Some(revision) => format!("{id}:{revision}"),
        None => id.clone(),
    };
    let original = state.blobs.put(&owner, bytes).await?;
    let mut rendition_blobs = Vec::with_capacity(ingested.blobs.len());
    for (info, blob) in ingested.report.renditions.iter().zip(ingested.blobs) {
        rendition_blobs.push(if info.original {
            original.clone()
        } else {
            state.blobs.put(&owner, blob.into()).await?
        });
    }
    let record = ImageRecord {
        report: ingested.report,
        original,
        rendition_blobs,
        pinned: false,
        swept: false,
    };
    let value = serde_json::to_vec(&record)
        .map_err(|e| DomainError::new(ErrorCode::Internal, e.to_string()))?;
    // The retention clock starts before the record exists: a crash in between leaves a
    // schedule entry the sweep drops, never an image it does not know of.
    keep_unused(state, &id).await?;
    let written = match tombstone {
        Some(revision) => store.replace(IMAGES, &id, &value, revision).await?,
        // Losing a race with the same file uploaded at once leaves the same record either
        // way (same owner, same blobs).
        None => {
            store.insert(IMAGES, &id, &value).await?;
            true
        }
    };
    if !written {
        return Err(DomainError::new(
            ErrorCode::StoreUnavailable,
            "imageFile: the same image was being removed and stored again at once; try again",
        ));
    }
    Ok(Ok((id, record)))
}

/// An image a render or press file draws: the URI the side uses, the bytes of the rendition
/// planned, and whether to enhance it.
pub struct FetchedImage {
    pub uri: String,
    pub bytes: bytes::Bytes,
    pub enhance: bool,
}

impl FetchedImage {
    /// The images as the engine takes them, by resource URI.
    pub fn inputs(images: &[FetchedImage]) -> Vec<(&str, ImageInput<'_>)> {
        images
            .iter()
            .map(|image| {
                let input = ImageInput {
                    bytes: &image.bytes,
                    enhance: image.enhance,
                };
                (image.uri.as_str(), input)
            })
            .collect()
    }
}

/// A plan that names an unknown template or an image outside the basket, as the API says it.
pub fn plan_error(error: PlanError) -> DomainError {
    match error {
        PlanError::UnknownTemplate(_) => {
            DomainError::new(ErrorCode::UnknownTemplate, error.to_string())
        }
        PlanError::NotInBasket(_) => DomainError::new(ErrorCode::MissingImage, error.to_string()),
    }
}

/// The bytes of each planned rendition. An image missing from the store is an error naming
/// its resourceUri.
pub async fn fetch_renditions(
    services: &Services,
    planned: Vec<PlannedImage>,
) -> Result<Vec<FetchedImage>, DomainError> {
    let mut images = Vec::with_capacity(planned.len());
    for image in planned {
        let bytes = rendition_bytes(services, &image.rendition_uri)
            .await?
            .ok_or_else(|| {
                DomainError::new(
                    ErrorCode::MissingImage,
                    format!(
                        "resourceUri {:?}: the image store has no {:?}",
                        image.resource_uri, image.rendition_uri
                    ),
                )
            })?;
        images.push(FetchedImage {
            uri: image.resource_uri,
            bytes,
            enhance: image.enhance,
        });
    }
    Ok(images)
}

/// A stored image's rendition: the blob that holds it and its media type.
pub struct StoredRendition {
    pub blob: String,
    pub media_type: String,
}

/// The rendition a stored image URI names: `store://<id>/<rendition>`, or `store://<id>` for
/// its print rendition. `None` if there is no such image or rendition.
pub async fn find_rendition(
    state: &Services,
    uri: &str,
) -> Result<Option<StoredRendition>, DomainError> {
    let Some(path) = uri.strip_prefix(STORE_SCHEME) else {
        return Ok(None);
    };
    let (id, rendition) = path.split_once('/').unwrap_or((path, "print"));
    let Some(kind) = RenditionKind::ALL
        .into_iter()
        .find(|k| k.name() == rendition)
    else {
        return Ok(None);
    };
    if id.len() != 32 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(None);
    }
    let Some((record, _)) = load::<ImageRecord>(state.store.as_ref(), IMAGES, id).await? else {
        return Ok(None);
    };
    if record.swept {
        return Ok(None);
    }
    Ok(record
        .report
        .renditions
        .into_iter()
        .zip(record.rendition_blobs)
        .find(|(info, _)| info.kind == kind)
        .map(|(info, blob)| StoredRendition {
            blob,
            media_type: info.media_type,
        }))
}

/// The bytes a render draws for a stored image URI ([`find_rendition`]).
pub async fn rendition_bytes(
    state: &Services,
    uri: &str,
) -> Result<Option<bytes::Bytes>, DomainError> {
    match find_rendition(state, uri).await? {
        Some(rendition) => Ok(state.blobs.get(&rendition.blob).await?),
        None => Ok(None),
    }
}
