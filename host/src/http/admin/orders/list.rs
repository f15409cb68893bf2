//! The console's order list: the work to do first (open orders, oldest first, blocked ones
//! on top), paged, filtered by state, press verdict, dates, partner key and text, sorted by
//! age.

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use time::{Date, Month};

use crate::domain::one_line::capitalised;
use crate::domain::orders::record::{
    BLOCKED, OPEN, PLACED, PaymentState, PressVerdict, state_index,
};
use crate::domain::orders::shipments;
use crate::domain::orders::triage::{self, Triaged};
use crate::domain::orders::{self, Order};
use crate::http::admin::page::page;
use crate::http::admin::session::{ConsoleError, Staff};
use crate::http::pages::forms::{Fields, field};
use crate::http::pages::layout::{alert, when};
use crate::http::state::ServicesState;
use crate::infra::store::{IndexEnd, Kind, Store, StoreError};

/// Orders per page of the list.
const PAGE_SIZE: usize = 25;

/// Longest filter value.
const MAX_FILTER: usize = 200;

/// Most blocked orders shown on top of the work to do.
const MAX_BLOCKED_SHOWN: usize = 100;

/// The list's states: `open` (the default) is the work to do.
const STATES: [(&str, &str); 7] = [
    ("open", "To do: placed, on hold or in production"),
    ("", "Any state"),
    ("placed", "Placed"),
    ("on_hold", "On hold"),
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

const SORTS: [(&str, &str); 2] = [("oldest", "Oldest first"), ("newest", "Newest first")];

/// The list's filters, read from the query (the CSV export takes the same).
pub(super) struct Filter {
    state: String,
    /// A [`PressVerdict`]'s code, or empty.
    verdict: String,
    /// A [`PaymentState`]'s code, or empty.
    payment: String,
    /// `oldest` or `newest`.
    sort: String,
    from: String,
    to: String,
    key: String,
    search: String,
    page: usize,
    /// Placed at or after, and before, seconds since 1970.
    window: (u64, u64),
}

impl Filter {
    pub(super) fn read(query: &Fields) -> Result<Filter, String> {
        let text = |name: &'static str| -> Result<String, String> {
            let value = field(query, name).trim();
            if value.chars().count() > MAX_FILTER {
                return Err(format!("{name}: at most {MAX_FILTER} characters"));
            }
            Ok(value.to_owned())
        };
        // No state at all (the list as first opened) is the work to do; the form sends one.
        let state = match query.contains_key("state") {
            true => text("state")?,
            false => "open".to_owned(),
        };
        if !STATES.iter().any(|(code, _)| *code == state) {
            return Err(
                "state: one of open, placed, on_hold, in_production, shipped, cancelled, or none"
                    .to_owned(),
            );
        }
        let verdict = text("verdict")?;
        if !verdict.is_empty() && PressVerdict::parse(&verdict).is_none() {
            return Err("verdict: one of block, not_made, warning, pass, or none".to_owned());
        }
        let payment = text("payment")?;
        if !payment.is_empty() && !PaymentState::ALL.iter().any(|p| p.code() == payment) {
            return Err(
                "payment: one of awaiting_invoice_payment, paid, refunded, or none".to_owned(),
            );
        }
        let sort = match text("sort")?.as_str() {
            "" if state == "open" => "oldest".to_owned(),
            "" => "newest".to_owned(),
            sort if SORTS.iter().any(|(code, _)| *code == sort) => sort.to_owned(),
            _ => return Err("sort: oldest or newest".to_owned()),
        };
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
            verdict,
            payment,
            sort,
            from,
            to,
            key: text("key")?,
            search: text("q")?.to_lowercase(),
            page,
            window: (start, end),
        })
    }

    /// The index that holds exactly the orders this filter lets through, if one does: a
    /// state (or every placed order, or the open ones) with no other filter, or the open
    /// orders that are blocked.
    pub(super) fn index(&self) -> Option<Kind> {
        let others = [&self.from, &self.to, &self.key, &self.search, &self.payment];
        if !others.iter().all(|value| value.is_empty()) {
            return None;
        }
        match (self.state.as_str(), self.verdict.as_str()) {
            ("placed", "block") => Some(BLOCKED),
            ("open", "") => Some(OPEN),
            ("", "") => Some(PLACED),
            (state, "") => state_index(state),
            _ => None,
        }
    }

    pub(super) fn end(&self) -> IndexEnd {
        match self.sort.as_str() {
            "oldest" => IndexEnd::Earliest,
            _ => IndexEnd::Latest,
        }
    }

    /// Whether `order` passes every filter but the verdict's (which needs its press files).
    pub(super) fn matches(&self, order: &Order) -> bool {
        let state = match self.state.as_str() {
            "" => true,
            "open" => order.status.is_open(),
            code => order.status.code() == code,
        };
        let search = &self.search;
        let found = search.is_empty()
            || order.number.to_lowercase().contains(search)
            || order.customer_email.contains(search.as_str())
            || order.delivery.name.to_lowercase().contains(search)
            || (order.lines.iter())
                .filter_map(|line| line.tracking_id.as_deref())
                .any(|tracking| tracking.to_lowercase().contains(search));
        state
            && found
            && (self.window.0..self.window.1).contains(&order.placed_at)
            && (self.key.is_empty() || order.lines.iter().any(|l| l.created_by == self.key))
            && (self.payment.is_empty() || order.payment.state.code() == self.payment)
    }

    /// Whether an order with `verdict` passes the verdict's filter.
    pub(super) fn admits(&self, verdict: PressVerdict) -> bool {
        self.verdict.is_empty() || verdict.code() == self.verdict
    }

    /// The query of these filters, on `page`.
    fn query(&self, page: usize) -> String {
        form_urlencoded::Serializer::new(String::new())
            .append_pair("state", &self.state)
            .append_pair("verdict", &self.verdict)
            .append_pair("payment", &self.payment)
            .append_pair("sort", &self.sort)
            .append_pair("from", &self.from)
            .append_pair("to", &self.to)
            .append_pair("key", &self.key)
            .append_pair("q", &self.search)
            .append_pair("page", &page.to_string())
            .finish()
    }

    /// The list's address with these filters, on `page`.
    fn address(&self, page: usize) -> String {
        format!("/admin/orders?{}", self.query(page))
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
                div {
                    label for="filter-verdict" { "Press check" }
                    select #filter-verdict name="verdict" {
                        option value="" selected[self.verdict.is_empty()] { "Any" }
                        @for verdict in PressVerdict::ALL {
                            option value=(verdict.code()) selected[verdict.code() == self.verdict] { (capitalised(verdict.describe())) }
                        }
                    }
                }
                div {
                    label for="filter-payment" { "Payment" }
                    select #filter-payment name="payment" {
                        option value="" selected[self.payment.is_empty()] { "Any" }
                        @for payment in PaymentState::ALL {
                            option value=(payment.code()) selected[payment.code() == self.payment] { (capitalised(payment.describe())) }
                        }
                    }
                }
                div {
                    label for="filter-sort" { "Order" }
                    select #filter-sort name="sort" {
                        @for (code, label) in SORTS {
                            option value=(code) selected[code == self.sort] { (label) }
                        }
                    }
                }
                div { label for="filter-from" { "Placed from" } input #filter-from type="date" name="from" value=(self.from); }
                div { label for="filter-to" { "Placed until" } input #filter-to type="date" name="to" value=(self.to); }
                div { label for="filter-key" { "Partner key" } input #filter-key type="text" name="key" value=(self.key) maxlength=(MAX_FILTER); }
                div { label for="filter-q" { "Order, e-mail, name or tracking id" } input #filter-q type="search" name="q" value=(self.search) maxlength=(MAX_FILTER); }
                button type="submit" { "Show" }
                a.export href=(format!("/admin/orders.csv?{}", self.query(1))) download { "Export as CSV" }
                a.archive href=(format!("/admin/orders/press-files.zip?{}", self.query(1))) download { "Press files (zip)" }
            }
        }
    }
}

