//! An order's page in the console: customer, address, packs with their sides, press files
//! with preflight, history and mail.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};

use crate::domain::cart::describe_spec;
use crate::domain::customers;
use crate::domain::ids::OrderNumber;
use crate::domain::one_line::capitalised;
use crate::domain::orders::notes;
use crate::domain::orders::payments::MAX_REFERENCE;
use crate::domain::orders::press_files::{self, PressFileLinks, PressFileState};
use crate::domain::orders::record::{ArtworkChangeKind, OrderStatus, PaymentState, PressVerdict};
use crate::domain::orders::reprint::{self};
use crate::domain::orders::status::MAX_HOLD_REASON;
use crate::domain::orders::{self, Order};
use crate::domain::services::Services;
use crate::http::admin::page::page;
use crate::http::admin::session::{ConsoleError, Staff};
use crate::http::pages::error::PageError;
use crate::http::pages::layout::{alert, when};
use crate::http::pages::orders::{delivery_address, ordered_side_png};
use crate::http::pages::proofs::approval_note;
use crate::http::state::ServicesState;
use crate::infra::queue::{self, JobState};

/// Sides shown per pack, and their size in pixels.
const SHOWN_SIDES: usize = 4;

const THUMBNAIL_SIDE: u32 = 240;

/// How long the press-file links of an order page work.
const PRESS_LINK_SECONDS: u64 = 60 * 60;

/// An order the console may show: placed (committed), else "not found".
pub(crate) async fn placed_order(services: &Services, number: &str) -> Result<Order, ConsoleError> {
    let store = services.store.as_ref();
    let Some(parsed) = OrderNumber::parse(number) else {
        return Err(no_order(number));
    };
    match orders::load(store, &parsed).await? {
        Some(order) if orders::is_committed(store, &order).await? => Ok(order),
        _ => Err(no_order(number)),
    }
}

pub(crate) fn no_order(number: &str) -> ConsoleError {
    PageError::not_found(format!("There is no order {number}.")).into()
}

/// The number of sides of a pack as ordered (its JSON's `sides`).
fn side_count(line: &orders::OrderLine) -> usize {
    #[derive(serde::Deserialize)]
    struct Sides {
        #[serde(default)]
        sides: Vec<serde::de::IgnoredAny>,
    }
    serde_json::from_str::<Sides>(line.pack.get()).map_or(0, |p| p.sides.len())
}

/// `GET /admin/orders/{number}`
pub async fn show(
    State(ServicesState(services)): State<ServicesState>,
    staff: Staff,
    Path(number): Path<String>,
) -> Result<Response, ConsoleError> {
    staff.operator()?;
    let order = placed_order(&services, &number).await?;
    order_page(&services, &staff, &order, None).await
}

