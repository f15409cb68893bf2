//! The pages of the account's mailed links: following the link that confirms a new account's
//! address (or asking for it again), asking for a password reset link, and choosing the new
//! password. The links themselves are made when their messages are sent ([`mail`]).
//!
//! Asking for a reset link answers the same whether or not an account has the address, and is
//! counted (per address and per network, in the store, before anything is looked up) so
//! nobody can fill a stranger's mailbox. Opening a reset link only shows the form; the link is
//! used up when the new password is sent, so a mail scanner that opens links uses nothing.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use serde::Deserialize;

use crate::domain::account_links::{self, LinkPurpose};
use crate::domain::customers::{self, AccountError, EmailAddress, MAX_PASSWORD, MIN_PASSWORD};
use crate::domain::mail::{self, MailKind};
use crate::http::pages::error::PageError;
use crate::http::pages::forms::{PostedForm, csrf_field};
use crate::http::pages::layout::{self, alert};
use crate::http::pages::sessions::{Visitor, address_key, over_hourly_limit};
use crate::http::state::{AppState, ServicesState};
use crate::infra::store::{Store, StoreError};

/// Links of one purpose asked for one address, and from one network, per hour.
const LINKS_PER_ADDRESS: u64 = 3;
const LINKS_PER_CLIENT: u64 = 20;

/// Whether one more mailed link for `email` (of `purpose`), asked for by `visitor`, is over the
/// hourly limits: counted in the store before anything is looked up or queued.
async fn links_over_limit(
    store: &dyn Store,
    visitor: &Visitor,
    purpose: &str,
    email: &str,
) -> Result<bool, StoreError> {
    let (client, address) = (visitor.client_key(), address_key(email));
    let counts = [
        (format!("{purpose}:{address}"), LINKS_PER_ADDRESS),
        (format!("{purpose}-client:{client}"), LINKS_PER_CLIENT),
    ];
    over_hourly_limit(store, &counts).await
}

fn link_gone() -> PageError {
    PageError::new(
        StatusCode::GONE,
        "This link no longer works",
        "This link has expired or was used already. Ask for a new one if you still need it.",
    )
}

/// `GET /account/confirm/{token}`: confirms the address (following the link is the proof).
pub async fn confirm_address(
    State(ServicesState(services)): State<ServicesState>,
    visitor: Visitor,
    Path(token): Path<String>,
) -> Result<Response, PageError> {
    let store = services.store.as_ref();
    let holder = account_links::take(store, LinkPurpose::ConfirmAddress, &token)
        .await?
        .ok_or_else(link_gone)?;
    let customer = customers::confirm_address(store, &holder)
        .await?
        .ok_or_else(link_gone)?;
    // The messages about its orders waited for this.
    mail::release_held(&services, &customer).await?;
    let content = html! {
        p.notice.success role="status" { "Thank you: " strong { (customer.email) } " is confirmed as your address." }
        p.actions { a.button href="/cart" { "Your cart" } }
    };
    Ok(layout::page(&visitor, "Address confirmed", content))
}

fn reset_request_form(visitor: &Visitor, email: &str) -> Markup {
    html! {
        form.card method="post" action="/account/reset" {
            (csrf_field(visitor))
            p { "Enter the address of your account: we will send you a link to choose a new password." }
            label for="reset-email" { "E-mail address" }
            input #reset-email type="email" name="email" value=(email) autocomplete="email" required;
            button type="submit" { "Send the link" }
        }
    }
}

/// `GET /account/reset`
pub async fn reset_request_page(visitor: Visitor) -> Response {
    layout::page(
        &visitor,
        "Forgot your password?",
        reset_request_form(&visitor, ""),
    )
}

/// The reset request's one field.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct EmailForm {
    email: String,
}

/// The new password's one field.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct PasswordForm {
    password: String,
}

/// `POST /account/reset` (`email`): the same answer for every address.
pub async fn request_reset(
    State(ServicesState(services)): State<ServicesState>,
    PostedForm { visitor, fields }: PostedForm<EmailForm>,
) -> Result<Response, PageError> {
    let title = "Forgot your password?";
    let email = match EmailAddress::parse(&fields.email) {
        Ok(email) => email,
        Err(error) => {
            let content =
                html! { (alert(&error.to_string())) (reset_request_form(&visitor, &fields.email)) };
            let page = layout::page(&visitor, title, content);
            return Ok((StatusCode::BAD_REQUEST, page).into_response());
        }
    };
    if !services.mailer.is_configured() {
        let content = html! { (alert("This shop sends no e-mail, so it cannot send a reset link. Please contact the shop.")) };
        let page = layout::page(&visitor, title, content);
        return Ok((StatusCode::SERVICE_UNAVAILABLE, page).into_response());
    }
    if links_over_limit(services.store.as_ref(), &visitor, "reset", &email).await? {
        let content = html! { (alert("Too many reset links were asked for. Please wait an hour, or use the last link we sent.")) };
        let page = layout::page(&visitor, title, content);
        return Ok((StatusCode::TOO_MANY_REQUESTS, page).into_response());
    }
    // Queued for any address: whether an account has it is looked up when it is sent, so
    // this answer's work and time tell nothing.
    mail::send_account_mail(&services, MailKind::PasswordReset, &email).await?;
    let content = html! {
        p.notice role="status" { "If an account uses " strong { (email) } ", a link to choose a new password is on its way to it. The link works once, for an hour." }
    };
    Ok(layout::page(&visitor, "Check your e-mail", content))
}

