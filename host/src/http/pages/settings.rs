//! The customer pages' settings: the cookies' attributes and the limits on sign-in attempts
//! (counted in [`super::sessions`]).

use std::time::Duration;

use axum::http::HeaderValue;
use cookie::{Cookie, SameSite};

/// Cookie attributes for this deployment: `Secure` and `__Host-` when the public base URL
/// is https; `SameSite=None; Partitioned` too when partners may frame the editor (a framed
/// page is another site's: a `Lax` cookie would not reach it, and a partitioned one is kept
/// for that partner's site alone). Forms carry CSRF tokens either way.
#[derive(Debug, Clone)]
pub struct CookiePolicy {
    secure: bool,
    framed: bool,
}

impl CookiePolicy {
    /// `framed`: some origin may frame the `edit` drop-in (`edit_frame_ancestors`).
    pub fn for_base_url(base_url: &str, framed: bool) -> CookiePolicy {
        let secure = base_url.starts_with("https://");
        CookiePolicy {
            secure,
            // Browsers refuse SameSite=None without Secure: over http, framing keeps Lax.
            framed: framed && secure,
        }
    }

    pub(crate) fn name(&self, base: &str) -> String {
        if self.secure {
            format!("__Host-{base}")
        } else {
            base.to_owned()
        }
    }

    pub(crate) fn cookie(&self, base: &str, value: &str, max_age: Option<Duration>) -> HeaderValue {
        let mut cookie = Cookie::build((self.name(base), value))
            .path("/")
            .http_only(true)
            .same_site(if self.framed {
                SameSite::None
            } else {
                SameSite::Lax
            })
            .partitioned(self.framed)
            .secure(self.secure);
        if let Some(age) = max_age {
            cookie = cookie.max_age(cookie::time::Duration::seconds(
                i64::try_from(age.as_secs()).unwrap_or(i64::MAX),
            ));
        }
        HeaderValue::from_str(&cookie.to_string()).expect("cookie values are hex")
    }
}

/// Limits on sign-in attempts, counted in the store before the password is checked (so
/// parallel guesses are counted as they arrive, and every host shares the counts):
///
/// - per address and client network: a few attempts per window, the guessing limit;
/// - per address from anywhere: a burst per short window, so guesses spread over many
///   networks are slowed while the owner waits at most that short window;
/// - per client network: attempts at any addresses (spraying one password at many).
///
/// A browser that signed in to the address before (its device cookie) is counted per
/// address and network only: an attacker elsewhere cannot lock the owner out.
#[derive(Debug, Clone, Copy)]
pub struct SignInLimits {
    pub per_address_and_client: u64,
    pub window: Duration,
    pub per_address: u64,
    pub address_window: Duration,
    pub per_client: u64,
}

impl Default for SignInLimits {
    fn default() -> Self {
        SignInLimits {
            per_address_and_client: 5,
            window: Duration::from_secs(15 * 60),
            per_address: 10,
            address_window: Duration::from_secs(60),
            per_client: 30,
        }
    }
}
