//! The console's CSV export of the orders a filter selects, streamed a page of an index at a
//! time, so a hundred thousand orders go out without being held in memory.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::stream;

use crate::domain::ids::OrderNumber;
use crate::domain::orders::record::{self, PLACED};
use crate::domain::orders::triage::{self, Triaged};
use crate::domain::services::Services;
use crate::http::admin::orders::list::{Filter, partner_keys};
use crate::http::admin::session::{ConsoleError, Staff};
use crate::http::pages::forms::Fields;
use crate::http::state::ServicesState;
use crate::infra::store::{Kind, StoreError};

/// Orders read from the index per step of the stream.
const EXPORT_PAGE: usize = 200;

const HEADER: [&str; 12] = [
    "order",
    "placed",
    "state",
    "press check",
    "name",
    "e-mail",
    "packs",
    "total",
    "currency",
    "payment",
    "partner keys",
    "tracking ids",
];

/// One CSV cell, quoted. A cell a spreadsheet would run as a formula (beginning `=`, `+`,
/// `-`, `@`, a tab or a carriage return) is neutralised with a leading `'` (CSV injection).
fn cell(text: &str) -> String {
    let formula = text.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let text = match formula {
        true => format!("'{text}"),
        false => text.to_owned(),
    };
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// One CSV line of `cells`, each quoted and neutralised ([`cell`]).
pub(crate) fn row(cells: &[&str]) -> String {
    let cells: Vec<String> = cells.iter().map(|text| cell(text)).collect();
    cells.join(",") + "\r\n"
}

fn order_row(Triaged { order, verdict }: &Triaged) -> String {
    let packs: Vec<String> = (order.lines.iter())
        .map(|line| format!("{} × {}", line.name, line.quantity))
        .collect();
    let tracking: Vec<&str> = (order.lines.iter())
        .filter_map(|line| line.tracking_id.as_deref())
        .collect();
    let total = order.total;
    row(&[
        &order.number,
        &crate::http::pages::layout::when(order.placed_at),
        order.status.code(),
        verdict.code(),
        &order.delivery.name,
        &order.customer_email,
        &packs.join("; "),
        &format!("{}.{:02}", total / 100, total % 100),
        order.currency.code(),
        order.payment.state.describe(),
        &partner_keys(order).join(" "),
        &tracking.join(" "),
    ])
}

/// Where the stream is: the next page of `index` to read, or done.
struct Cursor {
    services: Arc<Services>,
    filter: Filter,
    index: Kind,
    skip: usize,
    done: bool,
}

impl Cursor {
    /// At the first of the orders `filter` selects: its own index, or every placed order
    /// filtered as it is read (orders from before the indexes are indexed first).
    async fn start(services: Arc<Services>, filter: Filter) -> Result<Cursor, StoreError> {
        triage::index_earlier_orders(services.store.as_ref()).await?;
        Ok(Cursor {
            index: filter.index().unwrap_or(PLACED),
            services,
            filter,
            skip: 0,
            done: false,
        })
    }

    /// How many entries the index holds, and the orders of its next page that the filter
    /// keeps, with their verdicts (read only for those the other filters kept).
    async fn read(&self) -> Result<(u64, Vec<Triaged>), StoreError> {
        let store = self.services.store.as_ref();
        let (from, skip) = (self.filter.end(), self.skip);
        let (count, orders) = record::indexed(store, self.index, from, skip, EXPORT_PAGE).await?;
        let kept = (orders.into_iter())
            .filter(|order| self.filter.matches(order))
            .collect();
        let triaged = triage::with_verdicts(store, kept).await?;
        let admitted = triaged
            .into_iter()
            .filter(|t| self.filter.admits(t.verdict));
        Ok((count, admitted.collect()))
    }

    /// The rows of the next page of orders the filter keeps; `None` after the last.
    async fn next_rows(mut self) -> Option<(Result<Bytes, std::io::Error>, Cursor)> {
        if self.done {
            return None;
        }
        let (count, orders) = match self.read().await {
            Ok(read) => read,
            Err(error) => {
                // The download ends short: the client sees it cut off, not complete.
                tracing::warn!(%error, "the order export stopped");
                self.done = true;
                return Some((Err(std::io::Error::other(error.to_string())), self));
            }
        };
        self.skip += EXPORT_PAGE;
        // By the index's entries, not the orders read: an entry without a record is skipped.
        self.done = self.skip as u64 >= count;
        let rows: String = orders.iter().map(order_row).collect();
        Some((Ok(Bytes::from(rows)), self))
    }
}

/// The numbers of the orders `filter` selects, in the list's order; `None` when there are
/// more than `limit` (found without reading further).
pub(crate) async fn selected_numbers(
    services: &Arc<Services>,
    filter: Filter,
    limit: usize,
) -> Result<Option<Vec<OrderNumber>>, StoreError> {
    let mut cursor = Cursor::start(Arc::clone(services), filter).await?;
    let mut numbers = Vec::new();
    loop {
        let (count, orders) = cursor.read().await?;
        numbers.extend(orders.into_iter().map(|t| t.order.number));
        if numbers.len() > limit {
            return Ok(None);
        }
        cursor.skip += EXPORT_PAGE;
        if cursor.skip as u64 >= count {
            return Ok(Some(numbers));
        }
    }
}

/// `GET /admin/orders.csv?state=&verdict=&sort=&from=&to=&key=&q=`: the orders the list with
/// these filters shows, every page of it, as CSV (UTF-8, CRLF lines, every cell quoted).
pub async fn export(
    State(ServicesState(services)): State<ServicesState>,
    staff: Staff,
    Query(query): Query<Fields>,
) -> Result<Response, ConsoleError> {
    staff.operator()?;
    let filter = match Filter::read(&query) {
        Ok(filter) => filter,
        Err(problem) => return Ok((StatusCode::BAD_REQUEST, problem).into_response()),
    };
    let cursor = Cursor::start(services, filter).await?;
    let header = stream::iter([Ok(Bytes::from(row(&HEADER)))]);
    let rows = stream::unfold(cursor, Cursor::next_rows);
    let body = Body::from_stream(futures_util::StreamExt::chain(header, rows));
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/csv; charset=utf-8"),
            ),
            (
                header::CONTENT_DISPOSITION,
                HeaderValue::from_static("attachment; filename=\"orders.csv\""),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body,
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_quoted_and_formulas_neutralised() {
        assert_eq!(cell("plain"), "\"plain\"");
        assert_eq!(cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        for formula in ["=HYPERLINK(\"x\")", "+1", "-2", "@SUM(A1)", "\tx", "\rx"] {
            assert!(cell(formula).starts_with("\"'"), "{formula}");
        }
        assert_eq!(row(&["a", "b"]), "\"a\",\"b\"\r\n");
    }
}
