//! `svc.image.uploadImage` (multipart, unsigned) and `svc.image.importImage` (signed;
//! `bytes` or a public `imageUrl`): the parameters and the basket item of wire-formats
//! section 3. Storing the image is [`crate::domain::images`]'s.

use base64::Engine as _;
use presspack_engine::ingest::IngestReport;
use serde_json::{Value, json};

use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::images::{ImageRecord, Refusal, store_image};
use crate::domain::services::Services;
use crate::http::rpc::call::{Call, Reply};
use crate::http::rpc::params::truncate;

/// Whether an operation takes image files (and so may send a large body).
pub fn takes_image(method: &str) -> bool {
    matches!(method, "svc.image.uploadImage" | "svc.image.importImage")
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
    fn read(call: &Call<'_>) -> Result<ImageType, DomainError> {
        match call.params.text("imageType", 32)? {
            None | Some("unknown") => Ok(ImageType::Unknown),
            Some("photo") => Ok(ImageType::Photo),
            Some("lineart") => Ok(ImageType::Lineart),
            Some("detect") => Ok(ImageType::Detect),
            Some(other) => Err(DomainError::invalid(
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
pub async fn upload_image(services: &Services, call: &Call<'_>) -> Result<Reply, DomainError> {
    let image_type = ImageType::read(call)?;
    let file = call
        .params
        .file("imageFile")
        .ok_or_else(|| DomainError::missing("imageFile"))?;
    let limit = services.images.settings().max_upload_bytes;
    let budget = call.unsigned_upload_budget;
    crate::http::auth::rate::count_upload_bytes(
        services.store.as_ref(),
        budget,
        call.client,
        file.len(),
    )
    .await?;
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
        store_image(services, file.clone()).await?
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
pub async fn import_image(services: &Services, call: &Call<'_>) -> Result<Reply, DomainError> {
    let image_type = ImageType::read(call)?;
    let service = &services.images;
    // A fetched image may be as large as an uploaded one, so it holds an upload permit while
    // it is read and checked, as a large request body does (`read_body`).
    let (bytes, _fetch_permit) = match call.params.get("bytes") {
        Some(encoded) => {
            let max_bytes = service.settings().max_upload_bytes;
            (decode_base64(encoded, max_bytes)?, None)
        }
        None => {
            let url = call
                .params
                .text("imageUrl", 4096)?
                .ok_or_else(|| DomainError::missing("bytes or imageUrl"))?;
            let holder = match &call.key {
                Some(key) => Some(format!("key {}", key.consumer_key)),
                None => call.client.map(crate::http::client::limit_key),
            };
            let permit = service.upload_permit(holder).await?;
            (service.fetch(url).await?, Some(permit))
        }
    };
    let (id, record) = store_image(services, bytes.into())
        .await?
        .map_err(|refusal| {
            DomainError::new(
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
fn decode_base64(encoded: &str, max_bytes: usize) -> Result<Vec<u8>, DomainError> {
    let compact: String = encoded
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    if compact.len() / 4 * 3 > max_bytes {
        return Err(DomainError::invalid(
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
        .map_err(|e| DomainError::invalid("bytes", format!("is not base64: {e}")))
}

/// `imageBasketItem` of wire-formats section 3: the item's own fields, which MOO clients read
/// and copy into a pack's basket as they are, and `items: [item]`, which the spec names.
fn basket_envelope(item: Value) -> Value {
    let mut envelope = item.clone();
    envelope["items"] = json!([item]);
    envelope
}

/// The basket item of wire-formats section 3, named and sourced as the call says.
fn basket_item(
    call: &Call<'_>,
    id: &str,
    record: &ImageRecord,
    image_type: ImageType,
    default_source: &str,
) -> Result<Value, DomainError> {
    let (kind, should_enhance) = image_type.resolve(&record.report);
    Ok(record.basket_item(
        id,
        kind,
        should_enhance,
        call.params.text("name", 1024)?.unwrap_or_default(),
        call.params.text("source", 1024)?.unwrap_or(default_source),
    ))
}
