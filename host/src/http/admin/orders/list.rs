//! The console's order list: paged, filtered by state, dates, partner key and text.

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use time::{Date, Month};

use crate::domain::orders::{self, Order};
use crate::http::admin::page::page;
use crate::http::admin::session::{ConsoleError, Staff};
use crate::http::pages::forms::{Fields, field};
use crate::http::pages::layout::{alert, when};
use crate::http::pages::orders::capitalised;
use crate::http::state::AppState;

/// Orders per page of the list.
const PAGE_SIZE: usize = 25;

/// Longest filter value.
const MAX_FILTER: usize = 200;

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
    let store = state.services.store.as_ref();
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
                        td { (order.amount(order.total)) }
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
