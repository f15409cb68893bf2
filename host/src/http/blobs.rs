//! Answering with a blob (an image rendition, a press file): its bytes, or, when the blob
//! store hands out signed URLs (object storage with `s3_redirect_seconds`), a redirect to one,
//! so that the bytes go from the store to the browser without passing through the host.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::infra::store::{BlobStore, Delivery, StoreError};

/// The response for blob `id` delivered `how`; `None` if the store does not have it.
pub async fn blob_response(
    blobs: &dyn BlobStore,
    id: &str,
    how: &Delivery<'_>,
) -> Result<Option<Response>, StoreError> {
    let header_value = |value: &str| HeaderValue::from_str(value).ok();
    if let Some(url) = blobs.direct_url(id, how).await? {
        let Some(location) = header_value(&url) else {
            return Err(StoreError::corrupt(format!(
                "blob {id}: the store's URL is no header"
            )));
        };
        // The redirect itself is kept by no cache: the URL it names expires.
        let headers = [
            (header::LOCATION, location),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ];
        return Ok(Some(
            (StatusCode::TEMPORARY_REDIRECT, headers).into_response(),
        ));
    }
    let Some(bytes) = blobs.get(id).await? else {
        return Ok(None);
    };
    let mut response = bytes.into_response();
    let headers = response.headers_mut();
    let wanted = [
        (header::CONTENT_TYPE, Some(how.content_type)),
        (header::CACHE_CONTROL, Some(how.cache_control)),
        (header::CONTENT_DISPOSITION, how.disposition),
    ];
    for (name, value) in wanted {
        if let Some(value) = value.and_then(header_value) {
            headers.insert(name, value);
        }
    }
    Ok(Some(response))
}
