//! Pack warnings in a customer's words. Partners get a warning's `message` (wire-formats
//! section 5, naming elements and ids); the customer's pages and the editor show
//! [`explain`]'s sentence instead, naming the slot as the editor labels it and the uploaded
//! file by its name, with the fix the editor offers. One wording for the server's pages and
//! the browser's editor.

use serde::Serialize;

use super::{Datum, Pack, Product, SideType, Warning, WarningCode};
use crate::model::warnings::print_dpi;

/// What the editor can do about a warning, as a button beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fix {
    /// Set `numCards` to the product's.
    PackSize,
    /// Drop the `cards` list: the cards are shared evenly between the fronts.
    CardSplit,
    /// Number each kind of side 1, 2, 3 ... again.
    NumberSides,
    /// Add a front side from one of the product's layouts.
    AddFront,
    /// Take the picture out of its slot.
    RemoveImage,
    /// Place the slot's picture again, covering the slot.
    PlaceImage,
    /// Pick another layout for the side.
    ChooseLayout,
}

/// A side by its type and number, as `{"type": "image", "sideNum": 1}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SideRef {
    #[serde(rename = "type")]
    pub side_type: SideType,
    pub side_num: u32,
}

/// A warning with its customer sentence.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Explained {
    pub element: String,
    pub code: WarningCode,
    /// Whether the pack cannot be ordered until it is fixed.
    pub blocks_ordering: bool,
    /// The side concerned, if one is.
    pub side: Option<SideRef>,
    /// The slot concerned, if one is.
    pub link_id: Option<String>,
    pub text: String,
    pub fix: Option<Fix>,
}

/// `warning` of `pack` (a `product` pack) in a customer's words.
pub fn explain(warning: &Warning, pack: &Pack, product: &Product) -> Explained {
    let (side, link_id) = parse_element(&warning.element);
    let side_name = side.map_or_else(|| "design".to_owned(), side_name);
    let slot = link_id.as_deref().map_or_else(
        || format!("the {side_name}"),
        |id| format!("“{}” on the {side_name}", slot_label(id)),
    );
    let image = link_id.as_deref().and_then(|id| {
        let side = side?;
        pack.sides
            .iter()
            .find(|s| s.side_type == side.side_type && s.side_num == side.side_num)?
            .data
            .iter()
            .find_map(|d| match d {
                Datum::Image(image) if image.link_id == id => Some(image),
                _ => None,
            })
    });
    let file = image
        .and_then(|i| i.resource_uri.as_deref())
        .and_then(|uri| pack.image_basket.item(uri))
        .and_then(|item| item.other.get("name")?.as_str())
        .filter(|name| !name.trim().is_empty())
        .map_or_else(|| "The picture".to_owned(), |name| format!("“{name}”"));
    let dpi = image
        .and_then(|i| Some((i.resource_uri.as_deref()?, i.image_box?)))
        .and_then(|(uri, placed)| print_dpi(&pack.image_basket, uri, &placed))
        .map_or_else(|| "less than 300".to_owned(), |dpi| format!("{dpi:.0}"));
    let (text, fix) = match warning.code {
        WarningCode::CardCountMismatch => (
            format!(
                "This pack is set to {} cards, but this product comes in packs of {}.",
                pack.num_cards, product.num_cards
            ),
            Some(Fix::PackSize),
        ),
        WarningCode::CardListMismatch => (
            format!(
                "The cards are shared between your designs in a way that does not add up to {} cards.",
                product.num_cards
            ),
            Some(Fix::CardSplit),
        ),
        WarningCode::DuplicateSide => (
            format!("There is more than one design for the {side_name}."),
            Some(Fix::NumberSides),
        ),
        WarningCode::NoImageSide => (
            "Your pack has no front design yet.".to_owned(),
            Some(Fix::AddFront),
        ),
        WarningCode::ImageNotInBasket => (
            format!("The picture in {slot} is no longer one of this pack's pictures."),
            Some(Fix::RemoveImage),
        ),
        WarningCode::ImagePlacementIncomplete => {
            let has_picture = image.is_some_and(|i| i.resource_uri.is_some());
            (
                format!("The picture in {slot} is not placed properly."),
                Some(if has_picture {
                    Fix::PlaceImage
                } else {
                    Fix::RemoveImage
                }),
            )
        }
        WarningCode::LowResolution => (
            format!(
                "{file} in {slot} prints at {dpi} dpi and may look a little soft (300 dpi looks \
                 sharp). Zoom out or use a larger picture."
            ),
            None,
        ),
        WarningCode::PoorResolution => (
            format!(
                "{file} in {slot} prints at only {dpi} dpi and will look blurry. Use a larger \
                 picture or zoom out."
            ),
            None,
        ),
        WarningCode::TextOverflow => (
            format!("The text in {slot} does not fit its space. Shorten it or make it smaller."),
            None,
        ),
        WarningCode::FontSubstituted => (
            format!(
                "The text in {slot} has a character the chosen font does not have; it prints \
                 in another font."
            ),
            None,
        ),
        WarningCode::MissingCharacter => (
            format!(
                "The text in {slot} has characters none of the shop's fonts has ({}); they \
                 would print as empty boxes. Remove them or type them differently.",
                missing_characters(&warning.message)
            ),
            None,
        ),
        WarningCode::TemplateNotOfProduct => (
            format!("The {side_name} uses a layout that is not made for this product."),
            Some(Fix::ChooseLayout),
        ),
        WarningCode::UnknownLinkId => (
            format!(
                "Some earlier content of the {side_name} has no place in its layout and is not \
                 printed."
            ),
            None,
        ),
    };
    Explained {
        element: warning.element.clone(),
        code: warning.code,
        blocks_ordering: warning.code.blocks_ordering(),
        side,
        link_id,
        text,
        fix,
    }
}

