//! What an operator does to an order from its page: move it on (start, ship, cancel) and
//! reprint it.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::html;
use serde::Deserialize;

use crate::domain::ids::OrderNumber;
use crate::domain::orders::notes::{self, NoteError};
use crate::domain::orders::reprint::{self, ReprintError};
use crate::domain::orders::status::{self, MAX_BATCH, Mailing, Move, MoveError};
use crate::http::admin::orders::page::{no_order, order_page, placed_order};
use crate::http::admin::page::page;
use crate::http::admin::session::{ConsoleError, OperatorForm};
use crate::http::pages::error::PageError;
use crate::http::pages::layout::redirect_setting;
use crate::http::pages::orders::capitalised;
use crate::http::state::ServicesState;

/// The form that moves an order on.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct MoveForm {
    r#move: String,
    carrier: String,
    tracking: String,
    /// `yes`: start even though the press file blocks.
    over_block: String,
}

/// `POST /admin/orders/{number}/move` (`move` = start, ship with `carrier` and `tracking`,
/// or cancel): back to the order's page, or the page with the problem.
pub async fn move_order(
    State(ServicesState(services)): State<ServicesState>,
    Path(number): Path<String>,
    OperatorForm {
        staff,
        operator,
        fields,
    }: OperatorForm<MoveForm>,
) -> Result<Response, ConsoleError> {
    let order = placed_order(&services, &number).await?;
    let requested = match fields.r#move.as_str() {
        "start" => Move::StartProduction {
            over_block: fields.over_block == "yes",
        },
        "ship" => Move::Ship {
            carrier: fields.carrier,
            tracking_number: fields.tracking,
        },
        "cancel" => Move::Cancel,
        _ => {
            let problem = "move: one of start, ship or cancel".to_owned();
            return order_page(
                &services,
                &staff,
                &order,
                Some((StatusCode::BAD_REQUEST, problem)),
            )
            .await;
        }
    };
    let mailing = Mailing::when(services.mailer.is_configured());
    let store = services.store.as_ref();
    let clock = &services.clock;
    match status::change(
        store,
        clock,
        &order.number,
        requested,
        &operator.signature(),
        mailing,
    )
    .await
    {
        Ok(_) => {
            services.wake.webhooks.notify_one();
            services.wake.mail.notify_one();
            Ok(redirect_setting(&format!("/admin/orders/{number}"), &[]))
        }
        Err(MoveError::Store(error)) => Err(error.into()),
        Err(MoveError::NoSuchOrder(_)) => Err(no_order(&number)),
        Err(error) => {
            let status = match error {
                MoveError::Illegal { .. } | MoveError::Blocked(_) => StatusCode::CONFLICT,
                _ => StatusCode::BAD_REQUEST,
            };
            // The page as it is now: another operator's move may be why.
            let order = placed_order(&services, &number).await?;
            order_page(
                &services,
                &staff,
                &order,
                Some((status, capitalised(&error.to_string()))),
            )
            .await
        }
    }
}

/// `POST /admin/orders/batch` (`action` = start, and `order-<NUMBER>` for each order
/// ticked in the list): starts production of each, as `status::change` would one by one, and
/// answers a report of every order: started, or why not. Orders whose press file blocks are
/// not started by a batch: the operator looks at each.
pub async fn batch(
    State(ServicesState(services)): State<ServicesState>,
    OperatorForm {
        staff,
        operator,
        fields,
    }: OperatorForm,
) -> Result<Response, ConsoleError> {
    if fields.get("action").map(String::as_str) != Some("start") {
        return Err(PageError::bad_request("action: start").into());
    }
    let ticked: Vec<&str> = (fields.keys())
        .filter_map(|name| name.strip_prefix("order-"))
        .collect();
    if ticked.is_empty() {
        return Err(PageError::bad_request("Tick the orders to start first.").into());
    }
    // Counted before any work: one batch is at most a few pages of the list.
    if ticked.len() > MAX_BATCH {
        let problem = format!(
            "A batch starts at most {MAX_BATCH} orders; this one had {}.",
            ticked.len()
        );
        return Err(PageError::bad_request(problem).into());
    }
    let mut numbers = Vec::new();
    let mut report = Vec::new();
    for raw in ticked {
        match OrderNumber::parse(raw) {
            Some(number) => numbers.push(number),
            None => report.push((raw.to_owned(), Err(format!("There is no order {raw}.")))),
        }
    }
    numbers.sort();
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
        report.push((number.to_string(), outcome));
    }
    let started = report.iter().filter(|(_, outcome)| outcome.is_ok()).count();
    let content = html! {
        p.lead #batch-summary { (started) " of " (report.len()) " started." }
        table.orders.batch {
            caption.visually-hidden { "What became of each order" }
            thead { tr { th scope="col" { "Order" } th scope="col" { "Outcome" } } }
            tbody {
                @for (number, outcome) in &report {
                    tr {
                        td.number { a href=(format!("/admin/orders/{number}")) { (number) } }
                        @match outcome {
                            Ok(done) => { td.started { (done) } }
                            Err(why) => { td.refused { (why) } }
                        }
                    }
                }
            }
        }
        p { a href="/admin/orders" { "Back to the orders" } }
    };
    Ok(page(&staff, "Starting production", content))
}

/// The note form.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct NoteForm {
    note: String,
}

/// `POST /admin/orders/{number}/notes` (`note`): back to the order's page, with the note
/// among its notes, or the page with the problem.
pub async fn add_note(
    State(ServicesState(services)): State<ServicesState>,
    Path(number): Path<String>,
    OperatorForm {
        staff,
        operator,
        fields,
    }: OperatorForm<NoteForm>,
) -> Result<Response, ConsoleError> {
    let order = placed_order(&services, &number).await?;
    let (store, clock) = (services.store.as_ref(), &services.clock);
    let by = operator.signature();
    match notes::add(store, clock, &order.number, &by, &fields.note).await {
        Ok(()) => Ok(redirect_setting(
            &format!("/admin/orders/{}", order.number),
            &[],
        )),
        Err(NoteError::Store(error)) => Err(error.into()),
        Err(error @ NoteError::Invalid(_)) => {
            let problem = (StatusCode::BAD_REQUEST, capitalised(&error.to_string()));
            order_page(&services, &staff, &order, Some(problem)).await
        }
    }
}

/// The reprint form: its one-use key.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ReprintForm {
    key: String,
}

/// `POST /admin/orders/{number}/reprint` (`key` from the form): to the new order's page.
pub async fn reprint(
    State(ServicesState(services)): State<ServicesState>,
    Path(number): Path<String>,
    OperatorForm {
        operator, fields, ..
    }: OperatorForm<ReprintForm>,
) -> Result<Response, ConsoleError> {
    let key = fields.key.as_str();
    let Some(parsed) = OrderNumber::parse(&number) else {
        return Err(no_order(&number));
    };
    match reprint::reprint(&services, &parsed, key, &operator.signature()).await {
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
