//! The image store's operations: `svc.image.uploadImage` (multipart, unsigned) and
//! `svc.image.importImage` (signed; `bytes` or a public `imageUrl`).
//!
//! The host never decodes an image: the engine's wasm module checks the file and makes the
//! renditions inside its sandbox ([`presspack_engine::ingest`]). The host stores the original
//! and the renditions as content-addressed blobs and an image record with their ids, and
//! answers with the basket item of wire-formats section 3. The image id is a MAC of the
//! file's bytes under the deployment's secret key: uploading the same file twice stores it
//! once and skips the engine, yet nobody holding a file can work out its address here.
//!
//! Images nothing refers to are deleted after the retention time ([`retention`]).

pub mod fetch;
pub mod retention;

use std::time::Duration;

use base64::Engine as _;
use presspack_engine::ingest::{IngestReport, IngestRequest, RenditionInfo, RenditionKind};
use presspack_engine::wire::{Op, ingest_frame, read_ingested};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::api::{ApiError, Call, ErrorCode, Reply, truncate};
use crate::app::{AppState, StartupError};
use crate::config::ImageSettings;
use crate::engine_host::EngineCallError;
use crate::store::{Kind, load};
use fetch::{FetchError, FetchPolicy, Fetcher};

/// How long an image request waits for a permit before it is told the server is busy.
const PERMIT_WAIT: Duration = Duration::from_secs(30);
/// The prefix of every image and rendition URI.
const STORE_SCHEME: &str = "store://";

/// Whether an operation takes image files (and so may send a large body).
pub fn takes_image(method: &str) -> bool {
    matches!(method, "svc.image.uploadImage" | "svc.image.importImage")
}

/// The image operations' settings, URL fetcher and upload permits.
pub struct ImageService {
    settings: ImageSettings,
    fetcher: Fetcher,
    uploads: Semaphore,
    /// An engine instance's memory limit, which decoding an image must fit in.
    engine_memory_bytes: usize,
}

/// What an engine instance holds besides the image it is checking: fonts, templates, its
/// caches, its code's own allocations.
const ENGINE_RESIDENT_BYTES: usize = 96 << 20;

impl ImageService {
    pub fn new(
        settings: &ImageSettings,
        engine_memory_bytes: usize,
    ) -> Result<ImageService, StartupError> {
        let policy = FetchPolicy {
            allow_hosts: settings.import_allow_hosts.clone(),
            resolve: settings.import_resolve.clone(),
            timeout: settings.import_timeout,
            max_bytes: settings.max_upload_bytes,
        };
        Ok(ImageService {
            settings: settings.clone(),
            fetcher: Fetcher::new(policy).map_err(|e| StartupError::Images(e.to_string()))?,
            uploads: Semaphore::new(settings.concurrent_uploads),
            engine_memory_bytes,
        })
    }

    /// The largest body an image request may send: the largest file in base64 (importImage's
    /// `bytes`), plus room for the other parameters.
    pub fn max_body_bytes(&self) -> usize {
        self.settings.max_upload_bytes.div_ceil(3) * 4 + 1024 * 1024
    }

    /// One of the few permits to read a large body, waiting a while for one.
    pub async fn upload_permit(&self) -> Result<SemaphorePermit<'_>, ApiError> {
        let busy = || {
            ApiError::new(
                ErrorCode::ServerBusy,
                format!(
                    "the server is handling {} large requests (image uploads) already; try \
                     again shortly",
                    self.settings.concurrent_uploads
                ),
            )
        };
        tokio::time::timeout(PERMIT_WAIT, self.uploads.acquire())
            .await
            .map_err(|_| busy())?
            .map_err(|_| busy())
    }

    /// The limits for checking a file of `file_len` bytes, which itself sits in the
    /// instance's memory twice (the call's input and the decoder's view of it).
    fn ingest_request(&self, file_len: usize) -> IngestRequest {
        let decode_bytes = self
            .engine_memory_bytes
            .saturating_sub(ENGINE_RESIDENT_BYTES + 2 * file_len);
        IngestRequest {
            max_pixels: self.settings.max_pixels,
            max_side: self.settings.max_side,
            min_jpeg_quality: self.settings.min_jpeg_quality,
            max_decode_bytes: decode_bytes as u64,
        }
    }
}

/// What the store keeps about an image: the engine's findings and each rendition's blob.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ImageRecord {
    report: IngestReport,
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
struct Refusal {
    code: String,
    message: String,
    reason: String,
}

/// The spec's `imageType` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ImageType {
    Unknown,
    Photo,
    Lineart,
    Detect,
}

