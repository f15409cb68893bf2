//! Every route of the service in one place, with the layers each response goes through: the
//! API endpoint, the customer pages, the design canvas, the console, health and metrics.
//! `app` only wires this to a listener.

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderValue, header};
use axum::routing::{get, post};
use tower::ServiceBuilder;
use tower_http::ServiceBuilderExt;

use crate::http::state::AppState;
use crate::http::{observe, rpc};

/// The service's router; and, when metrics have a listener of their own
/// (`metrics_apart`), the router for it (else `/metrics` is one of the service's routes).
pub fn router(state: &Arc<AppState>, metrics_apart: bool) -> (Router, Option<Router>) {
    let service = get(rpc::service).post(rpc::service);
    let metrics = Router::new().route("/metrics", get(observe::metrics));
    let mut router = Router::new()
        .route("/api/service/", service.clone())
        .route("/api/service", service)
        .merge(customer_pages())
        .merge(crate::http::admin::routes())
        .merge(canvas_routes())
        .route("/healthz", get(observe::healthz))
        .route("/readyz", get(observe::readyz));
    let metrics = if metrics_apart {
        Some(metrics.with_state(Arc::clone(state)))
    } else {
        router = router.merge(metrics);
        None
    };
    // Outermost first: a plain client request id or a new one, returned on the response;
    // every reply is what its Content-Type says, never sniffed into something else.
    let router = router
        .layer(
            ServiceBuilder::new()
                .map_request(observe::keep_plain_request_id)
                .set_x_request_id(observe::RandomRequestId)
                .propagate_x_request_id()
                .override_response_header(
                    header::X_CONTENT_TYPE_OPTIONS,
                    HeaderValue::from_static("nosniff"),
                )
                .layer(axum::middleware::from_fn_with_state(
                    Arc::clone(state),
                    observe::observe,
                ))
                .layer(axum::middleware::from_fn_with_state(
                    Arc::clone(state),
                    observe::engine_holders,
                ))
                .layer(axum::middleware::from_fn_with_state(
                    Arc::clone(state),
                    crate::http::pages::layout::with_brand,
                )),
        )
        .with_state(Arc::clone(state));
    (router, metrics)
}

/// The customer pages: accounts, drop-ins, cart, checkout, orders, and their assets. Form
/// bodies are small; the API's larger limit does not apply here.
fn customer_pages() -> Router<Arc<AppState>> {
    use crate::http::pages::{
        account, account_links, artwork, cart, dropins, forms, home, orders, shop_files,
    };
    Router::new()
        .route("/", get(home::home))
        .route("/favicon.svg", get(home::favicon))
        .route("/favicon.ico", get(home::favicon_ico))
        .route("/docs/api.md", get(home::api_reference))
        .route("/docs/api", get(home::api_reference_page))
        .route(
            "/account/signin",
            get(account::sign_in_page).post(account::sign_in),
        )
        .route(
            "/account/signup",
            get(account::sign_up_page).post(account::sign_up),
        )
        .route("/account/signout", post(account::sign_out))
        .route("/account/confirm", post(account_links::resend_confirmation))
        .route(
            "/account/confirm/{token}",
            get(account_links::confirm_address),
        )
        .route(
            "/account/reset",
            get(account_links::reset_request_page).post(account_links::request_reset),
        )
        .route(
            "/account/reset/{token}",
            get(account_links::new_password_page).post(account_links::set_new_password),
        )
        .route(
            "/account/password-changed",
            get(account_links::password_changed),
        )
        .route("/packs/{pack_id}/finish", post(dropins::finish))
        .route(
            "/dropins/{pack_id}/{name}",
            get(dropins::open).post(dropins::continue_with),
        )
        .route("/packs/{pack_id}/sides/{index}", get(dropins::side_image))
        .route("/cart", get(cart::show))
        .route("/cart/lines/{pack_id}", post(cart::change_line))
        .route("/checkout", get(orders::checkout).post(orders::place_order))
        .route("/orders", get(orders::history))
        .route("/orders/{number}", get(orders::show))
        .route("/orders/{number}/confirmation", get(orders::confirmation))
        .route("/orders/{number}/proof/{line}", get(orders::proof))
        .route("/orders/{number}/invoice", get(orders::invoice))
        .route(
            "/artwork/{number}/{line}",
            get(artwork::show).post(artwork::approve),
        )
        .route("/artwork/{number}/{line}/edit", get(artwork::edit))
        .route(
            "/orders/{number}/lines/{line}/sides/{side}",
            get(orders::ordered_side_image),
        )
        .route(
            "/press-files/{number}/{line}",
            get(orders::press_file_download),
        )
        .route("/static/shop.css", get(shop_files::stylesheet))
        .route("/static/brand.css", get(shop_files::brand_stylesheet))
        .route("/static/logo", get(shop_files::logo))
        .route("/static/{name}", get(shop_files::script))
        .layer(DefaultBodyLimit::max(forms::MAX_FORM_BYTES))
}

/// The design canvas: its pages and files, the images it draws, and the owner's design.
fn canvas_routes() -> Router<Arc<AppState>> {
    use crate::http::pages::canvas;
    Router::new()
        .route(
            "/web-demo",
            get(|| async { axum::response::Redirect::permanent("/web-demo/") }),
        )
        .route("/web-demo/", get(canvas::demo_page))
        .route("/web-demo/sample.json", get(canvas::sample))
        .route("/web-demo/packs", post(canvas::start_pack))
        .route("/web-demo/{file}", get(canvas::asset))
        .route("/web-demo/editor/{file}", get(canvas::editor_module))
        .route("/web-demo/engine/{*path}", get(canvas::engine_file))
        .route("/images/{id}/{rendition}", get(canvas::image))
        .route(
            "/designs/{code}/thumbnail.png",
            get(canvas::design_thumbnail),
        )
        .route(
            "/packs/{pack_id}/design",
            get(canvas::design).post(canvas::save),
        )
        .layer(DefaultBodyLimit::max(canvas::MAX_DESIGN_BYTES))
}
