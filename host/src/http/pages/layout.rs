//! What every customer page shares: the page layout, the response headers (cookies, content
//! security policy, no caching), redirects, error pages and form helpers. Pages are rendered
//! on the server with `maud`, which escapes every interpolated value.
//!
//! The layout wears the shop's brand (name, colour, logo, footer: [`Brand`]). Every request
//! runs in [`with_brand`], which makes it known to the pages rendered for it, error pages
//! included (they are made where no state is at hand); the colour comes in `/static/brand.css`
//! after the stylesheet, the logo from `/static/logo`.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};

use crate::domain::brand::{Brand, BrandSettings};
use crate::domain::customers::Customer;
use crate::http::pages::error::PageError;
use crate::http::pages::forms;
use crate::http::pages::sessions::Visitor;
use crate::http::state::ServicesState;
pub use crate::infra::clock::when;

tokio::task_local! {
    /// The shop's brand for the pages of the request being answered.
    static BRAND: Arc<Brand>;
    /// The origin images may come from besides this server: the object store's, when the
    /// host redirects to it (`s3_redirect_seconds`).
    static BLOB_ORIGIN: Option<String>;
}

/// Middleware: the pages made for a request wear the deployment's brand and allow its
/// images' origin.
pub async fn with_brand(
    State(ServicesState(services)): State<ServicesState>,
    request: Request,
    next: Next,
) -> Response {
    let pages = BLOB_ORIGIN.scope(services.blobs.direct_origin(), next.run(request));
    BRAND.scope(Arc::clone(&services.brand), pages).await
}

/// The brand (outside a request, as in unit tests: the default).
fn brand() -> Arc<Brand> {
    BRAND.try_with(Arc::clone).unwrap_or_else(|_| {
        Arc::new(Brand::load(&BrandSettings::default()).expect("the default brand loads"))
    })
}

/// Who may show a page in a frame.
#[derive(Clone, Copy, PartialEq)]
enum Framing {
    /// Nobody: the console.
    Never,
    /// The partner origins of `edit_frame_ancestors` (nobody by default): the customer
    /// pages, from the `edit` drop-in to the sign-in, cart and checkout it leads to.
    Partners,
}

impl Framing {
    /// The `frame-ancestors` sources; empty: none.
    fn ancestors(self) -> Vec<String> {
        let brand = brand();
        if self == Framing::Never || brand.edit_frame_ancestors.is_empty() {
            return Vec::new();
        }
        std::iter::once("'self'".to_owned())
            .chain(brand.edit_frame_ancestors.iter().cloned())
            .collect()
    }
}

/// The policy of every page: only this server's styles, images and scripts (and images from
/// the object store the server redirects to), forms posted only here, framed only as
/// `framing` allows. `connect_src` adds the origins a page's script may call; one that calls
/// this server may also fetch images from that object store. `wasm_page` lets the page's
/// scripts compile WebAssembly and run the inline script of that hash source (the design
/// editor's import map).
fn content_security_policy(
    connect_src: &[String],
    wasm_page: Option<&str>,
    framing: Framing,
) -> HeaderValue {
    let frame_ancestors = framing.ancestors();
    let list = |sources: &[String], none: &str| {
        if sources.is_empty() {
            none.to_owned()
        } else {
            sources.join(" ")
        }
    };
    let blob_origin = BLOB_ORIGIN.try_with(Clone::clone).ok().flatten();
    let images = match &blob_origin {
        Some(origin) => format!("'self' {origin}"),
        None => "'self'".to_owned(),
    };
    let mut connect_src = connect_src.to_vec();
    if connect_src.iter().any(|source| source == "'self'") {
        connect_src.extend(blob_origin);
    }
    let connect = list(&connect_src, "'none'");
    let framers = list(&frame_ancestors, "'none'");
    let script = match wasm_page {
        Some(inline_script) => format!("'self' 'wasm-unsafe-eval' {inline_script}"),
        None => "'self'".to_owned(),
    };
    let policy = format!(
        "default-src 'none'; style-src 'self'; img-src {images}; script-src {script}; \
         connect-src {connect}; form-action 'self'; base-uri 'none'; frame-ancestors {framers}"
    );
    HeaderValue::from_str(&policy).unwrap_or(HeaderValue::from_static("default-src 'none'"))
}

/// Headers of every page response: no caching (pages show a customer's data), no referrer
/// (drop-in URLs carry tokens), framed only as `framing` allows, no type sniffing.
fn with_page_headers(
    mut response: Response,
    set_cookies: &[HeaderValue],
    framing: Framing,
) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    // X-Frame-Options cannot name origins: the policy's frame-ancestors does, when any may.
    if framing.ancestors().is_empty() {
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            content_security_policy(&[], None, framing),
        );
    }
    for cookie in set_cookies {
        headers.append(header::SET_COOKIE, cookie.clone());
    }
    response
}

/// A page in the shop's layout.
pub fn page(visitor: &Visitor, title: &str, content: Markup) -> Response {
    page_with(visitor, title, content, &[])
}

/// A page whose script may call `connect_src` origins (the order confirmation callback).
pub fn page_with(
    visitor: &Visitor,
    title: &str,
    content: Markup,
    connect_src: &[String],
) -> Response {
    page_with_policy(
        visitor,
        title,
        content,
        content_security_policy(connect_src, None, Framing::Partners),
    )
}

/// A page running the design canvas: its script compiles the engine's WebAssembly and calls
/// this server (designs, images, uploads); `inline_script` is the hash source of its one
/// inline script (the import map).
pub fn canvas_page(
    visitor: &Visitor,
    title: &str,
    content: Markup,
    inline_script: &str,
) -> Response {
    let policy = content_security_policy(
        &["'self'".to_owned()],
        Some(inline_script),
        Framing::Partners,
    );
    page_with_policy(visitor, title, content, policy)
}

