//! The codes of the engine's refusals, shared by the guest that writes them, the host that
//! reads them and the browser build that throws them.

use serde::{Deserialize, Serialize};

/// Every way the engine refuses a call: a stable snake_case code (the variant's name) that the
/// guest writes and the host reads back into this type, so neither side matches strings.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum FailureCode {
    UnknownTemplate,
    InvalidTemplate,
    TooManyTemplates,
    InvalidSide,
    DatumMismatch,
    TooManyData,
    UnknownFont,
    /// A text needs a face the browser build has not been given yet (`addFace` it, then
    /// draw again); the server's engine has every face.
    FontNotLoaded,
    InvalidText,
    MissingImage,
    InvalidMaxSide,
    RenderFailed,
    ImageTooLarge,
    UndecodableImage,
    TooManyOverlays,
    InvalidRequest,
    // Refused uploads (see [`crate::ingest::IngestError`]); clients see these codes.
    UnsupportedImageType,
    TransparentPng,
    ImageTooManyPixels,
    ImageSideTooLong,
    ImageTooLargeToDecode,
    UnreadablePdf,
    /// Never written by the engine: an answer its host could not read.
    EngineError,
}

impl FailureCode {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}
