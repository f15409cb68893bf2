//! Per-key rate limits: every signed call counts against its key's window of a minute (in the
//! store, so every host of a deployment shares it). Answers carry `RateLimit-Limit`,
//! `RateLimit-Remaining` and `RateLimit-Reset`; a call over the limit fails with
//! `rate_limited` and `Retry-After`.

use std::time::Duration;

use axum::http::{HeaderMap, HeaderValue};

use crate::api::{ApiError, ErrorCode};
use crate::app::AppState;
use crate::auth::keys::ApiKey;
use crate::store::Kind;

pub const WINDOW: Duration = Duration::from_secs(60);

/// Where a key stands in its window after a call.
#[derive(Debug, Clone, Copy)]
pub struct RateState {
    limit: u64,
    /// Calls counted in the window, this one included.
    used: u64,
    /// Until the window ends.
    reset: Duration,
}

impl RateState {
    pub fn exceeded(&self) -> bool {
        self.used > self.limit
    }

    fn reset_seconds(&self) -> u64 {
        self.reset.as_millis().div_ceil(1000).max(1) as u64
    }

    pub fn error(&self) -> ApiError {
        ApiError::new(
            ErrorCode::RateLimited,
            format!(
                "this key made more than {} calls in a minute; try again in {} s",
                self.limit,
                self.reset_seconds()
            ),
        )
    }

    pub fn add_headers(&self, headers: &mut HeaderMap) {
        let number = |n: u64| HeaderValue::from(n);
        headers.insert("ratelimit-limit", number(self.limit));
        headers.insert(
            "ratelimit-remaining",
            number(self.limit.saturating_sub(self.used)),
        );
        headers.insert("ratelimit-reset", number(self.reset_seconds()));
        if self.exceeded() {
            headers.insert("retry-after", number(self.reset_seconds()));
        }
    }
}

/// Counts a call of `key`; `None` when rate limits are off.
pub async fn count_call(state: &AppState, key: &ApiKey) -> Result<Option<RateState>, ApiError> {
    if state.rate_limit_per_minute == 0 {
        return Ok(None);
    }
    let (used, reset) = state
        .store
        .count_in_window(Kind::RateLimit, &key.consumer_key, WINDOW)
        .await?;
    Ok(Some(RateState {
        limit: state.rate_limit_per_minute,
        used,
        reset,
    }))
}
