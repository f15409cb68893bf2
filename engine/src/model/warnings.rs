//! Pack warnings (wire-formats section 5). A warning never fails a call; it is reported with
//! the pack and decides which drop-ins the pack is offered.
//!
//! [`pack_warnings`] has the structural checks, which need only the pack and its product;
//! [`template_warnings`] those that need the sides' templates (template of the product, link
//! ids, image resolution). Text fit and font fallback (PVT001, PVT002, PVT003) need layout.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::{BoundingBox, Datum, ImageBasket, ItemKind, Pack, Product, Template};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// Dotted path of the element concerned, e.g. `pack.sides.image.1.variable_image_front`.
    pub element: String,
    pub code: WarningCode,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WarningCode {
    /// numCards differs from the product's card count.
    #[serde(rename = "PV001")]
    CardCountMismatch,
    /// `cards` present with the wrong number of cards.
    #[serde(rename = "PV002")]
    CardListMismatch,
    /// Two sides share type and sideNum.
    #[serde(rename = "PV003")]
    DuplicateSide,
    /// No `image` side.
    #[serde(rename = "PVD001")]
    NoImageSide,
    /// An imageData resourceUri is not in the pack's image basket.
    #[serde(rename = "PVI001")]
    ImageNotInBasket,
    /// imageBox without resourceUri, or the reverse.
    #[serde(rename = "PVI002")]
    ImagePlacementIncomplete,
    /// A side's templateCode is not a template of this product.
    #[serde(rename = "PV010")]
    TemplateNotOfProduct,
    /// A datum's linkId is not in its side's template.
    #[serde(rename = "PV011")]
    UnknownLinkId,
    /// An image prints below the resolution of a sharp print (300 dpi unless set otherwise).
    #[serde(rename = "PVI003")]
    LowResolution,
    /// An image prints below the press's blocking resolution (150 dpi unless the operator
    /// set another): preflight would block its press file, so it blocks ordering.
    #[serde(rename = "PVI004")]
    PoorResolution,
    /// A picture slot of the side's template has no picture: the card prints without one.
    /// The editor's own (with preflight's EMPTY_IMAGE_SLOT), not a warning of the API's
    /// calls: a partner's pack may leave a slot empty on purpose.
    #[serde(rename = "PVI005")]
    EmptyImageSlot,
    /// A text does not fit its box.
    #[serde(rename = "PVT001")]
    TextOverflow,
    /// A character had to be drawn in a fallback font.
    #[serde(rename = "PVT002")]
    FontSubstituted,
    /// A character no font has: it would print as a box.
    #[serde(rename = "PVT003")]
    MissingCharacter,
}

impl WarningCode {
    /// Warnings that make a pack unfit to order: the `finish` drop-in and the cart refuse them.
    pub fn blocks_ordering(self) -> bool {
        // wire-formats section 6: finish allows none of PV001-PV003, PVD001, PVI001, PVI002;
        // nor what preflight blocks at press: a character no font has (section 9), which
        // would print as a box, and a picture below the blocking resolution.
        matches!(
            self,
            WarningCode::CardCountMismatch
                | WarningCode::CardListMismatch
                | WarningCode::DuplicateSide
                | WarningCode::NoImageSide
                | WarningCode::ImageNotInBasket
                | WarningCode::ImagePlacementIncomplete
                | WarningCode::MissingCharacter
                | WarningCode::PoorResolution
        )
    }
}

