//! The drop-in pages. A drop-in URL with its pack's token asks the visitor to sign in or up,
//! then to continue with the pack: that button (a POST with the form's CSRF token, never
//! the GET of a link, which another site can make a browser do) makes the customer the
//! pack's owner, and for `cart` and `checkout` puts it in their cart. From then the API key
//! that created the pack can no longer read or update it, and only the owner can open its
//! pages.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use presspack_engine::model::{PhysicalSpecInput, Product};
use presspack_engine::render::BoxType;
use serde::Deserialize;

use crate::domain::cart::{self, describe_spec, option_description, option_name, parse_quantity};
use crate::domain::ids::PackId;
use crate::domain::ownership;
use crate::domain::packs::{self, PackRecord, StoredPack};
use crate::domain::prices::Money;
use crate::domain::services::Services;
use crate::domain::sides;
use crate::http::pages::account::sign_in_or_up;
use crate::http::pages::error::PageError;
use crate::http::pages::forms::{Fields, PostedForm, csrf_field};
use crate::http::pages::layout;
use crate::http::pages::sessions::Visitor;
use crate::http::state::{AppState, ServicesState};

/// Preview images: default and largest longest side in pixels.
const PREVIEW_SIDE: u32 = 600;
const MAX_PREVIEW_SIDE: u32 = 1200;

fn invalid_link() -> PageError {
    PageError::not_found("This link is not valid. Ask the shop that sent you here for a new one.")
}

/// The pack of a drop-in URL, if `token` is its drop-in token (constant-time comparison).
async fn pack_for_token(
    services: &Services,
    pack_id: &str,
    token: Option<&str>,
) -> Result<StoredPack, PageError> {
    let id = PackId::parse(pack_id).ok_or_else(invalid_link)?;
    let stored = packs::load(services, &id)
        .await
        .map_err(|e| PageError::unless_not_found(e, invalid_link))?;
    if !stored.record.opens_with(token) {
        return Err(invalid_link());
    }
    Ok(stored)
}

/// Makes `customer_id` the pack's owner unless someone else holds it.
async fn take_ownership(
    services: &Services,
    pack_id: &PackId,
    customer_id: &str,
) -> Result<PackRecord, PageError> {
    Ok(ownership::take(services, pack_id, customer_id).await?)
}

/// Where the editor of a drop-in leads when the customer is done.
const CHOOSE_PAPER: &str = "Choose paper and order";

pub fn drop_in_path(pack_id: &str, name: &str, token: &str) -> String {
    crate::domain::dropins::path(pack_id, name, token)
}

