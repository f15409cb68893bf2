//! The design canvas (`web-demo/`): the `edit` drop-in's editor and the standalone demo.
//! The host serves the canvas's script and style, the engine's browser build (the same wasm
//! engine as the server's, through wasm-bindgen, with this host's fonts and templates), the
//! stored image renditions it draws, and the owner's design: read as JSON, saved back with
//! the same checks and warnings as updatePack.

use std::sync::{Arc, LazyLock};

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use presspack_engine::model::{Product, Warning};
use presspack_engine::package::{assets_module, face_file};
use presspack_engine::text::FontCatalogue;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::packs::PackRecord;
use crate::http::pages::layout;
use crate::http::pages::sessions::Visitor;
use crate::http::pages::static_files::Source;
use crate::http::state::AppState;
use crate::infra::compress::gunzip;

const CANVAS_SCRIPT: &str = include_str!("../../../../web-demo/canvas.js");
const CANVAS_STYLE: &str = include_str!("../../../../web-demo/canvas.css");
const SAMPLE_PACK: &str = presspack_assets::SAMPLE_PACK;
const SAMPLE_PRODUCT: &str = "businesscard";
/// The npm package's entry module; `assets.js` beside it is written per host (its fonts and
/// templates).
const ENGINE_INDEX: &str = include_str!("../../../../npm/index.js");
const ENGINE_GLUE: &str = presspack_engine_wasm::WEB_GLUE;
/// The browser build's wasm is embedded gzipped: sent as it is to browsers that accept gzip
/// but not brotli, inflated once for the rest.
const ENGINE_WASM_GZIP: &[u8] = presspack_engine_wasm::WEB_WASM_GZIP;
static ENGINE_WASM: LazyLock<Bytes> = LazyLock::new(|| gunzip(ENGINE_WASM_GZIP).into());

/// Largest design a customer saves (the pack JSON); packs are a few kilobytes.
pub const MAX_DESIGN_BYTES: usize = 512 * 1024;

/// A design as the canvas loads it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Design<'a> {
    product: &'a str,
    name: String,
    pack: &'a RawValue,
    /// The templates a side of this product may use.
    templates: Vec<&'a str>,
    /// Where to POST the design back; none for the demo.
    save_url: Option<String>,
    warnings: &'a [Warning],
}

/// The canvas, mounted in a page: it loads its design from `source`.
fn canvas_markup(source: &str, csrf: &str) -> Markup {
    html! {
        div #designer.designer data-source=(source) data-csrf=(csrf) {
            p.notice role="status" { "Loading the design canvas…" }
            noscript { p.notice { "The design canvas needs JavaScript." } }
        }
        script type="module" src="/web-demo/canvas.js" {}
    }
}

/// `GET /web-demo/`: the canvas with a sample pack (nothing is saved).
pub async fn demo_page(visitor: Visitor) -> Response {
    let content = html! {
        p.lead { "Try the design canvas on a sample business card. Changes stay in this page." }
        (canvas_markup("/web-demo/sample.json", &visitor.csrf_token))
    };
    layout::canvas_page(&visitor, "Design canvas", content)
}

/// The `edit` drop-in for the pack's owner.
pub fn edit_page(visitor: &Visitor, pack_id: &str, pack: &PackRecord, finish: &str) -> Response {
    let content = html! {
        p.lead { strong { (pack.display_name()) } " · your changes are saved to your account when you press Save." }
        (canvas_markup(&format!("/packs/{pack_id}/design"), &visitor.csrf_token))
        p.actions { a.secondary href=(finish) { "Choose paper and order" } }
    };
    layout::canvas_page(visitor, "Edit your design", content)
}

fn templates_of<'a>(state: &'a AppState, product: &Product) -> Vec<&'a str> {
    state
        .templates
        .codes()
        .filter(|code| {
            state
                .templates
                .get(code)
                .is_some_and(|entry| product.fits(&entry.template))
        })
        .collect()
}

