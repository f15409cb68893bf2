//! What an operation's handler receives (the call) and answers (the reply).

use serde::Serialize;

use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::keys::ApiKey;
use crate::http::rpc::params::Params;

/// A successful reply: a document and its default content type.
pub struct Reply {
    pub(super) content_type: &'static str,
    pub(super) body: Vec<u8>,
    /// `Cache-Control: max-age`, for documents that never change while they exist.
    pub(super) max_age: Option<std::time::Duration>,
}

impl Reply {
    /// A document of the given type (PNG, XML, a URL as text).
    pub fn document(content_type: &'static str, body: Vec<u8>) -> Reply {
        Reply {
            content_type,
            body,
            max_age: None,
        }
    }

    /// Lets clients and proxies keep the reply for `max_age`.
    pub fn cache_for(mut self, max_age: std::time::Duration) -> Reply {
        self.max_age = Some(max_age);
        self
    }

    pub fn json(value: &impl Serialize) -> Result<Reply, DomainError> {
        let body = serde_json::to_vec(value).map_err(|e| {
            DomainError::new(ErrorCode::Internal, format!("cannot encode reply: {e}"))
        })?;
        Ok(Reply::document("application/json", body))
    }
}

/// A call as handlers see it: its parameters and the API key that signed it, if any.
pub struct Call<'a> {
    pub params: &'a Params,
    pub key: Option<ApiKey>,
    /// The caller's network address (see `client`), for per-address limits.
    pub client: Option<std::net::IpAddr>,
    /// The public base URL, which drop-in and render URLs start with.
    pub base_url: &'a str,
    /// Bytes a caller without a key may upload an hour, from one address (0: no limit).
    pub unsigned_upload_budget: u64,
}
