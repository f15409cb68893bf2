//! `svc.pack.renderSide`, `renderSideUrl` and `getRenderedSide`: a side drawn by the engine's
//! wasm module, returned as PNG or kept for three hours behind an unguessable URL.

use std::time::Duration;

use presspack_engine::model::{
    BoundingBox, Datum, FixedImageSource, ImageBasket, ImageBasketItem, ItemKind, Pack, Side,
};
use presspack_engine::raster::{MAX_SIDE, MIN_SIDE};
use presspack_engine::render::{BoxType, ImageInput, MAX_OVERLAYS};
use presspack_engine::wire::{Op, RenderHeaderInput, render_frame};

use crate::api::{ApiError, Call, ErrorCode, Reply};
use crate::app::AppState;
use crate::engine_host::EngineCallError;
use crate::packs::record::{PackRecord, random_id};
use crate::store::Kind;

/// How long a renderSideUrl URL works.
pub const RENDERED_SIDE_TTL: Duration = Duration::from_secs(3 * 60 * 60);

/// Maps an engine failure to the API's error: what the engine refused names the problem,
/// anything else is the engine's fault.
pub fn engine_error(error: EngineCallError) -> ApiError {
    match error {
        EngineCallError::Refused(failure) => {
            let code = match failure.code.as_str() {
                "unknown_template" => ErrorCode::UnknownTemplate,
                "unknown_font" => ErrorCode::UnknownFont,
                "missing_image" => ErrorCode::MissingImage,
                "undecodable_image" | "image_too_large" => ErrorCode::InvalidImage,
                "invalid_max_side" => ErrorCode::InvalidParameter,
                "invalid_side" | "datum_mismatch" | "too_many_data" | "invalid_text"
                | "too_many_overlays" => ErrorCode::InvalidSide,
                _ => ErrorCode::Internal,
            };
            ApiError::new(code, failure.message)
        }
        other => {
            tracing::error!(error = %other, "engine call failed");
            ApiError::new(
                ErrorCode::EngineFailure,
                format!("{other}; the request was not completed, try again"),
            )
        }
    }
}

/// The parameters shared by renderSide and renderSideUrl, read and checked.
struct RenderParams {
    side: Side,
    basket: ImageBasket,
    box_type: BoxType,
    max_side: u32,
    partial: bool,
    overlays: Vec<Side>,
}

fn read_params(call: &Call<'_>) -> Result<RenderParams, ApiError> {
    let params = call.params;
    let side: Side = params
        .json("side", ErrorCode::InvalidSide)?
        .ok_or_else(|| ApiError::missing("side"))?;
    let basket: ImageBasket = params
        .json("imageBasket", ErrorCode::InvalidSide)?
        .ok_or_else(|| ApiError::missing("imageBasket"))?;
    let box_type = match params.text("boxType", 16)? {
        None => BoxType::Print,
        Some(value) => BoxType::parse(value).ok_or_else(|| {
            ApiError::invalid(
                "boxType",
                format!("expected bleed, print, cut or safe, got {value:?}"),
            )
        })?,
    };
    let max_side = match params.text("maxSide", 16)? {
        None => 1024,
        Some(value) => value
            .parse::<u32>()
            .ok()
            .filter(|n| (MIN_SIDE..=MAX_SIDE).contains(n))
            .ok_or_else(|| {
                ApiError::invalid(
                    "maxSide",
                    format!("expected a whole number of pixels from {MIN_SIDE} to {MAX_SIDE}"),
                )
            })?,
    };
    let overlays: Vec<Side> = params
        .json("overlays", ErrorCode::InvalidSide)?
        .unwrap_or_default();
    if overlays.len() > MAX_OVERLAYS {
        return Err(ApiError::invalid(
            "overlays",
            format!("at most {MAX_OVERLAYS} overlays"),
        ));
    }
    Ok(RenderParams {
        side,
        basket,
        box_type,
        max_side,
        partial: params.bool("partial")?.unwrap_or(false),
        overlays,
    })
}

/// Renders the call's side and returns the PNG bytes.
async fn render(state: &AppState, call: &Call<'_>) -> Result<Vec<u8>, ApiError> {
    draw(state, &read_params(call)?).await
}

/// Side `index` of a stored pack as the customer will get it (the cut box), as PNG: the
/// previews of the drop-in, cart and order pages.
pub async fn pack_side(
    state: &AppState,
    pack: &PackRecord,
    index: usize,
    max_side: u32,
) -> Result<Vec<u8>, ApiError> {
    let product = state.catalogue.product(&pack.product).ok_or_else(|| {
        ApiError::new(
            ErrorCode::Internal,
            format!("no product {:?}", pack.product),
        )
    })?;
    let pack = Pack::parse(pack.pack.get(), "pack", product)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("stored pack: {e}")))?;
    let side = pack.sides.get(index).cloned().ok_or_else(|| {
        ApiError::invalid("side", format!("the pack has {} sides", pack.sides.len()))
    })?;
    let request = RenderParams {
        side,
        basket: pack.image_basket,
        box_type: BoxType::Cut,
        max_side: max_side.clamp(MIN_SIDE, MAX_SIDE),
        partial: false,
        overlays: Vec::new(),
    };
    draw(state, &request).await
}

