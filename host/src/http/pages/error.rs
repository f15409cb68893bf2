//! Something a page cannot do, with the status of its page (drawn by
//! [`super::layout`]); the one place a domain failure becomes a page.

use axum::http::StatusCode;

use crate::domain::error::{DomainError, ErrorCode, ErrorKind};
use crate::http::metrics::{Edge, record_failure};
use crate::infra::store::StoreError;

/// Something a page cannot do, shown as a page with the right status.
#[derive(Debug)]
pub struct PageError {
    pub status: StatusCode,
    pub title: &'static str,
    pub message: String,
    /// Offer to sign in (and come back here).
    pub offer_sign_in: bool,
}

impl PageError {
    pub fn new(status: StatusCode, title: &'static str, message: impl Into<String>) -> Self {
        PageError {
            status,
            title,
            message: message.into(),
            offer_sign_in: false,
        }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        PageError::new(StatusCode::NOT_FOUND, "Not found", message)
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        PageError::new(StatusCode::FORBIDDEN, "Not allowed", message)
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        PageError::new(StatusCode::BAD_REQUEST, "Please check", message)
    }

    pub fn sign_in_needed() -> Self {
        PageError {
            offer_sign_in: true,
            ..PageError::new(
                StatusCode::UNAUTHORIZED,
                "Please sign in",
                "Sign in to see your cart and your orders.",
            )
        }
    }
}

impl From<StoreError> for PageError {
    fn from(error: StoreError) -> Self {
        DomainError::from(error).into()
    }
}

impl PageError {
    /// A failure that means "there is no such thing" as the page `not_found` says, while a
    /// store outage or a busy engine stays what it is (a page saying to try again).
    pub fn unless_not_found(
        error: DomainError,
        not_found: impl FnOnce() -> PageError,
    ) -> PageError {
        if error.kind().is_server_fault() {
            error.into()
        } else {
            not_found()
        }
    }
}

/// The one place a domain failure becomes a page (and is logged and counted).
impl From<DomainError> for PageError {
    fn from(error: DomainError) -> Self {
        // The customer's to put right; the message says how.
        match error.code {
            ErrorCode::CartFull => {
                return PageError::new(StatusCode::CONFLICT, "Your cart is full", error.message);
            }
            ErrorCode::PackOwnedByCustomer => return PageError::forbidden(error.message),
            ErrorCode::RateLimited => {
                return PageError::new(StatusCode::TOO_MANY_REQUESTS, "Please wait", error.message);
            }
            _ => {}
        }
        record_failure(&error, Edge::Page);
        if error.kind() == ErrorKind::Unavailable {
            PageError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "Please try again",
                "We could not reach our records just now. Please try again in a moment.",
            )
        } else {
            PageError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "We could not finish that just now. Please try again in a moment.",
            )
        }
    }
}