/// An order's page, with `problem` (and its status) above it if an action failed.
pub(crate) async fn order_page(
    services: &Services,
    staff: &Staff,
    order: &Order,
    problem: Option<(StatusCode, String)>,
) -> Result<Response, ConsoleError> {
    let store = services.store.as_ref();
    let customer = customers::load(store, &order.customer_id).await?;
    let press = press_files::states(store, order).await?;
    let links = PressFileLinks {
        base_url: "",
        key: &services.secret_key,
        expires: services.clock.unix_seconds() + PRESS_LINK_SECONDS,
    };
    let mail = crate::domain::mail::of_order(store, order).await?;
    let notes = notes::of(store, &order.number).await?;
    let address = &order.delivery;
    let n = &order.number;
    let csrf = html! { input type="hidden" name="csrf" value=(staff.csrf_token); };
    let content = html! {
        @if let Some((_, problem)) = &problem { (alert(problem)) }
        p.lead {
            "Order " strong.order-number { (n) } " · " span.status { (capitalised(order.status.describe())) }
            " · placed " (when(order.placed_at)) " · " (order.amount(order.total))
            " · payment: " span.payment-state { (order.payment.state.describe()) }
        }
        @if let Some(original) = &order.reprint_of {
            p.reprint { "A reprint of " a href=(format!("/admin/orders/{original}")) { (original) } "." }
        }
        @if let OrderStatus::Shipped { carrier, tracking_number } = &order.status {
            p.shipping { "Shipped with " (carrier) ", tracking number " strong.tracking { (tracking_number) } }
        }
        section.console-actions aria-labelledby="actions-heading" {
            h2 #actions-heading { "Actions" }
            @match &order.status {
                OrderStatus::Placed | OrderStatus::OnHold { .. } => {
                    @if let OrderStatus::OnHold { reason } = &order.status {
                        p.notice #hold-reason { "On hold: " (reason) }
                    }
                    @let blocks = press_files::verdict_of(&press) == PressVerdict::Block;
                    form.inline[!blocks].blocked-start[blocks] method="post" action=(format!("/admin/orders/{n}/move")) {
                        (csrf) input type="hidden" name="move" value="start";
                        @if blocks {
                            p.notice #blocked-notice { "A press file of this order blocks: it cannot be printed as it is (see Packs below)." }
                            label.approve {
                                input #over-block type="checkbox" name="over_block" value="yes" required;
                                " I have looked at the press file and start production anyway"
                            }
                        }
                        button #start-production type="submit" { "Start production" }
                    }
                    form.inline method="post" action=(format!("/admin/orders/{n}/move")) {
                        (csrf) input type="hidden" name="move" value="cancel";
                        button #cancel-order.secondary type="submit" { "Cancel order" }
                    }
                    @if matches!(order.status, OrderStatus::OnHold { .. }) {
                        (artwork_form(order, &csrf))
                    }
                    @if order.status == OrderStatus::Placed {
                        form.inline #hold-form method="post" action=(format!("/admin/orders/{n}/move")) {
                            (csrf) input type="hidden" name="move" value="hold";
                            label for="hold-reason-input" { "Reason" }
                            input #hold-reason-input type="text" name="reason" maxlength=(MAX_HOLD_REASON) required;
                            button #hold-order.secondary type="submit" { "Put on hold" }
                        }
                    }
                }
                OrderStatus::InProduction => {
                    form.card #ship-form method="post" action=(format!("/admin/orders/{n}/move")) {
                        (csrf) input type="hidden" name="move" value="ship";
                        label for="ship-carrier" { "Carrier" }
                        input #ship-carrier type="text" name="carrier" maxlength="60" required;
                        label for="ship-tracking" { "Tracking number" }
                        input #ship-tracking type="text" name="tracking" maxlength="100" required;
                        button #ship-order type="submit" { "Mark shipped" }
                    }
                }
                _ => { p { "This order is " (order.status.describe()) "; it does not move on." } }
            }
            a.packing-slip href=(format!("/admin/orders/{n}/packing-slip")) { "Packing slip" }
            a.job-ticket href=(format!("/admin/orders/{n}/job-ticket")) download { "Job ticket (PDF)" }
            a.invoice href=(format!("/admin/orders/{n}/invoice")) download { "Invoice (PDF)" }
            @if order.status != OrderStatus::Cancelled {
                form.inline method="post" action=(format!("/admin/orders/{n}/reprint")) {
                    (csrf) input type="hidden" name="key" value=(reprint::form_key());
                    button #reprint.secondary type="submit" { "Reprint as a new order" }
                }
            }
        }
        (payment_section(order, &csrf))
        h2 { "Customer" }
        p.customer {
            @if let Some(customer) = &customer { (customer.name) " · " }
            a href=(format!("mailto:{}", order.customer_email)) { (order.customer_email) }
            @if let Some(customer) = &customer {
                @if customer.email_confirmed { " (address confirmed)" } @else { " (address not confirmed)" }
            }
        }
        (delivery_address(address))
        h2 { "Packs" }
        ul.lines aria-label="Packs in this order" {
            @for (index, line) in order.lines.iter().enumerate() {
                li.line {
                    div.sides {
                        @for side in 0..side_count(line).min(SHOWN_SIDES) {
                            img.thumb src=(format!("/admin/orders/{n}/lines/{index}/sides/{side}"))
                                alt=(format!("Side {} of {}", side + 1, line.name)) loading="lazy";
                        }
                    }
                    div.summary {
                        strong.name { (line.name) } " × " (line.quantity)
                        @if line.trial { " " span.badge { "Trial pack" } }
                        p.spec { (line.product) " · " (describe_spec(&line.physical_spec)) }
                        p.partner { "Partner key " code { (line.created_by) }
                            @if let Some(tracking) = &line.tracking_id { " · tracking id " code { (tracking) } } }
                        (approval_note(line.proof_approval.as_ref()))
                        (press_file(n, index, press.get(index), &links))
                    }
                }
            }
        }
        h2 { "History" }
        (history(order))
        section.notes aria-labelledby="notes-heading" {
            h2 #notes-heading { "Notes" }
            p.hint { "For the floor only: customers never see them." }
            @if notes.is_empty() {
                p { "No notes yet." }
            } @else {
                ol.notes {
                    @for note in &notes {
                        li { span.note-meta { (when(note.at)) " · " (note.by) } p.note-text { (note.text) } }
                    }
                }
            }
            form #note-form method="post" action=(format!("/admin/orders/{n}/notes")) {
                (csrf)
                label for="note-text" { "Add a note" }
                textarea #note-text name="note" rows="3" maxlength=(notes::MAX_NOTE) required {}
                button #add-note.secondary type="submit" { "Add note" }
            }
        }
        h2 { "E-mail" }
        @if mail.is_empty() {
            p { @if services.mailer.is_configured() { "No mail for this order." } @else { "This shop sends no e-mail (no SMTP server is configured)." } }
        } @else {
            (mail_table(&mail))
        }
    };
    let title = format!("Order {n}");
    let page = page(staff, &title, content);
    Ok(match problem {
        Some((status, _)) => (status, page).into_response(),
        None => page,
    })
}

