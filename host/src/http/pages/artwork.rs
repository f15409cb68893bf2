//! The customer's side of new artwork for a held order (`domain::orders::artwork`): the page
//! the e-mailed link opens (why, the proof of the copy, the approval), the editor for the
//! copy, whose finish leads back to that page, and the approval.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::html;

use crate::domain::cart::PricedLine;
use crate::domain::ids::OrderNumber;
use crate::domain::one_line::capitalised;
use crate::domain::orders::artwork::{self, ArtworkError, Opened};
use crate::domain::orders::artwork_links;
use crate::domain::orders::record::OrderStatus;
use crate::http::pages::account::sign_in_or_up;
use crate::http::pages::error::PageError;
use crate::http::pages::forms::{Fields, PostedForm, csrf_field};
use crate::http::pages::sessions::Visitor;
use crate::http::pages::{canvas, layout, proofs};
use crate::http::state::AppState;

/// The form the approval box belongs to.
const APPROVAL_FORM: &str = "artwork-approval";

/// A refusal as a page: the link's problems are the customer's to read.
fn refused(error: ArtworkError) -> PageError {
    match error {
        ArtworkError::Domain(error) => error.into(),
        ArtworkError::NoSuchOrder(_) | ArtworkError::LinkInvalid => PageError::not_found(
            "This link for new artwork does not work: it was used, a newer one was sent, or it \
             is for another account. The shop's latest e-mail has the link that works.",
        ),
        error => PageError::new(
            StatusCode::CONFLICT,
            "New artwork",
            capitalised(&error.to_string()) + ".",
        ),
    }
}

/// The order and line a link names, and its token; `None` when they cannot be one.
fn addressed(number: &str, line: usize, query: &Fields) -> Option<(OrderNumber, usize, String)> {
    let number = OrderNumber::parse(number)?;
    let token = query.get("token")?.clone();
    Some((number, line, token))
}

/// What link `number`/`line`/`token` opens for the signed-in visitor; else the page to show
/// instead: the sign-in page, or the refusal.
async fn opened(
    state: &AppState,
    visitor: &Visitor,
    number: &str,
    line: usize,
    query: &Fields,
) -> Result<(Opened, String), Response> {
    let Some((number, line, token)) = addressed(number, line, query) else {
        return Err(refused(ArtworkError::LinkInvalid).into_response());
    };
    let here = artwork_links::path(&number, line, &token);
    let Some(customer) = &visitor.customer else {
        let content = html! {
            p.lead { "Sign in to the account you ordered with to give your new artwork." }
            (sign_in_or_up(visitor, &here))
        };
        return Err(layout::page(visitor, "New artwork", content));
    };
    match artwork::open(&state.services, &number, line, &token, &customer.id).await {
        Ok(opened) => Ok((opened, token)),
        Err(error) => Err(refused(error).into_response()),
    }
}

/// `GET /artwork/{number}/{line}?token=…`: why new artwork is needed, the proof of the copy
/// as it is now, the way to the editor, and the approval.
pub async fn show(
    State(state): State<Arc<AppState>>,
    visitor: Visitor,
    Path((number, line)): Path<(String, usize)>,
    Query(query): Query<Fields>,
) -> Response {
    let (opened, token) = match opened(&state, &visitor, &number, line, &query).await {
        Ok(opened) => opened,
        Err(page) => return page,
    };
    let Opened {
        order,
        request,
        copy,
    } = opened;
    let ordered = &order.lines[line];
    let reason = match &order.status {
        OrderStatus::OnHold { reason } => reason.as_str(),
        _ => "",
    };
    let priced = PricedLine {
        pack_id: request.copy.clone(),
        pack: copy,
        quantity: ordered.quantity,
        unit_price: order.amount(ordered.unit_price),
        line_total: order.amount(ordered.line_total),
    };
    let edit = format!("/artwork/{}/{line}/edit?token={token}", order.number);
    let content = html! {
        p.lead { "Your order " strong { (order.number) } " waits for new artwork for pack " (line + 1) ", " strong { (ordered.name) } "." }
        p.notice #artwork-reason { "The shop says: " (reason) }
        p { a.button #edit-artwork href=(edit) { "Change the design" } }
        (proofs::proof(&state.services, &priced, APPROVAL_FORM, &Fields::new()))
        form #(APPROVAL_FORM) method="post" action=(format!("/artwork/{}/{line}", order.number)) {
            (csrf_field(&visitor))
            input type="hidden" name="token" value=(token);
            button #approve-artwork type="submit" { "Approve and print my order" }
        }
        p.hint { "Approving replaces the pack in your order with this design; the shop then prints it." }
    };
    layout::page(&visitor, "New artwork", content)
}

/// `GET /artwork/{number}/{line}/edit?token=…`: the editor on the copy; its finish leads back
/// to the proof.
pub async fn edit(
    State(state): State<Arc<AppState>>,
    visitor: Visitor,
    Path((number, line)): Path<(String, usize)>,
    Query(query): Query<Fields>,
) -> Response {
    let (opened, token) = match opened(&state, &visitor, &number, line, &query).await {
        Ok(opened) => opened,
        Err(page) => return page,
    };
    let back = artwork_links::path(&opened.order.number, line, &token);
    canvas::edit_page(
        &state,
        &visitor,
        &opened.request.copy,
        &opened.copy,
        (&back, "Look at the new proof"),
    )
}

/// `POST /artwork/{number}/{line}` (`token`, and the approval box `approve-<pack>` naming the
/// design shown): the copy replaces the line's pack; on to the order's page.
pub async fn approve(
    State(state): State<Arc<AppState>>,
    Path((number, line)): Path<(String, usize)>,
    PostedForm { visitor, fields }: PostedForm,
) -> Result<Response, PageError> {
    let customer = visitor.customer()?;
    let Some((number, line, token)) = addressed(&number, line, &fields) else {
        return Err(refused(ArtworkError::LinkInvalid));
    };
    let approvals = proofs::approvals(&fields);
    let Some(design) = approvals.values().next() else {
        return Err(PageError::new(
            StatusCode::BAD_REQUEST,
            "New artwork",
            "Tick the box under the proof to approve it first.",
        ));
    };
    artwork::approve(&state.services, &number, line, &token, &customer.id, design)
        .await
        .map_err(refused)?;
    Ok(layout::redirect(&visitor, &format!("/orders/{number}")))
}
