//! Who is visiting: the session cookie of a signed-in customer, the CSRF token every form
//! carries, and the limit on failed sign-ins.
//!
//! - A session is a random 256-bit cookie value; the store keeps only its SHA-256, as an
//!   expiring blob holding the customer id, so a copy of the store signs nobody in.
//! - CSRF protection is a double-submit token: a random value in its own cookie that every
//!   form repeats in a hidden field, compared in constant time. Cookies are `SameSite=Lax`
//!   and `HttpOnly`; behind https they are `Secure` with the `__Host-` prefix, so a sibling
//!   subdomain cannot plant them.
//! - Failed sign-ins are counted per e-mail address and per client address in memory, per
//!   process, in fixed windows.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::Customer;
use crate::app::AppState;
use crate::store::{Kind, Store, StoreError};
use crate::web::PageError;

/// How long a session lasts after sign-in.
pub const SESSION_TTL: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// Cookie names; behind https they get the `__Host-` prefix.
const SESSION_COOKIE: &str = "pp_session";
const CSRF_COOKIE: &str = "pp_csrf";

fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes[..]);
    hex::encode(bytes)
}

fn session_key(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// Cookie attributes for this deployment: `Secure` and `__Host-` when the public base URL
/// is https.
#[derive(Debug, Clone)]
pub struct CookiePolicy {
    secure: bool,
}

impl CookiePolicy {
    pub fn for_base_url(base_url: &str) -> CookiePolicy {
        CookiePolicy {
            secure: base_url.starts_with("https://"),
        }
    }

    fn name(&self, base: &str) -> String {
        if self.secure {
            format!("__Host-{base}")
        } else {
            base.to_owned()
        }
    }

    fn cookie(&self, base: &str, value: &str, max_age: Option<Duration>) -> HeaderValue {
        let mut cookie = format!(
            "{}={value}; Path=/; HttpOnly; SameSite=Lax",
            self.name(base)
        );
        if let Some(age) = max_age {
            cookie.push_str(&format!("; Max-Age={}", age.as_secs()));
        }
        if self.secure {
            cookie.push_str("; Secure");
        }
        HeaderValue::from_str(&cookie).expect("cookie values are hex")
    }
}

fn read_cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, value)| value)
        .filter(|value| value.len() == 64 && value.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The visitor of a page: the signed-in customer if any, and the CSRF token of their forms.
pub struct Visitor {
    pub customer: Option<Customer>,
    pub csrf_token: String,
    /// Whether the token came with the request (a new one cannot be in any form yet).
    csrf_from_cookie: bool,
    /// The session cookie's value, to end the session at sign-out.
    session_token: Option<String>,
    /// Cookies the response must set (a new CSRF token, a new or ended session).
    pub set_cookies: Vec<HeaderValue>,
    pub client: Option<IpAddr>,
}

impl Visitor {
    /// Whether a submitted form's token is this visitor's, compared in constant time.
    pub fn check_csrf(&self, submitted: Option<&str>) -> Result<(), PageError> {
        let valid = submitted.is_some_and(|token| {
            token.len() == self.csrf_token.len()
                && bool::from(token.as_bytes().ct_eq(self.csrf_token.as_bytes()))
        });
        // A token made for this very request was never in a form.
        if valid && self.csrf_from_cookie {
            Ok(())
        } else {
            Err(PageError::forbidden(
                "This form has expired or did not come from this shop. Go back, reload the page and try again.",
            ))
        }
    }

    /// The signed-in customer, or an error page asking to sign in.
    pub fn customer(&self) -> Result<&Customer, PageError> {
        self.customer.as_ref().ok_or_else(PageError::sign_in_needed)
    }

    /// Starts a session for `customer` (a fresh session id, so none planted before sign-in
    /// survives it) and a fresh CSRF token.
    pub async fn sign_in(
        &mut self,
        state: &AppState,
        customer: Customer,
    ) -> Result<(), StoreError> {
        self.end_session(state).await?;
        let token = random_token();
        state
            .store
            .put_blob(
                Kind::Session,
                &session_key(&token),
                customer.id.as_bytes(),
                Some(SESSION_TTL),
            )
            .await?;
        self.set_cookies.push(
            state
                .cookies
                .cookie(SESSION_COOKIE, &token, Some(SESSION_TTL)),
        );
        self.renew_csrf(state);
        self.session_token = Some(token);
        self.customer = Some(customer);
        Ok(())
    }

    pub async fn sign_out(&mut self, state: &AppState) -> Result<(), StoreError> {
        self.end_session(state).await?;
        self.set_cookies.push(
            state
                .cookies
                .cookie(SESSION_COOKIE, "", Some(Duration::ZERO)),
        );
        self.renew_csrf(state);
        self.customer = None;
        Ok(())
    }

    async fn end_session(&mut self, state: &AppState) -> Result<(), StoreError> {
        if let Some(token) = self.session_token.take() {
            state
                .store
                .delete(Kind::Session, &session_key(&token))
                .await?;
        }
        Ok(())
    }

    fn renew_csrf(&mut self, state: &AppState) {
        self.csrf_token = random_token();
        self.csrf_from_cookie = false;
        self.set_cookies
            .push(state.cookies.cookie(CSRF_COOKIE, &self.csrf_token, None));
    }
}

async fn session_customer(store: &dyn Store, token: &str) -> Result<Option<Customer>, StoreError> {
    let Some(id) = store.get_blob(Kind::Session, &session_key(token)).await? else {
        return Ok(None);
    };
    super::load(store, &String::from_utf8_lossy(&id)).await
}

impl FromRequestParts<Arc<AppState>> for Visitor {
    type Rejection = PageError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, Self::Rejection> {
        let cookies = &state.cookies;
        let session_token = read_cookie(&parts.headers, &cookies.name(SESSION_COOKIE));
        let customer = match session_token {
            Some(token) => session_customer(state.store.as_ref(), token).await?,
            None => None,
        };
        let client = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|info| info.0.ip());
        let mut visitor = Visitor {
            customer,
            csrf_token: String::new(),
            csrf_from_cookie: false,
            session_token: session_token.map(str::to_owned),
            set_cookies: Vec::new(),
            client,
        };
        match read_cookie(&parts.headers, &cookies.name(CSRF_COOKIE)) {
            Some(token) => {
                visitor.csrf_token = token.to_owned();
                visitor.csrf_from_cookie = true;
            }
            None => visitor.renew_csrf(state),
        }
        Ok(visitor)
    }
}