/// The structural warnings of `pack`, in the order of the codes table.
pub fn pack_warnings(pack: &Pack, product: &Product) -> Vec<Warning> {
    let mut warnings = Vec::new();
    let mut warn = |element: String, code, message: String| {
        warnings.push(Warning {
            element,
            code,
            message,
        })
    };

    if pack.num_cards != product.num_cards {
        warn(
            "pack.numCards".into(),
            WarningCode::CardCountMismatch,
            format!(
                "numCards is {} but a {} pack has {} cards",
                pack.num_cards, product.code, product.num_cards
            ),
        );
    }
    if !pack.cards.is_empty() && pack.cards.len() != product.num_cards as usize {
        warn(
            "pack.cards".into(),
            WarningCode::CardListMismatch,
            format!(
                "cards lists {} cards but a {} pack has {}",
                pack.cards.len(),
                product.code,
                product.num_cards
            ),
        );
    }
    let mut seen = HashSet::new();
    for side in &pack.sides {
        if !seen.insert((side.side_type, side.side_num)) {
            warn(
                side.element(),
                WarningCode::DuplicateSide,
                format!(
                    "more than one {} side has sideNum {}",
                    side.side_type.as_str(),
                    side.side_num
                ),
            );
        }
    }
    if !pack
        .sides
        .iter()
        .any(|s| s.side_type == super::SideType::Image)
    {
        warn(
            "pack.sides".into(),
            WarningCode::NoImageSide,
            "the pack has no image side".into(),
        );
    }
    for side in &pack.sides {
        for datum in &side.data {
            let Datum::Image(image) = datum else { continue };
            let element = format!("{}.{}", side.element(), image.link_id);
            match (&image.image_box, &image.resource_uri) {
                (Some(_), None) => warn(
                    element,
                    WarningCode::ImagePlacementIncomplete,
                    "imageBox is given without resourceUri".into(),
                ),
                (None, Some(_)) => warn(
                    element,
                    WarningCode::ImagePlacementIncomplete,
                    "resourceUri is given without imageBox".into(),
                ),
                _ => {}
            }
            if let Some(uri) = &image.resource_uri
                && !pack.image_basket.contains(uri)
            {
                warn(
                    format!("{}.{}", side.element(), image.link_id),
                    WarningCode::ImageNotInBasket,
                    format!("image {uri} is not in the pack's image basket"),
                );
            }
        }
    }
    warnings
}

/// Image resolutions preflight warns and blocks at, dots per inch at the printed size. The
/// pack warnings use the same: PVI003 below `warn_dpi`, PVI004 (which blocks ordering) below
/// `block_dpi`, so nothing a press file would block can be ordered.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreflightLimits {
    pub warn_dpi: f64,
    pub block_dpi: f64,
}

impl Default for PreflightLimits {
    fn default() -> Self {
        PreflightLimits {
            warn_dpi: 300.0,
            block_dpi: 150.0,
        }
    }
}

impl PreflightLimits {
    /// The limits if they make sense (blocking from 0 up to the warning resolution), else
    /// what is wrong.
    pub fn checked(self) -> Result<Self, &'static str> {
        let sensible = self.block_dpi.is_finite()
            && self.warn_dpi.is_finite()
            && 0.0 <= self.block_dpi
            && self.block_dpi <= self.warn_dpi;
        if sensible {
            Ok(self)
        } else {
            Err("preflight limits: blockDpi must be from 0 to warnDpi")
        }
    }
}

/// The pixel size of the print rendition of the basket item `uri` names, as the basket
/// says (the server sets it from the store's own facts when it saves a pack).
pub fn print_pixels(basket: &ImageBasket, uri: &str) -> Option<(u32, u32)> {
    let rendition = basket.item(uri)?.print_rendition()?;
    Some((rendition.width?, rendition.height?))
}

/// The resolution the picture `uri` prints at in `placed` ([`effective_dpi`]).
pub fn print_dpi(basket: &ImageBasket, uri: &str, placed: &BoundingBox) -> Option<f64> {
    Some(effective_dpi(print_pixels(basket, uri)?, placed))
}

/// Pixels per inch of an image stretched over `placement` (the lower of its two directions),
/// rounded to a tenth: preflight's figure, which the pack warnings compare too.
pub fn effective_dpi((width, height): (u32, u32), placement: &BoundingBox) -> f64 {
    let across = f64::from(width) / (placement.width / 25.4);
    let down = f64::from(height) / (placement.height / 25.4);
    libm::round(across.min(down) * 10.0) / 10.0
}

