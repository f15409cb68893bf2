//! Authorising a call (spec "Authentication"): each operation's rule says whether an OAuth
//! 1.0a two-legged signature is required, optional, not allowed or ignored, and which
//! permission the key needs. Verification order: the protocol parameters, the key (known,
//! enabled), the timestamp window, the signature, then the nonce, so that only correctly
//! signed requests use up nonces.

pub mod oauth;
pub mod rate;

use crate::domain::keys::API_KEYS;
use crate::infra::clock::system_seconds;
use std::time::Duration;

use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::keys::{self, ApiKey, Permission};
use crate::http::rpc::params::Params;
use crate::http::state::AppState;
use crate::infra::store::{Claim, Kind};
use oauth::{Protocol, SignatureCheck};

/// Record kind: OAuth nonces seen, claimed under their API key until their timestamps leave the
/// window.
pub const NONCES: Kind = Kind::new("nonce");

/// How an operation is authorised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthRule {
    /// A valid signature by a key with the permission.
    Required(Permission),
    /// Unsigned calls succeed; a signed call must be valid and have the permission.
    Optional(Permission),
    /// The call must not be signed (uploadImage).
    NotAllowed,
    /// No key needed and no signature refused; a valid one counts the call against its key
    /// (rather than the client's address).
    Open,
}

/// What of the HTTP request a signature covers.
pub struct SignedRequest<'a> {
    pub http_method: &'a str,
    /// The request path, appended to the public base URL to form the signed URI.
    pub path: &'a str,
    pub authorization: Option<&'a str>,
    pub params: &'a Params,
}

impl SignedRequest<'_> {
    /// The protocol parameters, from the `Authorization` header or else the request's.
    pub fn protocol(&self) -> Result<Protocol<'_>, DomainError> {
        if let Some(name) = self.params.repeated_oauth_parameter() {
            return Err(error(
                ErrorCode::InvalidOauthParameters,
                format!("{name}: given more than once; send each OAuth parameter once"),
            ));
        }
        let header = self
            .authorization
            .map(oauth::parse_authorization)
            .transpose()?
            .flatten();
        Protocol::read(header, |name| self.params.raw(name))
    }

    /// Whether `protocol`'s signature is the HMAC, by `secret`, of this request's base string
    /// with the URI `base_url` followed by the path.
    pub fn signature_matches(&self, base_url: &str, protocol: &Protocol<'_>, secret: &str) -> bool {
        let parameters = self.params.signed_pairs().chain(
            protocol
                .header_parameters
                .iter()
                .map(|(n, v)| (n.as_ref(), v.as_ref())),
        );
        oauth::verify(
            protocol.signature_method,
            secret,
            &protocol.signature,
            |out: &mut dyn FnMut(&[u8])| {
                oauth::write_base_string(out, self.http_method, &[base_url, self.path], parameters);
            },
        )
    }

    fn is_signed(&self) -> bool {
        self.authorization
            .is_some_and(|h| h.get(..6).is_some_and(|s| s.eq_ignore_ascii_case("OAuth ")))
            || self.params.has_oauth_parameters()
    }
}

fn error(code: ErrorCode, message: impl Into<String>) -> DomainError {
    DomainError::new(code, message)
}

/// Checks `request` against `rule`; the verified key, if the call was signed.
pub async fn authorize(
    state: &AppState,
    rule: AuthRule,
    request: &SignedRequest<'_>,
) -> Result<Option<ApiKey>, DomainError> {
    let (permission, required) = match rule {
        AuthRule::Open if request.is_signed() && !request.params.is_multipart() => {
            return Ok(signed_key(state, request).await.ok());
        }
        AuthRule::Open => return Ok(None),
        AuthRule::NotAllowed if request.is_signed() => {
            return Err(error(
                ErrorCode::SignatureNotAllowed,
                "this operation takes unsigned calls only; send it without OAuth parameters",
            ));
        }
        AuthRule::NotAllowed => return Ok(None),
        AuthRule::Optional(permission) => (permission, false),
        AuthRule::Required(permission) => (permission, true),
    };
    if !request.is_signed() {
        return if required {
            Err(error(
                ErrorCode::MissingSignature,
                "this operation needs a call signed with OAuth 1.0a (two-legged, HMAC-SHA1 or HMAC-SHA256)",
            ))
        } else {
            Ok(None)
        };
    }
    // A signature covers the query and a form-encoded body, never multipart parts: what
    // the handler would read is not what was signed.
    if request.params.is_multipart() {
        return Err(error(
            ErrorCode::UnsupportedContentType,
            "a signed call cannot have a multipart body, which its signature does not cover; \
             send the parameters form-encoded (application/x-www-form-urlencoded) or in the \
             query string (multipart is for uploadImage, which is unsigned)",
        ));
    }
    let key = signed_key(state, request).await?;
    if !key.has(permission) {
        return Err(error(
            ErrorCode::PermissionDenied,
            format!("the API key lacks the {permission} permission this operation needs"),
        ));
    }
    Ok(Some(key))
}

