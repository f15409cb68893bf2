//! The one error type of the service. Every failure has a stable integer `code` and
//! snake_case `name` (the table in docs/api.md), a kind (what a page shows, whether it is the
//! server's fault), a message for the client naming the parameter and the problem, and, for a
//! fault of the store or the engine, its cause for the log. Nothing here logs or counts: the
//! HTTP edge does, once, where it answers ([`crate::http::observe::record_failure`]).

use presspack_engine::failure::FailureCode;
use presspack_engine::model::ModelError;

use crate::infra::engine::EngineCallError;
use crate::infra::store::{StoreError, StoreErrorKind};

/// Every code is listed in docs/api.md (a test checks it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::EnumIter)]
pub enum ErrorCode {
    UnknownMethod,
    MissingParameter,
    InvalidParameter,
    MalformedJson,
    /// Reserved: once answered by operations not offered yet; every operation is now.
    NotAvailableYet,
    RequestTooLarge,
    UnsupportedContentType,
    ConflictingParameters,
    RequestTooSlow,
    UnknownProduct,
    PackNotFound,
    InvalidPack,
    InvalidPhysicalSpec,
    UnknownDesignCode,
    MissingSignature,
    UnknownKey,
    InvalidSignature,
    StaleTimestamp,
    ReusedNonce,
    PermissionDenied,
    KeyDisabled,
    SignatureNotAllowed,
    InvalidOauthParameters,
    PackOwnedByCustomer,
    UnknownTemplate,
    InvalidSide,
    UnknownFont,
    MissingImage,
    InvalidImage,
    RenderedSideNotFound,
    ImageRejected,
    ImageFetchFailed,
    ImageAddressNotAllowed,
    PackNotOrderable,
    TrialPartnerMismatch,
    NotATrialProduct,
    CartFull,
    OrderNotFound,
    PaymentConflict,
    StoreUnavailable,
    Internal,
    EngineFailure,
    ServerBusy,
    RateLimited,
}

impl ErrorCode {
    /// What kind of failure the code is.
    pub fn kind(self) -> ErrorKind {
        use ErrorCode::*;
        match self {
            PackNotFound | RenderedSideNotFound | OrderNotFound => ErrorKind::NotFound,
            MissingSignature | UnknownKey | InvalidSignature | StaleTimestamp | ReusedNonce
            | PermissionDenied | KeyDisabled | SignatureNotAllowed | PackOwnedByCustomer
            | TrialPartnerMismatch | RateLimited => ErrorKind::Forbidden,
            PackNotOrderable | CartFull | PaymentConflict => ErrorKind::Conflict,
            StoreUnavailable | ServerBusy => ErrorKind::Unavailable,
            EngineFailure => ErrorKind::Engine,
            Internal => ErrorKind::Internal,
            UnknownMethod
            | MissingParameter
            | InvalidParameter
            | MalformedJson
            | NotAvailableYet
            | RequestTooLarge
            | UnsupportedContentType
            | ConflictingParameters
            | RequestTooSlow
            | UnknownProduct
            | InvalidPack
            | InvalidPhysicalSpec
            | UnknownDesignCode
            | InvalidOauthParameters
            | UnknownTemplate
            | InvalidSide
            | UnknownFont
            | MissingImage
            | InvalidImage
            | ImageRejected
            | ImageFetchFailed
            | ImageAddressNotAllowed
            | NotATrialProduct => ErrorKind::Invalid,
        }
    }

