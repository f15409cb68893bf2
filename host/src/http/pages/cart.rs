//! The cart page: the customer's packs by name with a thumbnail, price and quantity; change
//! the quantity, rename a pack, remove it, go to checkout.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use serde::Deserialize;

use crate::domain::cart::{
    self, MAX_QUANTITY, PricedLine, describe_spec, parse_quantity, priced_lines,
};
use crate::domain::customers::{self, Customer};
use crate::domain::error::DomainError;
use crate::domain::ids::PackId;
use crate::domain::one_line;
use crate::domain::packs;
use crate::domain::services::Services;
use crate::http::pages::dropins::drop_in_path;
use crate::http::pages::error::PageError;
use crate::http::pages::forms::{PostedForm, csrf_field};
use crate::http::pages::layout;
use crate::http::pages::sessions::Visitor;
use crate::http::state::ServicesState;

/// The longest pack name a customer may give.
const MAX_NAME: usize = 255;

/// A thumbnail and summary of one line; shared by the cart, checkout and order pages.
pub fn line_summary(line: &PricedLine) -> maud::Markup {
    html! {
        img.thumb src=(format!("/packs/{}/sides/0?max=300", line.pack_id)) alt=(format!("Front of {}", line.pack.display_name()));
        div.summary {
            strong.name { (line.pack.display_name()) }
            @if line.pack.trial { " " span.badge { "Trial pack" } }
            p.spec { (describe_spec(line.spec())) }
            p.price { (line.unit_price) " per pack" }
            a.change href=(drop_in_path(&line.pack_id, "edit", &line.pack.drop_in_token)) {
                "Change the design"
            }
        }
    }
}

/// What stops a line being ordered (`blocking`, in the editor's words) with the way to fix
/// it; nothing when it can be ordered. Shared by the cart and the checkout's proofs.
pub fn not_orderable_notice(blocking: &[String], line: &PricedLine) -> Markup {
    html! {
        @if !blocking.is_empty() {
            div.notice.not-orderable role="alert" {
                p { strong { "Cannot be ordered yet: " } (blocking.join(" ")) }
                a.button href=(drop_in_path(&line.pack_id, "edit", &line.pack.drop_in_token)) {
                    "Fix it in the editor"
                }
            }
        }
    }
}

fn cart_page(
    services: &Services,
    visitor: &Visitor,
    lines: &[PricedLine],
    problem: Option<&str>,
) -> Response {
    let total = cart::total(services.prices.currency, lines);
    let content = html! {
        @if let Some(problem) = problem { (layout::alert(problem)) }
        @if lines.is_empty() {
            p.lead { "Your cart is empty. Packs you finish from a shop's design tool appear here." }
        } @else {
            ul.lines aria-label="Packs in your cart" {
                @for line in lines {
                    li.line {
                        (line_summary(line))
                        (not_orderable_notice(&packs::blocking_reasons(services, &line.pack), line))
                        div.controls {
                            form method="post" action=(format!("/cart/lines/{}", line.pack_id)) {
                                (csrf_field(visitor))
                                input type="hidden" name="action" value="quantity";
                                label for=(format!("quantity-{}", line.pack_id)) { "Quantity" }
                                input id=(format!("quantity-{}", line.pack_id)) type="number" name="quantity"
                                    min="1" max=(MAX_QUANTITY) value=(line.quantity) required;
                                button.secondary type="submit" { "Update" }
                            }
                            form method="post" action=(format!("/cart/lines/{}", line.pack_id)) {
                                (csrf_field(visitor))
                                input type="hidden" name="action" value="rename";
                                label for=(format!("name-{}", line.pack_id)) { "Name" }
                                input id=(format!("name-{}", line.pack_id)) type="text" name="name"
                                    maxlength=(MAX_NAME) value=(line.pack.display_name()) required;
                                button.secondary type="submit" { "Rename" }
                            }
                            form method="post" action=(format!("/cart/lines/{}", line.pack_id)) {
                                (csrf_field(visitor))
                                input type="hidden" name="action" value="remove";
                                button.danger type="submit" aria-label=(format!("Remove {}", line.pack.display_name())) { "Remove" }
                            }
                        }
                        p.line-total { (line.line_total) }
                    }
                }
            }
            p.total { "Total " strong #cart-total { (total) } }
            p.actions { a.button href="/checkout" { "Go to checkout" } }
        }
    };
    layout::page(visitor, "Your cart", content)
}

/// `GET /cart`
pub async fn show(
    State(ServicesState(services)): State<ServicesState>,
    visitor: Visitor,
) -> Result<Response, PageError> {
    let customer = visitor.customer()?;
    let lines = priced_lines(&services, customer).await?;
    Ok(cart_page(&services, &visitor, &lines, None))
}

/// A cart line's form: `action` = `quantity` (with `quantity`), `rename` (with `name`) or
/// `remove`.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct LineChange {
    action: String,
    quantity: String,
    name: String,
}

/// `POST /cart/lines/{packId}` with `action` = `quantity`, `rename` or `remove`.
pub async fn change_line(
    State(ServicesState(services)): State<ServicesState>,
    Path(pack_id): Path<String>,
    PostedForm {
        mut visitor,
        fields,
    }: PostedForm<LineChange>,
) -> Result<Response, PageError> {
    let customer_id = visitor.customer()?.id.clone();
    // No line of the cart, and no pack, has an id that is not one.
    let pack_id =
        PackId::parse(&pack_id).ok_or_else(|| PageError::not_found("There is no such pack."))?;
    let outcome: Result<Customer, String> = match fields.action.as_str() {
        "quantity" => match parse_quantity("Quantity", &fields.quantity) {
            Ok(quantity) => {
                Ok(set_quantity(&services, &customer_id, &pack_id, Some(quantity)).await?)
            }
            Err(problem) => Err(problem),
        },
        "remove" => Ok(set_quantity(&services, &customer_id, &pack_id, None).await?),
        "rename" => match one_line::required(&fields.name, MAX_NAME) {
            Err(problem) => Err(format!("Name: {problem}")),
            Ok(name) => {
                visitor.owned_pack(&services, &pack_id).await?;
                packs::modify(&services, &pack_id, |pack| {
                    pack.friendly_name = Some(name.to_owned());
                    Ok(())
                })
                .await?;
                Ok(visitor.customer()?.clone())
            }
        },
        _ => Err("Choose update, rename or remove.".to_owned()),
    };
    match outcome {
        Ok(customer) => {
            visitor.customer = Some(customer);
            Ok(layout::redirect(&visitor, "/cart"))
        }
        Err(problem) => {
            let lines = priced_lines(&services, visitor.customer()?).await?;
            let page = cart_page(&services, &visitor, &lines, Some(&problem));
            Ok((StatusCode::BAD_REQUEST, page).into_response())
        }
    }
}

/// Sets a line's quantity, or removes the line (`None`). Only lines in the customer's own
/// cart can be changed: the cart is inside their record.
async fn set_quantity(
    services: &Services,
    customer_id: &str,
    pack_id: &PackId,
    quantity: Option<u32>,
) -> Result<Customer, PageError> {
    Ok(
        customers::modify(services.store.as_ref(), customer_id, |customer| {
            match quantity {
                Some(q) => customer
                    .cart
                    .iter_mut()
                    .filter(|line| line.pack_id == *pack_id)
                    .for_each(|line| line.quantity = q),
                None => customer.cart.retain(|line| line.pack_id != *pack_id),
            }
            Ok::<_, DomainError>(())
        })
        .await?,
    )
}
