//! Pack warnings in a customer's words. Partners get a warning's `message` (wire-formats
//! section 5, naming elements and ids); the customer's pages and the editor show
//! [`explain`]'s sentence instead, naming the slot as the editor labels it and the uploaded
//! file by its name, with the fix the editor offers. One wording for the server's pages and
//! the browser's editor.

use std::cmp::Ordering;

use serde::Serialize;

use super::warnings::print_dpi;
use super::{
    BoundingBox, Datum, ItemKind, Pack, PreflightLimits, Product, SideType, Template, TemplateItem,
    Warning, WarningCode,
};

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
    /// Zoom the slot's picture out as far as it goes (just covering its slot).
    ZoomOut,
    /// Open the empty picture slot's editor, which offers the pack's pictures and an upload.
    AddPhoto,
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

/// `warning` of `pack` (a `product` pack) in a customer's words. `template` and `limits` are
/// what the warnings were worked out with: a picture's fix depends on its slot and limits.
pub fn explain<'t>(
    warning: &Warning,
    pack: &Pack,
    product: &Product,
    template: &dyn Fn(&str) -> Option<&'t Template>,
    limits: PreflightLimits,
) -> Explained {
    let (side, link_id) = parse_element(&warning.element);
    let side_name = side.map_or_else(|| "design".to_owned(), side_name);
    let pack_side = side.and_then(|side| {
        pack.sides
            .iter()
            .find(|s| s.side_type == side.side_type && s.side_num == side.side_num)
    });
    let side_template = pack_side.and_then(|side| template(&side.template_code));
    let slot = link_id.as_deref().map_or_else(
        || format!("the {side_name}"),
        |id| format!("“{}” on the {side_name}", slot_label(side_template, id)),
    );
    let image = link_id.as_deref().and_then(|id| {
        pack_side?.data.iter().find_map(|d| match d {
            Datum::Image(image) if image.link_id == id => Some(image),
            _ => None,
        })
    });
    // The slot a picture fills, if it is a slot the customer can zoom in.
    let slot_area = link_id.as_deref().and_then(|id| {
        let item = side_template?.item(id)?;
        matches!(item.kind, ItemKind::Image { .. }).then_some(item.clipping_box)
    });
    let file = image
        .and_then(|i| i.resource_uri.as_deref())
        .and_then(|uri| pack.image_basket.item(uri))
        .and_then(|item| item.other.get("name")?.as_str())
        .filter(|name| !name.trim().is_empty())
        .map_or_else(|| "The picture".to_owned(), |name| format!("“{name}”"));
    let placed = image.and_then(|i| Some((i.resource_uri.as_deref()?, i.image_box?)));
    let dpi = placed.and_then(|(uri, box_)| print_dpi(&pack.image_basket, uri, &box_));
    // Whether zooming out (to just covering the slot) would bring the picture to `dpi_needed`.
    let zooming_out_reaches = |dpi_needed: f64| match (dpi, placed, slot_area) {
        (Some(dpi), Some((_, box_)), Some(area)) => dpi * zoom_of(&box_, &area) >= dpi_needed,
        _ => false,
    };
    let dpi_text = dpi.map_or_else(
        || format!("less than {:.0}", limits.warn_dpi),
        |dpi| format!("{dpi:.0}"),
    );
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
        WarningCode::LowResolution => {
            let soft = format!(
                "{file} in {slot} prints at {dpi_text} dpi and may look a little soft ({:.0} dpi \
                 looks sharp).",
                limits.warn_dpi
            );
            if zooming_out_reaches(limits.warn_dpi) {
                (
                    format!("{soft} Zoom out or use a larger picture."),
                    Some(Fix::ZoomOut),
                )
            } else {
                (format!("{soft} A larger picture prints sharper."), None)
            }
        }
        WarningCode::PoorResolution => {
            let blurry = format!(
                "{file} in {slot} prints at only {dpi_text} dpi, too few pixels to print well."
            );
            if zooming_out_reaches(limits.block_dpi) {
                (
                    format!("{blurry} Zoom out or use a larger picture."),
                    Some(Fix::ZoomOut),
                )
            } else {
                // Already as small as its slot allows: only fewer millimetres or more pixels help.
                (
                    format!(
                        "{blurry} It is as small as its space allows: use a larger picture, or \
                         choose a layout with a smaller space for it."
                    ),
                    Some(Fix::ChooseLayout),
                )
            }
        }
        WarningCode::EmptyImageSlot => (
            format!(
                "The picture space {slot} is empty; the card prints without a picture there. \
                 Add a photo, or choose a layout without one."
            ),
            Some(Fix::AddPhoto),
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

/// How far a picture placed in `box_` is zoomed beyond just covering `area` (1: it cannot be
/// zoomed out), as the editor measures it: quarter turns swap the picture's sides.
fn zoom_of(box_: &BoundingBox, area: &BoundingBox) -> f64 {
    let turned = libm::round(box_.angle / 90.0).rem_euclid(2.0) == 1.0;
    let (width, height) = if turned {
        (box_.height, box_.width)
    } else {
        (box_.width, box_.height)
    };
    let covering = (area.width / width).max(area.height / height);
    // (a hair over 1 is the editor's own rounding of a covering box, not a zoom)
    let zoom = 1.0 / covering;
    if zoom > 1.001 { zoom } else { 1.0 }
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

/// What a customer calls slot `link_id` of `template`: its `<Label>` if the template gives
/// one, else a name from the slot's kind and place: a picture slot is "Photo", a box as large as the card
/// "Background", another box "Shape", a fixed picture "Fixed picture", each numbered from the
/// top left when the layout has several; a text is "Line N", N the number its id ends with,
/// else its place from the top. The API keeps the ids. Without the template (or the slot in
/// it), the id in words: `back_line_1` -> "Line 1".
pub fn slot_label(template: Option<&Template>, link_id: &str) -> String {
    let Some((template, item)) = template.and_then(|t| Some((t, t.item(link_id)?))) else {
        return id_in_words(link_id);
    };
    if let Some(label) = &item.label {
        return label.clone();
    }
    let word = kind_word(template, item);
    if word == "Line"
        && let Some(number) = link_id
            .rsplit('_')
            .next()
            .filter(|n| n.parse::<u32>().is_ok())
    {
        return format!("Line {number}");
    }
    // Its place among the template's slots of the same word, from the top left.
    let top_left = |item: &TemplateItem| {
        let area = &item.clipping_box;
        (
            area.center.y - area.height / 2.0,
            area.center.x - area.width / 2.0,
        )
    };
    let mut same: Vec<&TemplateItem> = template
        .items
        .iter()
        .filter(|other| kind_word(template, other) == word)
        .collect();
    if same.len() == 1 && word != "Line" {
        return word.to_owned();
    }
    same.sort_by(|a, b| {
        top_left(a)
            .partial_cmp(&top_left(b))
            .unwrap_or(Ordering::Equal)
    });
    let place = same
        .iter()
        .position(|other| other.link_id == link_id)
        .unwrap_or(0)
        + 1;
    format!("{word} {place}")
}

/// The word for a slot of `item`'s kind (see [`slot_label`]).
fn kind_word(template: &Template, item: &TemplateItem) -> &'static str {
    match &item.kind {
        ItemKind::Image { .. } => "Photo",
        ItemKind::FixedImage(_) => "Fixed picture",
        ItemKind::Text(_) => "Line",
        ItemKind::Box { .. } => {
            let (slot, card) = (&item.clipping_box, &template.cut_box);
            // (a hair under the cut box is still the whole card, for rounding in templates)
            if slot.width >= card.width - 0.01 && slot.height >= card.height - 0.01 {
                "Background"
            } else {
                "Shape"
            }
        }
    }
}

/// `back_line_1` -> "Line 1": the id without its side, in words.
/// What a customer calls a layout: its `<Label>`, else its code in words without the
/// product (`businesscard_full_text_landscape` -> "Full text landscape").
pub fn layout_label(template: &Template) -> String {
    match &template.label {
        Some(label) => label.clone(),
        None => id_in_words(
            template
                .code
                .split_once('_')
                .map_or(template.code.as_str(), |(_, rest)| rest),
        ),
    }
}

fn id_in_words(link_id: &str) -> String {
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
            .map(|w| explain(w, &pack, product, &|_| None, PreflightLimits::default()))
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

    fn template(code: &str) -> crate::model::Template {
        let path = format!(
            "{}/../assets/templates/{code}.xml",
            env!("CARGO_MANIFEST_DIR")
        );
        crate::model::Template::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn slots_are_named_by_their_kind_and_place() {
        let card = template("businesscard_full_image_landscape");
        let label = |id| slot_label(Some(&card), id);
        assert_eq!(label("variable_image_front"), "Photo");
        assert_eq!(label("background_box"), "Background");
        let columns = template("businesscard_top_image_dual_column_text_landscape");
        let label = |id| slot_label(Some(&columns), id);
        assert_eq!(label("back_line_7"), "Line 7");
        assert_eq!(label("variable_image_back"), "Photo");
        let mut sticker = template("sticker_image");
        assert_eq!(
            slot_label(Some(&sticker), "rounded_corners"),
            "Rounded corners"
        );
        // A template's <Label> names a slot; without one, its kind and place do.
        sticker.items.iter_mut().for_each(|item| item.label = None);
        assert_eq!(
            slot_label(Some(&sticker), "rounded_corners"),
            "Fixed picture"
        );
        let text = template("businesscard_full_text_landscape");
        let label = |id| slot_label(Some(&text), id);
        assert_eq!(
            [
                label("back_line_1"),
                label("back_line_2"),
                label("back_line_4")
            ],
            ["Your name", "Job title", "Line 4"]
        );
        // Without the template, or a slot it lacks: the id in words.
        assert_eq!(slot_label(None, "back_line_3"), "Line 3");
        assert_eq!(slot_label(Some(&card), "back_line_3"), "Line 3");
    }

    #[test]
    fn layouts_are_named_by_their_label_else_by_their_code() {
        let mut columns = template("businesscard_top_image_dual_column_text_landscape");
        assert_eq!(layout_label(&columns), "Photo above, text in two columns");
        columns.label = None;
        assert_eq!(
            layout_label(&columns),
            "Top image dual column text landscape"
        );
        // A label that is not one short line is refused, naming where it is.
        let xml = std::fs::read_to_string(format!(
            "{}/../assets/templates/businesscard_full_text_landscape.xml",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let long = xml.replace(
            "<Label>Your name</Label>",
            &format!("<Label>{}</Label>", "n".repeat(61)),
        );
        let refused = crate::model::Template::parse(&long)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("Items/Text[1]/Label"), "{refused}");
    }

    #[test]
    fn an_empty_picture_space_is_named_with_a_way_to_fill_it() {
        let (pack, product) = pack(json!({
            "sides": [{"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape"}]
        }));
        let warning = Warning {
            element: "pack.sides.image.1.variable_image_front".into(),
            code: WarningCode::EmptyImageSlot,
            message: String::new(),
        };
        let explained = explain(
            &warning,
            &pack,
            product,
            &|_| None,
            PreflightLimits::default(),
        );
        assert_eq!(
            explained.text,
            "The picture space “Variable image front” on the front is empty; the card prints without \
             a picture there. Add a photo, or choose a layout without one."
        );
        assert_eq!(
            (explained.fix, explained.blocks_ordering),
            (Some(Fix::AddPhoto), false)
        );
        let wire = serde_json::to_value(&explained).unwrap();
        assert_eq!(
            (wire["code"].as_str(), wire["fix"].as_str()),
            (Some("PVI005"), Some("add-photo"))
        );
    }

    /// A pack with `beach.jpg` (`width` x `height` pixels) in the front slot (88 x 59 mm),
    /// placed in a box `zoom` times the one that just covers the slot.
    fn picture_pack(width: u32, height: u32, zoom: f64) -> (Pack, &'static Product) {
        let aspect = f64::from(width) / f64::from(height);
        let (box_width, box_height) = if aspect >= 88.0 / 59.0 {
            (59.0 * aspect * zoom, 59.0 * zoom)
        } else {
            (88.0 * zoom, 88.0 / aspect * zoom)
        };
        pack(json!({
            "sides": [{"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape",
                "data": [{"type": "imageData", "linkId": "variable_image_front", "resourceUri": "store://a",
                          "imageBox": {"center": {"x": 44, "y": 29.5}, "width": box_width, "height": box_height, "angle": 0}}]}],
            "imageBasket": {"items": [{"resourceUri": "store://a", "name": "beach.jpg",
                "imageItems": [{"type": "print", "resourceUri": "store://a/print", "width": width, "height": height}]}]}
        }))
    }

    /// The resolution warning of `pack`, explained.
    fn resolution(pack: &Pack, product: &Product) -> Explained {
        let template = template("businesscard_full_image_landscape");
        let templates = |_: &str| Some(&template);
        let warning = template_warnings(pack, product, &templates, PreflightLimits::default())
            .into_iter()
            .find(|w| {
                matches!(
                    w.code,
                    WarningCode::PoorResolution | WarningCode::LowResolution
                )
            })
            .expect("a resolution warning");
        explain(
            &warning,
            pack,
            product,
            &templates,
            PreflightLimits::default(),
        )
    }

    #[test]
    fn a_picture_too_small_even_at_its_smallest_is_not_told_to_zoom_out() {
        // 300 x 200 pixels just covering 88 x 59 mm: 86 dpi, and no zoom is left to undo.
        let (pack, product) = picture_pack(300, 200, 1.0);
        let explained = resolution(&pack, product);
        assert_eq!(
            explained.text,
            "“beach.jpg” in “Photo” on the front prints at only 86 dpi, too few \
             pixels to print well. It is as small as its space allows: use a larger picture, or \
             choose a layout with a smaller space for it."
        );
        assert_eq!(explained.fix, Some(Fix::ChooseLayout));
        assert!(explained.blocks_ordering);
        // Zoomed in twice as far, zooming out still does not reach 150 dpi (86 at most).
        let (pack, product) = picture_pack(300, 200, 2.0);
        assert_eq!(resolution(&pack, product).fix, Some(Fix::ChooseLayout));
    }

    #[test]
    fn a_zoomed_picture_that_would_print_at_its_smallest_is_told_to_zoom_out() {
        // 600 x 400 pixels just covering the slot print at 172 dpi; zoomed 2x, at 86.
        let (pack, product) = picture_pack(600, 400, 2.0);
        let explained = resolution(&pack, product);
        assert!(
            explained.text.contains("at only 86 dpi"),
            "{}",
            explained.text
        );
        assert!(
            explained
                .text
                .ends_with("Zoom out or use a larger picture.")
        );
        assert_eq!(explained.fix, Some(Fix::ZoomOut));
        assert!(explained.blocks_ordering);
        // Just covering: soft (172 dpi), and a larger picture is the only way to 300.
        let (pack, product) = picture_pack(600, 400, 1.0);
        let explained = resolution(&pack, product);
        assert_eq!(explained.code, WarningCode::LowResolution);
        assert!(!explained.blocks_ordering);
        assert_eq!(explained.fix, None);
        assert!(
            explained.text.ends_with("A larger picture prints sharper."),
            "{}",
            explained.text
        );
    }
}