    /// The stable number and name clients match on. Never renumber; only add.
    pub fn number_and_name(self) -> (u32, &'static str) {
        match self {
            ErrorCode::UnknownMethod => (100, "unknown_method"),
            ErrorCode::MissingParameter => (101, "missing_parameter"),
            ErrorCode::InvalidParameter => (102, "invalid_parameter"),
            ErrorCode::MalformedJson => (103, "malformed_json"),
            ErrorCode::NotAvailableYet => (104, "not_available_yet"),
            ErrorCode::RequestTooLarge => (105, "request_too_large"),
            ErrorCode::UnsupportedContentType => (106, "unsupported_content_type"),
            ErrorCode::ConflictingParameters => (107, "conflicting_parameters"),
            ErrorCode::RequestTooSlow => (108, "request_too_slow"),
            ErrorCode::UnknownProduct => (200, "unknown_product"),
            ErrorCode::PackNotFound => (201, "pack_not_found"),
            ErrorCode::InvalidPack => (202, "invalid_pack"),
            ErrorCode::InvalidPhysicalSpec => (203, "invalid_physical_spec"),
            ErrorCode::UnknownDesignCode => (204, "unknown_design_code"),
            ErrorCode::PackOwnedByCustomer => (205, "pack_owned_by_customer"),
            ErrorCode::UnknownTemplate => (206, "unknown_template"),
            ErrorCode::InvalidSide => (207, "invalid_side"),
            ErrorCode::UnknownFont => (208, "unknown_font"),
            ErrorCode::MissingImage => (209, "missing_image"),
            ErrorCode::InvalidImage => (210, "invalid_image"),
            ErrorCode::RenderedSideNotFound => (211, "rendered_side_not_found"),
            ErrorCode::ImageRejected => (212, "image_rejected"),
            ErrorCode::ImageFetchFailed => (213, "image_fetch_failed"),
            ErrorCode::ImageAddressNotAllowed => (214, "image_address_not_allowed"),
            ErrorCode::PackNotOrderable => (215, "pack_not_orderable"),
            ErrorCode::TrialPartnerMismatch => (216, "trial_partner_mismatch"),
            ErrorCode::NotATrialProduct => (217, "not_a_trial_product"),
            ErrorCode::CartFull => (218, "cart_full"),
            ErrorCode::OrderNotFound => (219, "order_not_found"),
            ErrorCode::PaymentConflict => (220, "payment_conflict"),
            ErrorCode::MissingSignature => (300, "missing_signature"),
            ErrorCode::UnknownKey => (301, "unknown_key"),
            ErrorCode::InvalidSignature => (302, "invalid_signature"),
            ErrorCode::StaleTimestamp => (303, "stale_timestamp"),
            ErrorCode::ReusedNonce => (304, "reused_nonce"),
            ErrorCode::PermissionDenied => (305, "permission_denied"),
            ErrorCode::KeyDisabled => (306, "key_disabled"),
            ErrorCode::SignatureNotAllowed => (307, "signature_not_allowed"),
            ErrorCode::InvalidOauthParameters => (308, "invalid_oauth_parameters"),
            ErrorCode::StoreUnavailable => (900, "store_unavailable"),
            ErrorCode::Internal => (901, "internal_error"),
            ErrorCode::EngineFailure => (902, "engine_failure"),
            ErrorCode::ServerBusy => (903, "server_busy"),
            ErrorCode::RateLimited => (904, "rate_limited"),
        }
    }
}

/// The kinds of failure: the client's (invalid, not found, forbidden, conflict), a passing
/// one (unavailable: try again), and the server's (engine, internal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    Invalid,
    NotFound,
    Forbidden,
    Conflict,
    Unavailable,
    Engine,
    Internal,
}

impl ErrorKind {
    /// Whether the failure is the server's (or its store's or engine's), not the client's:
    /// what an operator is alerted to.
    pub fn is_server_fault(self) -> bool {
        matches!(
            self,
            ErrorKind::Unavailable | ErrorKind::Engine | ErrorKind::Internal
        )
    }
}

/// Where a failure beneath an operation came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CauseSource {
    Store,
    Engine,
}

/// What failed beneath an operation, for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    pub source: CauseSource,
    pub detail: String,
}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let source = match self.source {
            CauseSource::Store => "store",
            CauseSource::Engine => "engine",
        };
        write!(f, "{source}: {}", self.detail)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainError {
    pub code: ErrorCode,
    /// For the client: names the parameter and the problem.
    pub message: String,
    /// For the log only (it can name hosts or the engine's internals): what failed beneath.
    pub cause: Option<Cause>,
}

impl DomainError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        DomainError {
            code,
            message: message.into(),
            cause: None,
        }
    }

    /// `code` and `message` for the client, what failed beneath for the log.
    pub fn caused(
        code: ErrorCode,
        message: impl Into<String>,
        source: CauseSource,
        detail: impl ToString,
    ) -> Self {
        DomainError {
            cause: Some(Cause {
                source,
                detail: detail.to_string(),
            }),
            ..DomainError::new(code, message)
        }
    }

    pub fn kind(&self) -> ErrorKind {
        self.code.kind()
    }

    pub fn missing(parameter: &str) -> Self {
        DomainError::new(
            ErrorCode::MissingParameter,
            format!("{parameter}: this parameter is required"),
        )
    }

    pub fn invalid(parameter: &str, problem: impl std::fmt::Display) -> Self {
        DomainError::new(
            ErrorCode::InvalidParameter,
            format!("{parameter}: {problem}"),
        )
    }

    /// A JSON parameter that could not be read: malformed JSON, or `invalid` (the code for
    /// that parameter's content, e.g. `InvalidPack`) when the JSON is well-formed.
    pub fn from_model(error: ModelError, invalid: ErrorCode) -> Self {
        match error {
            ModelError::Syntax { .. } => {
                DomainError::new(ErrorCode::MalformedJson, error.to_string())
            }
            ModelError::Invalid { .. } => DomainError::new(invalid, error.to_string()),
        }
    }
}

