//! Who is using the console: an operator's session, separate from customers'. Its cookie
//! (`pp_console`, `__Host-` behind https) holds 256 random bits; the store keeps only their
//! SHA-256, as a blob naming the operator and their session stamp that expires after
//! [`CONSOLE_SESSION_TTL`]. Each request reads the operator record again, so removing an
//! operator, or changing their password or authenticator (a new stamp), ends their sessions
//! at once. A customer's session grants nothing here and an operator's nothing in the shop.
//!
//! Console forms carry a CSRF token that is a MAC of the session under the deployment's key
//! (its own purpose, so a customer page's token is useless here); the sign-in form's is the
//! customer pages' visitor token, as there is no session yet.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use subtle::ConstantTimeEq;

use crate::domain::operators::{self, Operator};
use crate::http::pages::error::PageError;
use crate::http::pages::forms::{Fields, read_form, typed};
use crate::http::pages::layout::{self, local_path};
use crate::http::pages::sessions::{SessionKind, read_cookie, session_key};
use crate::http::state::AppState;
use crate::infra::secrets::SecretKey;
use crate::infra::store::{Kind, Store, StoreError};

/// Record kind: operators' sessions, expiring values under the SHA-256 of their cookie.
pub const CONSOLE_SESSIONS: Kind = Kind::new("console-session");

/// How long an operator stays signed in: a working day.
pub const CONSOLE_SESSION_TTL: Duration = Duration::from_secs(12 * 60 * 60);

const CONSOLE_COOKIE: &str = "pp_console";
/// Set at a successful sign-in: this browser has signed in as the operator before, since their
/// last password or authenticator change (a MAC of their name and session stamp), so guesses
/// at their name from other networks never refuse it.
const CONSOLE_DEVICE_COOKIE: &str = "pp_console_device";
/// How long a console device cookie lasts.
const CONSOLE_DEVICE_TTL: Duration = Duration::from_secs(365 * 24 * 60 * 60);

const CONSOLE: SessionKind = SessionKind {
    kind: CONSOLE_SESSIONS,
    cookie: CONSOLE_COOKIE,
    ttl: CONSOLE_SESSION_TTL,
};

/// Why a console page cannot be shown.
#[derive(Debug)]
pub enum ConsoleError {
    /// Not signed in: to the sign-in page, then back to `next`.
    SignInNeeded {
        next: String,
    },
    Page(PageError),
}

impl From<PageError> for ConsoleError {
    fn from(error: PageError) -> Self {
        ConsoleError::Page(error)
    }
}

impl From<StoreError> for ConsoleError {
    fn from(error: StoreError) -> Self {
        ConsoleError::Page(error.into())
    }
}

impl IntoResponse for ConsoleError {
    fn into_response(self) -> Response {
        match self {
            ConsoleError::SignInNeeded { next } => {
                let next: String = form_urlencoded::byte_serialize(next.as_bytes()).collect();
                layout::redirect_setting(&format!("/admin/signin?next={next}"), &[])
            }
            ConsoleError::Page(error) => error.into_response(),
        }
    }
}

/// A request to the console: the signed-in operator, if any.
pub struct Staff {
    operator: Option<Operator>,
    /// The CSRF token of this session's forms (empty without a session).
    pub csrf_token: String,
    session_token: Option<String>,
    /// The device cookie's value, if any.
    device: Option<String>,
    /// The path asked for, to come back to after signing in.
    path: String,
    pub set_cookies: Vec<HeaderValue>,
    key: SecretKey,
}

impl Staff {
    /// The signed-in operator, or a redirect to the sign-in page.
    pub fn operator(&self) -> Result<&Operator, ConsoleError> {
        self.operator
            .as_ref()
            .ok_or_else(|| ConsoleError::SignInNeeded {
                next: self.path.clone(),
            })
    }

    /// The operator of a form post: signed in, and the form's token this session's
    /// (compared in constant time).
    pub fn operator_posting(&self, submitted: Option<&str>) -> Result<&Operator, ConsoleError> {
        let operator = self.operator()?;
        let valid = submitted.is_some_and(|token| {
            token.len() == self.csrf_token.len()
                && bool::from(token.as_bytes().ct_eq(self.csrf_token.as_bytes()))
        });
        if !valid {
            return Err(PageError::forbidden(
                "This form has expired or did not come from this console. Go back, reload the page and try again.",
            )
            .into());
        }
        Ok(operator)
    }

