//! The shop's own files: the pages' stylesheet, the brand's colours over it, its logo and the
//! pages' scripts, answered through [`StaticFiles`](crate::http::pages::static_files) (compressed
//! once, with ETags).

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::http::pages::static_files::Source;
use crate::http::state::{ServicesState, StaticFilesState};

const STYLESHEET: &str = include_str!("../../../static/shop.css");
/// The pages' scripts, each in its own file (the policy runs no inline script): the order
/// confirmation's callbacks and the finish page's running price.
const SCRIPTS: [(&str, &str); 2] = [
    (
        "confirmation.js",
        include_str!("../../../static/confirmation.js"),
    ),
    ("finish.js", include_str!("../../../static/finish.js")),
];

const CSS: &str = "text/css; charset=utf-8";

/// `GET /static/shop.css`
pub async fn stylesheet(
    State(StaticFilesState(files)): State<StaticFilesState>,
    headers: HeaderMap,
) -> Response {
    let source = || Source::new(CSS, STYLESHEET);
    files.respond(&headers, "shop.css", None, source).await
}

/// `GET /static/brand.css`: the brand's colour over the stylesheet's.
pub async fn brand_stylesheet(
    State(ServicesState(services)): State<ServicesState>,
    State(StaticFilesState(files)): State<StaticFilesState>,
    headers: HeaderMap,
) -> Response {
    let css = format!(
        ":root {{ --brand: {}; --brand-dark: {}; }}\n",
        services.brand.colour,
        services.brand.dark_colour()
    );
    let source = move || Source::new(CSS, css);
    files.respond(&headers, "brand.css", None, source).await
}

/// `GET /static/logo`: the brand's logo (404 without one). An SVG opened on its own runs no
/// script: the policy allows none.
pub async fn logo(State(ServicesState(services)): State<ServicesState>) -> Response {
    let Some(logo) = &services.brand.logo else {
        return StatusCode::NOT_FOUND.into_response();
    };
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static(logo.content_type),
            ),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=300"),
            ),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'"),
            ),
        ],
        logo.bytes.clone(),
    )
        .into_response()
}

/// `GET /static/{name}`: one of [`SCRIPTS`].
pub async fn script(
    State(StaticFilesState(files)): State<StaticFilesState>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(&(name, script)) = SCRIPTS.iter().find(|(known, _)| *known == name) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let source = move || Source::new("text/javascript; charset=utf-8", script);
    files.respond(&headers, name, None, source).await
}
