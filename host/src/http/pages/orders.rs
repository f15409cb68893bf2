//! Checkout, the order confirmation (which makes the order confirmation callback from the
//! browser) and the order history. A customer sees only their own orders: any other order
//! number is "not found".

use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use presspack_engine::render::BoxType;

use crate::domain::cart::{PricedLine, describe_spec, priced_lines};
use crate::domain::customers::Customer;
use crate::domain::ids::OrderNumber;
use crate::domain::keys;
use crate::domain::one_line::{self, capitalised};
use crate::domain::orders::invoices;
use crate::domain::orders::press_files::{self, LinkError, PressFileState, check_link};
use crate::domain::orders::record::OrderStatus;
use crate::domain::orders::{
    self, CHECKOUT_LEASE, CheckoutError, DeliveryAddress, Order, Placed, cart_state,
};
use crate::domain::press::ordered_proof;
use crate::domain::services::Services;
use crate::domain::sides;
use crate::http::pages::account_links::resend_confirmation_form;
use crate::http::pages::cart::line_summary;
use crate::http::pages::error::PageError;
use crate::http::pages::forms::{Fields, PostedForm, csrf_field};
use crate::http::pages::layout;
use crate::http::pages::proofs;
use crate::http::pages::sessions::Visitor;
use crate::http::state::ServicesState;
use crate::infra::store::{Delivery, StoreError};

/// Address fields: (form name, label, autocomplete, required, longest).
const ADDRESS_FIELDS: [(&str, &str, &str, bool, usize); 6] = [
    ("name", "Full name", "name", true, 100),
    ("line1", "Address", "address-line1", true, 200),
    (
        "line2",
        "Address line 2 (optional)",
        "address-line2",
        false,
        200,
    ),
    ("city", "Town or city", "address-level2", true, 100),
    ("postcode", "Postcode", "postal-code", true, 20),
    ("country", "Country", "country-name", true, 60),
];

fn read_address(fields: &Fields) -> Result<DeliveryAddress, String> {
    let mut values = Vec::new();
    for (name, label, _, required, longest) in ADDRESS_FIELDS {
        let value = fields.get(name).map_or("", String::as_str);
        let checked = match required {
            true => one_line::required(value, longest),
            false => one_line::optional(value, longest),
        };
        values.push(
            checked
                .map_err(|problem| format!("{label}: {problem}"))?
                .to_owned(),
        );
    }
    let [name, line1, line2, city, postcode, country] =
        <[String; 6]>::try_from(values).map_err(|_| "address".to_owned())?;
    Ok(DeliveryAddress {
        name,
        line1,
        line2,
        city,
        postcode,
        country,
    })
}

/// The id of the checkout form, which the proofs' approval boxes belong to.
const CHECKOUT_FORM: &str = "checkout-form";

fn checkout_page(
    services: &Services,
    visitor: &Visitor,
    lines: &[PricedLine],
    fields: &Fields,
    problem: Option<&str>,
) -> Response {
    let total = crate::domain::cart::total(services.prices.currency, lines);
    let content = html! {
        @if let Some(problem) = problem { (layout::alert(problem)) }
        (unconfirmed_notice(services, visitor, "Your invoice and proofs are e-mailed once you confirm your address"))
        @if lines.is_empty() {
            p.lead { "Your cart is empty." } p { a href="/cart" { "Back to your cart" } }
        } @else {
            section.proofs aria-labelledby="proofs-heading" {
                h2 #proofs-heading { "Check your proofs" }
                p.hint {
                    @if lines.iter().all(|line| line.pack.is_orderable()) {
                        "This is what goes to press. Look at every side, then approve each proof."
                    } @else {
                        "This is what goes to press. A design marked below cannot be ordered yet: fix it in the editor, then approve each proof."
                    }
                }
                @for line in lines { (proofs::proof(services, line, CHECKOUT_FORM, fields)) }
            }
            div.columns {
                section.card aria-label="Order summary" {
                    h2 { "Your order" }
                    ul.lines {
                        @for line in lines {
                            li.line { (line_summary(line)) p.line-total { (line.quantity) " × " (line.unit_price) " = " (line.line_total) } }
                        }
                    }
                    p.total { "Total " strong { (total) } }
                }
                form.card id=(CHECKOUT_FORM) method="post" action="/checkout" {
                    h2 { "Delivery address" }
                    (csrf_field(visitor))
                    // One key per showing of the form: however often it is sent, one order.
                    input type="hidden" name="checkout" value=(crate::infra::store::random_id());
                    input type="hidden" name="cart" value=(cart_state(lines));
                    @for (name, label, autocomplete, required, longest) in ADDRESS_FIELDS {
                        label for=(name) { (label) }
                        input id=(name) type="text" name=(name) autocomplete=(autocomplete)
                            maxlength=(longest) required[required]
                            value=(fields.get(name).map_or("", String::as_str));
                    }
                    h2 { "Payment" }
                    p.hint { "Pay by invoice: the shop sends it for your order, payable within 14 days." }
                    button type="submit" { "Place order" }
                }
            }
        }
    };
    layout::page(visitor, "Checkout", content)
}

