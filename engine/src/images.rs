//! Which stored image renditions a render draws. The server (renderSide, previews) and the
//! browser's design canvas both ask this one function, so both draw from the same bytes and
//! their pixels agree.

use serde::Serialize;

use crate::model::{
    BoundingBox, Datum, FixedImageSource, ImageBasket, ImageBasketItem, ItemKind, Side, Template,
};
use crate::render::RenderRequest;

/// An image a render draws: the URI the side names, the rendition to fetch for it, and
/// whether to enhance it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedImage {
    pub resource_uri: String,
    pub rendition_uri: String,
    pub enhance: bool,
}

/// Why a render's images cannot be planned.
#[derive(Debug, Clone, PartialEq)]
pub enum PlanError {
    UnknownTemplate(String),
    /// The side uses an image the basket does not hold.
    NotInBasket(String),
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanError::UnknownTemplate(code) => {
                write!(f, "side.templateCode: {code:?} is not a template")
            }
            PlanError::NotInBasket(uri) => write!(
                f,
                "imageBasket: no item for resourceUri {uri:?}, which the side uses"
            ),
        }
    }
}

/// Every image `request` draws (each URI once), with the smallest rendition of its basket
/// item that has at least the pixels it is drawn at (else the largest). Enhancement is the
/// imageData's `enhance`, else the basket item's `shouldEnhance`.
pub fn plan_images<'t>(
    request: &RenderRequest,
    basket: &ImageBasket,
    template: impl Fn(&str) -> Option<&'t Template>,
) -> Result<Vec<PlannedImage>, PlanError> {
    // Overlays draw only their own data (no template images).
    let sides = std::iter::once((&request.side, !request.partial))
        .chain(request.overlays.iter().map(|side| (side, false)));
    plan(sides, basket, template, |item, placement, template| {
        let area = request.box_type.area(template);
        let pixels_per_mm = f64::from(request.max_side) / area.width.max(area.height);
        rendition_for(item, placement, pixels_per_mm)
    })
}

/// Every image a press file of `sides` draws (each URI once), each with its print rendition
/// (every pixel of the original; else its largest). A preview as large as a small original
/// is still a re-encoded copy, so size alone does not choose.
pub fn plan_print_images<'t>(
    sides: &[&Side],
    basket: &ImageBasket,
    template: impl Fn(&str) -> Option<&'t Template>,
) -> Result<Vec<PlannedImage>, PlanError> {
    let sides = sides.iter().map(|side| (*side, true));
    plan(sides, basket, template, |item, _, _| item.print_uri())
}

/// The images `sides` draw (with their templates' own images where the flag says so), each
/// URI once, with the rendition `choose` picks from its basket item.
fn plan<'s, 't>(
    sides: impl Iterator<Item = (&'s Side, bool)>,
    basket: &ImageBasket,
    template: impl Fn(&str) -> Option<&'t Template>,
    choose: impl for<'b> Fn(&'b ImageBasketItem, &BoundingBox, &Template) -> &'b str,
) -> Result<Vec<PlannedImage>, PlanError> {
    let mut planned: Vec<PlannedImage> = Vec::new();
    for (side, template_images) in sides {
        let template = template(&side.template_code)
            .ok_or_else(|| PlanError::UnknownTemplate(side.template_code.clone()))?;
        for item in &template.items {
            let datum = side.data.iter().find(|d| d.link_id() == item.link_id);
            let placed = match (&item.kind, datum) {
                (ItemKind::Image { .. }, Some(Datum::Image(d))) => d
                    .resource_uri
                    .as_deref()
                    .zip(d.image_box)
                    .map(|(uri, placement)| (uri, placement, d.enhance)),
                (ItemKind::FixedImage(fixed), Some(Datum::FixedImage(d))) => d
                    .resource_uri
                    .as_deref()
                    .map(|uri| (uri, fixed.image_box, None)),
                (ItemKind::FixedImage(fixed), None) if template_images => match &fixed.source {
                    FixedImageSource::Resource(uri) => Some((uri.as_str(), fixed.image_box, None)),
                    _ => None,
                },
                _ => None,
            };
            let Some((uri, placement, enhance)) = placed else {
                continue;
            };
            if planned.iter().any(|image| image.resource_uri == uri) {
                continue;
            }
            let item = basket
                .item(uri)
                .ok_or_else(|| PlanError::NotInBasket(uri.to_owned()))?;
            planned.push(PlannedImage {
                resource_uri: uri.to_owned(),
                rendition_uri: choose(item, &placement, template).to_owned(),
                enhance: enhance.or(item.should_enhance).unwrap_or(false),
            });
        }
    }
    Ok(planned)
}

