//! What the HTTP handlers reach: the domain's services and the settings of the edge itself
//! (body limits, signing, rate limits, cookies, proxies, metrics).

use std::ops::Deref;
use std::sync::Arc;

use crate::domain::services::Services;
use crate::http::auth::oauth::SignatureCheck;
use crate::http::client::{TrustedProxies, UnsignedLimits};
use crate::http::metrics::Metrics;
use crate::http::pages::settings::{CookiePolicy, SignInLimits};
use crate::infra::fonts::Fonts;

pub struct AppState {
    pub services: Arc<Services>,
    /// Public base URL without a trailing slash; drop-in and render URLs start with it.
    pub base_url: String,
    pub max_body_bytes: usize,
    /// Calls per API key per minute; 0: no limit.
    pub rate_limit_per_minute: u64,
    /// How far an OAuth timestamp may be from the server's clock.
    pub timestamp_window: std::time::Duration,
    pub signature_check: SignatureCheck,
    /// The engine's fonts, also served to the design canvas's browser engine.
    pub fonts: Arc<Fonts>,
    pub cookies: CookiePolicy,
    pub sign_in_limits: SignInLimits,
    /// Proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: TrustedProxies,
    /// Limits on calls without an API key, per client address.
    pub unsigned_limits: UnsignedLimits,
    pub metrics: Metrics,
}

/// Handlers pass `&state` where a domain operation wants the services.
impl Deref for AppState {
    type Target = Services;

    fn deref(&self) -> &Services {
        &self.services
    }
}
