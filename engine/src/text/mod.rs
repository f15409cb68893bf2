//! Fonts and text: the font catalogue and faces, and the layout that both measuring and
//! drawing use.

mod error;
mod fonts;
mod layout;
mod shape;
mod words;

pub use error::{MAX_TEXT_CHARS, TextError};
#[cfg(feature = "builtin-fonts")]
pub use fonts::builtin_face_bytes;
pub use fonts::{
    BUILTIN_CATALOGUE, Face, FaceId, FamilyFaces, FontBook, FontCatalogue, FontError,
    MAX_FACE_BYTES, Style,
};
pub use layout::{Line, PlacedGlyph, TextLayout, TextRequest, layout_text};
pub use words::{WordScript, word_breaks};