/// `POST /account/confirm`: mails the signed-in customer the link that confirms their address
/// again (counted per address and network, as reset links are).
pub async fn resend_confirmation(
    State(ServicesState(services)): State<ServicesState>,
    PostedForm { visitor, .. }: PostedForm,
) -> Result<Response, PageError> {
    let customer = visitor.customer()?;
    let title = "Confirm your address";
    let answer = |status: StatusCode, content: Markup| {
        (status, layout::page(&visitor, title, content)).into_response()
    };
    if customer.email_confirmed {
        let content = html! { p.notice.success role="status" { strong { (customer.email) } " is confirmed already." } };
        return Ok(answer(StatusCode::OK, content));
    }
    if !services.mailer.is_configured() {
        let content = html! { (alert("This shop sends no e-mail, so it cannot send a link. Please contact the shop.")) };
        return Ok(answer(StatusCode::SERVICE_UNAVAILABLE, content));
    }
    if links_over_limit(
        services.store.as_ref(),
        &visitor,
        "confirm",
        &customer.email,
    )
    .await?
    {
        let content = html! { (alert("Too many links were asked for. Please wait an hour, or use the last link we sent.")) };
        return Ok(answer(StatusCode::TOO_MANY_REQUESTS, content));
    }
    mail::send_account_mail(&services, MailKind::ConfirmAddress, &customer.email).await?;
    let content = html! {
        p.notice role="status" { "A new link to confirm " strong { (customer.email) } " is on its way. It works for a week." }
    };
    Ok(answer(StatusCode::OK, content))
}

/// A button that mails the signed-in visitor the link confirming their address again.
pub fn resend_confirmation_form(visitor: &Visitor) -> Markup {
    html! {
        form.inline method="post" action="/account/confirm" {
            (csrf_field(visitor))
            button.secondary type="submit" { "Send the link again" }
        }
    }
}

fn new_password_form(visitor: &Visitor, token: &str) -> Markup {
    html! {
        form.card method="post" action=(format!("/account/reset/{token}")) {
            (csrf_field(visitor))
            label for="new-password" { "New password" }
            input #new-password type="password" name="password" autocomplete="new-password"
                minlength=(MIN_PASSWORD) maxlength=(MAX_PASSWORD) required
                aria-describedby="new-password-hint";
            p.hint #new-password-hint { "At least " (MIN_PASSWORD) " characters. Every device signed in to your account is signed out." }
            button type="submit" { "Set the password" }
        }
    }
}

/// `GET /account/reset/{token}`: the form, if the link still works (opening it uses nothing).
pub async fn new_password_page(
    State(ServicesState(services)): State<ServicesState>,
    visitor: Visitor,
    Path(token): Path<String>,
) -> Result<Response, PageError> {
    account_links::peek(services.store.as_ref(), LinkPurpose::ResetPassword, &token)
        .await?
        .ok_or_else(link_gone)?;
    Ok(layout::page(
        &visitor,
        "Choose a new password",
        new_password_form(&visitor, &token),
    ))
}

/// `POST /account/reset/{token}` (`password`): uses the link up, sets the password, ends every
/// other session and signs this browser in.
pub async fn set_new_password(
    State(state): State<Arc<AppState>>,
    Path(token): Path<String>,
    PostedForm {
        mut visitor,
        fields,
    }: PostedForm<PasswordForm>,
) -> Result<Response, PageError> {
    let password = fields.password.as_str();
    // A password that cannot be set leaves the link as it was.
    if let Err(error) = customers::check_password(password) {
        let content = html! { (alert(&error.to_string())) (new_password_form(&visitor, &token)) };
        let page = layout::page(&visitor, "Choose a new password", content);
        return Ok((StatusCode::BAD_REQUEST, page).into_response());
    }
    let store = state.services.store.as_ref();
    let holder = account_links::take(store, LinkPurpose::ResetPassword, &token)
        .await?
        .ok_or_else(link_gone)?;
    let customer = match customers::reset_password(
        store,
        &state.services.passwords,
        &holder,
        password,
    )
    .await
    {
        Ok(customer) => customer,
        Err(AccountError::Store(error)) => return Err(error.into()),
        Err(_) => return Err(link_gone()),
    };
    visitor.sign_in(&state, customer).await?;
    Ok(layout::redirect(&visitor, "/account/password-changed"))
}

/// `GET /account/password-changed`
pub async fn password_changed(visitor: Visitor) -> Response {
    let content = html! {
        p.notice.success role="status" { "Your new password is set, and you are signed in. Every other device was signed out." }
        p.actions { a.button href="/cart" { "Your cart" } a href="/orders" { "Your orders" } }
    };
    layout::page(&visitor, "Password changed", content)
}