/// The warnings that need each side's template: PV010 (no template of this product by that
/// code), PV011 (a datum's linkId is not in the template) and PVI003/PVI004 (an image's
/// resolution at its placed size, from the pixels of its print rendition, judged by
/// `limits`).
pub fn template_warnings<'t>(
    pack: &Pack,
    product: &Product,
    template: &dyn Fn(&str) -> Option<&'t Template>,
    limits: PreflightLimits,
) -> Vec<Warning> {
    let mut warnings = Vec::new();
    for side in &pack.sides {
        let Some(template) = template(&side.template_code).filter(|t| product.fits(t)) else {
            warnings.push(Warning {
                element: side.element(),
                code: WarningCode::TemplateNotOfProduct,
                message: format!(
                    "templateCode {:?} is not a {} template",
                    side.template_code, product.code
                ),
            });
            continue;
        };
        for datum in &side.data {
            let element = format!("{}.{}", side.element(), datum.link_id());
            let Some(item) = template.item(datum.link_id()) else {
                warnings.push(Warning {
                    element,
                    code: WarningCode::UnknownLinkId,
                    message: format!(
                        "linkId {:?} is not an item of template {}; it is kept but not drawn",
                        datum.link_id(),
                        template.code
                    ),
                });
                continue;
            };
            // Where a picture prints: an imageData's own box, a fixed image's template box.
            let placed = match (datum, &item.kind) {
                (Datum::Image(image), _) => image.resource_uri.as_deref().zip(image.image_box),
                (Datum::FixedImage(image), ItemKind::FixedImage(fixed)) => image
                    .resource_uri
                    .as_deref()
                    .map(|uri| (uri, fixed.image_box)),
                _ => None,
            };
            let Some((uri, placed)) = placed else {
                continue;
            };
            if let Some(warning) = resolution_warning(pack, limits, element, uri, &placed) {
                warnings.push(warning);
            }
        }
    }
    warnings
}