/// `GET /admin/orders?state=&verdict=&sort=&from=&to=&key=&q=&page=`: without a state, the
/// work to do, oldest first, with the blocked orders in a table of their own above it.
pub async fn list(
    State(ServicesState(services)): State<ServicesState>,
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
    let store = services.store.as_ref();
    let skip = (filter.page - 1) * PAGE_SIZE;
    let (count, shown) = match filter.index() {
        Some(index) => {
            let (count, shown) = triage::page(store, index, filter.end(), skip, PAGE_SIZE).await?;
            (usize::try_from(count).unwrap_or(usize::MAX), shown)
        }
        None => scan(store, &filter, skip).await?,
    };
    let blocked = match filter.index() == Some(OPEN) && filter.page == 1 {
        true => triage::blocked(store, MAX_BLOCKED_SHOWN).await?,
        false => Vec::new(),
    };
    let now = services.clock.unix_seconds();
    let pages = count.div_ceil(PAGE_SIZE).max(1);
    let content = html! {
        (filter.form())
        @if !blocked.is_empty() {
            section.blocked aria-labelledby="blocked-heading" {
                h2 #blocked-heading { "Blocked: look at these first" }
                p.hint { "Their press files cannot be printed as they are. Open an order to see why." }
                (order_table("Blocked orders", &blocked, now, false))
            }
        }
        p.lead #order-count { (count) @if count == 1 { " order" } @else { " orders" } " · page " (filter.page.min(pages)) " of " (pages) }
        @if shown.iter().any(|t| t.order.status.is_open()) {
            form #batch-form method="post" action="/admin/orders/batch" {
                input type="hidden" name="csrf" value=(staff.csrf_token);
                button #start-ticked type="submit" name="action" value="start" { "Start production of the ticked orders" }
                button #archive-ticked.secondary type="submit" name="action" value="archive" { "Download their press files (zip)" }
                button #slips-ticked.secondary type="submit" name="action" value="slips" { "Their packing slips" }
                button #tickets-ticked.secondary type="submit" name="action" value="tickets" { "Their job tickets (PDF)" }
            }
        }
        (order_table("Orders", &shown, now, true))
        nav.pages aria-label="Pages" {
            @if filter.page > 1 { a rel="prev" href=(filter.address(filter.page - 1)) { "Previous" } }
            @if filter.page < pages { a rel="next" href=(filter.address(filter.page + 1)) { "Next" } }
        }
        section.ship-list aria-labelledby="ship-list-heading" {
            h2 #ship-list-heading { "Ship from a list" }
            form #ship-list-form method="post" action="/admin/orders/shipments" enctype="multipart/form-data" {
                input type="hidden" name="csrf" value=(staff.csrf_token);
                label for="ship-list" { "A CSV file with the order number, carrier and tracking number on each line (as your carrier's system exports it; at most " (shipments::MAX_LINES) " lines)" }
                input #ship-list type="file" name="list" accept=".csv,.txt,text/csv,text/plain" required;
                button #ship-listed.secondary type="submit" { "Ship the listed orders" }
            }
        }
    };
    Ok(page(&staff, "Orders", content))
}

