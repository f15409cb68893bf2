//! The one error type of the API. Every failure has a stable integer `code` and snake_case
//! `name` (the table in docs/api.md) and a message naming the parameter and the problem.

use presspack_engine::model::ModelError;

use crate::store::StoreError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    StoreUnavailable,
    Internal,
    EngineFailure,
    ServerBusy,
    RateLimited,
}

impl ErrorCode {
    /// Every code, for the documentation test that keeps docs/api.md in step.
    pub const ALL: [ErrorCode; 41] = [
        ErrorCode::UnknownMethod,
        ErrorCode::MissingParameter,
        ErrorCode::InvalidParameter,
        ErrorCode::MalformedJson,
        ErrorCode::NotAvailableYet,
        ErrorCode::RequestTooLarge,
        ErrorCode::UnsupportedContentType,
        ErrorCode::ConflictingParameters,
        ErrorCode::RequestTooSlow,
        ErrorCode::UnknownProduct,
        ErrorCode::PackNotFound,
        ErrorCode::InvalidPack,
        ErrorCode::InvalidPhysicalSpec,
        ErrorCode::UnknownDesignCode,
        ErrorCode::MissingSignature,
        ErrorCode::UnknownKey,
        ErrorCode::InvalidSignature,
        ErrorCode::StaleTimestamp,
        ErrorCode::ReusedNonce,
        ErrorCode::PermissionDenied,
        ErrorCode::KeyDisabled,
        ErrorCode::SignatureNotAllowed,
        ErrorCode::InvalidOauthParameters,
        ErrorCode::PackOwnedByCustomer,
        ErrorCode::UnknownTemplate,
        ErrorCode::InvalidSide,
        ErrorCode::UnknownFont,
        ErrorCode::MissingImage,
        ErrorCode::InvalidImage,
        ErrorCode::RenderedSideNotFound,
        ErrorCode::ImageRejected,
        ErrorCode::ImageFetchFailed,
        ErrorCode::ImageAddressNotAllowed,
        ErrorCode::PackNotOrderable,
        ErrorCode::TrialPartnerMismatch,
        ErrorCode::NotATrialProduct,
        ErrorCode::StoreUnavailable,
        ErrorCode::Internal,
        ErrorCode::EngineFailure,
        ErrorCode::ServerBusy,
        ErrorCode::RateLimited,
    ];

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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: message.into(),
        }
    }

    pub fn missing(parameter: &str) -> Self {
        ApiError::new(
            ErrorCode::MissingParameter,
            format!("{parameter}: this parameter is required"),
        )
    }

    pub fn invalid(parameter: &str, problem: impl std::fmt::Display) -> Self {
        ApiError::new(
            ErrorCode::InvalidParameter,
            format!("{parameter}: {problem}"),
        )
    }

    /// A JSON parameter that could not be read: malformed JSON, or `invalid` (the code for
    /// that parameter's content, e.g. `InvalidPack`) when the JSON is well-formed.
    pub fn from_model(error: ModelError, invalid: ErrorCode) -> Self {
        match error {
            ModelError::Syntax { .. } => ApiError::new(ErrorCode::MalformedJson, error.to_string()),
            ModelError::Invalid { .. } => ApiError::new(invalid, error.to_string()),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        // The detail can name hosts; it goes to the log, not to the client.
        tracing::error!(%error, "store operation failed");
        crate::observe::count_store_error();
        ApiError::new(
            ErrorCode::StoreUnavailable,
            "the data store is unavailable; try again shortly",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_names_are_unique() {
        let mut numbers: Vec<u32> = ErrorCode::ALL
            .iter()
            .map(|c| c.number_and_name().0)
            .collect();
        let mut names: Vec<&str> = ErrorCode::ALL
            .iter()
            .map(|c| c.number_and_name().1)
            .collect();
        numbers.sort();
        numbers.dedup();
        names.sort();
        names.dedup();
        assert_eq!(numbers.len(), ErrorCode::ALL.len());
        assert_eq!(names.len(), ErrorCode::ALL.len());
    }

    #[test]
    fn docs_api_md_lists_every_error_code() {
        let docs = include_str!("../../../docs/api.md");
        for code in ErrorCode::ALL {
            let (number, name) = code.number_and_name();
            let row = format!("| {number} | `{name}` |");
            assert!(
                docs.contains(&row),
                "docs/api.md lacks the row starting {row:?}"
            );
        }
    }
}