/// `GET /dropins/{packId}/{name}?token=...`: the drop-in's page for the pack's owner; anyone
/// else is asked to sign in, or to continue with the pack (see [`continue_with`]).
pub async fn open(
    State(state): State<Arc<AppState>>,
    visitor: Visitor,
    Path((pack_id, name)): Path<(String, String)>,
    Query(query): Query<Fields>,
) -> Result<Response, PageError> {
    let services = Arc::clone(&state.services);
    let Some(allows_blocking) = crate::domain::dropins::allows_blocking_warnings(&name) else {
        return Err(invalid_link());
    };
    let token = query.get("token").map(String::as_str);
    let stored = pack_for_token(&services, &pack_id, token).await?;
    let pack_id = stored.id.clone();
    let here = drop_in_path(&pack_id, &name, &stored.record.drop_in_token);
    let pack = stored.record;
    // Someone else holds the pack: another customer, or a guest whose hold runs on.
    let held_by = match pack.owner.as_deref() {
        Some(holder) if Some(holder) != visitor.owner_id() => {
            let store = services.store.as_ref();
            ownership::holds(store, &services.clock, holder)
                .await?
                .then_some(holder)
        }
        _ => None,
    };
    let Some(customer) = &visitor.customer else {
        // A visitor without an account designs at once; the rest asks for one.
        if name == "edit" && held_by.is_none() {
            let finish = drop_in_path(&pack_id, "finish", &pack.drop_in_token);
            return Ok(crate::http::pages::canvas::edit_page(
                &state,
                &visitor,
                &pack_id,
                &pack,
                (&finish, CHOOSE_PAPER),
            ));
        }
        // Another guest's: no account takes it while their hold runs.
        if let Some(guest) = held_by.filter(|holder| ownership::is_guest(holder)) {
            return Err(ownership::held_by_another(guest).into());
        }
        let content = html! {
            p.lead { "Sign in or create an account to continue with "
                strong { (pack.display_name()) } ". We keep the pack in your account." }
            (sign_in_or_up(&visitor, &here))
        };
        return Ok(layout::page(&visitor, "Your print pack", content));
    };
    if let Some(holder) = held_by {
        return Err(ownership::held_by_another(holder).into());
    }
    // Not the customer's yet, or a drop-in that fills the cart: a button says what happens
    // and does it.
    if !pack.is_owned_by(&customer.id) || matches!(name.as_str(), "cart" | "checkout") {
        return Ok(continue_page(&visitor, &pack_id, &name, &pack));
    }
    if !allows_blocking && !pack.is_orderable() {
        return Ok(not_orderable_page(&services, &visitor, &pack_id, &pack));
    }
    match name.as_str() {
        "finish" => {
            let product = product_of(&services, &pack)?;
            Ok(finish_page(
                &services, &visitor, &pack_id, &pack, product, None,
            ))
        }
        "edit" => Ok(crate::http::pages::canvas::edit_page(
            &state,
            &visitor,
            &pack_id,
            &pack,
            (
                &drop_in_path(&pack_id, "finish", &pack.drop_in_token),
                CHOOSE_PAPER,
            ),
        )),
        _ => Ok(preview_page(&services, &visitor, &pack_id, &pack)),
    }
}

/// The page that asks a signed-in customer to continue with a pack they do not own yet, or
/// to put it in their cart.
fn continue_page(visitor: &Visitor, pack_id: &str, name: &str, pack: &PackRecord) -> Response {
    let into_cart = matches!(name, "cart" | "checkout");
    let (title, button) = if into_cart {
        ("Add to your cart", "Add to my cart")
    } else {
        ("Your print pack", "Continue with this pack")
    };
    let content = html! {
        p.lead {
            strong { (pack.display_name()) } " · " (describe_spec(&pack.physical_spec))
        }
        @if pack.owner.is_none() {
            p { "Continuing keeps this pack in your account: from then only you can change or order it." }
        }
        form.card method="post" action=(format!("/dropins/{pack_id}/{name}")) {
            (csrf_field(visitor))
            input type="hidden" name="token" value=(pack.drop_in_token);
            button type="submit" { (button) }
        }
    };
    layout::page(visitor, title, content)
}

/// A drop-in's continue form: the pack's drop-in token.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct TokenForm {
    token: Option<String>,
}

/// `POST /dropins/{packId}/{name}` (token and CSRF token in the form): makes the visitor the
/// pack's owner and, for `cart` and `checkout`, puts the pack in their cart; then on to the
/// drop-in's page (or the cart, or checkout).
pub async fn continue_with(
    State(ServicesState(services)): State<ServicesState>,
    Path((pack_id, name)): Path<(String, String)>,
    PostedForm { visitor, fields }: PostedForm<TokenForm>,
) -> Result<Response, PageError> {
    let Some(allows_blocking) = crate::domain::dropins::allows_blocking_warnings(&name) else {
        return Err(invalid_link());
    };
    let customer = visitor.customer()?.clone();
    let stored = pack_for_token(&services, &pack_id, fields.token.as_deref()).await?;
    let pack_id = stored.id.clone();
    let pack = take_ownership(&services, &pack_id, &customer.id).await?;
    if !allows_blocking && !pack.is_orderable() {
        return Ok(not_orderable_page(&services, &visitor, &pack_id, &pack));
    }
    match name.as_str() {
        "cart" | "checkout" => {
            cart::put(&services, &customer.id, &pack_id, pack.cart_quantity).await?;
            Ok(layout::redirect(&visitor, &format!("/{name}")))
        }
        _ => Ok(layout::redirect(
            &visitor,
            &drop_in_path(&pack_id, &name, &stored.record.drop_in_token),
        )),
    }
}

