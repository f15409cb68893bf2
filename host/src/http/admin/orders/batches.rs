//! What an operator does to many orders at once from the list: start the ticked ones, download
//! their press files or print their packing slips, and ship those of an uploaded list (CSV). Every batch answers a report naming each order (or line)
//! with what became of it, so that no part of a batch goes unreported.

use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::html;

use crate::domain::ids::OrderNumber;
use crate::domain::one_line::capitalised;
use crate::domain::orders::paperwork;
use crate::domain::orders::shipments::{self, LineOutcome, ListError};
use crate::domain::orders::status::{self, MAX_BATCH, Mailing, Move, MoveError};
use crate::http::admin::orders::archive;
use crate::http::admin::orders::page::placed_order;
use crate::http::admin::orders::paperwork::{job_tickets, packing_slips};
use crate::http::admin::page::page;
use crate::http::admin::session::{ConsoleError, OperatorForm, Staff};
use crate::http::pages::error::PageError;
use crate::http::state::ServicesState;

/// One row of a batch's report: the order (and the list's line), and what became of it.
struct Reported {
    line: Option<usize>,
    order: String,
    outcome: Result<String, String>,
}

/// The report of a batch: `done` of how many, and a row per order.
fn report(staff: &Staff, title: &str, done: &str, rows: &[Reported]) -> Response {
    let succeeded = rows.iter().filter(|row| row.outcome.is_ok()).count();
    let lines = rows.iter().any(|row| row.line.is_some());
    let content = html! {
        p.lead #batch-summary { (succeeded) " of " (rows.len()) " " (done) "." }
        table.orders.batch {
            caption.visually-hidden { "What became of each order" }
            thead { tr {
                @if lines { th scope="col" { "Line" } }
                th scope="col" { "Order" } th scope="col" { "Outcome" }
            } }
            tbody {
                @for row in rows {
                    tr {
                        @if lines { td.line { (row.line.unwrap_or_default()) } }
                        td.number {
                            @match OrderNumber::parse(&row.order) {
                                Some(number) => { a href=(format!("/admin/orders/{number}")) { (number) } }
                                None => { (row.order) }
                            }
                        }
                        @match &row.outcome {
                            Ok(done) => { td.started { (done) } }
                            Err(why) => { td.refused { (why) } }
                        }
                    }
                }
            }
        }
        p { a href="/admin/orders" { "Back to the orders" } }
    };
    page(staff, title, content)
}

/// What a batch of ticked orders asks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    Start,
    Archive,
    PackingSlips,
    JobTickets,
}

/// `POST /admin/orders/batch` (`action` = start, archive, slips or tickets, and `order-<NUMBER>` for each
/// order ticked in the list). Start: starts production of each, as `status::change` would one
/// by one, and answers a report of every order: started, or why not (orders whose press file
/// blocks are not started by a batch: the operator looks at each). Archive: their press files
/// as one ZIP archive with a manifest. Slips: their packing slips, to print. Tickets: their
/// job tickets as one PDF.
pub async fn batch(
    State(ServicesState(services)): State<ServicesState>,
    OperatorForm {
        staff,
        operator,
        fields,
    }: OperatorForm,
) -> Result<Response, ConsoleError> {
    let action = match fields.get("action").map(String::as_str) {
        Some("start") => Action::Start,
        Some("archive") => Action::Archive,
        Some("slips") => Action::PackingSlips,
        Some("tickets") => Action::JobTickets,
        _ => {
            let problem = "action: start, archive, slips or tickets";
            return Err(PageError::bad_request(problem).into());
        }
    };
    let ticked: Vec<&str> = (fields.keys())
        .filter_map(|name| name.strip_prefix("order-"))
        .collect();
    if ticked.is_empty() {
        let problem = match action {
            Action::Start => "Tick the orders to start first.",
            Action::Archive => "Tick the orders whose press files you want first.",
            Action::PackingSlips => "Tick the orders whose packing slips you want first.",
            Action::JobTickets => "Tick the orders whose job tickets you want first.",
        };
        return Err(PageError::bad_request(problem).into());
    }
    // Counted before any work: one batch is at most a few pages of the list.
    if ticked.len() > MAX_BATCH {
        let problem = format!(
            "A batch holds at most {MAX_BATCH} orders; this one had {}.",
            ticked.len()
        );
        return Err(PageError::bad_request(problem).into());
    }
    if action == Action::JobTickets && ticked.len() > paperwork::MAX_TICKETS {
        let problem = format!(
            "Job tickets print at most {} orders at once; {} were ticked.",
            paperwork::MAX_TICKETS,
            ticked.len()
        );
        return Err(PageError::bad_request(problem).into());
    }
    let mut numbers = Vec::new();
    let mut rows = Vec::new();
    for raw in ticked {
        match OrderNumber::parse(raw) {
            Some(number) => numbers.push(number),
            None => rows.push(Reported {
                line: None,
                order: raw.to_owned(),
                outcome: Err(format!("There is no order {raw}.")),
            }),
        }
    }
    numbers.sort();
    if action != Action::Start {
        // An archive or the slips carry no report: a ticked name that is no order is refused.
        if let Some(Reported {
            outcome: Err(why), ..
        }) = rows.first()
        {
            return Err(PageError::bad_request(why.clone()).into());
        }
        if action == Action::Archive {
            return archive::archive(services, &numbers, &operator.signature()).await;
        }
        let mut orders = Vec::with_capacity(numbers.len());
        for number in &numbers {
            orders.push(placed_order(&services, number).await?);
        }
        return match action {
            Action::JobTickets => job_tickets(&services, &staff, &orders).await,
            _ => packing_slips(&services, &staff, &orders).await,
        };
    }
    let (store, clock) = (services.store.as_ref(), &services.clock);
    let mailing = Mailing::when(services.mailer.is_configured());
    let start = Move::StartProduction { over_block: false };
    let by = operator.signature();
    let outcomes = status::change_each(store, clock, &numbers, &start, &by, mailing).await;
    services.wake.webhooks.notify_one();
    services.wake.mail.notify_one();
    for (number, outcome) in numbers.iter().zip(outcomes) {
        let outcome = match outcome {
            Ok(_) => Ok("Started".to_owned()),
            Err(MoveError::Store(error)) => Err(format!(
                "Not started: the store failed ({error}); try again."
            )),
            Err(error) => Err(capitalised(&error.to_string())),
        };
        rows.push(Reported {
            line: None,
            order: number.to_string(),
            outcome,
        });
    }
    Ok(report(&staff, "Starting production", "started", &rows))
}