/// The key that signed `request`, checked as the server is configured to.
async fn signed_key(state: &AppState, request: &SignedRequest<'_>) -> Result<ApiKey, DomainError> {
    match state.signature_check {
        SignatureCheck::Verify => verify(state, request).await,
        SignatureCheck::TrustConsumerKey => {
            let named = request.params.raw("oauth_consumer_key").unwrap_or_default();
            find_key(state, named).await
        }
    }
}

/// The enabled key with this consumer key (the benchmark's unverified calls).
async fn find_key(state: &AppState, consumer_key: &str) -> Result<ApiKey, DomainError> {
    match keys::find(state.services.store.as_ref(), consumer_key).await? {
        Some(key) if !key.disabled => Ok(key),
        Some(_) => Err(key_disabled()),
        None => Err(error(
            ErrorCode::UnknownKey,
            "oauth_consumer_key: no API key has this consumer key",
        )),
    }
}

fn key_disabled() -> DomainError {
    error(
        ErrorCode::KeyDisabled,
        "oauth_consumer_key: this API key is disabled",
    )
}

/// What an unknown consumer key is checked against: a request naming one costs what a
/// known key's does and gets the same answer as a wrong signature, so answers and timings
/// do not tell which consumer keys exist.
const DECOY_SECRET: &str = "a consumer secret no key has";

async fn verify(state: &AppState, request: &SignedRequest<'_>) -> Result<ApiKey, DomainError> {
    let protocol = request.protocol()?;
    // The key is read and the nonce claimed in one store round trip; a request that then
    // fails any check gives its nonce back, so only correctly signed requests use nonces up.
    // The nonce is remembered until its timestamp has left the window on either side.
    let window = state.edge.timestamp_window.as_secs();
    let nonce = format!("{}:{}", protocol.timestamp, protocol.nonce);
    let claim = Claim {
        kind: NONCES,
        id: &nonce,
        ttl: Duration::from_secs(2 * window + 1),
    };
    let (stored, claimed) = state
        .services
        .store
        .get_and_claim(API_KEYS, &protocol.consumer_key, &claim)
        .await?;
    let checked = match stored {
        Some(stored) => keys::decode(&protocol.consumer_key, stored)
            .map_err(DomainError::from)
            .and_then(|key| {
                check_signature(state, request, &protocol, &key.secret)?;
                // Only the key's holder, who signed correctly, learns it is disabled.
                if key.disabled {
                    return Err(key_disabled());
                }
                Ok(key)
            }),
        None => check_signature(state, request, &protocol, DECOY_SECRET)
            .and(Err(invalid_signature(state, request))),
    };
    match checked {
        Ok(key) if claimed => Ok(key),
        Ok(_) => Err(error(
            ErrorCode::ReusedNonce,
            "oauth_nonce: already used with this key and timestamp",
        )),
        Err(refusal) => {
            if claimed
                && let Err(e) = state
                    .services
                    .store
                    .release_claim(API_KEYS, &protocol.consumer_key, &claim)
                    .await
            {
                tracing::warn!(error = %e, "could not give back the nonce of a refused request");
            }
            Err(refusal)
        }
    }
}

fn invalid_signature(state: &AppState, request: &SignedRequest<'_>) -> DomainError {
    error(
        ErrorCode::InvalidSignature,
        format!(
            "oauth_signature: does not match; sign with the consumer secret and an empty \
             token secret, over the URI {}{}",
            state.services.base_url, request.path
        ),
    )
}

/// The timestamp window and the signature, checked against `secret`.
fn check_signature(
    state: &AppState,
    request: &SignedRequest<'_>,
    protocol: &Protocol<'_>,
    secret: &str,
) -> Result<(), DomainError> {
    let window = state.edge.timestamp_window.as_secs();
    // The partner signs with its own clock: compared with the system's, never a test's.
    let server_time = system_seconds();
    if protocol.timestamp.abs_diff(server_time) > window {
        return Err(error(
            ErrorCode::StaleTimestamp,
            format!(
                "oauth_timestamp: {} is more than {window} s from the server's time {server_time}",
                protocol.timestamp
            ),
        ));
    }
    if !request.signature_matches(&state.services.base_url, protocol, secret) {
        return Err(invalid_signature(state, request));
    }
    Ok(())
}
