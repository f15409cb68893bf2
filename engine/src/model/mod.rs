//! Typed values for the wire formats of packs, sides, image baskets and physical
//! specifications (wire-formats sections 2, 3, 4), the product catalogue (section 8) and the
//! structural pack warnings (section 5).
//!
//! Input JSON is parsed once into these types ([`parse`]); everything downstream works on
//! typed values. Unknown properties of packs, sides, cards, data and basket items are kept and
//! echoed back, so clients may store their own fields.

mod catalogue;
mod colour;
mod echo;
mod error;
mod explain;
mod json;
mod pack;
mod physical_spec;
mod template;
mod warnings;

pub use catalogue::{BoxSize, Catalogue, PhysicalSpecOptions, Product, ProductBoxes};
pub use colour::Colour;
pub use echo::with_text_styles;
pub use error::ModelError;
pub use explain::{
    Explained, Fix, SideRef, explain, layout_label, missing_characters_message, slot_label,
};
pub use json::{FromJson, parse};
pub use pack::{
    Alignment, BoundingBox, BoxDatum, Card, CardSide, Datum, Extra, FixedImageDatum, Font,
    ImageBasket, ImageBasketItem, ImageDatum, ImageItem, MAX_BASKET_ITEMS, MAX_SIDES, Pack, Point,
    Side, SideType, TextDatum,
};
pub use physical_spec::{PhysicalSpec, PhysicalSpecInput};
pub use template::{
    EdgeConstraints, EdgeRule, FixedImageItem, FixedImageSource, FontSubstitution, ItemKind,
    MAX_TEMPLATE_BYTES, MAX_TEMPLATE_ITEMS, MultiLine, ROUNDED_CORNER_MASK_URI, Size,
    TEMPLATE_NAMESPACE, Template, TemplateError, TemplateFont, TemplateItem, TextConstraints,
    TextItem, VerticalAlignment,
};
pub use warnings::{
    PreflightLimits, Warning, WarningCode, effective_dpi, pack_warnings, template_warnings,
};

/// TypeScript declarations of the pack model as the wire carries it (ts-rs), one
/// `export type` each: the npm package's `model.d.ts`. The properties a client may add of its
/// own (kept and echoed, see above) are left out, so that a misspelt name fails `tsc`; a
/// client with fields of its own widens the type (`Side & Record<string, unknown>`).
#[cfg(feature = "ts")]
pub fn typescript_declarations() -> String {
    use ts_rs::{Config, TS};
    let config = Config::default();
    let declarations = [
        Pack::decl(&config),
        Side::decl(&config),
        SideType::decl(&config),
        Card::decl(&config),
        CardSide::decl(&config),
        Extra::decl(&config),
        Datum::decl(&config),
        TextDatum::decl(&config),
        ImageDatum::decl(&config),
        FixedImageDatum::decl(&config),
        BoxDatum::decl(&config),
        Font::decl(&config),
        Alignment::decl(&config),
        Colour::decl(&config),
        BoundingBox::decl(&config),
        Point::decl(&config),
        ImageBasket::decl(&config),
        ImageBasketItem::decl(&config),
        ImageItem::decl(&config),
    ];
    let mut out = String::from(
        "// Generated from the engine's Rust model (presspack_engine::model, ts-rs) by presspack-npm.\n",
    );
    for declaration in declarations {
        for line in declaration.lines() {
            if line.starts_with("type ") {
                out.push_str("export ");
            }
            out.push_str(line);
            out.push('\n');
        }
        out.push('\n');
    }
    out
}
