//! Who is visiting: the session cookie of a signed-in customer, the CSRF token every form
//! carries, and the limit on failed sign-ins.
//!
//! - A session is a random 256-bit cookie value; the store keeps only its SHA-256, as an
//!   expiring blob holding the customer id, so a copy of the store signs nobody in.
//! - CSRF protection: every form carries a token that is a MAC, under the deployment's
//!   secret key, of what the visitor's cookies bind it to: the session when signed in, else
//!   a random visitor cookie. A cookie planted by someone else (a sibling subdomain, a
//!   network attacker on plain http) is useless without a token the server made for it.
//!   Cookies are `SameSite=Lax` and `HttpOnly`; behind https they are `Secure` with the
//!   `__Host-` prefix.
//! - Sign-in attempts are counted in the store before the password is checked, so every
//!   host shares the counts and parallel guesses cannot slip past them (see
//!   [`SignInLimits`]).

use crate::http::client::RATE_LIMITS;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use cookie::Cookie;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::domain::customers::{self, Customer, EmailAddress};
use crate::domain::ids::PackId;
use crate::domain::ownership;
use crate::domain::packs::{self, StoredPack};
use crate::domain::services::Services;
use crate::http::pages::error::PageError;
use crate::http::pages::settings::SignInLimits;
use crate::http::state::AppState;
use crate::infra::secrets::SecretKey;
use crate::infra::store::{Kind, Store, StoreError};

/// Record kind: signed-in sessions: expiring values under the SHA-256 of their cookie.
pub const SESSIONS: Kind = Kind::new("session");

/// How long a session lasts after sign-in.
pub const SESSION_TTL: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// Cookie names; behind https they get the `__Host-` prefix.
const SESSION_COOKIE: &str = "pp_session";

/// Customers' sessions.
const CUSTOMER_SESSIONS: SessionKind = SessionKind {
    kind: SESSIONS,
    cookie: SESSION_COOKIE,
    ttl: SESSION_TTL,
};

/// Record kind: guests' sessions: expiring values (the guest id) under the SHA-256 of their
/// cookie.
pub const GUEST_SESSIONS: Kind = Kind::new("guest-session");

/// Guests' sessions: as long as a guest's hold on their packs.
const GUEST_SESSION: SessionKind = SessionKind {
    kind: GUEST_SESSIONS,
    cookie: "pp_guest",
    ttl: ownership::GUEST_TTL,
};

/// New guests from one network per hour (a guest is made at a first save).
const GUESTS_PER_CLIENT: u64 = 30;

/// A random id of a visitor who is not signed in, which their CSRF tokens are bound to.
const VISITOR_COOKIE: &str = "pp_csrf";
/// Set at a successful sign-in: this browser has signed in to this address before (see
/// [`SignInLimits`]).
const DEVICE_COOKIE: &str = "pp_device";
/// How long a device cookie lasts.
const DEVICE_TTL: Duration = Duration::from_secs(365 * 24 * 60 * 60);

fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes[..]);
    hex::encode(bytes)
}

