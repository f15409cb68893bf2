//! Request parameters: the query string and the body, with typed accessors that turn every
//! problem into an error naming the parameter.
//!
//! What a handler reads is exactly what an OAuth signature covers (RFC 5849 section
//! 3.4.1.3): the query string and a form-encoded body, the body winning when both name a
//! parameter (wire-formats section 1). A multipart body (uploadImage, which is unsigned) adds
//! its text parts, but a part never replaces a query parameter or carries an `oauth_*` one;
//! a signed call cannot have a multipart body at all (`auth::authorize` refuses it).

use std::collections::HashMap;

use axum::body::Bytes;
use axum::http::{HeaderMap, header};
use percent_encoding::percent_decode;
use presspack_engine::model::{FromJson, ModelError};

use crate::domain::error::{DomainError, ErrorCode};

/// At most this many parameters (query and body together) or multipart parts per request.
const MAX_PARAMETERS: usize = 256;

#[derive(Debug, Default)]
pub struct Params {
    /// Every parameter's value by name: the signed pairs (the last of a name wins) and, for a
    /// multipart body, its text parts.
    values: HashMap<String, String>,
    /// The query and form-body pairs in arrival order, duplicates kept: what an OAuth
    /// signature covers.
    signed: Vec<(String, String)>,
    /// Multipart file parts (and any `imageFile` part), by part name.
    files: HashMap<String, Bytes>,
    /// Whether the body was multipart: such a call's parameters are not all signed.
    multipart: bool,
    /// Size of the request body.
    body_len: usize,
}

/// How a body's parameters are encoded.
pub enum BodyEncoding {
    Form,
    Multipart { boundary: String },
}

impl BodyEncoding {
    /// The encoding a `Content-Type` names (form-encoded when there is none).
    pub fn of(headers: &HeaderMap) -> Result<BodyEncoding, DomainError> {
        let content_type = headers
            .get(header::CONTENT_TYPE)
            .map(|v| {
                v.to_str().map_err(|_| {
                    DomainError::new(
                        ErrorCode::UnsupportedContentType,
                        "Content-Type is not a valid media type",
                    )
                })
            })
            .transpose()?
            .unwrap_or("application/x-www-form-urlencoded");
        let mime: mime::Mime = content_type.parse().map_err(|_| {
            DomainError::new(
                ErrorCode::UnsupportedContentType,
                format!(
                    "Content-Type {:?} is not a valid media type",
                    truncate(content_type)
                ),
            )
        })?;
        match (mime.type_(), mime.subtype()) {
            (mime::APPLICATION, mime::WWW_FORM_URLENCODED) => Ok(BodyEncoding::Form),
            (mime::MULTIPART, mime::FORM_DATA) => {
                let boundary = multer::parse_boundary(content_type).map_err(|e| {
                    DomainError::new(
                        ErrorCode::UnsupportedContentType,
                        format!("Content-Type: {e}"),
                    )
                })?;
                Ok(BodyEncoding::Multipart { boundary })
            }
            _ => Err(DomainError::new(
                ErrorCode::UnsupportedContentType,
                format!(
                    "Content-Type {:?} is not accepted; send \
                     application/x-www-form-urlencoded or multipart/form-data",
                    truncate(content_type)
                ),
            )),
        }
    }
}

impl Params {
    /// The parameters of a query string.
    pub fn from_query(query: Option<&str>) -> Result<Params, DomainError> {
        let mut params = Params::default();
        params.extend_signed(query.unwrap_or_default().as_bytes())?;
        Ok(params)
    }

    /// Adds the parameters of a body read whole, encoded as `encoding` says.
    pub async fn add_body(
        &mut self,
        encoding: BodyEncoding,
        body: Bytes,
    ) -> Result<(), DomainError> {
        self.body_len = body.len();
        if body.is_empty() {
            return Ok(());
        }
        match encoding {
            BodyEncoding::Form => self.extend_signed(&body),
            BodyEncoding::Multipart { boundary } => self.add_multipart(body, boundary).await,
        }
    }

    async fn add_multipart(&mut self, body: Bytes, boundary: String) -> Result<(), DomainError> {
        self.multipart = true;
        let stream = futures_util::stream::once(async move { Ok::<_, std::io::Error>(body) });
        let mut multipart = multer::Multipart::new(stream, boundary);
        let malformed = |e: multer::Error| {
            DomainError::invalid("multipart body", format!("cannot be read: {e}"))
        };
        let mut parts = 0;
        while let Some(field) = multipart.next_field().await.map_err(malformed)? {
            parts += 1;
            if self.signed.len() + parts > MAX_PARAMETERS {
                return Err(too_many());
            }
            let Some(name) = field.name().map(str::to_owned) else {
                continue;
            };
            if name.starts_with("oauth_") {
                return Err(DomainError::new(
                    ErrorCode::InvalidOauthParameters,
                    format!(
                        "{}: OAuth parameters cannot travel in a multipart part, which no \
                         signature covers; multipart is for uploadImage, which is unsigned",
                        truncate(&name)
                    ),
                ));
            }
            // Files are bytes, not text; `imageFile` is one even without a file name.
            if field.file_name().is_some() || name == "imageFile" {
                let bytes = field.bytes().await.map_err(malformed)?;
                self.files.insert(name, bytes);
                continue;
            }
            let bytes = field.bytes().await.map_err(malformed)?;
            let value = String::from_utf8(bytes.into())
                .map_err(|_| DomainError::invalid(&truncate(&name), "is not valid UTF-8"))?;
            if self.values.contains_key(&name) {
                return Err(DomainError::new(
                    ErrorCode::ConflictingParameters,
                    format!(
                        "{}: given more than once (in the query string or an earlier part); \
                         send it once",
                        truncate(&name)
                    ),
                ));
            }
            self.values.insert(name, value);
        }
        Ok(())
    }

