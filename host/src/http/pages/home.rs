//! What a person finds at the server's root: a small page naming what runs here and linking
//! the design canvas, the API reference and the health probes; the site's icon; the API
//! reference itself (docs/api.md, as text).

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{Redirect, Response};
use maud::html;

use crate::http::pages::layout;
use crate::http::pages::sessions::Visitor;
use crate::http::state::AppState;

const FAVICON: &str = include_str!("../../../static/favicon.svg");
const API_REFERENCE: &str = include_str!("../../../../docs/api.md");

/// `GET /`.
pub async fn home(State(state): State<Arc<AppState>>, visitor: Visitor) -> Response {
    let endpoint = format!("{}/api/service/", state.base_url);
    let content = html! {
        p { "This server runs the Print Product Pack API: partners create packs of business cards, "
            "postcards and stickers, fill them from templates, render them, and send their "
            "customers here to finish and order them." }
        ul.links {
            li { a href="/web-demo/" { "Design canvas" } ": try the engine in your browser, with live previews." }
            li { a href="/docs/api.md" { "API reference" } ": every method with examples; the endpoint is "
                 code { (endpoint) } "." }
            li { a href="/account/signin" { "Your account" } ": your cart and your orders." }
            li { a href="/healthz" { "Health" } " and " a href="/readyz" { "readiness" } " for load balancers." }
        }
        p.version { "Presspack " (env!("CARGO_PKG_VERSION")) }
    };
    layout::page(&visitor, "Presspack", content)
}

/// `GET /favicon.svg`.
pub async fn favicon() -> Response {
    layout::static_asset("image/svg+xml", FAVICON)
}

/// `GET /favicon.ico`: browsers ask for it unprompted; the icon is the SVG.
pub async fn favicon_ico() -> Redirect {
    Redirect::permanent("/favicon.svg")
}

/// `GET /docs/api.md`: the API reference this server implements, as Markdown text.
pub async fn api_reference() -> Response {
    let mut response = layout::static_asset("text/plain; charset=utf-8", API_REFERENCE);
    // Text, never a page: nothing in it may load or run.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'"),
    );
    response
}
