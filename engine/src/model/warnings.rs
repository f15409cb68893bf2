//! Pack warnings (wire-formats section 5). A warning never fails a call; it is reported with
//! the pack and decides which drop-ins the pack is offered.
//!
//! This module has the structural checks, which need only the pack and its product.
//! Checks against templates and rendered text arrive with the templates and the engine.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::{Datum, Pack, Product};

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
}

impl WarningCode {
    /// Warnings that make a pack unfit to order: the `finish` drop-in and the cart refuse them.
    pub fn blocks_ordering(self) -> bool {
        // Every structural warning does; text-fit and image-quality warnings will not.
        true
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Catalogue;

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
    fn an_image_in_the_basket_is_fine() {
        let json = r#"{"sides":[{"type":"image","sideNum":1,"templateCode":"t","data":[
            {"type":"imageData","linkId":"i","resourceUri":"store://x/print","imageBox":{"center":{"x":1,"y":1},"width":1,"height":1}}]}],
            "imageBasket":{"items":[{"resourceUri":"store://x","imageItems":[{"type":"print","resourceUri":"store://x/print"}]}]}}"#;
        assert!(codes(json).is_empty());
    }
}
