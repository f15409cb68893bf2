//! The console's order pages: the paged, filtered list; an order's page (customer, address,
//! packs with their sides, press files with preflight, history, mail) with the state changes
//! and the reprint; and the mail that has not gone out.

use std::sync::Arc;

use axum::extract::{Form, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use time::{Date, Month};

use crate::domain::cart::describe_spec;
use crate::domain::customers;
use crate::domain::mail::Mails;
use crate::domain::orders::press_files::{self, PressFileLinks, PressFileState};
use crate::domain::orders::record::OrderStatus;
use crate::domain::orders::reprint::{self, ReprintError};
use crate::domain::orders::status::{self, Mailing, Move, MoveError};
use crate::domain::orders::{self, Order};
use crate::domain::prices::money;
use crate::domain::services::Services;
use crate::http::admin::page::page;
use crate::http::admin::session::{ConsoleError, Staff};
use crate::http::pages::error::PageError;
use crate::http::pages::forms::{Fields, field};
use crate::http::pages::layout::{alert, redirect_setting, when};
use crate::http::pages::orders::{capitalised, ordered_side_png};
use crate::http::pages::proofs::approval_note;
use crate::http::state::AppState;
use crate::infra::clock::unix_seconds;
use crate::infra::queue::{self, JobState};

/// Orders per page of the list.
const PAGE_SIZE: usize = 25;
/// Longest filter value.
const MAX_FILTER: usize = 200;
/// Sides shown per pack, and their size in pixels.
const SHOWN_SIDES: usize = 4;
const THUMBNAIL_SIDE: u32 = 240;
/// How long the press-file links of an order page work.
const PRESS_LINK_SECONDS: u64 = 60 * 60;

const STATES: [(&str, &str); 5] = [
    ("", "Any state"),
    ("placed", "Placed"),
    ("in_production", "In production"),
    ("shipped", "Shipped"),
    ("cancelled", "Cancelled"),
];

/// The start of a `YYYY-MM-DD` day (UTC), seconds since 1970.
fn day_start(parameter: &'static str, text: &str) -> Result<u64, String> {
    let problem = || format!("{parameter}: a date as YYYY-MM-DD, such as 2026-11-27");
    let mut parts = text.splitn(3, '-').map(str::parse::<u32>);
    let (Some(Ok(year)), Some(Ok(month)), Some(Ok(day))) =
        (parts.next(), parts.next(), parts.next())
    else {
        return Err(problem());
    };
    let month = u8::try_from(month)
        .ok()
        .and_then(|m| Month::try_from(m).ok());
    let date = match (i32::try_from(year), month, u8::try_from(day)) {
        (Ok(year), Some(month), Ok(day)) if (1970..=9999).contains(&year) => {
            Date::from_calendar_date(year, month, day).map_err(|_| problem())?
        }
        _ => return Err(problem()),
    };
    u64::try_from(date.midnight().assume_utc().unix_timestamp()).map_err(|_| problem())
}

/// The list's filters, read from the query.
struct Filter {
    state: String,
    from: String,
    to: String,
    key: String,
    search: String,
    page: usize,
    /// Placed at or after, and before, seconds since 1970.
    window: (u64, u64),
}

impl Filter {
    fn read(query: &Fields) -> Result<Filter, String> {
        let text = |name: &'static str| -> Result<String, String> {
            let value = field(query, name).trim();
            if value.chars().count() > MAX_FILTER {
                return Err(format!("{name}: at most {MAX_FILTER} characters"));
            }
            Ok(value.to_owned())
        };
        let state = text("state")?;
        if !STATES.iter().any(|(code, _)| *code == state) {
            return Err(
                "state: one of placed, in_production, shipped, cancelled, or none".to_owned(),
            );
        }
        let (from, to) = (text("from")?, text("to")?);
        let start = match from.as_str() {
            "" => 0,
            day => day_start("from", day)?,
        };
        let end = match to.as_str() {
            "" => u64::MAX,
            day => day_start("to", day)? + 24 * 60 * 60,
        };
        let page = match text("page")?.as_str() {
            "" => 1,
            number => number
                .parse::<usize>()
                .ok()
                .filter(|page| (1..=100_000).contains(page))
                .ok_or("page: a page number from 1")?,
        };
        Ok(Filter {
            state,
            from,
            to,
            key: text("key")?,
            search: text("q")?.to_lowercase(),
            page,
            window: (start, end),
        })
    }

    /// Whether every order matches.
    fn is_empty(&self) -> bool {
        [&self.state, &self.from, &self.to, &self.key, &self.search]
            .iter()
            .all(|value| value.is_empty())
    }

    fn matches(&self, order: &Order) -> bool {
        (self.state.is_empty() || order.status.code() == self.state)
            && (self.window.0..self.window.1).contains(&order.placed_at)
            && (self.key.is_empty() || order.lines.iter().any(|l| l.created_by == self.key))
            && (self.search.is_empty()
                || order.number.to_lowercase().contains(&self.search)
                || order.customer_email.contains(&self.search))
    }

    /// The list's address with these filters, on `page`.
    fn address(&self, page: usize) -> String {
        let query: String = form_urlencoded::Serializer::new(String::new())
            .append_pair("state", &self.state)
            .append_pair("from", &self.from)
            .append_pair("to", &self.to)
            .append_pair("key", &self.key)
            .append_pair("q", &self.search)
            .append_pair("page", &page.to_string())
            .finish();
        format!("/admin/orders?{query}")
    }

    fn form(&self) -> Markup {
        html! {
            form.filters method="get" action="/admin/orders" role="search" {
                div {
                    label for="filter-state" { "State" }
                    select #filter-state name="state" {
                        @for (code, label) in STATES {
                            option value=(code) selected[code == self.state] { (label) }
                        }
                    }
                }
                div { label for="filter-from" { "Placed from" } input #filter-from type="date" name="from" value=(self.from); }
                div { label for="filter-to" { "Placed until" } input #filter-to type="date" name="to" value=(self.to); }
                div { label for="filter-key" { "Partner key" } input #filter-key type="text" name="key" value=(self.key) maxlength=(MAX_FILTER); }
                div { label for="filter-q" { "Order number or e-mail" } input #filter-q type="search" name="q" value=(self.search) maxlength=(MAX_FILTER); }
                button type="submit" { "Show" }
            }
        }
    }
}

/// `GET /admin/orders?state=&from=&to=&key=&q=&page=`: newest first.
pub async fn list(
    State(state): State<Arc<AppState>>,
    staff: Staff,
    Query(query): Query<Fields>,
) -> Result<Response, ConsoleError> {
    staff.operator()?;
    let filter = match Filter::read(&query) {
        Ok(filter) => filter,
        Err(problem) => {
            let empty = Filter::read(&Fields::new()).expect("no filters read");
            let content = html! { (alert(&problem)) (empty.form()) };
            let page = page(&staff, "Orders", content);
            return Ok((StatusCode::BAD_REQUEST, page).into_response());
        }
    };
    let store = state.store.as_ref();
    let skip = (filter.page - 1) * PAGE_SIZE;
    // Unfiltered, a page is read from the index of placed orders; a filter reads every order.
    let (count, shown) = if filter.is_empty() {
        let (placed, page) = orders::newest(store, skip, PAGE_SIZE).await?;
        (usize::try_from(placed).unwrap_or(usize::MAX), page)
    } else {
        let mut matching: Vec<Order> = orders::list(store)
            .await?
            .into_iter()
            .filter(|order| filter.matches(order))
            .collect();
        matching.reverse();
        let count = matching.len();
        (
            count,
            matching.into_iter().skip(skip).take(PAGE_SIZE).collect(),
        )
    };
    let pages = count.div_ceil(PAGE_SIZE).max(1);
    let content = html! {
        (filter.form())
        p.lead #order-count { (count) @if count == 1 { " order" } @else { " orders" } " · page " (filter.page.min(pages)) " of " (pages) }
        table.orders {
            caption.visually-hidden { "Orders" }
            thead { tr {
                th scope="col" { "Order" } th scope="col" { "Placed" } th scope="col" { "State" }
                th scope="col" { "Customer" } th scope="col" { "Packs" } th scope="col" { "Total" }
                th scope="col" { "Partner key" }
            } }
            tbody {
                @for order in &shown {
                    tr {
                        td.number { a href=(format!("/admin/orders/{}", order.number)) { (order.number) } }
                        td.nowrap { (when(order.placed_at)) }
                        td.state { (capitalised(order.status.describe())) }
                        td { (order.customer_email) }
                        td { @for (i, line) in order.lines.iter().enumerate() { @if i > 0 { ", " } (line.name) " × " (line.quantity) } }
                        td { (money(&order.currency, order.total)) }
                        td.key { @for key in partner_keys(order) { code title=(key) { (key) } " " } }
                    }
                }
            }
        }
        nav.pages aria-label="Pages" {
            @if filter.page > 1 { a rel="prev" href=(filter.address(filter.page - 1)) { "Newer" } }
            @if filter.page < pages { a rel="next" href=(filter.address(filter.page + 1)) { "Older" } }
        }
    };
    Ok(page(&staff, "Orders", content))
}

fn partner_keys(order: &Order) -> Vec<&str> {
    let mut keys: Vec<&str> = order.lines.iter().map(|l| l.created_by.as_str()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// An order the console may show: placed (committed), else "not found".
async fn placed_order(services: &Services, number: &str) -> Result<Order, ConsoleError> {
    let store = services.store.as_ref();
    match orders::load(store, number).await? {
        Some(order) if orders::is_committed(store, &order).await? => Ok(order),
        _ => Err(no_order(number)),
    }
}

fn no_order(number: &str) -> ConsoleError {
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
    State(state): State<Arc<AppState>>,
    staff: Staff,
    Path(number): Path<String>,
) -> Result<Response, ConsoleError> {
    staff.operator()?;
    let order = placed_order(&state, &number).await?;
    order_page(&state, &staff, &order, None).await
}

/// An order's page, with `problem` (and its status) above it if an action failed.
async fn order_page(
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
        expires: unix_seconds() + PRESS_LINK_SECONDS,
    };
    let mail = crate::domain::mail::of_order(store, order).await?;
    let address = &order.delivery;
    let n = &order.number;
    let csrf = html! { input type="hidden" name="csrf" value=(staff.csrf_token); };
    let content = html! {
        @if let Some((_, problem)) = &problem { (alert(problem)) }
        p.lead {
            "Order " strong.order-number { (n) } " · " span.status { (capitalised(order.status.describe())) }
            " · placed " (when(order.placed_at)) " · " (money(&order.currency, order.total))
            " · payment: " (order.payment.state.describe())
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
                OrderStatus::Placed => {
                    form.inline method="post" action=(format!("/admin/orders/{n}/move")) {
                        (csrf) input type="hidden" name="move" value="start";
                        button #start-production type="submit" { "Start production" }
                    }
                    form.inline method="post" action=(format!("/admin/orders/{n}/move")) {
                        (csrf) input type="hidden" name="move" value="cancel";
                        button #cancel-order.secondary type="submit" { "Cancel order" }
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
            @if order.status != OrderStatus::Cancelled {
                form.inline method="post" action=(format!("/admin/orders/{n}/reprint")) {
                    (csrf) input type="hidden" name="key" value=(reprint::form_key());
                    button #reprint.secondary type="submit" { "Reprint as a new order" }
                }
            }
        }
        h2 { "Customer" }
        p.customer {
            @if let Some(customer) = &customer { (customer.name) " · " }
            a href=(format!("mailto:{}", order.customer_email)) { (order.customer_email) }
            @if let Some(customer) = &customer {
                @if customer.email_confirmed { " (address confirmed)" } @else { " (address not confirmed)" }
            }
        }
        address {
            (address.name) br; (address.line1) br;
            @if !address.line2.is_empty() { (address.line2) br; }
            (address.city) " " (address.postcode) br; (address.country)
        }
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
        ol.history {
            @if order.reprint_of.is_none() { li { (when(order.placed_at)) ": placed by the customer" } }
            @for change in &order.history {
                li { (when(change.at)) ": " (change.status.describe()) " by " (change.by) }
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

fn mail_table(mail: &[queue::Job<crate::domain::mail::MailMessage>]) -> Markup {
    html! {
        table.mail {
            caption.visually-hidden { "E-mail" }
            thead { tr { th scope="col" { "Message" } th scope="col" { "To" } th scope="col" { "Queued" } th scope="col" { "State" } th scope="col" { "Attempts" } th scope="col" { "Last error" } } }
            tbody {
                @for job in mail {
                    tr.mail-job {
                        td {
                            @if !job.payload.order_number.is_empty() {
                                a href=(format!("/admin/orders/{}", job.payload.order_number)) { (job.payload.order_number) } " "
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

/// `POST /admin/orders/{number}/move` (`move` = start, ship with `carrier` and `tracking`,
/// or cancel): back to the order's page, or the page with the problem.
pub async fn move_order(
    State(state): State<Arc<AppState>>,
    staff: Staff,
    Path(number): Path<String>,
    Form(fields): Form<Fields>,
) -> Result<Response, ConsoleError> {
    let operator = staff.operator_posting(fields.get("csrf").map(String::as_str))?;
    let order = placed_order(&state, &number).await?;
    let requested = match field(&fields, "move") {
        "start" => Move::StartProduction,
        "ship" => Move::Ship {
            carrier: field(&fields, "carrier").to_owned(),
            tracking_number: field(&fields, "tracking").to_owned(),
        },
        "cancel" => Move::Cancel,
        _ => {
            let problem = "move: one of start, ship or cancel".to_owned();
            return order_page(
                &state,
                &staff,
                &order,
                Some((StatusCode::BAD_REQUEST, problem)),
            )
            .await;
        }
    };
    let mailing = Mailing::when(state.mailer.is_configured());
    let store = state.store.as_ref();
    match status::change(store, &number, requested, &operator.signature(), mailing).await {
        Ok(_) => {
            state.wake.webhooks.notify_one();
            state.wake.mail.notify_one();
            Ok(redirect_setting(&format!("/admin/orders/{number}"), &[]))
        }
        Err(MoveError::Store(error)) => Err(error.into()),
        Err(MoveError::NoSuchOrder(_)) => Err(no_order(&number)),
        Err(error) => {
            let status = match error {
                MoveError::Illegal { .. } => StatusCode::CONFLICT,
                _ => StatusCode::BAD_REQUEST,
            };
            // The page as it is now: another operator's move may be why.
            let order = placed_order(&state, &number).await?;
            order_page(
                &state,
                &staff,
                &order,
                Some((status, capitalised(&error.to_string()))),
            )
            .await
        }
    }
}

/// `POST /admin/orders/{number}/reprint` (`key` from the form): to the new order's page.
pub async fn reprint(
    State(state): State<Arc<AppState>>,
    staff: Staff,
    Path(number): Path<String>,
    Form(fields): Form<Fields>,
) -> Result<Response, ConsoleError> {
    let operator = staff.operator_posting(fields.get("csrf").map(String::as_str))?;
    let key = field(&fields, "key");
    match reprint::reprint(&state, &number, key, &operator.signature()).await {
        Ok(reprinted) => Ok(redirect_setting(
            &format!("/admin/orders/{}", reprinted.number),
            &[],
        )),
        Err(ReprintError::Store(error)) => Err(error.into()),
        Err(ReprintError::NoSuchOrder(_)) => Err(no_order(&number)),
        Err(error @ ReprintError::InvalidKey) => {
            Err(PageError::bad_request(error.to_string()).into())
        }
        Err(error @ ReprintError::Cancelled(_)) => {
            Err(PageError::new(StatusCode::CONFLICT, "Not reprinted", error.to_string()).into())
        }
    }
}

/// `GET /admin/orders/{number}/lines/{line}/sides/{side}`: a side of a pack as ordered, PNG.
pub async fn side_image(
    State(state): State<Arc<AppState>>,
    staff: Staff,
    Path((number, line, side)): Path<(String, usize, usize)>,
) -> Result<Response, ConsoleError> {
    staff.operator()?;
    let order = placed_order(&state, &number).await?;
    Ok(ordered_side_png(&state, &order, line, side, THUMBNAIL_SIDE).await?)
}

/// `GET /admin/mail`: every message not sent yet or given up, oldest first.
pub async fn mail(
    State(state): State<Arc<AppState>>,
    staff: Staff,
) -> Result<Response, ConsoleError> {
    staff.operator()?;
    let (sent, unsent) = queue::outstanding::<Mails>(state.store.as_ref()).await?;
    let content = html! {
        @if !state.mailer.is_configured() {
            p.notice { "This shop sends no e-mail: no SMTP server is configured (smtp_host)." }
        }
        p.lead { (sent) " sent · " (unsent.len()) " waiting or given up" }
        @if !unsent.is_empty() { (mail_table(&unsent)) }
    };
    Ok(page(&staff, "Mail", content))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_read_as_utc_days_and_refused_naming_the_parameter() {
        assert_eq!(day_start("from", "1970-01-02"), Ok(86_400));
        assert_eq!(day_start("from", "2026-11-27"), Ok(1_795_737_600));
        for bad in [
            "2026-13-01",
            "2026-02-30",
            "yesterday",
            "2026-1",
            "99999-01-01",
        ] {
            assert!(
                day_start("to", bad).unwrap_err().starts_with("to: "),
                "{bad}"
            );
        }
    }

    #[test]
    fn filters_are_bounded_and_named() {
        let read = |pairs: &[(&str, &str)]| {
            let fields: Fields = pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            Filter::read(&fields).map(|f| f.page)
        };
        assert_eq!(read(&[]), Ok(1));
        assert_eq!(read(&[("page", "3")]), Ok(3));
        assert!(read(&[("page", "0")]).unwrap_err().starts_with("page:"));
        assert!(
            read(&[("state", "lost")])
                .unwrap_err()
                .starts_with("state:")
        );
        let long = "x".repeat(MAX_FILTER + 1);
        assert!(read(&[("q", &long)]).unwrap_err().starts_with("q:"));
    }
}