/// For a signed-in customer whose address is not confirmed (in a shop that sends mail): what
/// waits for it, `waiting`, and a button that sends the link again.
fn unconfirmed_notice(services: &Services, visitor: &Visitor, waiting: &str) -> Markup {
    let unconfirmed = visitor
        .customer
        .as_ref()
        .filter(|c| services.mailer.is_configured() && !c.email_confirmed);
    html! {
        @if let Some(customer) = unconfirmed {
            div.notice.unconfirmed role="status" {
                p { (waiting) ": follow the link we sent to " strong { (customer.email) } "." }
                (resend_confirmation_form(visitor))
            }
        }
    }
}

/// `GET /checkout`
pub async fn checkout(
    State(ServicesState(services)): State<ServicesState>,
    visitor: Visitor,
) -> Result<Response, PageError> {
    let lines = priced_lines(&services, visitor.customer()?).await?;
    Ok(checkout_page(
        &services,
        &visitor,
        &lines,
        &Fields::new(),
        None,
    ))
}

/// `POST /checkout`: places the order and shows its confirmation. A second sending of the
/// same form (a double click, a reload) shows the first one's order instead of placing
/// another.
pub async fn place_order(
    State(ServicesState(services)): State<ServicesState>,
    PostedForm { visitor, fields }: PostedForm,
) -> Result<Response, PageError> {
    let customer = visitor.customer()?;
    let key = fields
        .get("checkout")
        .filter(|key| key.len() == 32 && key.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| {
            PageError::bad_request(
                "This checkout form has expired. Go back to your cart and check out again.",
            )
        })?;
    // A form sent before (a second click) shows the order it placed, whatever the cart holds
    // by now; one whose sending a crash left unplaced is placed below.
    let mut customer = customer.clone();
    if let Some(earlier) = customer.checkouts.iter().find(|c| &c.key == key) {
        let number = earlier.order_number.clone();
        match placed_by_another_click(&services, &visitor, &number, key).await? {
            Some(response) => return Ok(response),
            None => customer = current_customer(&services, &customer.id).await?,
        }
    }
    let customer = &customer;
    let lines = priced_lines(&services, customer).await?;
    let (status, problem) = if lines.is_empty() {
        (
            StatusCode::BAD_REQUEST,
            CheckoutError::EmptyCart.to_string(),
        )
    } else if fields.get("cart") != Some(&cart_state(&lines)) {
        (
            StatusCode::CONFLICT,
            "Your cart changed since this page was shown. Check your order below and place it again."
                .to_owned(),
        )
    } else {
        match read_address(&fields) {
            Err(problem) => (StatusCode::BAD_REQUEST, problem),
            Ok(delivery) => match orders::place(
                &services,
                customer,
                &lines,
                &proofs::approvals(&fields),
                delivery,
                key,
            )
            .await
            {
                Ok(Placed::New(order)) => {
                    let confirmation = format!("/orders/{}/confirmation", order.number);
                    return Ok(layout::redirect(&visitor, &confirmation));
                }
                Ok(Placed::Already(number)) => {
                    let shown = placed_by_another_click(&services, &visitor, &number, key).await?;
                    return Ok(shown.unwrap_or_else(|| {
                        let page =
                            checkout_page(&services, &visitor, &lines, &fields, Some(NOT_PLACED));
                        (StatusCode::CONFLICT, page).into_response()
                    }));
                }
                Err(CheckoutError::Api(error)) => return Err(error.into()),
                Err(
                    error @ (CheckoutError::TrialAlreadyOrdered(_)
                    | CheckoutError::CartChanged
                    | CheckoutError::ProofChanged(_)
                    | CheckoutError::ConfirmAddressFirst(_)),
                ) => (StatusCode::CONFLICT, error.to_string()),
                Err(error) => (StatusCode::BAD_REQUEST, error.to_string()),
            },
        }
    };
    // The cart as it is now: another form may have ordered it meanwhile.
    let customer = current_customer(&services, &customer.id).await?;
    let lines = priced_lines(&services, &customer).await?;
    let page = checkout_page(&services, &visitor, &lines, &fields, Some(&problem));
    Ok((status, page).into_response())
}