async fn draw(state: &AppState, request: &RenderParams) -> Result<Vec<u8>, ApiError> {
    let images = fetch_images(state, request).await?;
    let to_value = |side: &Side| serde_json::to_value(side).expect("sides serialise");
    let header = RenderHeaderInput {
        side: to_value(&request.side),
        overlays: request.overlays.iter().map(to_value).collect(),
        box_type: request.box_type,
        max_side: request.max_side,
        partial: request.partial,
    };
    let refs: Vec<(&str, ImageInput<'_>)> = images
        .iter()
        .map(|image| {
            let input = ImageInput {
                bytes: &image.bytes,
                enhance: image.enhance,
            };
            (image.uri.as_str(), input)
        })
        .collect();
    let output = state
        .engine
        .call(Op::Render, render_frame(&header, &refs))
        .await
        .map_err(engine_error)?;
    let frame = presspack_engine::wire::Frame::read(&output)
        .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
    Ok(frame.blobs().to_vec())
}

/// An image a render draws: the URI the side uses, the bytes of the rendition chosen, and
/// whether to enhance it.
struct DrawnImage {
    uri: String,
    bytes: Vec<u8>,
    enhance: bool,
}

/// Every image the sides draw, as the bytes of the smallest stored rendition with enough
/// pixels for the output. An image missing from the basket or the store is an error naming
/// its resourceUri. Enhancement is the imageData's `enhance`, else the basket item's
/// `shouldEnhance`.
async fn fetch_images(
    state: &AppState,
    request: &RenderParams,
) -> Result<Vec<DrawnImage>, ApiError> {
    let mut images: Vec<DrawnImage> = Vec::new();
    for (index, side) in std::iter::once(&request.side)
        .chain(&request.overlays)
        .enumerate()
    {
        // Overlays draw only their own data (no template images).
        let is_main = index == 0;
        let Some(entry) = state.templates.get(&side.template_code) else {
            return Err(ApiError::new(
                ErrorCode::UnknownTemplate,
                format!(
                    "side.templateCode: {:?} is not a template",
                    side.template_code
                ),
            ));
        };
        let template = &entry.template;
        let area = request.box_type.area(template);
        let pixels_per_mm = f64::from(request.max_side) / area.width.max(area.height);
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
                (ItemKind::FixedImage(fixed), None) if !request.partial && is_main => {
                    match &fixed.source {
                        FixedImageSource::Resource(uri) => {
                            Some((uri.as_str(), fixed.image_box, None))
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            let Some((uri, placement, enhance)) = placed else {
                continue;
            };
            if images.iter().any(|image| image.uri == uri) {
                continue;
            }
            let item = basket_item(&request.basket, uri)?;
            let bytes = rendition_bytes(state, item, uri, &placement, pixels_per_mm).await?;
            images.push(DrawnImage {
                uri: uri.to_owned(),
                bytes,
                enhance: enhance.or(item.should_enhance).unwrap_or(false),
            });
        }
    }
    Ok(images)
}

fn basket_item<'b>(basket: &'b ImageBasket, uri: &str) -> Result<&'b ImageBasketItem, ApiError> {
    basket.item(uri).ok_or_else(|| {
        ApiError::new(
            ErrorCode::MissingImage,
            format!("imageBasket: no item for resourceUri {uri:?}, which the side uses"),
        )
    })
}

/// The smallest rendition at least as large as the image is drawn (else the largest), read
/// from the image store.
async fn rendition_bytes(
    state: &AppState,
    item: &ImageBasketItem,
    uri: &str,
    placement: &BoundingBox,
    pixels_per_mm: f64,
) -> Result<Vec<u8>, ApiError> {
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
    let chosen = renditions
        .iter()
        .find(|r| r.2)
        .or(renditions.last())
        .map_or(item.resource_uri.as_str(), |r| r.1);
    crate::images::rendition_bytes(state, chosen)
        .await?
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::MissingImage,
                format!("resourceUri {uri:?}: the image store has no {chosen:?}"),
            )
        })
}

/// `svc.pack.renderSide`: the PNG.
pub async fn render_side(state: &AppState, call: &Call<'_>) -> Result<Reply, ApiError> {
    Ok(Reply::document("image/png", render(state, call).await?))
}

/// `svc.pack.renderSideUrl`: the URL of the PNG, kept for three hours.
pub async fn render_side_url(state: &AppState, call: &Call<'_>) -> Result<Reply, ApiError> {
    let png = render(state, call).await?;
    let id = random_id();
    state
        .store
        .put_blob(Kind::RenderedSide, &id, &png, Some(RENDERED_SIDE_TTL))
        .await
        .map_err(ApiError::from)?;
    let url = format!(
        "{}/api/service/?method=svc.pack.getRenderedSide&id={id}",
        state.base_url
    );
    Ok(Reply::document("text/plain", url.into_bytes()))
}

/// `svc.pack.getRenderedSide`: the PNG a renderSideUrl URL names, while it lasts.
pub async fn get_rendered_side(state: &AppState, call: &Call<'_>) -> Result<Reply, ApiError> {
    let id = call.params.required("id")?;
    let not_found = || {
        ApiError::new(
            ErrorCode::RenderedSideNotFound,
            "id: no rendered side has this id (renderSideUrl URLs work for 3 hours)",
        )
    };
    if id.len() != 32 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(not_found());
    }
    let png = state
        .store
        .get_blob(Kind::RenderedSide, id)
        .await
        .map_err(ApiError::from)?
        .ok_or_else(not_found)?;
    Ok(Reply::document("image/png", png).cache_for(RENDERED_SIDE_TTL))
}