pub(crate) fn session_key(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The value of the request's cookie `name`, if it has the shape of the values this server
/// sets (64 hex digits): anything else was not set by it.
pub(crate) fn read_cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|cookie| cookie.name() == name)
        .map(|cookie| cookie.value().to_owned())
        .filter(|value| value.len() == 64 && value.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The visitor of a page: the signed-in customer if any, and the CSRF token of their forms.
pub struct Visitor {
    pub customer: Option<Customer>,
    pub csrf_token: String,
    /// Whether the token is bound to a cookie that came with the request (a token bound to a
    /// cookie made for this very response cannot be in any form yet).
    csrf_from_cookie: bool,
    /// The session cookie's value, to end the session at sign-out.
    session_token: Option<String>,
    /// The device cookie's value, if any.
    device: Option<String>,
    /// A visitor designing without an account: their guest id and session cookie's value.
    guest: Option<(String, String)>,
    /// Cookies the response must set (a new visitor id, a new or ended session).
    pub set_cookies: Vec<HeaderValue>,
    pub client: Option<IpAddr>,
    key: SecretKey,
    /// [`crate::http::state::EdgeSettings::engine_pages_per_minute`].
    engine_pages_per_minute: u64,
}

impl Visitor {
    /// Who this visitor's packs belong to: the signed-in customer, else the guest, if any.
    pub fn owner_id(&self) -> Option<&str> {
        match (&self.customer, &self.guest) {
            (Some(customer), _) => Some(&customer.id),
            (None, Some((guest, _))) => Some(guest),
            (None, None) => None,
        }
    }

    /// The pack `pack_id` if this visitor (customer or guest) owns it.
    pub async fn owned_pack(
        &self,
        services: &Services,
        pack_id: &str,
    ) -> Result<StoredPack, PageError> {
        let owner = self.owner_id().ok_or_else(PageError::sign_in_needed)?;
        let no_such_pack = || PageError::not_found("There is no such pack.");
        let id = PackId::parse(pack_id).ok_or_else(no_such_pack)?;
        let stored = packs::load(services, &id)
            .await
            .map_err(|e| PageError::unless_not_found(e, no_such_pack))?;
        if !stored.record.is_owned_by(owner) {
            return Err(no_such_pack());
        }
        Ok(stored)
    }

    /// Keeps this visitor's designs as a guest's, for a visitor who is not signed in: their
    /// guest id. A visitor new to being a guest is counted against their network's limit
    /// first. The session cookie is issued afresh each time, so a guest cookie planted in
    /// the browser by someone else stops working at the visitor's first save.
    pub async fn keep_as_guest(&mut self, state: &AppState) -> Result<String, PageError> {
        let id = match self.guest.take() {
            Some((id, token)) => {
                GUEST_SESSION.forget(state, Some(token)).await?;
                id
            }
            None => {
                let counts = [(format!("guests:{}", self.client_key()), GUESTS_PER_CLIENT)];
                if over_hourly_limit(state.services.store.as_ref(), &counts).await? {
                    return Err(PageError::new(
                        axum::http::StatusCode::TOO_MANY_REQUESTS,
                        "Please wait",
                        "Many designs were started from your network in the last hour. Create an account to save yours, or try again later.",
                    ));
                }
                ownership::new_guest_id()
            }
        };
        let token = GUEST_SESSION
            .start(state, id.as_bytes(), &mut self.set_cookies)
            .await?;
        self.guest = Some((id.clone(), token));
        Ok(id)
    }

    /// Whether a submitted form's token is this visitor's, compared in constant time.
    pub fn check_csrf(&self, submitted: Option<&str>) -> Result<(), PageError> {
        let valid = submitted.is_some_and(|token| {
            token.len() == self.csrf_token.len()
                && bool::from(token.as_bytes().ct_eq(self.csrf_token.as_bytes()))
        });
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
    /// survives it), binds the CSRF token to it and marks this browser as one that signed in
    /// to the address.
    pub async fn sign_in(&mut self, state: &AppState, customer: Customer) -> Result<(), PageError> {
        // What the visitor designed as a guest goes with them into the account.
        if let Some((guest, token)) = self.guest.take() {
            ownership::hand_over(&state.services, &guest, &customer.id).await?;
            GUEST_SESSION
                .end(state, Some(token), &mut self.set_cookies)
                .await?;
        }
        CUSTOMER_SESSIONS
            .forget(state, self.session_token.take())
            .await?;
        let value = format!("{}:{}", customer.id, customer.session_generation);
        let token = CUSTOMER_SESSIONS
            .start(state, value.as_bytes(), &mut self.set_cookies)
            .await?;
        self.set_cookies.push(state.cookies.cookie(
            DEVICE_COOKIE,
            &device_token(&self.key, &customer),
            Some(DEVICE_TTL),
        ));
        self.csrf_token = csrf_token(&self.key, &token);
        // Bound to a cookie the browser has only once this response arrives.
        self.csrf_from_cookie = false;
        self.session_token = Some(token);
        self.customer = Some(customer);
        Ok(())
    }

    pub async fn sign_out(&mut self, state: &AppState) -> Result<(), StoreError> {
        let token = self.session_token.take();
        CUSTOMER_SESSIONS
            .end(state, token, &mut self.set_cookies)
            .await?;
        self.new_visitor_id(state);
        self.customer = None;
        Ok(())
    }

    /// A fresh visitor id (and so a fresh CSRF token), set as a cookie.
    fn new_visitor_id(&mut self, state: &AppState) {
        let id = random_token();
        self.csrf_token = csrf_token(&self.key, &id);
        self.csrf_from_cookie = false;
        self.set_cookies
            .push(state.cookies.cookie(VISITOR_COOKIE, &id, None));
    }

    /// Counts a page that draws with the engine against the visitor's limit per minute (the
    /// customer's, or the network's without a session), in the store before the drawing, so
    /// every host shares it; refused once over it.
    pub async fn count_engine_page(&self, store: &dyn Store) -> Result<(), PageError> {
        const MINUTE: Duration = Duration::from_secs(60);
        if self.engine_pages_per_minute == 0 {
            return Ok(());
        }
        let who = match &self.customer {
            Some(customer) => format!("customer:{}", customer.id),
            None => format!("client:{}", self.client_key()),
        };
        let id = format!("engine-pages:{who}");
        let (count, left) = store.count_in_window(RATE_LIMITS, &id, MINUTE, 1).await?;
        if count <= self.engine_pages_per_minute {
            return Ok(());
        }
        Err(PageError::new(
            axum::http::StatusCode::TOO_MANY_REQUESTS,
            "Too many pictures at once",
            format!(
                "This page asked for more pictures and proofs than a minute allows. Please wait {} seconds and reload it.",
                left.as_secs().max(1)
            ),
        ))
    }

    /// The visitor's network as limits count it (`unknown` without an address).
    pub fn client_key(&self) -> String {
        self.client
            .map_or_else(|| "unknown".to_owned(), crate::http::client::limit_key)
    }

    /// Whether this browser signed in to the account of `email` before (its device cookie)
    /// since the account's password was last reset.
    pub async fn is_known_device(
        &self,
        store: &dyn Store,
        email: Option<&EmailAddress>,
    ) -> Result<bool, StoreError> {
        let (Some(device), Some(email)) = (self.device.as_deref(), email) else {
            return Ok(false);
        };
        let Some(customer) = customers::find_by_email(store, email).await? else {
            return Ok(false);
        };
        let expected = device_token(&self.key, &customer);
        Ok(bool::from(device.as_bytes().ct_eq(expected.as_bytes())))
    }
}

/// A kind of session (customers' or the console's): its record kind, cookie and lifetime.
pub(crate) struct SessionKind {
    pub kind: Kind,
    pub cookie: &'static str,
    pub ttl: Duration,
}

impl SessionKind {
    /// Starts a session holding `value`: a fresh random token, whose SHA-256 is stored for
    /// the lifetime, set as the cookie; the token.
    pub(crate) async fn start(
        &self,
        state: &AppState,
        value: &[u8],
        set_cookies: &mut Vec<HeaderValue>,
    ) -> Result<String, StoreError> {
        let token = random_token();
        state
            .services
            .store
            .put_blob(self.kind, &session_key(&token), value, Some(self.ttl))
            .await?;
        set_cookies.push(state.cookies.cookie(self.cookie, &token, Some(self.ttl)));
        Ok(token)
    }

    /// Ends session `token` (if any) in the store (a sign-in replacing it sets a new cookie).
    pub(crate) async fn forget(
        &self,
        state: &AppState,
        token: Option<String>,
    ) -> Result<(), StoreError> {
        if let Some(token) = token {
            state
                .services
                .store
                .delete(self.kind, &session_key(&token))
                .await?;
        }
        Ok(())
    }

    /// Ends session `token` (if any) and clears its cookie: signing out.
    pub(crate) async fn end(
        &self,
        state: &AppState,
        token: Option<String>,
        set_cookies: &mut Vec<HeaderValue>,
    ) -> Result<(), StoreError> {
        self.forget(state, token).await?;
        set_cookies.push(state.cookies.cookie(self.cookie, "", Some(Duration::ZERO)));
        Ok(())
    }
}

/// The CSRF token of forms bound to `binding` (a session token or a visitor id).
fn csrf_token(key: &SecretKey, binding: &str) -> String {
    key.mac("csrf", &[binding.as_bytes()])
}

/// The device cookie of a browser that signed in to `customer`'s account: for its address
/// and session generation, so a password reset ends what every earlier cookie vouched for
/// (one planted by whoever held the account or its password before).
fn device_token(key: &SecretKey, customer: &Customer) -> String {
    let generation = customer.session_generation.to_string();
    key.mac(
        "device",
        &[customer.email.as_bytes(), generation.as_bytes()],
    )
}

/// The customer of session `token`: its value is `{customer id}:{session generation}` (a
/// session stored before generations names the id alone, generation 0); a session of an
/// earlier generation (before a password reset) has ended.
async fn session_customer(store: &dyn Store, token: &str) -> Result<Option<Customer>, StoreError> {
    let Some(value) = store.get_blob(SESSIONS, &session_key(token)).await? else {
        return Ok(None);
    };
    let value = String::from_utf8_lossy(&value);
    let (id, generation) = value.split_once(':').unwrap_or((&value, "0"));
    let customer = customers::load(store, id).await?;
    Ok(customer.filter(|c| generation.parse() == Ok(c.session_generation)))
}

impl FromRequestParts<Arc<AppState>> for Visitor {
    type Rejection = PageError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, Self::Rejection> {
        let cookies = &state.cookies;
        let session_token = read_cookie(&parts.headers, &cookies.name(SESSION_COOKIE));
        let customer = match &session_token {
            Some(token) => session_customer(state.services.store.as_ref(), token).await?,
            None => None,
        };
        // A session cookie naming no session binds nothing.
        let session_token = session_token.filter(|_| customer.is_some());
        if let Some(customer) = &customer {
            crate::infra::engine::holders::also_for(format!("customer {}", customer.id));
        }
        // A guest session counts only for a visitor who is not signed in.
        let guest = match (
            &customer,
            read_cookie(&parts.headers, &cookies.name(GUEST_SESSION.cookie)),
        ) {
            (None, Some(token)) => (state
                .services
                .store
                .get_blob(GUEST_SESSIONS, &session_key(&token))
                .await?)
                .map(|id| (String::from_utf8_lossy(&id).into_owned(), token)),
            _ => None,
        };
        let mut visitor = Visitor {
            customer,
            guest,
            csrf_token: String::new(),
            csrf_from_cookie: false,
            session_token: session_token.clone(),
            device: read_cookie(&parts.headers, &cookies.name(DEVICE_COOKIE)),
            set_cookies: Vec::new(),
            client: state.edge.trusted_proxies.client_of(parts),
            key: state.services.secret_key.clone(),
            engine_pages_per_minute: state.edge.engine_pages_per_minute,
        };
        let binding =
            session_token.or_else(|| read_cookie(&parts.headers, &cookies.name(VISITOR_COOKIE)));
        match binding {
            Some(binding) => {
                visitor.csrf_token = csrf_token(&visitor.key, &binding);
                visitor.csrf_from_cookie = true;
            }
            None => visitor.new_visitor_id(state),
        }
        Ok(visitor)
    }
}

/// The windows a sign-in attempt was counted in, to take it back from if it succeeds.
#[must_use = "a successful sign-in gives its attempt back with `SignInLimits::succeeded`"]
pub struct CountedAttempt {
    windows: Vec<String>,
    /// The per-account-and-network window, which a success ends.
    guessing: String,
}

impl SignInLimits {
    /// Counts an attempt from network `client` at `account` (an address, or an operator's
    /// `operator:{name}`): `Ok(Err(wait))` if it is over a limit and must not be checked. A
    /// browser that signed in to the account before (`known_device`) is not counted against
    /// the account's all-networks limit, so guesses elsewhere never lock its owner out.
    pub async fn admit(
        &self,
        store: &dyn Store,
        client: &str,
        account: &str,
        known_device: bool,
    ) -> Result<Result<CountedAttempt, Duration>, StoreError> {
        let account = address_key(account);
        let guessing = format!("signin:{account}:{client}");
        let mut counts = vec![
            (guessing.clone(), self.window, self.per_address_and_client),
            (
                format!("signin-client:{client}"),
                self.window,
                self.per_client,
            ),
        ];
        if !known_device {
            counts.push((
                format!("signin-address:{account}"),
                self.address_window,
                self.per_address,
            ));
        }
        let mut wait = None;
        for (id, window, limit) in &counts {
            let (count, left) = store.count_in_window(RATE_LIMITS, id, *window, 1).await?;
            if count > *limit {
                wait = wait.max(Some(left));
            }
        }
        Ok(match wait {
            Some(wait) => Err(wait),
            None => Ok(CountedAttempt {
                windows: counts.into_iter().map(|(id, _, _)| id).collect(),
                guessing,
            }),
        })
    }

    /// A successful sign-in was no guess: its attempt is taken back from every window it was
    /// counted in (failures alone count), and its account and network start afresh.
    pub async fn succeeded(
        &self,
        store: &dyn Store,
        attempt: CountedAttempt,
    ) -> Result<(), StoreError> {
        for id in &attempt.windows {
            store.uncount(RATE_LIMITS, id, 1).await?;
        }
        store.forget_window(RATE_LIMITS, &attempt.guessing).await
    }
}

/// What a sign-in form says when an attempt is over a limit and must wait `wait`.
pub fn too_many_attempts(wait: Duration) -> String {
    let seconds = wait.as_secs().max(1);
    let wait = if seconds < 120 {
        format!("{seconds} seconds")
    } else {
        format!("{} minutes", seconds.div_ceil(60))
    };
    format!("Too many sign-in attempts. Please wait {wait} before trying again.")
}

/// Counts one attempt against each of `counts` (a count's id and its limit) for the hour;
/// whether any is over its limit. Counted before the work it limits, in the store, so every
/// host shares the counts.
pub(crate) async fn over_hourly_limit(
    store: &dyn Store,
    counts: &[(String, u64)],
) -> Result<bool, StoreError> {
    const HOUR: Duration = Duration::from_secs(60 * 60);
    let mut over = false;
    for (id, limit) in counts {
        let (count, _) = store.count_in_window(RATE_LIMITS, id, HOUR, 1).await?;
        over |= count > *limit;
    }
    Ok(over)
}

/// An e-mail address as limits count it: hashed, so no address is written into store keys.
pub(crate) fn address_key(email: &str) -> String {
    hex::encode(&Sha256::digest(email.trim().to_lowercase().as_bytes())[..16])
}