/// For a filter no index answers: how many orders match, and the page after `skip`, read
/// from every placed order. Verdicts are read once each: for every match when the verdict
/// is filtered, else for the page's orders only.
async fn scan(
    store: &dyn Store,
    filter: &Filter,
    skip: usize,
) -> Result<(usize, Vec<Triaged>), StoreError> {
    let mut matching: Vec<Order> = (orders::list(store).await?.into_iter())
        .filter(|order| filter.matches(order))
        .collect();
    if filter.end() == IndexEnd::Latest {
        matching.reverse();
    }
    if filter.verdict.is_empty() {
        let count = matching.len();
        let page = matching.into_iter().skip(skip).take(PAGE_SIZE).collect();
        return Ok((count, triage::with_verdicts(store, page).await?));
    }
    let kept: Vec<Triaged> = (triage::with_verdicts(store, matching).await?.into_iter())
        .filter(|t| filter.admits(t.verdict))
        .collect();
    let count = kept.len();
    Ok((count, kept.into_iter().skip(skip).take(PAGE_SIZE).collect()))
}

/// `orders` as a table; with `ticks`, an open order's row has a box for the batch form.
fn order_table(caption: &str, orders: &[Triaged], now: u64, ticks: bool) -> Markup {
    html! {
        table.orders {
            caption.visually-hidden { (caption) }
            thead { tr {
                @if ticks { th scope="col" { span.visually-hidden { "Tick" } } }
                th scope="col" { "Order" } th scope="col" { "Placed" } th scope="col" { "Age" }
                th scope="col" { "State" } th scope="col" { "Press check" }
                th scope="col" { "Customer" } th scope="col" { "Packs" } th scope="col" { "Total, payment" }
                th scope="col" { "Partner key" }
            } }
            tbody {
                @for Triaged { order, verdict } in orders {
                    tr {
                        @if ticks {
                            td { @if order.status.is_open() {
                                input type="checkbox" form="batch-form" name=(format!("order-{}", order.number))
                                    value="yes" aria-label=(format!("Tick {}", order.number));
                            } }
                        }
                        td.number { a href=(format!("/admin/orders/{}", order.number)) { (order.number) } }
                        td.nowrap { (when(order.placed_at)) }
                        td.age.nowrap { (age(now.saturating_sub(order.placed_at))) }
                        td.state.nowrap { (capitalised(order.status.describe())) }
                        td { span class=(format!("verdict verdict-{}", verdict.code())) { (capitalised(verdict.describe())) } }
                        td { (order.delivery.name) br; (order.customer_email) }
                        td { @for (i, line) in order.lines.iter().enumerate() { @if i > 0 { ", " } (line.name) " × " (line.quantity) } }
                        td { span.nowrap { (order.amount(order.total)) } br; span.payment { (capitalised(order.payment.state.describe())) } }
                        td.key { @for key in partner_keys(order) { code title=(key) { (key) } " " } }
                    }
                }
            }
        }
    }
}

/// How long ago, roughly: "5 min", "3 h", "2 d".
fn age(seconds: u64) -> String {
    match seconds {
        0..3600 => format!("{} min", seconds / 60),
        3600..86_400 => format!("{} h", seconds / 3600),
        _ => format!("{} d", seconds / 86_400),
    }
}

pub(super) fn partner_keys(order: &Order) -> Vec<&str> {
    let mut keys: Vec<&str> = order.lines.iter().map(|l| l.created_by.as_str()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys
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
    fn ages_read_in_minutes_hours_and_days() {
        assert_eq!(age(59), "0 min");
        assert_eq!(age(3599), "59 min");
        assert_eq!(age(7200), "2 h");
        assert_eq!(age(3 * 86_400 + 5), "3 d");
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
        assert!(
            read(&[("verdict", "maybe")])
                .unwrap_err()
                .starts_with("verdict:")
        );
        assert!(read(&[("sort", "up")]).unwrap_err().starts_with("sort:"));
        let long = "x".repeat(MAX_FILTER + 1);
        assert!(read(&[("q", &long)]).unwrap_err().starts_with("q:"));
    }
}