impl ImageType {
    fn read(call: &Call<'_>) -> Result<ImageType, ApiError> {
        match call.params.text("imageType", 32)? {
            None | Some("unknown") => Ok(ImageType::Unknown),
            Some("photo") => Ok(ImageType::Photo),
            Some("lineart") => Ok(ImageType::Lineart),
            Some("detect") => Ok(ImageType::Detect),
            Some(other) => Err(ApiError::invalid(
                "imageType",
                format!(
                    "{:?} is not one of unknown, photo, lineart, detect",
                    truncate(other)
                ),
            )),
        }
    }

    /// The basket item's `type` and whether renders enhance it by default (spec rules:
    /// `photo` on, `unknown` off, `lineart` as `unknown`, `detect` from the pixels).
    fn resolve(self, report: &IngestReport) -> (&'static str, bool) {
        match self {
            ImageType::Photo => ("photo", true),
            ImageType::Unknown => ("unknown", false),
            ImageType::Lineart => ("lineart", false),
            ImageType::Detect if report.looks_like_photo => ("photo", true),
            ImageType::Detect => ("unknown", false),
        }
    }
}

/// `svc.image.uploadImage`: refusals are answered in `uploadImageError`, not as errors.
pub async fn upload_image(state: &AppState, call: &Call<'_>) -> Result<Reply, ApiError> {
    let image_type = ImageType::read(call)?;
    let file = call
        .params
        .file("imageFile")
        .ok_or_else(|| ApiError::missing("imageFile"))?;
    let limit = state.images.settings.max_upload_bytes;
    crate::auth::rate::count_upload_bytes(state, call.client, file.len()).await?;
    let stored = if file.len() > limit {
        Err(Refusal {
            code: "image_file_too_large".into(),
            message: format!(
                "the file is {} bytes, more than the {limit} accepted",
                file.len()
            ),
            reason: format!("Send a file of at most {limit} bytes."),
        })
    } else {
        store_image(state, file).await?
    };
    let envelope = match stored {
        Ok((id, record)) => json!({
            "imageBasketItem": basket_envelope(basket_item(call, &id, &record, image_type, "upload")?),
            "warnings": record.report.warnings,
            "uploadImageError": null,
        }),
        Err(refusal) => json!({
            "imageBasketItem": null,
            "warnings": [],
            "uploadImageError": {
                "code": refusal.code, "message": refusal.message, "reason": refusal.reason,
            },
        }),
    };
    Reply::json(&envelope)
}

/// `svc.image.importImage`: the image from `bytes` (base64) or else `imageUrl`.
pub async fn import_image(state: &AppState, call: &Call<'_>) -> Result<Reply, ApiError> {
    let image_type = ImageType::read(call)?;
    let service = &state.images;
    let bytes = match call.params.get("bytes") {
        Some(encoded) => decode_base64(encoded, service.settings.max_upload_bytes)?,
        None => {
            let url = call
                .params
                .text("imageUrl", 4096)?
                .ok_or_else(|| ApiError::missing("bytes or imageUrl"))?;
            service.fetcher.fetch(url).await.map_err(fetch_error)?
        }
    };
    let (id, record) = store_image(state, &bytes).await?.map_err(|refusal| {
        ApiError::new(
            ErrorCode::ImageRejected,
            format!(
                "{}: {} ({}). {}",
                if call.params.get("bytes").is_some() {
                    "bytes"
                } else {
                    "imageUrl"
                },
                refusal.message,
                refusal.code,
                refusal.reason
            ),
        )
    })?;
    Reply::json(&json!({
        "imageBasketItem": basket_envelope(basket_item(call, &id, &record, image_type, "import")?),
        "warnings": record.report.warnings,
    }))
}

/// Base64 (standard or URL-safe alphabet, padding optional, line breaks ignored).
fn decode_base64(encoded: &str, max_bytes: usize) -> Result<Vec<u8>, ApiError> {
    let compact: String = encoded
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    if compact.len() / 4 * 3 > max_bytes {
        return Err(ApiError::invalid(
            "bytes",
            format!("the image is larger than the {max_bytes} bytes accepted"),
        ));
    }
    let unpadded = compact.trim_end_matches('=');
    let alphabet = if unpadded.contains(['-', '_']) {
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
    } else {
        &base64::engine::general_purpose::STANDARD_NO_PAD
    };
    alphabet
        .decode(unpadded)
        .map_err(|e| ApiError::invalid("bytes", format!("is not base64: {e}")))
}

fn fetch_error(error: FetchError) -> ApiError {
    if let Some(address) = error.refused_address() {
        tracing::warn!(%address, "importImage: refused an address that is not public");
    }
    let code = match error.code() {
        "invalid_url" | "scheme_not_allowed" | "address_not_public" => {
            ErrorCode::ImageAddressNotAllowed
        }
        _ => ErrorCode::ImageFetchFailed,
    };
    ApiError::new(code, error.to_string())
}