/// `POST /admin/orders/shipments` (multipart: `csrf`, and `list`, a CSV file of order
/// number, carrier and tracking number per line): ships each line's order that can be
/// shipped, and answers a report of every line: shipped, or why not.
pub async fn ship_list(
    State(ServicesState(services)): State<ServicesState>,
    staff: Staff,
    request: Request,
) -> Result<Response, ConsoleError> {
    staff.operator()?;
    let mut form = match Multipart::from_request(request, &()).await {
        Ok(form) => form,
        Err(rejection) => {
            // Not the console's form (no multipart body): it carries no token either, and
            // that is the first refusal, as for every other form.
            staff.operator_posting(None)?;
            return Err(PageError::bad_request(rejection.body_text()).into());
        }
    };
    let too_large = || {
        PageError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "List too large",
            format!(
                "A shipping list is at most {} KB and {} lines: split it.",
                shipments::MAX_BYTES / 1024,
                shipments::MAX_LINES
            ),
        )
    };
    let unreadable = |error: axum::extract::multipart::MultipartError| match error.status() {
        StatusCode::PAYLOAD_TOO_LARGE => too_large(),
        _ => PageError::bad_request(format!("The form could not be read: {}", error.body_text())),
    };
    let (mut csrf, mut list) = (None, None);
    while let Some(field) = form.next_field().await.map_err(unreadable)? {
        match field.name() {
            Some("csrf") => csrf = Some(field.text().await.map_err(unreadable)?),
            Some("list") => list = Some(field.bytes().await.map_err(unreadable)?),
            _ => {}
        }
    }
    let operator = staff.operator_posting(csrf.as_deref())?.clone();
    let list = list.filter(|bytes| !bytes.is_empty()).ok_or_else(|| {
        PageError::bad_request("Choose the CSV file of shipments to upload first.")
    })?;
    if list.len() > shipments::MAX_BYTES {
        return Err(too_large().into());
    }
    let Ok(text) = std::str::from_utf8(&list) else {
        let problem = "The list is not UTF-8 text: save it from the spreadsheet as “CSV UTF-8”.";
        return Err(PageError::bad_request(problem).into());
    };
    let (store, clock) = (services.store.as_ref(), &services.clock);
    let mailing = Mailing::when(services.mailer.is_configured());
    let by = operator.signature();
    let outcomes = match shipments::ship_list(store, clock, text, &by, mailing).await {
        Ok(outcomes) => outcomes,
        Err(error) => {
            let status = match error {
                ListError::TooManyLines(_) => StatusCode::PAYLOAD_TOO_LARGE,
                ListError::Empty => StatusCode::BAD_REQUEST,
            };
            return Err(PageError::new(status, "Please check", error.to_string()).into());
        }
    };
    services.wake.webhooks.notify_one();
    services.wake.mail.notify_one();
    let rows: Vec<Reported> = (outcomes.into_iter())
        .map(
            |LineOutcome {
                 line,
                 order,
                 outcome,
             }| Reported {
                line: Some(line),
                order,
                outcome: outcome.map(|()| "Shipped".to_owned()),
            },
        )
        .collect();
    Ok(report(&staff, "Shipping from a list", "shipped", &rows))
}
