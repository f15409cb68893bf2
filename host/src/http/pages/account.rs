//! The account pages: sign up (which mails the link confirming the address, or, for an
//! address that has an account, tells its owner by mail rather than on the page), sign in,
//! sign out. Each form posts back to its own page, which
//! shows the problem next to the form, and on success continues to `next` (a path on this
//! site, such as the drop-in the customer came from).

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use serde::Deserialize;

use crate::domain::customers::{self, AccountError, EmailAddress, MAX_PASSWORD, MIN_PASSWORD};
use crate::domain::mail::{self, MailKind};
use crate::http::pages::error::PageError;
use crate::http::pages::forms::{Fields, PostedForm, csrf_field, field};
use crate::http::pages::layout::{self, local_path};
use crate::http::pages::sessions::{Visitor, address_key, over_hourly_limit, too_many_attempts};
use crate::http::state::AppState;

/// Accounts made from one network per hour.
const SIGN_UPS_PER_CLIENT: u64 = 20;
/// Notices that someone tried to sign up with an address, mailed to its owner per hour.
const NOTICES_PER_ADDRESS: u64 = 3;

fn next_of(next: &str) -> &str {
    local_path(next).unwrap_or("/cart")
}

/// The sign-in form's fields.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct SignInForm {
    email: String,
    password: String,
    next: String,
}

/// The sign-up form's fields.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct SignUpForm {
    name: String,
    email: String,
    password: String,
    next: String,
}

/// The sign-in form, returning to `next`.
pub fn sign_in_form(visitor: &Visitor, next: &str, email: &str) -> Markup {
    html! {
        form.card method="post" action="/account/signin" {
            h2 { "Sign in" }
            (csrf_field(visitor))
            input type="hidden" name="next" value=(next);
            label for="signin-email" { "E-mail address" }
            input #signin-email type="email" name="email" value=(email) autocomplete="email" required;
            label for="signin-password" { "Password" }
            input #signin-password type="password" name="password" autocomplete="current-password" required;
            button type="submit" { "Sign in" }
            p.hint { a href="/account/reset" { "Forgot your password?" } }
        }
    }
}

/// The sign-up form, returning to `next`.
pub fn sign_up_form(visitor: &Visitor, next: &str, name: &str, email: &str) -> Markup {
    html! {
        form.card method="post" action="/account/signup" {
            h2 { "Create an account" }
            (csrf_field(visitor))
            input type="hidden" name="next" value=(next);
            label for="signup-name" { "Your name" }
            input #signup-name type="text" name="name" value=(name) autocomplete="name" maxlength="100" required;
            label for="signup-email" { "E-mail address" }
            input #signup-email type="email" name="email" value=(email) autocomplete="email" required;
            label for="signup-password" { "Password" }
            input #signup-password type="password" name="password" autocomplete="new-password"
                minlength=(MIN_PASSWORD) maxlength=(MAX_PASSWORD) required
                aria-describedby="signup-password-hint";
            p.hint #signup-password-hint { "At least " (MIN_PASSWORD) " characters." }
            button type="submit" { "Create account" }
        }
    }
}

/// Both forms side by side, for a page that needs a customer (a drop-in).
pub fn sign_in_or_up(visitor: &Visitor, next: &str) -> Markup {
    html! {
        div.columns {
            (sign_in_form(visitor, next, ""))
            (sign_up_form(visitor, next, "", ""))
        }
    }
}

pub async fn sign_in_page(visitor: Visitor, Query(query): Query<Fields>) -> Response {
    let next = next_of(field(&query, "next")).to_owned();
    layout::page(&visitor, "Sign in", sign_in_form(&visitor, &next, ""))
}

pub async fn sign_up_page(visitor: Visitor, Query(query): Query<Fields>) -> Response {
    let next = next_of(field(&query, "next")).to_owned();
    layout::page(
        &visitor,
        "Create an account",
        sign_up_form(&visitor, &next, "", ""),
    )
}