/// What the checkout page says when an earlier sending of its form did not place the order.
const NOT_PLACED: &str = "Your order was not placed. Check it below and place it again.";

/// The customer record as stored now.
async fn current_customer(services: &Services, id: &str) -> Result<Customer, PageError> {
    crate::domain::customers::load(services.store.as_ref(), id)
        .await?
        .ok_or_else(PageError::sign_in_needed)
}

/// How long a second sending of a checkout form waits for the first to place its order:
/// longer than a claim's lease, so a wait ends with the order or with the claim run out.
const PLACING_WAIT: std::time::Duration =
    CHECKOUT_LEASE.saturating_add(std::time::Duration::from_secs(5));

/// The answer to a checkout form sent again: once the first sending's order `number` is
/// placed, its confirmation; if that sending failed, the checkout page again; `None` if a
/// crash left its claim unplaced (run out), for this sending to place the order.
async fn placed_by_another_click(
    services: &Services,
    visitor: &Visitor,
    number: &OrderNumber,
    key: &str,
) -> Result<Option<Response>, PageError> {
    let customer = visitor.customer()?;
    let deadline = tokio::time::Instant::now() + PLACING_WAIT;
    loop {
        let record = current_customer(services, &customer.id).await?;
        if record.orders.iter().any(|placed| placed == number) {
            let confirmation = format!("/orders/{number}/confirmation");
            return Ok(Some(layout::redirect(visitor, &confirmation)));
        }
        let Some(claim) = record.checkouts.iter().find(|c| c.key == key) else {
            let lines = priced_lines(services, &record).await?;
            let page = checkout_page(services, visitor, &lines, &Fields::new(), Some(NOT_PLACED));
            return Ok(Some((StatusCode::CONFLICT, page).into_response()));
        };
        if !claim.is_placing(services.clock.unix_millis()) {
            return Ok(None);
        }
        // Said only of an order whose record exists: one that is being committed.
        if tokio::time::Instant::now() >= deadline
            && orders::load(services.store.as_ref(), &claim.order_number)
                .await?
                .is_some()
        {
            return Err(PageError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "Your order is on its way",
                "Your order is still being placed. Look in Your orders in a moment rather than ordering again.",
            ));
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// The visitor's order `number`; another customer's order is "not found".
async fn own_order(
    services: &Services,
    visitor: &Visitor,
    number: &str,
) -> Result<Order, PageError> {
    let customer = visitor.customer()?;
    let not_found = || PageError::not_found("There is no such order in your account.");
    let number = OrderNumber::parse(number).ok_or_else(not_found)?;
    match orders::load(services.store.as_ref(), &number).await? {
        Some(order) if order.customer_id == customer.id => Ok(order),
        _ => Err(not_found()),
    }
}

fn order_details(order: &Order) -> Markup {
    let address = &order.delivery;
    html! {
        p.lead { "Order " strong.order-number { (order.number) } " · " span.status { (capitalised(order.status.describe())) } " · Payment: " (order.payment.state.describe()) }
        @if let OrderStatus::Shipped { carrier, tracking_number } = &order.status {
            p.shipping { "Shipped with " (carrier) ", tracking number " strong.tracking { (tracking_number) } }
        }
        ul.lines aria-label="Packs in this order" {
            @for (index, line) in order.lines.iter().enumerate() {
                li.line {
                    img.thumb src=(format!("/orders/{}/lines/{index}/sides/0", order.number)) alt=(format!("Front of {}", line.name));
                    div.summary {
                        strong.name { (line.name) }
                        @if line.trial { " " span.badge { "Trial pack" } }
                        p.spec { (describe_spec(&line.physical_spec)) }
                    }
                    p.line-total { (line.quantity) " × " (order.amount(line.unit_price)) " = " (order.amount(line.line_total)) }
                    p.proof { a.proof-link href=(format!("/orders/{}/proof/{index}", order.number)) download { "Proof (PDF)" } }
                    (proofs::approval_note(line.proof_approval.as_ref()))
                }
            }
        }
        p.total { "Total " strong { (order.amount(order.total)) } " · " a.invoice-link href=(format!("/orders/{}/invoice", order.number)) download { "Invoice (PDF)" } }
        h2 { "Delivery to" }
        (delivery_address(address))
    }
}

/// The browser side of the order confirmation callback: for each pack with a trackingId whose
/// API key has a callback URL, the URL, tracking id and order number.
async fn callbacks(services: &Services, order: &Order) -> Result<Vec<(String, String)>, PageError> {
    let mut calls = Vec::new();
    for line in &order.lines {
        let Some(tracking_id) = &line.tracking_id else {
            continue;
        };
        let key = keys::find(services.store.as_ref(), &line.created_by).await?;
        if let Some(url) = key.and_then(|k| k.order_callback_url) {
            calls.push((url, tracking_id.clone()));
        }
    }
    Ok(calls)
}

fn origin(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    Some(url.origin().ascii_serialization())
}

/// `GET /orders/{number}/confirmation`
pub async fn confirmation(
    State(ServicesState(services)): State<ServicesState>,
    visitor: Visitor,
    Path(number): Path<String>,
) -> Result<Response, PageError> {
    let order = own_order(&services, &visitor, &number).await?;
    let calls = callbacks(&services, &order).await?;
    let mut origins: Vec<String> = calls.iter().filter_map(|(url, _)| origin(url)).collect();
    origins.sort();
    origins.dedup();
    let content = html! {
        p.notice.success role="status" { "Thank you! Your order is placed. You pay by invoice; keep your order number for reference." }
        @if services.mailer.is_configured() && !visitor.customer.as_ref().is_some_and(|c| c.email_confirmed) {
            (unconfirmed_notice(&services, &visitor, "A confirmation with your invoice and a proof of each pack goes to you once you confirm your address"))
        } @else if services.mailer.is_configured() {
            p.mail-notice { "A confirmation with your invoice and a proof of each pack is on its way to " strong { (order.customer_email) } "." }
        } @else {
            p.mail-notice { "This shop sends no e-mail: this page and your order list are your record of the order." }
        }
        (order_details(&order))
        @if !calls.is_empty() {
            ul #order-callbacks hidden {
                @for (url, tracking_id) in &calls {
                    li data-callback-url=(url) data-tracking-id=(tracking_id) data-order-number=(order.number) {}
                }
            }
            script src="/static/confirmation.js" defer {}
        }
        p.actions { a.button href="/orders" { "Your orders" } }
    };
    Ok(layout::page_with(
        &visitor,
        "Order confirmed",
        content,
        &origins,
    ))
}

/// `GET /orders/{number}`
pub async fn show(
    State(ServicesState(services)): State<ServicesState>,
    visitor: Visitor,
    Path(number): Path<String>,
) -> Result<Response, PageError> {
    let order = own_order(&services, &visitor, &number).await?;
    let title = format!("Order {}", order.number);
    Ok(layout::page(&visitor, &title, order_details(&order)))
}

/// `GET /orders/{number}/lines/{line}/sides/{side}`: a side of a pack as it was ordered
/// (not as the pack is now: the customer may have changed it since), PNG.
pub async fn ordered_side_image(
    State(ServicesState(services)): State<ServicesState>,
    visitor: Visitor,
    Path((number, line, side)): Path<(String, usize, usize)>,
) -> Result<Response, PageError> {
    let order = own_order(&services, &visitor, &number).await?;
    visitor.count_engine_page(services.store.as_ref()).await?;
    ordered_side_png(&services, &order, line, side, ORDERED_THUMBNAIL_SIDE).await
}

/// The longest side of an ordered pack's picture on the order page.
const ORDERED_THUMBNAIL_SIDE: u32 = 300;

/// Side `side` of line `line` of `order`, as ordered, at most `max_side` pixels: a PNG the
/// browser may keep for an hour (what was ordered does not change).
pub(crate) async fn ordered_side_png(
    services: &Services,
    order: &Order,
    line: usize,
    side: usize,
    max_side: u32,
) -> Result<Response, PageError> {
    let line = order
        .lines
        .get(line)
        .ok_or_else(|| PageError::not_found("This order has no such pack."))?;
    let png = sides::pack_side(
        services,
        &line.product,
        &line.pack,
        side,
        max_side,
        BoxType::Cut,
    )
    .await
    .map_err(|e| {
        PageError::unless_not_found(e, || PageError::not_found("This side cannot be shown."))
    })?;
    Ok(layout::png(png, "private, max-age=3600"))
}

/// `GET /orders/{number}/proof/{line}`: a proof PDF of one pack of the customer's own order,
/// as it was ordered (images at screen resolution, no marks).
pub async fn proof(
    State(ServicesState(services)): State<ServicesState>,
    visitor: Visitor,
    Path((number, index)): Path<(String, usize)>,
) -> Result<Response, PageError> {
    let order = own_order(&services, &visitor, &number).await?;
    let line = order
        .lines
        .get(index)
        .ok_or_else(|| PageError::not_found("This order has no such pack."))?;
    visitor.count_engine_page(services.store.as_ref()).await?;
    let pdf = ordered_proof(&services, &order.number, index, line).await?;
    Ok(layout::pdf(
        pdf,
        &format!("{}-{}.pdf", order.number, index + 1),
    ))
}

/// `GET /orders/{number}/invoice`: the invoice of the customer's own order, as its payment
/// stands now.
pub async fn invoice(
    State(ServicesState(services)): State<ServicesState>,
    visitor: Visitor,
    Path(number): Path<String>,
) -> Result<Response, PageError> {
    let order = own_order(&services, &visitor, &number).await?;
    visitor.count_engine_page(services.store.as_ref()).await?;
    let (number, pdf) = invoices::invoice_pdf(&services, &order).await?;
    Ok(layout::pdf(pdf, &invoices::file_name(&number)))
}

/// `GET /orders`: the customer's orders, newest first.
pub async fn history(
    State(ServicesState(services)): State<ServicesState>,
    visitor: Visitor,
) -> Result<Response, PageError> {
    let customer = visitor.customer()?;
    let mut orders = Vec::new();
    for number in customer.orders.iter().rev() {
        orders.extend(crate::domain::orders::load(services.store.as_ref(), number).await?);
    }
    let content = html! {
        @if orders.is_empty() {
            p.lead { "You have not ordered anything yet." }
        } @else {
            table.orders {
                caption.visually-hidden { "Your orders" }
                thead { tr { th scope="col" { "Order" } th scope="col" { "Packs" } th scope="col" { "Total" } th scope="col" { "Payment" } } }
                tbody {
                    @for order in &orders {
                        tr {
                            td { a href=(format!("/orders/{}", order.number)) { (order.number) } }
                            td { @for (i, line) in order.lines.iter().enumerate() { @if i > 0 { ", " } (line.name) " × " (line.quantity) } }
                            td { (order.amount(order.total)) }
                            td { (order.payment.state.describe()) }
                        }
                    }
                }
            }
        }
    };
    Ok(layout::page(&visitor, "Your orders", content))
}

/// The query of a press file's signed address.
#[derive(serde::Deserialize)]
pub struct PressFileAddress {
    expires: u64,
    signature: String,
}

/// `GET /press-files/{number}/{line}?expires=&signature=`: a pack's press file, for whoever
/// holds the address the order webhook gave (no session and no key: the signature is the
/// permission, until it expires). Answers are plain text, for programs.
pub async fn press_file_download(
    State(ServicesState(services)): State<ServicesState>,
    Path((number, line)): Path<(String, usize)>,
    Query(address): Query<PressFileAddress>,
) -> Response {
    let text = |status: StatusCode, message: String| {
        (
            status,
            [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
            message,
        )
            .into_response()
    };
    let now = services.clock.unix_seconds();
    if let Err(error) = check_link(
        &services.secret_key,
        &number,
        line,
        address.expires,
        &address.signature,
        now,
    ) {
        let status = match error {
            LinkError::Forged => StatusCode::FORBIDDEN,
            LinkError::Expired => StatusCode::GONE,
        };
        return text(status, error.to_string());
    }
    let no_such_order = || text(StatusCode::NOT_FOUND, "there is no such order".to_owned());
    let Some(number) = OrderNumber::parse(&number) else {
        return no_such_order();
    };
    let unavailable = |error: StoreError| {
        tracing::warn!(%error, order = %number, "press file download");
        text(
            StatusCode::SERVICE_UNAVAILABLE,
            "the store is unavailable; try again".to_owned(),
        )
    };
    let store = services.store.as_ref();
    let order = match orders::load(store, &number).await {
        Ok(Some(order)) => order,
        Ok(None) => return no_such_order(),
        Err(error) => return unavailable(error),
    };
    let states = match press_files::states(store, &order).await {
        Ok(states) => states,
        Err(error) => return unavailable(error),
    };
    let blob = match states.get(line) {
        Some(PressFileState::Produced { blob, .. }) => blob,
        Some(PressFileState::InProduction { .. }) => {
            let mut busy = text(
                StatusCode::SERVICE_UNAVAILABLE,
                "the press file is being made; try again in a few seconds".to_owned(),
            );
            busy.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            return busy;
        }
        Some(PressFileState::Failed { reason }) => {
            return text(
                StatusCode::CONFLICT,
                format!("the pack cannot be printed as it is: {reason}"),
            );
        }
        Some(PressFileState::GaveUp { .. }) => {
            return text(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the press file could not be made; the shop can see why".to_owned(),
            );
        }
        Some(PressFileState::NotQueued) => {
            return text(
                StatusCode::NOT_FOUND,
                "no press files were made for this order".to_owned(),
            );
        }
        None => {
            return text(
                StatusCode::NOT_FOUND,
                "the order has no such pack".to_owned(),
            );
        }
    };
    let disposition = format!(
        "attachment; filename=\"{}\"",
        press_files::file_name(&order.number, line)
    );
    let delivery = Delivery {
        content_type: "application/pdf",
        cache_control: "private, max-age=3600",
        disposition: Some(&disposition),
    };
    match crate::http::blob_response(services.blobs.as_ref(), blob, &delivery).await {
        Ok(Some(response)) => response,
        Ok(None) => {
            tracing::error!(order = %number, line, "a press file's blob is missing");
            text(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the press file is missing from the store".to_owned(),
            )
        }
        Err(error) => unavailable(error),
    }
}

/// Where an order goes, as every page and slip shows it.
pub(crate) fn delivery_address(address: &DeliveryAddress) -> Markup {
    html! {
        address {
            (address.name) br; (address.line1) br;
            @if !address.line2.is_empty() { (address.line2) br; }
            (address.city) " " (address.postcode) br; (address.country)
        }
    }
}
