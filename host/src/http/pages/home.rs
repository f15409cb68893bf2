//! What a person finds at the server's root: a small page naming what runs here and linking
//! the design canvas, the API reference and the health probes; the site's icon; the API
//! reference itself (docs/api.md, as a page and as text).

use std::collections::HashMap;
use std::sync::LazyLock;

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{Redirect, Response};
use maud::{PreEscaped, html};

use crate::http::pages::layout;
use crate::http::pages::sessions::Visitor;
use crate::http::state::ServicesState;

const FAVICON: &str = include_str!("../../../static/favicon.svg");
const API_REFERENCE: &str = include_str!("../../../../docs/api.md");

/// `GET /`.
pub async fn home(
    State(ServicesState(services)): State<ServicesState>,
    visitor: Visitor,
) -> Response {
    let endpoint = format!("{}/api/service/", services.base_url);
    let content = html! {
        p { "This server runs the Print Product Pack API: partners create packs of business cards, "
            "postcards and stickers, fill them from templates, render them, and send their "
            "customers here to finish and order them." }
        ul.links {
            li { a href="/web-demo/" { "Design canvas" } ": try the engine in your browser, with live previews." }
            li { a href="/docs/api" { "API reference" } ": every method with examples ("
                 a href="/docs/api.md" { "as Markdown" } "); the endpoint is " code { (endpoint) } "." }
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

/// The API reference as HTML, made once from docs/api.md.
static API_REFERENCE_HTML: LazyLock<String> = LazyLock::new(|| markdown_html(API_REFERENCE));

/// `GET /docs/api`: the API reference as a page of the site.
pub async fn api_reference_page(visitor: Visitor) -> Response {
    let content = html! { div.reference { (PreEscaped(API_REFERENCE_HTML.as_str())) } };
    layout::page(&visitor, "API reference", content)
}

/// `markdown` as HTML: tables on; headings with GitHub's anchors (`svc.pack.addToCart` ->
/// `#svcpackaddtocart`, a repeat `-1`), which the reference's own links use; raw HTML in the
/// Markdown shown as text, never passed through.
fn markdown_html(markdown: &str) -> String {
    use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};
    let mut events: Vec<Event> = Parser::new_ext(markdown, Options::ENABLE_TABLES)
        .map(|event| match event {
            Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
            event => event,
        })
        .collect();
    let mut used: HashMap<String, usize> = HashMap::new();
    for start in 0..events.len() {
        let Event::Start(Tag::Heading {
            level,
            id: None,
            classes,
            attrs,
        }) = &events[start]
        else {
            continue;
        };
        let text: String = (events[start + 1..].iter())
            .take_while(|event| !matches!(event, Event::End(TagEnd::Heading(_))))
            .filter_map(|event| match event {
                Event::Text(text) | Event::Code(text) => Some(text.as_ref()),
                _ => None,
            })
            .collect();
        let slug: String = (text.to_lowercase().chars())
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let repeats = used.entry(slug.clone()).or_insert(0);
        let id = match *repeats {
            0 => slug,
            n => format!("{slug}-{n}"),
        };
        *repeats += 1;
        events[start] = Event::Start(Tag::Heading {
            level: *level,
            id: Some(CowStr::from(id)),
            classes: classes.clone(),
            attrs: attrs.clone(),
        });
    }
    let mut html = String::with_capacity(markdown.len() * 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_get_github_anchors_and_raw_html_stays_text() {
        let html = markdown_html(
            "# svc.pack.addToCart\n\n## Drop-ins\n\n## Drop-ins\n\n<script>x</script>\n\n| a |\n|---|\n| 1 |\n",
        );
        assert!(html.contains("<h1 id=\"svcpackaddtocart\">"), "{html}");
        assert!(html.contains("<h2 id=\"drop-ins\">"), "{html}");
        assert!(html.contains("<h2 id=\"drop-ins-1\">"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(html.contains("<table>"), "{html}");
    }
}