fn page_with_policy(
    visitor: &Visitor,
    title: &str,
    content: Markup,
    policy: HeaderValue,
) -> Response {
    let nav = customer_nav(visitor.customer.as_ref(), Some(visitor));
    let markup = layout(title, "/cart", nav, content, "shop");
    let mut response = Html(markup.into_string()).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_SECURITY_POLICY, policy);
    with_page_headers(response, &visitor.set_cookies, Framing::Partners)
}

/// A page of the shop's console: the shop's document with the console's navigation, its
/// headers and `set_cookies`.
pub fn console_page(
    title: &str,
    nav: Markup,
    content: Markup,
    set_cookies: &[HeaderValue],
) -> Response {
    let markup = layout(title, "/admin/", nav, content, "console");
    with_page_headers(
        Html(markup.into_string()).into_response(),
        set_cookies,
        Framing::Never,
    )
}

/// `303 See Other` to a path on this server (after a form is posted).
pub fn redirect(visitor: &Visitor, to: &str) -> Response {
    redirect_setting(to, &visitor.set_cookies)
}

/// `303 See Other` to a path on this server, setting `set_cookies`.
pub fn redirect_setting(to: &str, set_cookies: &[HeaderValue]) -> Response {
    let location = HeaderValue::from_str(to).unwrap_or(HeaderValue::from_static("/"));
    let response = (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response();
    with_page_headers(response, set_cookies, Framing::Partners)
}

/// The customer's navigation: their cart, orders and sign-out, or sign-in and sign-up.
fn customer_nav(customer: Option<&Customer>, visitor: Option<&Visitor>) -> Markup {
    html! {
        nav aria-label="Account" {
            @if let Some(customer) = customer {
                a href="/cart" { "Cart (" (customer.cart.len()) ")" }
                a href="/orders" { "Orders" }
                @if let Some(visitor) = visitor {
                    form.inline method="post" action="/account/signout" {
                        (forms::csrf_field(visitor))
                        button.link type="submit" { "Sign out " (customer.name) }
                    }
                }
            } @else {
                a href="/account/signin" { "Sign in" }
                a href="/account/signup" { "Create an account" }
            }
        }
    }
}

/// The document around every page: `home` is where the brand links to, `kind` the main
/// part's class (`shop` or the wider `console`).
fn layout(title: &str, home: &str, nav: Markup, content: Markup, kind: &str) -> Markup {
    let brand = brand();
    let shop = &brand.name;
    let initial = shop.chars().next().unwrap_or('P');
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · " (shop) }
                link rel="icon" href="/favicon.svg" type="image/svg+xml";
                link rel="stylesheet" href="/static/shop.css";
                link rel="stylesheet" href="/static/brand.css";
            }
            body {
                a.skip href="#main" { "Skip to content" }
                header.site {
                    a.brand href=(home) {
                        @if brand.logo.is_some() { img.logo src="/static/logo" alt=""; }
                        @else { span.mark aria-hidden="true" { (initial) } }
                        (shop)
                    }
                    (nav)
                }
                main #main class=(kind) {
                    h1 { (title) }
                    (content)
                }
                footer.site { (brand.footer) " · prices include VAT" }
            }
        }
    }
}

/// A problem to put right, shown above the form it concerns and announced to screen readers.
pub fn alert(message: &str) -> Markup {
    html! { p.notice role="alert" { (message) } }
}

/// `next` if it is a path on this server (`/...`, not `//host`), else `None`: sign-in
/// redirects only to this site.
pub fn local_path(next: &str) -> Option<&str> {
    let is_local = next.starts_with('/')
        && !next.starts_with("//")
        && !next.starts_with("/\\")
        && next.len() <= 2048
        && !next.chars().any(|c| c.is_control());
    is_local.then_some(next)
}

/// An error page in the shop's layout.
impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let content = html! {
            (alert(&self.message))
            @if self.offer_sign_in {
                p { a.button href="/account/signin" { "Sign in" } " " a href="/account/signup" { "Create an account" } }
            }
        };
        let page = Html(
            layout(
                self.title,
                "/cart",
                customer_nav(None, None),
                content,
                "shop",
            )
            .into_string(),
        );
        let response = (self.status, page).into_response();
        with_page_headers(response, &[], Framing::Partners)
    }
}

/// A PNG made for this request (a side's preview), kept by the browser as `cache_control` says.
pub fn png(png: impl Into<bytes::Bytes>, cache_control: &'static str) -> Response {
    let png: bytes::Bytes = png.into();
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("image/png")),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static(cache_control),
            ),
        ],
        png,
    )
        .into_response()
}

/// A PDF made for this request, downloaded as `file_name` (letters, digits, `-` and `.`:
/// made from an order number) and kept by no cache.
pub fn pdf(pdf: impl Into<bytes::Bytes>, file_name: &str) -> Response {
    let disposition = format!("attachment; filename=\"{file_name}\"");
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/pdf"),
            ),
            (
                header::CONTENT_DISPOSITION,
                HeaderValue::from_str(&disposition)
                    .unwrap_or(HeaderValue::from_static("attachment")),
            ),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("private, no-store"),
            ),
        ],
        pdf.into(),
    )
        .into_response()
}

pub fn static_asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=3600"),
            ),
        ],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    #[test]
    fn moments_are_shown_in_utc_to_the_minute() {
        assert_eq!(
            super::when(1_795_737_600 + 9 * 3600 + 41 * 60),
            "2026-11-27 09:41 UTC"
        );
    }
}
