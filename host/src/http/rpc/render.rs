//! `svc.pack.renderSide`, `renderSideUrl` and `getRenderedSide`: a side drawn by the engine's
//! wasm module, returned as PNG or kept for three hours behind an unguessable URL.

use std::time::Duration;

use presspack_engine::model::{ImageBasket, Side};
use presspack_engine::raster::{DEFAULT_MAX_SIDE, MAX_SIDE, MIN_SIDE};
use presspack_engine::render::{BoxType, MAX_OVERLAYS, RenderRequest};

use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::services::Services;
use crate::domain::sides::{RenderParams, draw};
use crate::http::rpc::call::{Call, Reply};
use crate::infra::store::Kind;
use crate::infra::store::random_id;

/// Record kind: a rendered side's PNG (renderSideUrl), expiring.
pub const RENDERED_SIDES: Kind = Kind::new("rendered");

/// How long a renderSideUrl URL works.
pub const RENDERED_SIDE_TTL: Duration = Duration::from_secs(3 * 60 * 60);

fn read_params(call: &Call<'_>) -> Result<RenderParams, DomainError> {
    let params = call.params;
    let side: Side = params
        .json("side", ErrorCode::InvalidSide)?
        .ok_or_else(|| DomainError::missing("side"))?;
    let basket: ImageBasket = params
        .json("imageBasket", ErrorCode::InvalidSide)?
        .ok_or_else(|| DomainError::missing("imageBasket"))?;
    let box_type = match params.text("boxType", 16)? {
        None => BoxType::default(),
        Some(value) => BoxType::parse(value).ok_or_else(|| {
            DomainError::invalid(
                "boxType",
                format!("expected bleed, print, cut or safe, got {value:?}"),
            )
        })?,
    };
    let max_side = match params.text("maxSide", 16)? {
        None => DEFAULT_MAX_SIDE,
        Some(value) => value
            .parse::<u32>()
            .ok()
            .filter(|n| (MIN_SIDE..=MAX_SIDE).contains(n))
            .ok_or_else(|| {
                DomainError::invalid(
                    "maxSide",
                    format!("expected a whole number of pixels from {MIN_SIDE} to {MAX_SIDE}"),
                )
            })?,
    };
    let overlays: Vec<Side> = params
        .json("overlays", ErrorCode::InvalidSide)?
        .unwrap_or_default();
    if overlays.len() > MAX_OVERLAYS {
        return Err(DomainError::invalid(
            "overlays",
            format!("at most {MAX_OVERLAYS} overlays"),
        ));
    }
    Ok(RenderParams {
        request: RenderRequest {
            side,
            overlays,
            box_type,
            max_side,
            partial: params.bool("partial")?.unwrap_or(false),
        },
        basket,
    })
}

/// Renders the call's side and returns the PNG bytes.
async fn render(services: &Services, call: &Call<'_>) -> Result<Vec<u8>, DomainError> {
    draw(services, &read_params(call)?).await
}

/// `svc.pack.renderSide`: the PNG.
pub async fn render_side(services: &Services, call: &Call<'_>) -> Result<Reply, DomainError> {
    Ok(Reply::document("image/png", render(services, call).await?))
}

/// `svc.pack.renderSideUrl`: the URL of the PNG, kept for three hours.
pub async fn render_side_url(services: &Services, call: &Call<'_>) -> Result<Reply, DomainError> {
    let png = render(services, call).await?;
    let id = random_id();
    services
        .store
        .put_blob(RENDERED_SIDES, &id, &png, Some(RENDERED_SIDE_TTL))
        .await
        .map_err(DomainError::from)?;
    let url = format!(
        "{}/api/service/?method=svc.pack.getRenderedSide&id={id}",
        call.base_url
    );
    Ok(Reply::document("text/plain", url.into_bytes()))
}

/// `svc.pack.getRenderedSide`: the PNG a renderSideUrl URL names, while it lasts.
pub async fn get_rendered_side(services: &Services, call: &Call<'_>) -> Result<Reply, DomainError> {
    let id = call.params.required("id")?;
    let not_found = || {
        DomainError::new(
            ErrorCode::RenderedSideNotFound,
            "id: no rendered side has this id (renderSideUrl URLs work for 3 hours)",
        )
    };
    if id.len() != 32 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(not_found());
    }
    let png = services
        .store
        .get_blob(RENDERED_SIDES, id)
        .await
        .map_err(DomainError::from)?
        .ok_or_else(not_found)?;
    Ok(Reply::document("image/png", png).cache_for(RENDERED_SIDE_TTL))
}