/// A store failure keeps its kind: an outage or a write that lost too many races is worth
/// trying again; a record that cannot be read is the server's fault.
impl From<StoreError> for DomainError {
    fn from(error: StoreError) -> Self {
        let cause = format!("{:?}: {error}", error.kind);
        let store = CauseSource::Store;
        match error.kind {
            StoreErrorKind::Unavailable => DomainError::caused(
                ErrorCode::StoreUnavailable,
                "the data store is unavailable; try again shortly",
                store,
                cause,
            ),
            StoreErrorKind::Conflict => DomainError::caused(
                ErrorCode::StoreUnavailable,
                "the record is being changed by many requests at once; try again shortly",
                store,
                cause,
            ),
            StoreErrorKind::Corrupt => DomainError::caused(
                ErrorCode::Internal,
                "a stored record could not be read (logged under this reply's X-Request-Id)",
                store,
                cause,
            ),
        }
    }
}

/// An engine failure: what the engine refused names the problem; a trap or a timeout keeps
/// its detail as the cause (logged with the request's id) and is answered without the
/// engine's internals. The engine is deterministic, so an input that made it fail will again:
/// the answer says so rather than "try again".
impl From<EngineCallError> for DomainError {
    fn from(error: EngineCallError) -> Self {
        match error {
            EngineCallError::Refused(failure) if failure.code == FailureCode::EngineError => {
                // An answer the host could not read: internal text, not a message for clients.
                DomainError::caused(
                    ErrorCode::EngineFailure,
                    "this input is not supported: the engine refused it without a readable \
                     reason (logged under this reply's X-Request-Id)",
                    CauseSource::Engine,
                    format!("unreadable engine refusal: {}", failure.message),
                )
            }
            EngineCallError::Refused(failure) => {
                let code = match failure.code {
                    FailureCode::UnknownTemplate => ErrorCode::UnknownTemplate,
                    FailureCode::UnknownFont => ErrorCode::UnknownFont,
                    FailureCode::MissingImage => ErrorCode::MissingImage,
                    FailureCode::UndecodableImage | FailureCode::ImageTooLarge => {
                        ErrorCode::InvalidImage
                    }
                    FailureCode::InvalidMaxSide => ErrorCode::InvalidParameter,
                    FailureCode::InvalidSide
                    | FailureCode::DatumMismatch
                    | FailureCode::TooManyData
                    | FailureCode::InvalidText
                    | FailureCode::TooManyOverlays => ErrorCode::InvalidSide,
                    _ => ErrorCode::Internal,
                };
                DomainError::new(code, failure.message)
            }
            EngineCallError::ShareTaken(share) => DomainError::new(
                ErrorCode::ServerBusy,
                format!(
                    "this client has {share} render engine calls running or waiting already, \
                     its share of the engine; send more once they are answered"
                ),
            ),
            EngineCallError::Busy(waiting) => DomainError::new(
                ErrorCode::ServerBusy,
                format!(
                    "every render engine instance is busy and {waiting} calls are already \
                     waiting; retry shortly"
                ),
            ),
            EngineCallError::Timeout(limit) => DomainError::caused(
                ErrorCode::EngineFailure,
                format!(
                    "this input is not supported: the engine could not finish it within {} ms; \
                     make it smaller or simpler (the failure is logged under this reply's \
                     X-Request-Id)",
                    limit.as_millis()
                ),
                CauseSource::Engine,
                error,
            ),
            EngineCallError::Trapped(_) => DomainError::caused(
                ErrorCode::EngineFailure,
                "this input is not supported: the engine failed on it (its memory limit, or a \
                 fault); make it smaller or simpler (the failure is logged under this reply's \
                 X-Request-Id)",
                CauseSource::Engine,
                error,
            ),
            EngineCallError::Unreadable(_) => DomainError::caused(
                ErrorCode::Internal,
                "the engine's answer could not be read (logged under this reply's X-Request-Id)",
                CauseSource::Engine,
                error,
            ),
            EngineCallError::Setup(_) => DomainError::caused(
                ErrorCode::EngineFailure,
                "the render engine is not available just now; try again shortly",
                CauseSource::Engine,
                error,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::IntoEnumIterator;

    #[test]
    fn numbers_and_names_are_unique() {
        let mut numbers: Vec<u32> = ErrorCode::iter().map(|c| c.number_and_name().0).collect();
        let mut names: Vec<&str> = ErrorCode::iter().map(|c| c.number_and_name().1).collect();
        numbers.sort();
        numbers.dedup();
        names.sort();
        names.dedup();
        assert_eq!(numbers.len(), ErrorCode::iter().count());
        assert_eq!(names.len(), ErrorCode::iter().count());
    }

    #[test]
    fn docs_api_md_lists_every_error_code() {
        let docs = include_str!("../../../docs/api.md");
        for code in ErrorCode::iter() {
            let (number, name) = code.number_and_name();
            let row = format!("| {number} | `{name}` |");
            assert!(
                docs.contains(&row),
                "docs/api.md lacks the row starting {row:?}"
            );
        }
    }
}