/// Failed sign-ins allowed per window, per e-mail address and per client address.
const FAILURES_PER_EMAIL: u32 = 5;
const FAILURES_PER_CLIENT: u32 = 30;
const WINDOW: Duration = Duration::from_secs(15 * 60);
/// Entries kept before old windows are swept out.
const MAX_TRACKED: usize = 100_000;

/// Counts failed sign-ins in fixed windows; a key over its limit is refused until its window
/// ends, whether or not the password would be right.
#[derive(Default)]
pub struct SignInLimiter {
    failures: Mutex<HashMap<String, (Instant, u32)>>,
}

impl SignInLimiter {
    fn keys(email: &str, client: Option<IpAddr>) -> [(String, u32); 2] {
        [
            (
                format!("email:{}", email.trim().to_lowercase()),
                FAILURES_PER_EMAIL,
            ),
            (
                format!(
                    "client:{}",
                    client.map_or("unknown".into(), |ip| ip.to_string())
                ),
                FAILURES_PER_CLIENT,
            ),
        ]
    }

    /// `Err(wait)` if this address or client must wait before trying again.
    pub fn check(&self, email: &str, client: Option<IpAddr>) -> Result<(), Duration> {
        let failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        for (key, limit) in Self::keys(email, client) {
            if let Some((start, count)) = failures.get(&key)
                && start.elapsed() < WINDOW
                && *count >= limit
            {
                return Err(WINDOW.saturating_sub(start.elapsed()));
            }
        }
        Ok(())
    }

    pub fn record_failure(&self, email: &str, client: Option<IpAddr>) {
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        if failures.len() >= MAX_TRACKED {
            failures.retain(|_, (start, _)| start.elapsed() < WINDOW);
        }
        for (key, _) in Self::keys(email, client) {
            let entry = failures.entry(key).or_insert((Instant::now(), 0));
            if entry.0.elapsed() >= WINDOW {
                *entry = (Instant::now(), 0);
            }
            entry.1 += 1;
        }
    }

    /// A successful sign-in clears its address's count (not the client's).
    pub fn record_success(&self, email: &str) {
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        failures.remove(&format!("email:{}", email.trim().to_lowercase()));
    }
}
