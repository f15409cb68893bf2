//! Request parameters: the query string and the body (form-encoded or multipart) merged into
//! one map, the body winning on conflict (wire-formats section 1), with typed accessors that
//! turn every problem into an error naming the parameter.

use std::collections::HashMap;

use axum::body::Body;
use axum::http::{HeaderMap, header};
use presspack_engine::model::{FromJson, ModelError};

use super::{ApiError, ErrorCode};

/// At most this many parameters (query and body together) or multipart parts per request.
const MAX_PARAMETERS: usize = 256;

#[derive(Debug, Default)]
pub struct Params {
    values: HashMap<String, String>,
    /// The query and form-body pairs in arrival order, duplicates kept: what an OAuth
    /// signature covers (multipart parts are not signed).
    signed: Vec<(String, String)>,
    /// Multipart file parts (and any `imageFile` part), by part name.
    files: HashMap<String, bytes::Bytes>,
    /// Size of the request body.
    body_len: usize,
}

impl Params {
    /// The parameters of a query string.
    pub fn from_query(query: Option<&str>) -> Result<Params, ApiError> {
        let mut params = Params::default();
        params.extend_signed(query.unwrap_or_default().as_bytes())?;
        Ok(params)
    }

    /// Adds the body's parameters, read up to `limit` bytes, replacing same-named ones.
    pub async fn add_body(
        &mut self,
        headers: &HeaderMap,
        body: Body,
        limit: usize,
    ) -> Result<(), ApiError> {
        let bytes = axum::body::to_bytes(body, limit).await.map_err(|_| {
            ApiError::new(
                ErrorCode::RequestTooLarge,
                format!("the request body is larger than {limit} bytes or could not be read"),
            )
        })?;
        self.body_len = bytes.len();
        if bytes.is_empty() {
            return Ok(());
        }
        let content_type = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("application/x-www-form-urlencoded");
        let mime: mime::Mime = content_type.parse().map_err(|_| {
            ApiError::new(
                ErrorCode::UnsupportedContentType,
                format!("Content-Type {content_type:?} is not a valid media type"),
            )
        })?;
        match (mime.type_(), mime.subtype()) {
            (mime::APPLICATION, mime::WWW_FORM_URLENCODED) => self.extend_signed(&bytes),
            (mime::MULTIPART, mime::FORM_DATA) => {
                let boundary = multer::parse_boundary(content_type).map_err(|e| {
                    ApiError::new(
                        ErrorCode::UnsupportedContentType,
                        format!("Content-Type: {e}"),
                    )
                })?;
                self.add_multipart(bytes, boundary).await
            }
            _ => Err(ApiError::new(
                ErrorCode::UnsupportedContentType,
                format!(
                    "Content-Type {content_type:?} is not accepted; send \
                     application/x-www-form-urlencoded or multipart/form-data"
                ),
            )),
        }
    }

    async fn add_multipart(
        &mut self,
        body: bytes::Bytes,
        boundary: String,
    ) -> Result<(), ApiError> {
        let stream = futures_util::stream::once(async move { Ok::<_, std::io::Error>(body) });
        let mut multipart = multer::Multipart::new(stream, boundary);
        let malformed =
            |e: multer::Error| ApiError::invalid("multipart body", format!("cannot be read: {e}"));
        while let Some(field) = multipart.next_field().await.map_err(malformed)? {
            if self.values.len() + self.signed.len() + self.files.len() >= MAX_PARAMETERS {
                return Err(too_many());
            }
            let Some(name) = field.name().map(str::to_owned) else {
                continue;
            };
            // Files are bytes, not text; `imageFile` is one even without a file name.
            if field.file_name().is_some() || name == "imageFile" {
                let bytes = field.bytes().await.map_err(malformed)?;
                self.files.insert(name, bytes);
                continue;
            }
            let value = field.text().await.map_err(malformed)?;
            self.values.insert(name, value);
        }
        Ok(())
    }

    /// Adds form-encoded pairs (`+` is a space), which a signature covers.
    fn extend_signed(&mut self, encoded: &[u8]) -> Result<(), ApiError> {
        for (name, value) in form_urlencoded::parse(encoded).into_owned() {
            if self.signed.len() >= MAX_PARAMETERS {
                return Err(too_many());
            }
            self.values.insert(name.clone(), value.clone());
            self.signed.push((name, value));
        }
        Ok(())
    }

    /// The pairs an OAuth signature covers.
    pub fn signed_pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.signed.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// Whether any parameter is an OAuth protocol parameter.
    pub fn has_oauth_parameters(&self) -> bool {
        self.values.keys().any(|name| name.starts_with("oauth_"))
    }

    /// A multipart file part's bytes.
    pub fn file(&self, name: &str) -> Option<&bytes::Bytes> {
        self.files.get(name)
    }

    /// The size of the request body in bytes.
    pub fn body_len(&self) -> usize {
        self.body_len
    }

    /// A parameter's value as sent, empty values included.
    pub fn raw(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// A parameter's value; an empty value counts as absent, as form clients send them.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    pub fn required(&self, name: &str) -> Result<&str, ApiError> {
        self.get(name).ok_or_else(|| ApiError::missing(name))
    }

    /// An optional string of at most `max_chars` characters.
    pub fn text(&self, name: &str, max_chars: usize) -> Result<Option<&str>, ApiError> {
        match self.get(name) {
            Some(value) if value.chars().count() > max_chars => Err(ApiError::invalid(
                name,
                format!("must be at most {max_chars} characters"),
            )),
            other => Ok(other),
        }
    }

    /// An optional boolean: `true`/`false` or `1`/`0`.
    pub fn bool(&self, name: &str) -> Result<Option<bool>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some("true" | "1") => Ok(Some(true)),
            Some("false" | "0") => Ok(Some(false)),
            Some(other) => Err(ApiError::invalid(
                name,
                format!("expected true or false, got {:?}", truncate(other)),
            )),
        }
    }

    /// An optional parameter holding JSON text of a `T`; `invalid` is the error code for
    /// well-formed JSON that is not a valid `T`.
    pub fn json<T: FromJson>(&self, name: &str, invalid: ErrorCode) -> Result<Option<T>, ApiError> {
        self.get(name)
            .map(|text| presspack_engine::model::parse(text, name))
            .transpose()
            .map_err(|e: ModelError| ApiError::from_model(e, invalid))
    }
}

fn too_many() -> ApiError {
    ApiError::new(
        ErrorCode::RequestTooLarge,
        format!("the request has more than {MAX_PARAMETERS} parameters"),
    )
}

/// At most 40 characters of a client's value, for error messages.
pub fn truncate(value: &str) -> String {
    match value.char_indices().nth(40) {
        Some((end, _)) => format!("{}...", &value[..end]),
        None => value.to_owned(),
    }
}