/// The characters a PVT003 warning's message names: what follows its last ": " (see
/// [`missing_characters_message`]).
fn missing_characters(message: &str) -> &str {
    message
        .rsplit_once(": ")
        .map_or(message, |(_, characters)| characters)
}

/// The message of a PVT003 warning for `characters`.
pub fn missing_characters_message(characters: &str) -> String {
    format!("no font has these characters, which would print as boxes: {characters}")
}

/// `pack.sides.{type}.{num}[.{linkId}]` -> the side and the slot.
fn parse_element(element: &str) -> (Option<SideRef>, Option<String>) {
    let Some(rest) = element.strip_prefix("pack.sides.") else {
        return (None, None);
    };
    let mut parts = rest.splitn(3, '.');
    let side_type = match parts.next() {
        Some("image") => SideType::Image,
        Some("details") => SideType::Details,
        _ => return (None, None),
    };
    let Some(side_num) = parts.next().and_then(|n| n.parse().ok()) else {
        return (None, None);
    };
    let side = SideRef {
        side_type,
        side_num,
    };
    (Some(side), parts.next().map(str::to_owned))
}

/// "front", "back", "front 2".
fn side_name(
    SideRef {
        side_type,
        side_num,
    }: SideRef,
) -> String {
    let name = match side_type {
        SideType::Image => "front",
        SideType::Details => "back",
    };
    if side_num > 1 {
        format!("{name} {side_num}")
    } else {
        name.to_owned()
    }
}

/// A slot's label as the editor shows it: `back_line_1` -> "Line 1".
pub fn slot_label(link_id: &str) -> String {
    let bare = link_id
        .strip_prefix("back_")
        .or_else(|| link_id.strip_prefix("front_"))
        .unwrap_or(link_id)
        .replace('_', " ");
    let mut chars = bare.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Catalogue, pack_warnings, template_warnings};
    use serde_json::json;

    fn pack(value: serde_json::Value) -> (Pack, &'static Product) {
        let product = Catalogue::builtin().product("businesscard").unwrap();
        (Pack::read(value, "pack", product).unwrap(), product)
    }

    #[test]
    fn blocking_warnings_get_a_sentence_and_a_fix() {
        let (pack, product) = pack(json!({
            "numCards": 20,
            "sides": [
                {"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape",
                 "data": [{"type": "imageData", "linkId": "back_image",
                           "imageBox": {"center": {"x": 1, "y": 1}, "width": 2, "height": 2, "angle": 0}}]},
                {"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape"}
            ]
        }));
        let explained: Vec<Explained> = pack_warnings(&pack, product)
            .iter()
            .map(|w| explain(w, &pack, product))
            .collect();
        let by_code = |code| explained.iter().find(|e| e.code == code).unwrap();
        let size = by_code(WarningCode::CardCountMismatch);
        assert_eq!(
            size.text,
            format!(
                "This pack is set to 20 cards, but this product comes in packs of {}.",
                product.num_cards
            )
        );
        assert_eq!(
            (size.fix, size.blocks_ordering),
            (Some(Fix::PackSize), true)
        );
        assert_eq!(by_code(WarningCode::NoImageSide).fix, Some(Fix::AddFront));
        let twice = by_code(WarningCode::DuplicateSide);
        assert_eq!(twice.text, "There is more than one design for the back.");
        let placed = by_code(WarningCode::ImagePlacementIncomplete);
        assert_eq!(
            placed.text,
            "The picture in “Image” on the back is not placed properly."
        );
        assert_eq!(placed.fix, Some(Fix::RemoveImage));
        assert_eq!(placed.link_id.as_deref(), Some("back_image"));
        let back = SideRef {
            side_type: SideType::Details,
            side_num: 1,
        };
        assert_eq!(placed.side, Some(back));
        assert!(explained.iter().all(|e| !e.text.contains("pack.sides")));
    }

    #[test]
    fn a_low_resolution_picture_is_named_by_its_file_and_dpi() {
        let (pack, product) = pack(json!({
            "sides": [{"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape",
                "data": [{"type": "imageData", "linkId": "variable_image_front", "resourceUri": "store://a",
                          "imageBox": {"center": {"x": 44, "y": 29}, "width": 101.6, "height": 50.8, "angle": 0}}]}],
            "imageBasket": {"items": [{"resourceUri": "store://a", "name": "beach.jpg",
                "imageItems": [{"type": "print", "resourceUri": "store://a/print", "width": 400, "height": 200}]}]}
        }));
        let template = crate::model::Template::parse(include_str!(
            "../../../assets/templates/businesscard_full_image_landscape.xml"
        ))
        .unwrap();
        let warning = template_warnings(&pack, product, &|_| Some(&template))
            .into_iter()
            .find(|w| w.code == WarningCode::PoorResolution)
            .expect("400 pixels over 4 inches is 100 dpi");
        let explained = explain(&warning, &pack, product);
        assert_eq!(
            explained.text,
            "“beach.jpg” in “Variable image front” on the front prints at only 100 dpi and will \
             look blurry. Use a larger picture or zoom out."
        );
        assert_eq!(explained.fix, None);
        assert!(!explained.blocks_ordering);
    }
}