fn product_of<'s>(services: &'s Services, pack: &PackRecord) -> Result<&'s Product, PageError> {
    services
        .catalogue
        .product(&pack.product)
        .ok_or_else(|| PageError::not_found("This product is no longer sold."))
}

/// The sides of a pack as images.
pub fn side_images(pack_id: &str, pack: &PackRecord, max_side: u32) -> Markup {
    let sides = serde_json::from_str::<serde_json::Value>(pack.pack.get())
        .ok()
        .and_then(|p| p["sides"].as_array().cloned())
        .unwrap_or_default();
    html! {
        div.sides {
            @for (index, side) in sides.iter().enumerate() {
                figure {
                    img src=(format!("/packs/{pack_id}/sides/{index}?max={max_side}"))
                        alt=(format!("{} side {}", side["type"].as_str().unwrap_or("card"), side["sideNum"]));
                    figcaption { (side_label(side["type"].as_str())) }
                }
            }
        }
    }
}

/// What a customer calls a side of type `side_type`.
pub(crate) fn side_label(side_type: Option<&str>) -> &'static str {
    match side_type {
        Some("image") => "Front",
        Some("details") => "Back",
        _ => "Side",
    }
}

fn actions(pack: &PackRecord, pack_id: &str, orderable: bool) -> Markup {
    html! {
        p.actions {
            @if orderable {
                a.button href=(drop_in_path(pack_id, "finish", &pack.drop_in_token)) { "Choose paper and order" }
                " "
            }
            a.button.secondary href=(drop_in_path(pack_id, "edit", &pack.drop_in_token)) { "Change the design" }
            @if let Some(url) = &pack.start_again_url {
                " " a.secondary href=(url) rel="noopener" { "Start again" }
            }
        }
    }
}

fn preview_page(
    services: &Services,
    visitor: &Visitor,
    pack_id: &str,
    pack: &PackRecord,
) -> Response {
    let content = html! {
        p.lead { strong { (pack.display_name()) } " · " (describe_spec(&pack.physical_spec)) }
        (side_images(pack_id, pack, PREVIEW_SIDE))
        (warning_list(services, pack_id, pack))
        (actions(pack, pack_id, pack.is_orderable()))
    };
    layout::page(visitor, "Your design", content)
}

/// The pack's warnings in the customer's words (the engine's [`explain`]); each that blocks
/// ordering with a button to the editor, where it can be fixed.
fn warning_list(services: &Services, pack_id: &str, pack: &PackRecord) -> Markup {
    let explained = packs::explained_warnings(services, pack);
    let editor = drop_in_path(pack_id, "edit", &pack.drop_in_token);
    html! {
        @if !explained.is_empty() {
            section.warnings aria-label="Things to check" {
                h2 { "Things to check" }
                ul {
                    @for (text, blocks) in &explained {
                        li {
                            @if *blocks { strong { "Needed before ordering: " } }
                            (text)
                            @if *blocks { " " a.button href=(editor) { "Fix it in the editor" } }
                        }
                    }
                }
            }
        }
    }
}

fn not_orderable_page(
    services: &Services,
    visitor: &Visitor,
    pack_id: &str,
    pack: &PackRecord,
) -> Response {
    let content = html! {
        p.notice role="alert" { "This pack cannot be ordered yet. Each problem below has a button to fix it in the editor." }
        (side_images(pack_id, pack, PREVIEW_SIDE))
        (warning_list(services, pack_id, pack))
        (actions(pack, pack_id, false))
    };
    (
        StatusCode::CONFLICT,
        layout::page(visitor, "Not ready to order", content),
    )
        .into_response()
}

