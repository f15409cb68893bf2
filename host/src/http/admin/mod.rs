//! The shop's console at `/admin/`: operators (made with `presspack operators`) sign in with
//! their password and, if they set one up, an authenticator code, then run production: the
//! order list, an order's page with its packs, press files and preflight, its mail, the
//! state changes and reprints. Pages are rendered on the server like the customer pages, in
//! the same layout, with their own session ([`session`]).

pub mod mail;
pub mod orders;
pub mod page;
pub mod session;

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use maud::{Markup, html};
use serde::Deserialize;

use crate::domain::customers::MAX_PASSWORD;
use crate::domain::operators::{self, OperatorError};
use crate::domain::orders::shipments;
use crate::http::pages::forms::{Fields, MAX_FORM_BYTES, PostedForm, csrf_field, field};
use crate::http::pages::layout::{self, alert, local_path};
use crate::http::pages::sessions::{Visitor, too_many_attempts};
use crate::http::state::AppState;
use session::{ConsoleError, OperatorForm, Staff};

/// Where to go after signing in: a console path, else the order list.
fn next_of(next: &str) -> &str {
    local_path(next)
        .filter(|next| next.starts_with("/admin/"))
        .unwrap_or("/admin/orders")
}

/// The operator's sign-in form.
#[derive(Deserialize, Default)]
#[serde(default)]
struct SignInForm {
    name: String,
    password: String,
    code: String,
    next: String,
}

pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/admin", get(|| async { Redirect::permanent("/admin/") }))
        .route("/admin/", get(|| async { Redirect::to("/admin/orders") }))
        .route("/admin/signin", get(sign_in_page).post(sign_in))
        .route("/admin/signout", post(sign_out))
        .route("/admin/orders", get(orders::list))
        .route("/admin/orders/{number}", get(orders::show))
        .route("/admin/orders/{number}/move", post(orders::move_order))
        .route("/admin/orders/{number}/reprint", post(orders::reprint))
        .route("/admin/orders/{number}/notes", post(orders::add_note))
        .route(
            "/admin/orders/{number}/packing-slip",
            get(orders::packing_slip_page),
        )
        .route(
            "/admin/orders/{number}/job-ticket",
            get(orders::job_ticket_page),
        )
        .route("/admin/orders/{number}/invoice", get(orders::invoice_page))
        .route(
            "/admin/orders/{number}/payment",
            post(orders::record_payment),
        )
        .route(
            "/admin/orders/{number}/artwork",
            post(orders::ask_for_artwork),
        )
        .route("/admin/orders.csv", get(orders::export))
        .route(
            "/admin/orders/press-files.zip",
            get(orders::press_file_archive),
        )
        .route("/admin/orders/batch", post(orders::batch))
        .route(
            "/admin/orders/shipments",
            // The list is a file: more than a form, still bounded (with room for the form).
            post(orders::ship_list).layer(DefaultBodyLimit::max(shipments::MAX_BYTES + 16 * 1024)),
        )
        .route(
            "/admin/orders/{number}/lines/{line}/sides/{side}",
            get(orders::side_image),
        )
        .route("/admin/mail", get(mail::mail))
        .layer(DefaultBodyLimit::max(MAX_FORM_BYTES))
}

fn sign_in_form(visitor: &Visitor, next: &str, name: &str) -> Markup {
    html! {
        form.card method="post" action="/admin/signin" {
            (csrf_field(visitor))
            input type="hidden" name="next" value=(next);
            label for="operator-name" { "Operator name" }
            input #operator-name type="text" name="name" value=(name) autocomplete="username" maxlength="40" required;
            label for="operator-password" { "Password" }
            input #operator-password type="password" name="password" autocomplete="current-password" maxlength=(MAX_PASSWORD) required;
            label for="operator-code" { "Authenticator code (if you set one up)" }
            input #operator-code type="text" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="6" pattern="[0-9]{6}";
            button type="submit" { "Sign in" }
        }
    }
}

/// A page for someone who is not signed in to the console: the shop's layout, no navigation.
fn sign_in_response(visitor: &Visitor, status: StatusCode, content: Markup) -> Response {
    let page = layout::console_page("Console sign-in", html! {}, content, &visitor.set_cookies);
    (status, page).into_response()
}

/// `GET /admin/signin?next=`
async fn sign_in_page(visitor: Visitor, Query(query): Query<Fields>) -> Response {
    let next = next_of(field(&query, "next")).to_owned();
    sign_in_response(&visitor, StatusCode::OK, sign_in_form(&visitor, &next, ""))
}

/// `POST /admin/signin`: counted by the customer sign-in limits (under the operator's name; a
/// browser that signed in as the operator before is spared the all-networks limit), then the
/// password and code checked together.
async fn sign_in(
    State(state): State<Arc<AppState>>,
    mut staff: Staff,
    PostedForm { visitor, fields }: PostedForm<SignInForm>,
) -> Result<Response, ConsoleError> {
    let (name, next) = (fields.name.as_str(), next_of(&fields.next));
    let again = |status: StatusCode, message: &str| {
        let content = html! { (alert(message)) (sign_in_form(&visitor, next, name)) };
        sign_in_response(&visitor, status, content)
    };
    let (limits, store) = (&state.sign_in_limits, state.services.store.as_ref());
    let counted_as = format!("operator:{}", name.trim().to_lowercase());
    let known_device = staff.is_known_device(store, name).await?;
    let admitted = limits
        .admit(store, &visitor.client_key(), &counted_as, known_device)
        .await?;
    let attempt = match admitted {
        Ok(attempt) => attempt,
        Err(wait) => {
            let message = too_many_attempts(wait);
            return Ok(again(StatusCode::TOO_MANY_REQUESTS, &message));
        }
    };
    let signed_in = operators::sign_in(
        store,
        &state.services.passwords,
        &state.services.clock,
        name,
        &fields.password,
        &fields.code,
    )
    .await;
    match signed_in {
        Ok(operator) => {
            limits.succeeded(store, attempt).await?;
            staff.sign_in(&state, operator).await?;
            let mut cookies = visitor.set_cookies.clone();
            cookies.extend(staff.set_cookies);
            Ok(layout::redirect_setting(next, &cookies))
        }
        Err(OperatorError::Store(error)) => Err(error.into()),
        Err(error) => Ok(again(StatusCode::UNAUTHORIZED, &error.to_string())),
    }
}

/// `POST /admin/signout`
async fn sign_out(
    State(state): State<Arc<AppState>>,
    OperatorForm { mut staff, .. }: OperatorForm,
) -> Result<Response, ConsoleError> {
    staff.sign_out(&state).await?;
    Ok(layout::redirect_setting(
        "/admin/signin",
        &staff.set_cookies,
    ))
}