/// `GET /web-demo/sample.json`
pub async fn sample(State(state): State<Arc<AppState>>) -> Response {
    let product = state
        .catalogue
        .product(SAMPLE_PRODUCT)
        .expect("the catalogue sells business cards");
    let pack: &RawValue =
        serde_json::from_str(SAMPLE_PACK).expect("assets/samples/sample-pack.json is JSON");
    json_response(&Design {
        product: SAMPLE_PRODUCT,
        name: "Sample business card".into(),
        pack,
        templates: templates_of(&state, product),
        save_url: None,
        warnings: &[],
    })
}

/// `GET /packs/{packId}/design`: the owner's design.
pub async fn design(
    State(state): State<Arc<AppState>>,
    visitor: Visitor,
    Path(pack_id): Path<String>,
) -> Response {
    let stored = match visitor.owned_pack(state.store.as_ref(), &pack_id).await {
        Ok(stored) => stored,
        Err(error) => return json_error(error.status, &error.message),
    };
    let record = &stored.record;
    let Some(product) = state.catalogue.product(&record.product) else {
        return json_error(StatusCode::NOT_FOUND, "This product is no longer sold.");
    };
    json_response(&Design {
        product: &record.product,
        name: record.display_name(),
        pack: &record.pack,
        templates: templates_of(&state, product),
        save_url: Some(format!("/packs/{pack_id}/design")),
        warnings: &record.warnings,
    })
}

