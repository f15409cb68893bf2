//! Rate limits, in the store so every host of a deployment shares them: every signed call
//! counts against its key's window of a minute, every call without a key against its client
//! address's, and unsigned uploads' bytes against the address's hourly budget. Answers carry
//! `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`; a call over a limit fails
//! with `rate_limited` and `Retry-After`, before any costly work.

use crate::http::client::RATE_LIMITS;
use std::time::Duration;

use axum::http::{HeaderMap, HeaderValue};

use std::net::IpAddr;

use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::keys::ApiKey;
use crate::http::client::limit_key;
use crate::http::state::AppState;
use crate::infra::store::Store;

pub const WINDOW: Duration = Duration::from_secs(60);

/// The window of the upload byte budget.
pub const BYTES_WINDOW: Duration = Duration::from_secs(60 * 60);

/// Where a key stands in its window after a call.
#[derive(Debug, Clone, Copy)]
pub struct RateState {
    /// Who is limited, for the message: "this key", "this address".
    who: &'static str,
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

    pub fn error(&self) -> DomainError {
        DomainError::new(
            ErrorCode::RateLimited,
            format!(
                "{} made more than {} calls in a minute; try again in {} s",
                self.who,
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
pub async fn count_call(state: &AppState, key: &ApiKey) -> Result<Option<RateState>, DomainError> {
    if state.edge.rate_limit_per_minute == 0 {
        return Ok(None);
    }
    let (used, reset) = state
        .services
        .store
        .count_in_window(RATE_LIMITS, &key.consumer_key, WINDOW, 1)
        .await?;
    Ok(Some(RateState {
        who: "this key",
        limit: state.edge.rate_limit_per_minute,
        used,
        reset,
    }))
}

/// Counts a call without a key from `client`; `None` when the limit is off.
pub async fn count_unsigned_call(
    state: &AppState,
    client: Option<IpAddr>,
) -> Result<Option<RateState>, DomainError> {
    let limit = state.unsigned_limits.calls_per_minute;
    let Some(client) = client.filter(|_| limit > 0) else {
        return Ok(None);
    };
    let (used, reset) =
        count_for_address(state.services.store.as_ref(), "address", client, WINDOW, 1).await?;
    Ok(Some(RateState {
        who: "this address",
        limit,
        used,
        reset,
    }))
}

/// Counts `bytes` of an unsigned upload from `client` against its hourly budget, before the
/// file is looked at.
pub async fn count_upload_bytes(
    store: &dyn Store,
    budget: u64,
    client: Option<IpAddr>,
    bytes: usize,
) -> Result<(), DomainError> {
    let Some(client) = client.filter(|_| budget > 0) else {
        return Ok(());
    };
    let (used, reset) =
        count_for_address(store, "address-bytes", client, BYTES_WINDOW, bytes as u64).await?;
    if used > budget {
        return Err(DomainError::new(
            ErrorCode::RateLimited,
            format!(
                "imageFile: this address uploaded more than {budget} bytes in an hour; try \
                 again in {} s, or import images with a signed importImage",
                reset.as_secs().max(1)
            ),
        ));
    }
    Ok(())
}

/// Adds `amount` to `client`'s window `name` in the store (its network for IPv6; see
/// [`limit_key`]); the total so far and the time until the window ends.
async fn count_for_address(
    store: &dyn Store,
    name: &str,
    client: IpAddr,
    window: Duration,
    amount: u64,
) -> Result<(u64, Duration), DomainError> {
    let id = format!("{name}:{}", limit_key(client));
    Ok(store
        .count_in_window(RATE_LIMITS, &id, window, amount)
        .await?)
}
