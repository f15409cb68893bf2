//! Typed values for the wire formats of packs, sides, image baskets and physical
//! specifications (wire-formats sections 2, 3, 4), the product catalogue (section 8) and the
//! structural pack warnings (section 5).
//!
//! Input JSON is parsed once into these types ([`parse`]); everything downstream works on
//! typed values. Unknown properties of packs, sides, cards, data and basket items are kept and
//! echoed back, so clients may store their own fields.

mod catalogue;
mod colour;
mod error;
mod json;
mod pack;
mod physical_spec;
mod template;
mod warnings;

pub use catalogue::{BoxSize, Catalogue, PhysicalSpecOptions, Product, ProductBoxes};
pub use colour::Colour;
pub use error::ModelError;
pub use json::{FromJson, parse};
pub use pack::{
    Alignment, BoundingBox, BoxDatum, Card, CardSide, Datum, Extra, FixedImageDatum, Font,
    ImageBasket, ImageBasketItem, ImageDatum, ImageItem, Pack, Point, Side, SideType, TextDatum,
};
pub use physical_spec::{PhysicalSpec, PhysicalSpecInput};
pub use template::{
    EdgeConstraints, EdgeRule, FixedImageItem, FixedImageSource, FontSubstitution, ItemKind,
    MAX_TEMPLATE_BYTES, MAX_TEMPLATE_ITEMS, MultiLine, ROUNDED_CORNER_MASK_URI, Size,
    TEMPLATE_NAMESPACE, Template, TemplateError, TemplateFont, TemplateItem, TextConstraints,
    TextItem, VerticalAlignment,
};
pub use warnings::{Warning, WarningCode, pack_warnings, template_warnings};