    /// Whether this browser signed in as operator `name` before (its device cookie), since
    /// their password or authenticator last changed.
    pub async fn is_known_device(&self, store: &dyn Store, name: &str) -> Result<bool, StoreError> {
        let Some(device) = self.device.as_deref() else {
            return Ok(false);
        };
        let Some(operator) = operators::load(store, name).await? else {
            return Ok(false);
        };
        let expected = device_token(&self.key, &operator);
        Ok(bool::from(device.as_bytes().ct_eq(expected.as_bytes())))
    }

    /// Starts a session for `operator` (a fresh id: none planted before survives) and marks
    /// this browser as one that signed in as them.
    pub async fn sign_in(
        &mut self,
        state: &AppState,
        operator: Operator,
    ) -> Result<(), StoreError> {
        CONSOLE.forget(state, self.session_token.take()).await?;
        let value = format!("{}:{}", operator.name, operator.session_stamp);
        let token = CONSOLE
            .start(state, value.as_bytes(), &mut self.set_cookies)
            .await?;
        self.set_cookies.push(state.cookies.cookie(
            CONSOLE_DEVICE_COOKIE,
            &device_token(&self.key, &operator),
            Some(CONSOLE_DEVICE_TTL),
        ));
        self.csrf_token = csrf_token(&self.key, &token);
        self.session_token = Some(token);
        self.operator = Some(operator);
        Ok(())
    }

    pub async fn sign_out(&mut self, state: &AppState) -> Result<(), StoreError> {
        let token = self.session_token.take();
        CONSOLE.end(state, token, &mut self.set_cookies).await?;
        self.operator = None;
        Ok(())
    }
}

fn csrf_token(key: &SecretKey, session: &str) -> String {
    key.mac("console-csrf", &[session.as_bytes()])
}

/// The device cookie of a browser that signed in as `operator`: bound to their session stamp,
/// so a password or authenticator change ends what every earlier cookie vouched for.
fn device_token(key: &SecretKey, operator: &Operator) -> String {
    let stamp = operator.session_stamp.to_string();
    key.mac(
        "console-device",
        &[operator.name.as_bytes(), stamp.as_bytes()],
    )
}

impl FromRequestParts<Arc<AppState>> for Staff {
    type Rejection = ConsoleError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, Self::Rejection> {
        let token = read_cookie(&parts.headers, &state.cookies.name(CONSOLE_COOKIE));
        let mut operator = None;
        if let Some(token) = &token
            && let Some(value) = state
                .services
                .store
                .get_blob(CONSOLE_SESSIONS, &session_key(token))
                .await?
        {
            // `{name}:{stamp}`; a session begun under another stamp has ended.
            let value = String::from_utf8_lossy(&value);
            let (name, stamp) = value.rsplit_once(':').unwrap_or((&value, "0"));
            operator = operators::load(state.services.store.as_ref(), name)
                .await?
                .filter(|operator| stamp.parse() == Ok(operator.session_stamp));
        }
        let session_token = token.filter(|_| operator.is_some());
        if let Some(operator) = &operator {
            crate::infra::engine::holders::also_for(format!("operator {}", operator.name));
        }
        // Back to the page asked for; a form sent without a session goes to the list.
        let path = Some(&parts.uri)
            .filter(|_| parts.method == Method::GET)
            .and_then(|uri| uri.path_and_query())
            .map(|p| p.as_str())
            .and_then(local_path)
            .unwrap_or("/admin/orders")
            .to_owned();
        Ok(Staff {
            csrf_token: session_token
                .as_deref()
                .map(|token| csrf_token(&state.services.secret_key, token))
                .unwrap_or_default(),
            operator,
            session_token,
            device: read_cookie(&parts.headers, &state.cookies.name(CONSOLE_DEVICE_COOKIE)),
            path,
            set_cookies: Vec::new(),
            key: state.services.secret_key.clone(),
        })
    }
}

/// A form posted from the console by a signed-in operator: their session, who they are, and
/// the form read as `T` (as [`crate::http::pages::forms::PostedForm`] reads it), once its
/// CSRF token is found to be the session's. A handler that takes one cannot skip the check.
pub struct OperatorForm<T = Fields> {
    pub staff: Staff,
    pub operator: Operator,
    pub fields: T,
}

impl<T: DeserializeOwned> FromRequest<Arc<AppState>> for OperatorForm<T> {
    type Rejection = ConsoleError;

    async fn from_request(request: Request, state: &Arc<AppState>) -> Result<Self, ConsoleError> {
        let (mut parts, body) = request.into_parts();
        let staff = Staff::from_request_parts(&mut parts, state).await?;
        let fields = read_form(Request::from_parts(parts, body), state).await?;
        let operator = staff
            .operator_posting(fields.get("csrf").map(String::as_str))?
            .clone();
        Ok(Self {
            staff,
            operator,
            fields: typed(fields)?,
        })
    }
}