fn finish_page(
    services: &Services,
    visitor: &Visitor,
    pack_id: &str,
    pack: &PackRecord,
    product: &Product,
    problem: Option<&str>,
) -> Response {
    let spec = &pack.physical_spec;
    let options = &product.physical_spec;
    let mut finishings: Vec<&String> = options
        .paper_classes
        .iter()
        .flat_map(|p| &p.finishing_options)
        .collect();
    finishings.dedup();
    finishings.sort();
    finishings.dedup();
    let unit_price = |paper: &str, size: u32| {
        let mut priced = spec.clone();
        paper.clone_into(&mut priced.paper_class);
        priced.pack_size = size;
        services.prices.unit_price(&pack.product, &priced)
    };
    let price = |paper: &str, size: u32| {
        unit_price(paper, size)
            .map(|p| p.to_string())
            .unwrap_or_default()
    };
    // For the running price (static/finish.js): paper -> pack size -> price in minor units,
    // and the currency's way of writing an amount, "{}" standing for it.
    let price_list: serde_json::Map<String, serde_json::Value> = options
        .paper_classes
        .iter()
        .map(|paper| {
            let sizes: serde_json::Map<String, serde_json::Value> = options
                .pack_sizes
                .iter()
                .filter_map(|size| {
                    Some((
                        size.to_string(),
                        unit_price(&paper.code, *size)?.minor.into(),
                    ))
                })
                .collect();
            (paper.code.clone(), sizes.into())
        })
        .collect();
    let money_form = Money::new(0, services.prices.currency)
        .to_string()
        .replacen("0.00", "{}", 1);
    let content = html! {
        @if let Some(problem) = problem { (layout::alert(problem)) }
        div.columns {
            (side_images(pack_id, pack, 400))
            form.card method="post" action=(format!("/packs/{pack_id}/finish"))
                data-prices=(serde_json::Value::Object(price_list)) data-money=(money_form) {
                h2 { (pack.display_name()) }
                (csrf_field(visitor))
                input type="hidden" name="token" value=(pack.drop_in_token);
                label for="paperClass" { "Paper" }
                select #paperClass name="paperClass" {
                    @for paper in &options.paper_classes {
                        option value=(paper.code) selected[paper.code == spec.paper_class] { (option_name(&paper.code)) }
                    }
                }
                label for="finishingOption" { "Finishing" }
                select #finishingOption name="finishingOption" {
                    @for finishing in &finishings {
                        option value=(finishing) selected[**finishing == spec.finishing_option] { (option_name(finishing)) }
                    }
                }
                label for="paperLaminate" { "Laminate" }
                select #paperLaminate name="paperLaminate" {
                    @for laminate in &options.paper_laminates {
                        option value=(laminate) selected[*laminate == spec.paper_laminate] { (option_name(laminate)) }
                    }
                }
                label for="packSize" { "Cards per pack" }
                select #packSize name="packSize" {
                    @for size in &options.pack_sizes {
                        option value=(size) selected[*size == spec.pack_size] { (size) " cards" }
                    }
                }
                label for="quantity" { "Number of packs" }
                input #quantity type="number" name="quantity" min="1" max=(cart::MAX_QUANTITY)
                    value=(pack.cart_quantity.unwrap_or(1)) required;
                output #running-price for="paperClass packSize quantity" aria-live="polite" {}
                button type="submit" { "Add to cart" }
                details.options-help {
                    summary { "About these options" }
                    dl {
                        @for code in options.paper_classes.iter().map(|p| &p.code).chain(finishings.iter().copied()).chain(&options.paper_laminates) {
                            @if let Some(description) = option_description(code) {
                                dt { (option_name(code)) } dd { (description) }
                            }
                        }
                    }
                }
            }
        }
        (actions(pack, pack_id, false))
        script src="/static/finish.js" defer {}
        table.orders.prices {
            caption { "Prices per pack" }
            thead { tr { th scope="col" { "Paper" } @for size in &options.pack_sizes { th scope="col" { (size) " cards" } } } }
            tbody {
                @for paper in &options.paper_classes {
                    tr { th scope="row" { (option_name(&paper.code)) } @for size in &options.pack_sizes { td { (price(&paper.code, *size)) } } }
                }
            }
        }
    };
    layout::page(visitor, "Choose your paper", content)
}