/// The smallest rendition at least as large as the image is drawn, else the largest, else
/// the item itself.
fn rendition_for<'b>(
    item: &'b ImageBasketItem,
    placement: &BoundingBox,
    pixels_per_mm: f64,
) -> &'b str {
    let (need_w, need_h) = (
        placement.width * pixels_per_mm,
        placement.height * pixels_per_mm,
    );
    // (pixels, URI, large enough), smallest first.
    let mut renditions: Vec<(u64, &str, bool)> = item
        .image_items
        .iter()
        .filter_map(|r| {
            let (w, h) = (r.width?, r.height?);
            let enough = f64::from(w) >= need_w && f64::from(h) >= need_h;
            Some((
                u64::from(w) * u64::from(h),
                r.resource_uri.as_deref()?,
                enough,
            ))
        })
        .collect();
    renditions.sort_by_key(|&(pixels, _, _)| pixels);
    renditions
        .iter()
        .find(|r| r.2)
        .or(renditions.last())
        .map_or(item.resource_uri.as_str(), |r| r.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Catalogue, Pack};
    use crate::render::BoxType;

    #[test]
    fn the_smallest_rendition_with_enough_pixels_is_chosen() {
        let template = Template::parse(include_str!(
            "../tests/scenes/templates/sample_all_items.xml"
        ))
        .unwrap();
        let product = Catalogue::builtin().product("businesscard").unwrap();
        // The photo is drawn 44 mm wide (half the 88 mm bleed box).
        let pack = Pack::parse(
            r#"{"sides": [{"type": "image", "sideNum": 1, "templateCode": "sample_all_items",
                "data": [{"type": "imageData", "linkId": "photo", "resourceUri": "store://a",
                          "imageBox": {"center": {"x": 20, "y": 29.5}, "width": 44, "height": 40, "angle": 0}}]}],
                "imageBasket": {"items": [{"resourceUri": "store://a", "shouldEnhance": true, "imageItems": [
                  {"type": "print", "resourceUri": "store://a/print", "width": 4000, "height": 3000},
                  {"type": "preview", "resourceUri": "store://a/preview", "width": 1024, "height": 768},
                  {"type": "thumbnail", "resourceUri": "store://a/thumbnail", "width": 150, "height": 113}]}]}}"#,
            "pack",
            product,
        )
        .unwrap();
        let lookup = |code: &str| (code == "sample_all_items").then_some(&template);
        let plan = |max_side: u32| {
            let request = RenderRequest {
                side: pack.sides[0].clone(),
                overlays: Vec::new(),
                box_type: BoxType::Bleed,
                max_side,
                partial: false,
            };
            plan_images(&request, &pack.image_basket, lookup).unwrap()
        };
        // 300 px wide output: the photo needs 150 x 136 px; the thumbnail is 113 px tall.
        assert_eq!(plan(300)[0].rendition_uri, "store://a/preview");
        assert_eq!(plan(200)[0].rendition_uri, "store://a/thumbnail");
        assert_eq!(plan(4000)[0].rendition_uri, "store://a/print");
        let print = plan_print_images(&[&pack.sides[0]], &pack.image_basket, lookup).unwrap();
        assert_eq!(print[0].rendition_uri, "store://a/print");
        assert_eq!(
            plan(300)[0],
            PlannedImage {
                resource_uri: "store://a".into(),
                rendition_uri: "store://a/preview".into(),
                enhance: true,
            }
        );
        let empty = ImageBasket {
            items: Vec::new(),
            ..pack.image_basket.clone()
        };
        let request = RenderRequest {
            side: pack.sides[0].clone(),
            overlays: Vec::new(),
            box_type: BoxType::Bleed,
            max_side: 300,
            partial: false,
        };
        assert_eq!(
            plan_images(&request, &empty, lookup),
            Err(PlanError::NotInBasket("store://a".into()))
        );
    }
}