pub async fn sign_in(
    State(state): State<Arc<AppState>>,
    PostedForm {
        mut visitor,
        fields,
    }: PostedForm<SignInForm>,
) -> Result<Response, PageError> {
    let (email, password, next) = (
        fields.email.as_str(),
        fields.password.as_str(),
        next_of(&fields.next),
    );
    let again = |visitor: &Visitor, status: StatusCode, message: &str| {
        let content = html! { (layout::alert(message)) (sign_in_form(visitor, next, email)) };
        (status, layout::page(visitor, "Sign in", content)).into_response()
    };
    let limits = &state.sign_in_limits;
    // Text that is no address is answered as an unknown one (and counted as one).
    let address = EmailAddress::parse(email).ok();
    let known_device = visitor
        .is_known_device(state.services.store.as_ref(), address.as_ref())
        .await?;
    let admitted = limits
        .admit(
            state.services.store.as_ref(),
            &visitor.client_key(),
            email,
            known_device,
        )
        .await?;
    let attempt = match admitted {
        Ok(attempt) => attempt,
        Err(wait) => {
            let message = too_many_attempts(wait);
            return Ok(again(&visitor, StatusCode::TOO_MANY_REQUESTS, &message));
        }
    };
    match customers::sign_in(
        state.services.store.as_ref(),
        &state.services.passwords,
        address.as_ref(),
        password,
    )
    .await
    {
        Ok(customer) => {
            limits
                .succeeded(state.services.store.as_ref(), attempt)
                .await?;
            visitor.sign_in(&state, customer).await?;
            Ok(layout::redirect(&visitor, next))
        }
        Err(AccountError::Store(error)) => Err(error.into()),
        Err(error) => Ok(again(
            &visitor,
            StatusCode::UNAUTHORIZED,
            &error.to_string(),
        )),
    }
}

pub async fn sign_up(
    State(state): State<Arc<AppState>>,
    PostedForm {
        mut visitor,
        fields,
    }: PostedForm<SignUpForm>,
) -> Result<Response, PageError> {
    let (name, email, next) = (
        fields.name.as_str(),
        fields.email.as_str(),
        next_of(&fields.next),
    );
    // Each sign-up costs a password hash and may send a mail: counted per network first.
    let counts = [(
        format!("signup-client:{}", visitor.client_key()),
        SIGN_UPS_PER_CLIENT,
    )];
    if over_hourly_limit(state.services.store.as_ref(), &counts).await? {
        let content = html! {
            (layout::alert("Too many accounts were made from your network. Please wait an hour, or sign in to an account you have."))
            (sign_up_form(&visitor, next, name, email))
        };
        let page = layout::page(&visitor, "Create an account", content);
        return Ok((StatusCode::TOO_MANY_REQUESTS, page).into_response());
    }
    let refused = |visitor: &Visitor, error: AccountError| {
        let content = html! {
            (layout::alert(&error.to_string()))
            (sign_up_form(visitor, next, name, email))
        };
        let page = layout::page(visitor, "Create an account", content);
        (StatusCode::BAD_REQUEST, page).into_response()
    };
    let address = match EmailAddress::parse(email) {
        Ok(address) => address,
        Err(error) => return Ok(refused(&visitor, error)),
    };
    let (store, clock) = (state.services.store.as_ref(), &state.services.clock);
    let hashing = &state.services.passwords;
    match customers::sign_up(store, hashing, clock, &address, name, &fields.password).await {
        Ok(customer) => {
            mail::send_account_mail(&state.services, MailKind::ConfirmAddress, &customer.email)
                .await?;
            visitor.sign_in(&state, customer).await?;
            Ok(layout::redirect(&visitor, next))
        }
        // The page does not say the address has an account: its owner is told by mail.
        Err(AccountError::EmailTaken) if state.services.mailer.is_configured() => {
            // At most a few notices an hour reach one owner, however many sign-ups name it.
            let notices = [(
                format!("signup-notice:{}", address_key(&address)),
                NOTICES_PER_ADDRESS,
            )];
            if !over_hourly_limit(state.services.store.as_ref(), &notices).await? {
                mail::send_account_mail(&state.services, MailKind::SignUpAttempt, &address).await?;
            }
            let content = html! {
                p.notice role="status" { "A message about this sign-up is on its way to " strong { (address) } ". Follow what it says to go on." }
                p.actions { a.button href=(format!("/account/signin?next={}", form_urlencoded::byte_serialize(next.as_bytes()).collect::<String>())) { "Sign in" } }
            };
            Ok(layout::page(&visitor, "Check your e-mail", content))
        }
        Err(AccountError::Store(error)) => Err(error.into()),
        Err(error) => Ok(refused(&visitor, error)),
    }
}

pub async fn sign_out(
    State(state): State<Arc<AppState>>,
    PostedForm { mut visitor, .. }: PostedForm,
) -> Result<Response, PageError> {
    visitor.sign_out(&state).await?;
    Ok(layout::redirect(&visitor, "/account/signin"))
}
