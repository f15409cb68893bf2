//! Static files of the pages and the design canvas (scripts, styles, the engine's wasm, fonts,
//! templates), answered so that a first open downloads little and a repeat open almost
//! nothing:
//!
//! - compressed with brotli or gzip when the browser accepts it (each file compressed once,
//!   the first time it is asked for, off the async threads), as it is when that saves little;
//! - with a strong ETag per encoding (a SHA-256 of the file), so a browser that has the file
//!   gets `304 Not Modified`;
//! - asked for by a content-hashed name (`?v=` and the file's [`version`](StaticFiles::version),
//!   the pages name the design editor's files so): `Cache-Control: public, max-age=31536000,
//!   immutable`, never asked again; by its plain name (or an old version):
//!   `Cache-Control: no-cache`, revalidated on each use, so a stale script never meets a new
//!   wasm module after an upgrade; a revalidation costs a few hundred bytes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use sha2::{Digest, Sha256};
use tokio::sync::OnceCell;

use crate::infra::compress;

/// Files smaller than this are sent as they are: compressing saves too little.
const MIN_COMPRESSED_BYTES: usize = 1024;
/// brotli's quality for static files: near its best size at a fraction of level 11's time.
pub const BROTLI_QUALITY: i32 = 9;

/// A file as it may be sent.
struct Prepared {
    content_type: &'static str,
    /// The first 128 bits of its SHA-256, hex: the ETag's base.
    tag: String,
    identity: Bytes,
    gzip: Option<Bytes>,
    brotli: Option<Bytes>,
}

/// A file's content, as its handler has it: the bytes, and compressed if it already is (the
/// engine's wasm is embedded gzipped, and brotli-compressed once per process).
pub struct Source {
    pub content_type: &'static str,
    pub bytes: Bytes,
    pub gzipped: Option<Bytes>,
    pub brotli: Option<Bytes>,
}

impl Source {
    pub fn new(content_type: &'static str, bytes: impl Into<Bytes>) -> Source {
        Source {
            content_type,
            bytes: bytes.into(),
            gzipped: None,
            brotli: None,
        }
    }
}

/// The files prepared so far, by name, and the versions named so far.
#[derive(Default)]
pub struct StaticFiles {
    prepared: Mutex<HashMap<String, Arc<OnceCell<Arc<Prepared>>>>>,
    versions: Mutex<HashMap<String, String>>,
}

/// A file's version: the first 128 bits of its SHA-256, hex (also its ETag's base).
fn version_of(bytes: &[u8]) -> String {
    hex::encode(&Sha256::digest(bytes)[..16])
}

impl StaticFiles {
    /// The version of the file `name` (its content from `source` the first time it is
    /// named): a page that asks for `name?v=<version>` gets it cached for a year.
    pub fn version(&self, name: &str, source: impl FnOnce() -> Source) -> String {
        let versions = || self.versions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(version) = versions().get(name) {
            return version.clone();
        }
        // Made without the lock: a source may name other files' versions (assets.js does).
        let version = version_of(&source().bytes);
        versions().entry(name.to_owned()).or_insert(version).clone()
    }

    /// The file `name` (its content from `source` the first time) as the answer to a request
    /// with `request` headers, asked for as version `asked` (`?v=`, if any). A name must
    /// always give the same content in one process.
    pub async fn respond(
        &self,
        request: &HeaderMap,
        name: &str,
        asked: Option<&str>,
        source: impl FnOnce() -> Source + Send + 'static,
    ) -> Response {
        let cell = {
            let mut prepared = self.prepared.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(prepared.entry(name.to_owned()).or_default())
        };
        let prepared = cell
            .get_or_init(|| async {
                let made = tokio::task::spawn_blocking(move || prepare(source())).await;
                Arc::new(made.expect("preparing a static file does not panic"))
            })
            .await;
        answer(prepared, request, asked == Some(prepared.tag.as_str()))
    }
}

fn prepare(source: Source) -> Prepared {
    let tag = version_of(&source.bytes);
    let worth = |compressed: Vec<u8>| {
        (compressed.len() + MIN_COMPRESSED_BYTES / 4 < source.bytes.len())
            .then(|| Bytes::from(compressed))
    };
    let small = source.bytes.len() < MIN_COMPRESSED_BYTES;
    let gzip = match source.gzipped {
        Some(gzipped) => Some(gzipped),
        None if small => None,
        None => worth(compress::gzip(&source.bytes)),
    };
    let brotli = match source.brotli {
        Some(compressed) => Some(compressed),
        None if small => None,
        None => worth(compress::brotli(&source.bytes, BROTLI_QUALITY)),
    };
    Prepared {
        content_type: source.content_type,
        tag,
        identity: source.bytes,
        gzip,
        brotli,
    }
}

/// The representation the request accepts with the highest quality (brotli before gzip at the
/// same, as it is when neither), or a 304 when the request names its ETag; cached for a year
/// when asked for by its `versioned` name.
fn answer(file: &Prepared, request: &HeaderMap, versioned: bool) -> Response {
    // A repeated header is one list (RFC 9110 section 5.3).
    let list = |name: header::HeaderName| {
        request
            .get_all(name)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .collect::<Vec<_>>()
            .join(",")
    };
    let accepted = list(header::ACCEPT_ENCODING);
    let offered = [("br", &file.brotli), ("gzip", &file.gzip)];
    let best = offered
        .into_iter()
        .filter_map(|(coding, body)| Some((coding, body.as_ref()?)))
        .map(|(coding, body)| (compress::quality(&accepted, coding), coding, body))
        .filter(|(quality, _, _)| *quality > 0.0)
        // The first of the highest: brotli wins a tie.
        .reduce(|best, next| if next.0 > best.0 { next } else { best });
    let (encoding, body) = match best {
        Some((_, coding, body)) => (Some(coding), body),
        None => (None, &file.identity),
    };
    let etag = match encoding {
        Some(coding) => format!("\"{}-{coding}\"", file.tag),
        None => format!("\"{}\"", file.tag),
    };
    let cached = list(header::IF_NONE_MATCH).split(',').any(|candidate| {
        let candidate = candidate.trim();
        // If-None-Match compares weakly: W/"x" matches "x" (RFC 9110 section 13.1.2).
        candidate == "*" || candidate.trim_start_matches("W/") == etag
    });
    let mut response = if cached {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut response = body.clone().into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(file.content_type),
        );
        if let Some(coding) = encoding {
            headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(coding));
        }
        response
    };
    let headers = response.headers_mut();
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, etag);
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(if versioned {
            "public, max-age=31536000, immutable"
        } else {
            "public, no-cache"
        }),
    );
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    response
}