/// `POST /packs/{packId}/design` (JSON pack, `X-CSRF-Token` header): saves the owner's design;
/// answers `{warnings}`.
pub async fn save(
    State(state): State<Arc<AppState>>,
    visitor: Visitor,
    Path(pack_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let csrf = headers.get("x-csrf-token").and_then(|v| v.to_str().ok());
    if let Err(error) = visitor.check_csrf(csrf) {
        return json_error(error.status, &error.message);
    }
    let customer = match visitor.customer() {
        Ok(customer) => customer,
        Err(error) => return json_error(error.status, &error.message),
    };
    let Ok(text) = std::str::from_utf8(&body) else {
        return json_error(StatusCode::BAD_REQUEST, "pack: the body is not UTF-8 JSON");
    };
    let owns = |record: &PackRecord| {
        if record.is_owned_by(&customer.id) {
            Ok(())
        } else {
            Err(DomainError::new(
                ErrorCode::PackNotFound,
                "There is no such pack.",
            ))
        }
    };
    match crate::domain::packs::replace_pack(&state, &pack_id, text, None, owns).await {
        Ok(stored) => json_response(&serde_json::json!({ "warnings": stored.record.warnings })),
        Err(error) => {
            let status = match error.code {
                ErrorCode::PackNotFound => StatusCode::NOT_FOUND,
                ErrorCode::InvalidPack | ErrorCode::InvalidParameter => StatusCode::BAD_REQUEST,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            if status == StatusCode::INTERNAL_SERVER_ERROR {
                tracing::error!(message = %error.message, "saving a design failed");
                return json_error(status, "We could not save just now. Please try again.");
            }
            json_error(status, &error.message)
        }
    }
}

/// `GET /images/{id}/{rendition}`: a stored rendition's bytes. The id is 128 bits of the
/// file's digest, unguessable without the file, like the API's `resourceUri`s it comes from.
pub async fn image(
    State(state): State<Arc<AppState>>,
    Path((id, rendition)): Path<(String, String)>,
) -> Response {
    let uri = format!("store://{id}/{rendition}");
    match crate::domain::images::rendition_bytes(&state, &uri).await {
        Ok(Some(bytes)) => {
            let content_type = if bytes.starts_with(b"\x89PNG") {
                "image/png"
            } else if bytes.starts_with(b"GIF8") {
                "image/gif"
            } else {
                "image/jpeg"
            };
            (
                [
                    (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
                    // Content-addressed: the bytes behind a URL never change.
                    (
                        header::CACHE_CONTROL,
                        HeaderValue::from_static("public, max-age=31536000, immutable"),
                    ),
                ],
                bytes,
            )
                .into_response()
        }
        Ok(None) => json_error(StatusCode::NOT_FOUND, "There is no such image."),
        Err(error) => {
            tracing::error!(message = %error.message, "reading an image failed");
            json_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "The image store is not available.",
            )
        }
    }
}

/// `GET /web-demo/{file}`: the canvas's script and style.
pub async fn asset(
    State(state): State<Arc<AppState>>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Response {
    let content_type = match file.as_str() {
        "canvas.js" => "text/javascript; charset=utf-8",
        "canvas.css" => "text/css; charset=utf-8",
        _ => return json_error(StatusCode::NOT_FOUND, "There is no such file."),
    };
    let content = if file == "canvas.js" {
        CANVAS_SCRIPT
    } else {
        CANVAS_STYLE
    };
    let name = format!("web-demo/{file}");
    state
        .static_files
        .respond(&headers, &name, move || Source::new(content_type, content))
        .await
}

/// `GET /web-demo/engine/{*path}`: the engine's browser build as the npm package lays it out,
/// with this host's fonts (operator families too) and templates, so the canvas draws exactly
/// what the server draws.
pub async fn engine_file(
    State(state): State<Arc<AppState>>,
    Path(path): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(source) = engine_source(&state, &path) else {
        return json_error(StatusCode::NOT_FOUND, "There is no such file.");
    };
    let name = format!("web-demo/engine/{path}");
    state.static_files.respond(&headers, &name, source).await
}

/// How to make the engine's file `path`, if there is one (made only the first time it is
/// asked for: see [`StaticFiles`](crate::http::pages::static_files::StaticFiles)).
fn engine_source(state: &Arc<AppState>, path: &str) -> Option<Box<dyn FnOnce() -> Source + Send>> {
    let javascript = "text/javascript; charset=utf-8";
    let state = Arc::clone(state);
    Some(match path {
        "index.js" => Box::new(move || Source::new(javascript, ENGINE_INDEX)),
        "presspack_engine.js" => Box::new(move || Source::new(javascript, ENGINE_GLUE)),
        "presspack_engine_bg.wasm" => Box::new(|| Source {
            content_type: "application/wasm",
            bytes: ENGINE_WASM.clone(),
            gzipped: Some(Bytes::from_static(ENGINE_WASM_GZIP)),
        }),
        "assets.js" => Box::new(move || {
            let faces = state.fonts.faces.iter().map(|(name, _)| name.as_str());
            Source::new(javascript, assets_module(faces, state.templates.codes()))
        }),
        "fonts/catalogue.json" => Box::new(move || {
            Source::new("application/json", catalogue_json(&state.fonts.catalogue))
        }),
        _ => {
            if let Some(file) = path.strip_prefix("fonts/") {
                let face = state
                    .fonts
                    .faces
                    .iter()
                    .position(|(name, _)| face_file(name) == file)?;
                return Some(Box::new(move || {
                    Source::new(
                        "font/ttf",
                        Bytes::copy_from_slice(&state.fonts.faces[face].1),
                    )
                }));
            }
            let code = path.strip_prefix("templates/")?.strip_suffix(".xml")?;
            state.templates.get(code)?;
            let code = code.to_owned();
            Box::new(move || {
                let xml = state.templates.get(&code).map(|entry| entry.xml.clone());
                Source::new("application/xml", xml.unwrap_or_default())
            })
        }
    })
}

fn catalogue_json(catalogue: &FontCatalogue) -> Vec<u8> {
    serde_json::to_vec(catalogue).expect("the font catalogue serialises")
}

fn json_response(value: &impl Serialize) -> Response {
    let mut response = Json(value).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `{"error": {"message"}}` with `status`: what the canvas shows when a call fails.
fn json_error(status: StatusCode, message: &str) -> Response {
    let mut response = json_response(&serde_json::json!({ "error": { "message": message } }));
    *response.status_mut() = status;
    response
}