/// Everything that happened to the order, oldest first: its moves, the new artwork asked for
/// and given, the paperwork taken of it.
fn history(order: &Order) -> Markup {
    let mut entries: Vec<(u64, Markup)> = Vec::new();
    if order.reprint_of.is_none() {
        entries.push((order.placed_at, html! { "placed by the customer" }));
    }
    for change in &order.history {
        entries.push((
            change.at,
            html! {
                (change.status.describe()) " by " (change.by)
                @if change.over_block { strong.over-block { " over a press file that blocks" } }
            },
        ));
    }
    for change in &order.artwork {
        let pack = change.line + 1;
        entries.push((change.at, match &change.kind {
            ArtworkChangeKind::Requested { .. } => html! { "new artwork for pack " (pack) " asked of the customer by " (change.by) },
            ArtworkChangeKind::Replaced { previous_pack_id, .. } => html! { "pack " (pack) " replaced with new artwork by " (change.by) " (it was " code { (previous_pack_id) } ")" },
        }));
    }
    for taken in &order.paperwork {
        entries.push((
            taken.at,
            html! { (taken.what.describe()) " by " (taken.by) },
        ));
    }
    // (Stable: what happened in one second keeps its order within each kind.)
    entries.sort_by_key(|(at, _)| *at);
    html! {
        ol.history {
            @for (at, entry) in &entries { li { (when(*at)) ": " (entry) } }
        }
    }
}

/// The request for new artwork of a held order: which pack (when there are several).
fn artwork_form(order: &Order, csrf: &Markup) -> Markup {
    let n = &order.number;
    html! {
        form.inline #artwork-form method="post" action=(format!("/admin/orders/{n}/artwork")) {
            (csrf)
            @if let [_] = order.lines.as_slice() {
                input type="hidden" name="pack" value="1";
            } @else {
                label for="artwork-pack" { "Pack" }
                select #artwork-pack name="pack" {
                    @for (index, line) in order.lines.iter().enumerate() {
                        option value=(index + 1) { (index + 1) ": " (line.name) }
                    }
                }
            }
            button #ask-artwork.secondary type="submit" { "Ask the customer for new artwork" }
        }
    }
}