/// PVI003 or PVI004 for the picture `uri` placed in `placed`, if it prints below the limits.
fn resolution_warning(
    pack: &Pack,
    limits: PreflightLimits,
    element: String,
    uri: &str,
    placed: &BoundingBox,
) -> Option<Warning> {
    let (width, height) = print_pixels(&pack.image_basket, uri)?;
    let dpi = effective_dpi((width, height), placed);
    let PreflightLimits {
        warn_dpi,
        block_dpi,
    } = limits;
    if dpi >= warn_dpi {
        return None;
    }
    let (code, judged) = if dpi < block_dpi {
        let judged = format!("below the {block_dpi:.0} dpi a press file needs");
        (WarningCode::PoorResolution, judged)
    } else {
        let judged = format!("below the {warn_dpi:.0} dpi of a sharp print");
        (WarningCode::LowResolution, judged)
    };
    // (less a hair, so that 900.0000001 pixels asks for 900)
    let needed = |mm: f64| libm::ceil(mm / 25.4 * warn_dpi - 1e-6);
    Some(Warning {
        element,
        code,
        message: format!(
            "image {uri:?} prints at {dpi:.0} dpi, {judged}: {width}x{height} pixels over {:.1} \
             x {:.1} mm; {warn_dpi:.0} dpi needs {}x{} pixels",
            placed.width,
            placed.height,
            needed(placed.width),
            needed(placed.height)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Catalogue, Template};

    fn codes(json: &str) -> Vec<(WarningCode, String)> {
        let product = Catalogue::builtin().product("businesscard").unwrap();
        let pack = Pack::parse(json, "pack", product).unwrap();
        pack_warnings(&pack, product)
            .into_iter()
            .map(|w| (w.code, w.element))
            .collect()
    }

    const IMAGE_SIDE: &str =
        r#"{"type":"image","sideNum":1,"templateCode":"businesscard_full_image_landscape"}"#;

    #[test]
    fn the_empty_pack_has_no_warnings() {
        let product = Catalogue::builtin().product("businesscard").unwrap();
        assert!(pack_warnings(&Pack::empty(product), product).is_empty());
    }

    #[test]
    fn each_structural_warning() {
        use WarningCode::*;
        assert_eq!(
            codes(r#"{"sides":[]}"#),
            [(NoImageSide, "pack.sides".into())]
        );
        assert_eq!(
            codes(&format!(r#"{{"numCards":49,"sides":[{IMAGE_SIDE}]}}"#)),
            [(CardCountMismatch, "pack.numCards".into())]
        );
        assert_eq!(
            codes(&format!(
                r#"{{"cards":[{{"cardNum":1}}],"sides":[{IMAGE_SIDE}]}}"#
            )),
            [(CardListMismatch, "pack.cards".into())]
        );
        assert_eq!(
            codes(&format!(r#"{{"sides":[{IMAGE_SIDE},{IMAGE_SIDE}]}}"#)),
            [(DuplicateSide, "pack.sides.image.1".into())]
        );
        let side = |datum: &str| {
            format!(
                r#"{{"sides":[{{"type":"image","sideNum":1,"templateCode":"t","data":[{datum}]}}]}}"#
            )
        };
        let element = "pack.sides.image.1.variable_image_front".to_string();
        assert_eq!(
            codes(&side(
                r#"{"type":"imageData","linkId":"variable_image_front","resourceUri":"store://x","imageBox":{"center":{"x":1,"y":1},"width":1,"height":1}}"#
            )),
            [(ImageNotInBasket, element.clone())]
        );
        assert_eq!(
            codes(&side(
                r#"{"type":"imageData","linkId":"variable_image_front","imageBox":{"center":{"x":1,"y":1},"width":1,"height":1}}"#
            )),
            [(ImagePlacementIncomplete, element)]
        );
    }

    #[test]
    fn template_warnings_check_product_link_ids_and_resolution() {
        use WarningCode::*;
        let product = Catalogue::builtin().product("businesscard").unwrap();
        let template = Template::parse(include_str!(
            "../../tests/scenes/templates/sample_all_items.xml"
        ))
        .unwrap();
        let lookup = |code: &str| (code == "sample_all_items").then_some(&template);
        let judged = |side: &str, basket: &str, limits: PreflightLimits| {
            let json = format!(r#"{{"sides":[{side}],"imageBasket":{{"items":[{basket}]}}}}"#);
            let pack = Pack::parse(&json, "pack", product).unwrap();
            template_warnings(&pack, product, &lookup, limits)
                .into_iter()
                .map(|w| (w.code, w.message))
                .collect::<Vec<_>>()
        };
        let pack = |side: &str, basket: &str| judged(side, basket, PreflightLimits::default());
        let other = pack(
            r#"{"type":"image","sideNum":1,"templateCode":"minicard_x"}"#,
            "",
        );
        assert_eq!(other[0].0, TemplateNotOfProduct);
        let image = |width: f64| {
            format!(
                r#"{{"type":"image","sideNum":1,"templateCode":"sample_all_items","data":[
                {{"type":"imageData","linkId":"photo","resourceUri":"store://p","imageBox":{{"center":{{"x":20,"y":29}},"width":{width},"height":{width}}}}},
                {{"type":"textData","linkId":"nope","text":"x"}}]}}"#
            )
        };
        // 600 px over 25.4 mm is 600 dpi; over 76.2 mm 200 dpi; over 127 mm 120 dpi.
        let basket = r#"{"resourceUri":"store://p","imageItems":[
            {"type":"preview","resourceUri":"store://p/preview","width":100,"height":100},
            {"type":"print","resourceUri":"store://p/print","width":600,"height":600}]}"#;
        let codes = |w| {
            pack(&image(w), basket)
                .into_iter()
                .map(|(c, _)| c)
                .collect::<Vec<_>>()
        };
        assert_eq!(codes(25.4), [UnknownLinkId]);
        assert_eq!(codes(76.2), [LowResolution, UnknownLinkId]);
        assert_eq!(codes(127.0), [PoorResolution, UnknownLinkId]);
        let message = &pack(&image(76.2), basket)[0].1;
        assert!(
            message.contains("200 dpi") && message.contains("900x900"),
            "{message}"
        );
        assert!(!LowResolution.blocks_ordering() && !UnknownLinkId.blocks_ordering());
        assert!(ImageNotInBasket.blocks_ordering() && PoorResolution.blocks_ordering());

        // The operator's limits decide, as at press: blocking below 250 dpi, 200 dpi blocks.
        let strict = PreflightLimits {
            warn_dpi: 300.0,
            block_dpi: 250.0,
        };
        let strictly = judged(&image(76.2), basket, strict);
        assert_eq!(strictly[0].0, PoorResolution, "{strictly:?}");
        assert!(strictly[0].1.contains("below the 250 dpi"), "{strictly:?}");
        // The print rendition's pixels count, not a larger preview's.
        let small_print =
            basket.replace("\"width\":600,\"height\":600", "\"width\":60,\"height\":60");
        let small_print = small_print.replace(
            "\"width\":100,\"height\":100",
            "\"width\":6000,\"height\":6000",
        );
        assert_eq!(
            codes_of(&judged(
                &image(25.4),
                &small_print,
                PreflightLimits::default()
            )),
            [PoorResolution, UnknownLinkId]
        );
    }

    fn codes_of(warnings: &[(WarningCode, String)]) -> Vec<WarningCode> {
        warnings.iter().map(|(code, _)| *code).collect()
    }

    #[test]
    fn a_fixed_image_is_judged_in_its_template_box() {
        let product = Catalogue::builtin().product("businesscard").unwrap();
        let template = Template::parse(include_str!(
            "../../tests/scenes/templates/sample_all_items.xml"
        ))
        .unwrap();
        let fixed = template
            .items
            .iter()
            .find_map(|item| match &item.kind {
                ItemKind::FixedImage(fixed) => Some((item.link_id.clone(), fixed.image_box)),
                _ => None,
            })
            .expect("the sample template has a fixed image");
        // A tenth of the pixels 300 dpi needs across its box.
        let width = (fixed.1.width / 25.4 * 30.0) as u32;
        let json = format!(
            r#"{{"sides":[{{"type":"image","sideNum":1,"templateCode":"sample_all_items","data":[
            {{"type":"fixedImageData","linkId":"{}","resourceUri":"store://f"}}]}}],
            "imageBasket":{{"items":[{{"resourceUri":"store://f","imageItems":[
            {{"type":"print","resourceUri":"store://f/print","width":{width},"height":{width}}}]}}]}}}}"#,
            fixed.0
        );
        let pack = Pack::parse(&json, "pack", product).unwrap();
        let warnings = template_warnings(
            &pack,
            product,
            &|_| Some(&template),
            PreflightLimits::default(),
        );
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(warnings[0].code, WarningCode::PoorResolution);
    }

    #[test]
    fn an_image_in_the_basket_is_fine() {
        let json = r#"{"sides":[{"type":"image","sideNum":1,"templateCode":"t","data":[
            {"type":"imageData","linkId":"i","resourceUri":"store://x/print","imageBox":{"center":{"x":1,"y":1},"width":1,"height":1}}]}],
            "imageBasket":{"items":[{"resourceUri":"store://x","imageItems":[{"type":"print","resourceUri":"store://x/print"}]}]}}"#;
        assert!(codes(json).is_empty());
    }
}