/// The finish page's form: the drop-in token, the physical specification chosen and the
/// quantity (each `None` when not sent).
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct FinishForm {
    token: Option<String>,
    quantity: Option<String>,
    pack_size: Option<String>,
    paper_class: Option<String>,
    finishing_option: Option<String>,
    paper_laminate: Option<String>,
}

/// `POST /packs/{packId}/finish`: the chosen physical specification and quantity; puts the
/// pack in the cart.
pub async fn finish(
    State(ServicesState(services)): State<ServicesState>,
    Path(pack_id): Path<String>,
    PostedForm { visitor, fields }: PostedForm<FinishForm>,
) -> Result<Response, PageError> {
    let customer = visitor.customer()?.clone();
    let stored = pack_for_token(&services, &pack_id, fields.token.as_deref()).await?;
    let pack_id = stored.id.clone();
    let pack = take_ownership(&services, &pack_id, &customer.id).await?;
    if !pack.is_orderable() {
        return Ok(not_orderable_page(&services, &visitor, &pack_id, &pack));
    }
    let product = product_of(&services, &stored.record)?;
    let text = |value: &Option<String>| value.as_deref().map(|v| v.trim().to_owned());
    let chosen = (|| {
        let quantity = parse_quantity(
            "Number of packs",
            &text(&fields.quantity).unwrap_or_default(),
        )?;
        let pack_size = match text(&fields.pack_size) {
            Some(size) => Some(
                size.parse::<u32>()
                    .map_err(|_| "Cards per pack: choose one of the sizes offered".to_owned())?,
            ),
            None => None,
        };
        let input = PhysicalSpecInput {
            product_type: None,
            paper_class: text(&fields.paper_class),
            finishing_option: text(&fields.finishing_option),
            pack_size,
            paper_laminate: text(&fields.paper_laminate),
        };
        let spec = product
            .physical_spec(input, "physicalSpec")
            .map_err(|e| format!("That combination is not available: {e}"))?;
        Ok::<_, String>((spec, quantity))
    })();
    let (spec, quantity) = match chosen {
        Ok(chosen) => chosen,
        Err(problem) => {
            let page = finish_page(
                &services,
                &visitor,
                &pack_id,
                &pack,
                product,
                Some(&problem),
            );
            return Ok((StatusCode::BAD_REQUEST, page).into_response());
        }
    };
    packs::modify(&services, &pack_id, |pack| {
        if !pack.is_owned_by(&customer.id) {
            return Err(ownership::held_by_another(
                pack.owner.as_deref().unwrap_or_default(),
            ));
        }
        pack.physical_spec = spec.clone();
        Ok(())
    })
    .await?;
    cart::put(&services, &customer.id, &pack_id, Some(quantity)).await?;
    Ok(layout::redirect(&visitor, "/cart"))
}

/// `GET /packs/{packId}/sides/{index}?max=N`: a side of the visitor's own pack as PNG.
pub async fn side_image(
    State(ServicesState(services)): State<ServicesState>,
    visitor: Visitor,
    Path((pack_id, index)): Path<(String, usize)>,
    Query(query): Query<Fields>,
) -> Result<Response, PageError> {
    let stored = visitor.owned_pack(&services, &pack_id).await?;
    visitor.count_engine_page(services.store.as_ref()).await?;
    let max_side = query
        .get("max")
        .and_then(|m| m.parse::<u32>().ok())
        .unwrap_or(PREVIEW_SIDE)
        .min(MAX_PREVIEW_SIDE);
    // A proof shows the whole printed area (`box=bleed`); a preview, the card as cut.
    let box_type = match query.get("box").map(String::as_str) {
        Some("bleed") => BoxType::Bleed,
        _ => BoxType::Cut,
    };
    let png = sides::pack_side(
        &services,
        &stored.record.product,
        &stored.record.pack,
        index,
        max_side,
        box_type,
    )
    .await
    .map_err(|e| {
        PageError::unless_not_found(e, || PageError::not_found("This side cannot be shown."))
    })?;
    Ok(layout::png(png, "private, no-store"))
}
