//! What the HTTP handlers reach: the domain's services and the settings of the edge itself
//! (body limits, signing, rate limits, cookies, proxies, metrics).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::FromRef;

use crate::domain::services::Services;
use crate::http::auth::oauth::SignatureCheck;
use crate::http::client::{TrustedProxies, UnsignedLimits};
use crate::http::metrics::Metrics;
use crate::http::pages::settings::{CookiePolicy, SignInLimits};
use crate::http::pages::static_files::StaticFiles;
use crate::infra::fonts::Fonts;
use crate::infra::settings;

pub struct AppState {
    pub services: Arc<Services>,
    pub edge: EdgeSettings,
    /// Limits on calls without an API key, per client address.
    pub unsigned_limits: UnsignedLimits,
    pub signature_check: SignatureCheck,
    /// The engine's fonts, also served to the design canvas's browser engine.
    pub fonts: Arc<Fonts>,
    pub cookies: CookiePolicy,
    pub sign_in_limits: SignInLimits,
    pub metrics: Metrics,
    /// The pages' and the canvas's static files, compressed and tagged once.
    pub static_files: Arc<StaticFiles>,
}

/// The API edge's settings: request size, signing window, per-key rate, proxies.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(default)]
pub struct EdgeSettings {
    /// Largest request body accepted (image calls have their own limit).
    #[serde(deserialize_with = "settings::count::<_, _, 1024, 268_435_456>")]
    pub max_body_bytes: usize,
    /// How far an OAuth timestamp may be from the server's clock (the replay window).
    #[serde(
        rename = "oauth_window_seconds",
        deserialize_with = "settings::seconds::<_, 10, 3600>"
    )]
    pub timestamp_window: Duration,
    /// Calls one API key may make per minute (over every host on Redis); 0: no limit.
    #[serde(deserialize_with = "settings::count::<_, _, 0, 1_000_000>")]
    pub rate_limit_per_minute: u64,
    /// Proxies (addresses or networks) whose `X-Forwarded-For` names the client.
    pub trusted_proxies: TrustedProxies,
    /// Pages that draw with the engine (a pack's sides, an ordered side, a proof) one
    /// customer, or one network without a session, may ask for per minute (over every host
    /// on Redis); 0: no limit.
    #[serde(deserialize_with = "settings::count::<_, _, 0, 1_000_000>")]
    pub engine_pages_per_minute: u64,
}

impl Default for EdgeSettings {
    fn default() -> Self {
        EdgeSettings {
            max_body_bytes: 2 * 1024 * 1024,
            timestamp_window: Duration::from_secs(300),
            rate_limit_per_minute: 1200,
            trusted_proxies: TrustedProxies::default(),
            engine_pages_per_minute: 300,
        }
    }
}

/// The domain's services as the state of a handler that needs nothing of the edge:
/// `State(ServicesState(services)): State<ServicesState>`.
#[derive(Clone)]
pub struct ServicesState(pub Arc<Services>);

impl FromRef<Arc<AppState>> for ServicesState {
    fn from_ref(state: &Arc<AppState>) -> Self {
        ServicesState(Arc::clone(&state.services))
    }
}

/// The static files as the state of a handler that serves only them.
#[derive(Clone)]
pub struct StaticFilesState(pub Arc<StaticFiles>);

impl FromRef<Arc<AppState>> for StaticFilesState {
    fn from_ref(state: &Arc<AppState>) -> Self {
        StaticFilesState(Arc::clone(&state.static_files))
    }
}