/// The order's payment: who recorded what, when, and the form for the next step.
fn payment_section(order: &Order, csrf: &Markup) -> Markup {
    let n = &order.number;
    let action = format!("/admin/orders/{n}/payment");
    html! {
        section.payment aria-labelledby="payment-heading" {
            h2 #payment-heading { "Payment" }
            @if order.payment.history.is_empty() {
                p { (capitalised(order.payment.state.describe())) " (" (order.payment.provider) ")." }
            } @else {
                ol.payment-history {
                    @for change in &order.payment.history {
                        li { (when(change.at)) ": " (change.state.describe()) " by " (change.by)
                            @if !change.reference.is_empty() { ", reference " code.reference { (change.reference) } } }
                    }
                }
            }
            @match order.payment.state {
                PaymentState::AwaitingInvoicePayment => {
                    form.inline #paid-form method="post" action=(action) {
                        (csrf) input type="hidden" name="payment" value="paid";
                        label for="paid-reference" { "Reference" }
                        input #paid-reference type="text" name="reference" maxlength=(MAX_REFERENCE) required;
                        button #mark-paid type="submit" { "Mark paid" }
                    }
                }
                PaymentState::Paid if order.total > 0 => {
                    form.inline #refund-form method="post" action=(action) {
                        (csrf) input type="hidden" name="payment" value="refunded";
                        label for="refund-reference" { "Reference (optional)" }
                        input #refund-reference type="text" name="reference" maxlength=(MAX_REFERENCE);
                        button #mark-refunded.secondary type="submit" { "Mark refunded" }
                    }
                }
                _ => {}
            }
        }
    }
}

/// A pack's press file: its link and preflight, or where it is.
fn press_file(
    number: &str,
    line: usize,
    state: Option<&PressFileState>,
    links: &PressFileLinks<'_>,
) -> Markup {
    html! {
        div.press-file {
            @match state {
                Some(PressFileState::Produced { bytes, report, .. }) => {
                    p {
                        a.press-link href=(links.link(number, line).url) download {
                            "Press file " (press_files::file_name(number, line))
                        }
                        " · " (bytes / 1024) " KB · preflight: " strong.verdict { (report.verdict.name()) }
                        @if let Some(colour) = &report.colour {
                            " · " span.colour-facts {
                                (colour.condition) ", most ink " (colour.max_ink) "%"
                                @if let Some(limit) = colour.ink_limit { " (limit " (limit) "%)" }
                            }
                        }
                    }
                    @let findings: Vec<_> = report.pages.iter().flat_map(|p| p.findings.iter().map(move |f| (&p.side, f))).collect();
                    @if !findings.is_empty() {
                        ul.findings {
                            @for (side, finding) in findings {
                                li { (side) " " (finding.link_id) ": " (finding.message) }
                            }
                        }
                    }
                }
                Some(PressFileState::Failed { reason }) => { p.problem { "Cannot be printed as it is: " (reason) } }
                Some(PressFileState::InProduction { last_error }) => {
                    p { "Press file being made"
                        @if let Some(error) = last_error { " (the last attempt failed: " (error) ")" } }
                }
                Some(PressFileState::GaveUp { last_error }) => {
                    p.problem { "The press file could not be made: " (last_error.as_deref().unwrap_or("no reason recorded")) }
                }
                Some(PressFileState::NotQueued) | None => { p { "No press file (placed before press files were made; `presspack orders artwork` queues it)." } }
            }
        }
    }
}

pub(crate) fn mail_table(mail: &[queue::Job<crate::domain::mail::MailMessage>]) -> Markup {
    html! {
        table.mail {
            caption.visually-hidden { "E-mail" }
            thead { tr { th scope="col" { "Message" } th scope="col" { "To" } th scope="col" { "Queued" } th scope="col" { "State" } th scope="col" { "Attempts" } th scope="col" { "Last error" } } }
            tbody {
                @for job in mail {
                    tr.mail-job {
                        td {
                            @if let Some(number) = &job.payload.order_number {
                                a href=(format!("/admin/orders/{number}")) { (number) } " "
                            }
                            (job.payload.kind.describe())
                        }
                        td { (job.payload.to) }
                        td { (when(u64::try_from(job.created_at / 1000).unwrap_or(0))) }
                        td.mail-state { (match job.state { JobState::Pending => "waiting to be sent", JobState::Done => "sent", JobState::GaveUp => "given up" }) }
                        td { (job.attempts) }
                        td { (job.last_error.as_deref().unwrap_or("")) }
                    }
                }
            }
        }
    }
}

/// `GET /admin/orders/{number}/lines/{line}/sides/{side}`: a side of a pack as ordered, PNG.
pub async fn side_image(
    State(ServicesState(services)): State<ServicesState>,
    staff: Staff,
    Path((number, line, side)): Path<(String, usize, usize)>,
) -> Result<Response, ConsoleError> {
    staff.operator()?;
    let order = placed_order(&services, &number).await?;
    Ok(ordered_side_png(&services, &order, line, side, THUMBNAIL_SIDE).await?)
}
