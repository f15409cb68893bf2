//! Sides drawn as PNG by the engine's wasm module: a call's side (`svc.pack.renderSide`) or a
//! stored pack's (the pages' previews, the job ticket's thumbnails), with the renditions of
//! the images each draws.

use presspack_engine::images::plan_images;
use presspack_engine::model::{ImageBasket, Pack, Side};
use presspack_engine::raster::{MAX_SIDE, MIN_SIDE};
use presspack_engine::render::{BoxType, RenderRequest};
use presspack_engine::wire::RenderHeaderInput;
use serde_json::value::RawValue;

use crate::domain::error::DomainError;
use crate::domain::images::{FetchedImage, fetch_renditions, plan_error};
use crate::domain::packs::stored_pack;
use crate::domain::services::Services;

/// What to draw: a side (with overlays) and the images its basket names.
pub struct RenderParams {
    pub request: RenderRequest,
    pub basket: ImageBasket,
}

/// Side `index` of a pack of `product` as stored (a pack record's or an order line's), the
/// area `box_type` (the cut box: as the customer will get it; the bleed box: a proof), as
/// PNG: the previews of the drop-in, cart, checkout and order pages and of the console.
pub async fn pack_side(
    services: &Services,
    product: &str,
    pack: &RawValue,
    index: usize,
    max_side: u32,
    box_type: BoxType,
) -> Result<Vec<u8>, DomainError> {
    parsed_pack_side(
        services,
        &stored_pack(services, product, pack)?,
        index,
        max_side,
        box_type,
    )
    .await
}

/// [`pack_side`] of a pack read already.
pub async fn parsed_pack_side(
    services: &Services,
    pack: &Pack,
    index: usize,
    max_side: u32,
    box_type: BoxType,
) -> Result<Vec<u8>, DomainError> {
    let side = pack.sides.get(index).cloned().ok_or_else(|| {
        DomainError::invalid("side", format!("the pack has {} sides", pack.sides.len()))
    })?;
    let params = RenderParams {
        request: RenderRequest {
            side,
            overlays: Vec::new(),
            box_type,
            max_side: max_side.clamp(MIN_SIDE, MAX_SIDE),
            partial: false,
        },
        basket: pack.image_basket.clone(),
    };
    draw(services, &params).await
}

/// The side `params` asks for, as PNG.
pub async fn draw(services: &Services, params: &RenderParams) -> Result<Vec<u8>, DomainError> {
    let images = fetch_images(services, params).await?;
    let request = &params.request;
    let to_value = |side: &Side| serde_json::to_value(side).expect("sides serialise");
    let header = RenderHeaderInput {
        side: to_value(&request.side),
        overlays: request.overlays.iter().map(to_value).collect(),
        box_type: request.box_type,
        max_side: request.max_side,
        partial: request.partial,
    };
    let refs = FetchedImage::inputs(&images);
    Ok(services.engine.draw_png(&header, &refs).await?)
}

/// Every image the sides draw, as the bytes of the rendition the engine's plan chooses (the
/// smallest with enough pixels for the output).
async fn fetch_images(
    services: &Services,
    params: &RenderParams,
) -> Result<Vec<FetchedImage>, DomainError> {
    let planned = plan_images(&params.request, &params.basket, |code| {
        services.templates.get(code).map(|entry| &entry.template)
    })
    .map_err(plan_error)?;
    fetch_renditions(services, planned).await
}