/// Stores an image (once per distinct file) and returns its id and record, or the engine's
/// refusal of it. An image nothing refers to yet is kept for the retention time from now.
async fn store_image(
    state: &AppState,
    bytes: &[u8],
) -> Result<Result<(String, ImageRecord), Refusal>, ApiError> {
    // 128 bits of a MAC of the file: stable for equal files, unguessable without the file
    // and the deployment's key.
    let id = state.secret_key.mac("image", &[bytes])[..32].to_owned();
    let store = state.store.as_ref();
    let existing = store.get(Kind::Image, &id).await?;
    let tombstone = match existing
        .map(|stored| crate::store::decode::<ImageRecord>(Kind::Image, &id, stored))
        .transpose()?
    {
        Some((record, _)) if !record.swept => {
            if !record.pinned {
                retention::keep_unused(state, &id).await?;
            }
            return Ok(Ok((id, record)));
        }
        Some((_, revision)) => Some(revision),
        None => None,
    };
    let frame = ingest_frame(&state.images.ingest_request(bytes.len()), bytes);
    let output = match state.engine.call(Op::Ingest, frame).await {
        Ok(output) => output,
        Err(EngineCallError::Refused(failure)) if failure.reason.is_some() => {
            return Ok(Err(Refusal {
                code: failure.code,
                message: failure.message,
                reason: failure.reason.unwrap_or_default(),
            }));
        }
        Err(error) => return Err(crate::render::engine_error(error)),
    };
    let ingested = read_ingested(&output)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("engine answer: {e}")))?;
    // The blobs of an image made again after it was swept are apart from the old ones,
    // which the sweep may still be deleting.
    let owner = match tombstone {
        Some(revision) => format!("{id}:{revision}"),
        None => id.clone(),
    };
    let original = state.blobs.put(&owner, bytes).await?;
    let mut rendition_blobs = Vec::with_capacity(ingested.blobs.len());
    for (info, blob) in ingested.report.renditions.iter().zip(&ingested.blobs) {
        rendition_blobs.push(if info.original {
            original.clone()
        } else {
            state.blobs.put(&owner, blob).await?
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
        .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
    // The retention clock starts before the record exists: a crash in between leaves a
    // schedule entry the sweep drops, never an image it does not know of.
    retention::keep_unused(state, &id).await?;
    let written = match tombstone {
        Some(revision) => store.replace(Kind::Image, &id, &value, revision).await?,
        // Losing a race with the same file uploaded at once leaves the same record either
        // way (same owner, same blobs).
        None => {
            store.insert(Kind::Image, &id, &value).await?;
            true
        }
    };
    if !written {
        return Err(ApiError::new(
            ErrorCode::StoreUnavailable,
            "imageFile: the same image was being removed and stored again at once; try again",
        ));
    }
    Ok(Ok((id, record)))
}

/// `imageBasketItem` of wire-formats section 3: the item's own fields, which MOO clients read
/// and copy into a pack's basket as they are, and `items: [item]`, which the spec names.
fn basket_envelope(item: Value) -> Value {
    let mut envelope = item.clone();
    envelope["items"] = json!([item]);
    envelope
}

/// The basket item of wire-formats section 3.
fn basket_item(
    call: &Call<'_>,
    id: &str,
    record: &ImageRecord,
    image_type: ImageType,
    default_source: &str,
) -> Result<Value, ApiError> {
    let (kind, should_enhance) = image_type.resolve(&record.report);
    let image_items: Vec<Value> = record
        .report
        .renditions
        .iter()
        .map(|r: &RenditionInfo| {
            json!({
                "type": r.kind.name(),
                "resourceUri": format!("{STORE_SCHEME}{id}/{}", r.kind.name()),
                "width": r.width,
                "height": r.height,
                "rotation": 0,
            })
        })
        .collect();
    Ok(json!({
        "resourceUri": format!("{STORE_SCHEME}{id}"),
        "cacheId": id,
        "type": kind,
        "removable": true,
        "croppable": true,
        "shouldEnhance": should_enhance,
        "copyrightOwner": "",
        "name": call.params.text("name", 1024)?.unwrap_or_default(),
        "source": call.params.text("source", 1024)?.unwrap_or(default_source),
        "imageItems": image_items,
    }))
}

/// The bytes a render draws for a stored image URI: `store://<id>/<rendition>`, or
/// `store://<id>` for its print rendition. `None` if there is no such image or rendition.
pub async fn rendition_bytes(state: &AppState, uri: &str) -> Result<Option<Vec<u8>>, ApiError> {
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
    let Some((record, _)) = load::<ImageRecord>(state.store.as_ref(), Kind::Image, id).await?
    else {
        return Ok(None);
    };
    if record.swept {
        return Ok(None);
    }
    let Some(blob) = record
        .report
        .renditions
        .iter()
        .zip(&record.rendition_blobs)
        .find(|(info, _)| info.kind == kind)
        .map(|(_, blob)| blob)
    else {
        return Ok(None);
    };
    Ok(state.blobs.get(blob).await?)
}