    /// Adds form-encoded pairs (`+` is a space), which a signature covers.
    fn extend_signed(&mut self, encoded: &[u8]) -> Result<(), DomainError> {
        for pair in encoded.split(|&b| b == b'&').filter(|p| !p.is_empty()) {
            if self.signed.len() >= MAX_PARAMETERS {
                return Err(too_many());
            }
            let (name, value) = match pair.iter().position(|&b| b == b'=') {
                Some(at) => (&pair[..at], &pair[at + 1..]),
                None => (pair, &b""[..]),
            };
            let name = decode_form(name)
                .map_err(|_| DomainError::invalid("a parameter name", "is not valid UTF-8"))?;
            let value = decode_form(value)
                .map_err(|_| DomainError::invalid(&truncate(&name), "is not valid UTF-8"))?;
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

    /// An OAuth protocol parameter sent more than once, if any: each must come from exactly
    /// one place.
    pub fn repeated_oauth_parameter(&self) -> Option<&str> {
        let mut seen = Vec::new();
        for (name, _) in &self.signed {
            if name.starts_with("oauth_") {
                if seen.contains(&name) {
                    return Some(name);
                }
                seen.push(name);
            }
        }
        None
    }

    /// Whether the body was multipart (its parts are not signed).
    pub fn is_multipart(&self) -> bool {
        self.multipart
    }

    /// A multipart file part's bytes.
    pub fn file(&self, name: &str) -> Option<&Bytes> {
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

    pub fn required(&self, name: &str) -> Result<&str, DomainError> {
        self.get(name).ok_or_else(|| DomainError::missing(name))
    }

    /// An optional string of at most `max_chars` characters.
    pub fn text(&self, name: &str, max_chars: usize) -> Result<Option<&str>, DomainError> {
        match self.get(name) {
            Some(value) if value.chars().count() > max_chars => Err(DomainError::invalid(
                name,
                format!("must be at most {max_chars} characters"),
            )),
            other => Ok(other),
        }
    }

    /// An optional boolean: `true`/`false` or `1`/`0`.
    pub fn bool(&self, name: &str) -> Result<Option<bool>, DomainError> {
        match self.get(name) {
            None => Ok(None),
            Some("true" | "1") => Ok(Some(true)),
            Some("false" | "0") => Ok(Some(false)),
            Some(other) => Err(DomainError::invalid(
                name,
                format!("expected true or false, got {:?}", truncate(other)),
            )),
        }
    }

    /// An optional parameter holding JSON text of a `T`; `invalid` is the error code for
    /// well-formed JSON that is not a valid `T`.
    pub fn json<T: FromJson>(
        &self,
        name: &str,
        invalid: ErrorCode,
    ) -> Result<Option<T>, DomainError> {
        self.get(name)
            .map(|text| presspack_engine::model::parse(text, name))
            .transpose()
            .map_err(|e: ModelError| DomainError::from_model(e, invalid))
    }
}

/// A form-encoded name or value decoded: `+` is a space, `%XX` a byte; the bytes must be
/// UTF-8 (a lossy decoding would hand handlers text the client never sent).
fn decode_form(encoded: &[u8]) -> Result<String, std::string::FromUtf8Error> {
    let spaced: Vec<u8> = encoded
        .iter()
        .map(|&b| if b == b'+' { b' ' } else { b })
        .collect();
    String::from_utf8(percent_decode(&spaced).collect())
}

fn too_many() -> DomainError {
    DomainError::new(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_decoding_matches_the_url_standard_and_refuses_bad_utf8() {
        let params = Params::from_query(Some("a=b+c&%C3%A9=%E2%9C%93&&flag&a=2")).unwrap();
        assert_eq!(params.raw("a"), Some("2"), "the last of a name wins");
        assert_eq!(params.raw("é"), Some("✓"));
        assert_eq!(params.raw("flag"), Some(""));
        assert_eq!(params.signed_pairs().count(), 4);
        let error = Params::from_query(Some("text=%FF%FE")).unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidParameter);
        assert!(error.message.starts_with("text: "), "{}", error.message);
        let error = Params::from_query(Some("%C3=x")).unwrap_err();
        assert!(
            error.message.starts_with("a parameter name"),
            "{}",
            error.message
        );
    }

    #[test]
    fn a_repeated_oauth_parameter_is_found() {
        let params = Params::from_query(Some("oauth_nonce=a&method=x&oauth_nonce=b")).unwrap();
        assert_eq!(params.repeated_oauth_parameter(), Some("oauth_nonce"));
        let params = Params::from_query(Some("oauth_nonce=a&method=x&method=y")).unwrap();
        assert_eq!(params.repeated_oauth_parameter(), None);
    }
}
