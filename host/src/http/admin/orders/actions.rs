//! What an operator does to an order from its page: move it on (start, ship, cancel), record
//! its payment, ask the customer for new artwork, note something, reprint it.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;

use crate::domain::ids::OrderNumber;
use crate::domain::one_line::capitalised;
use crate::domain::orders::artwork::{self, ArtworkError};
use crate::domain::orders::notes::{self, NoteError};
use crate::domain::orders::payments::{self, PaymentError, PaymentMove};
use crate::domain::orders::reprint::{self, ReprintError};
use crate::domain::orders::status::{self, Mailing, Move, MoveError};
use crate::domain::services::Services;
use crate::http::admin::orders::page::{no_order, order_page, placed_order};
use crate::http::admin::session::{ConsoleError, OperatorForm, Staff};
use crate::http::pages::error::PageError;
use crate::http::pages::layout::redirect_setting;
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
    /// Why the order is put on hold.
    reason: String,
}

/// `POST /admin/orders/{number}/move` (`move` = start, ship with `carrier` and `tracking`,
/// hold with `reason`, or cancel): back to the order's page, or the page with the problem.
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
        "hold" => Move::Hold {
            reason: fields.reason,
        },
        "cancel" => Move::Cancel,
        _ => {
            let problem = "move: one of start, ship, hold or cancel".to_owned();
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
            refused(&services, &staff, &number, status, &error.to_string()).await
        }
    }
}

/// Order `number`'s page as it is now, with why an action on it was refused above it (another
/// operator's change may be why, so the order is read again).
async fn refused(
    services: &Services,
    staff: &Staff,
    number: &str,
    status: StatusCode,
    problem: &str,
) -> Result<Response, ConsoleError> {
    let order = placed_order(services, number).await?;
    order_page(
        services,
        staff,
        &order,
        Some((status, capitalised(problem))),
    )
    .await
}

/// The payment form.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct PaymentForm {
    payment: String,
    reference: String,
}

/// `POST /admin/orders/{number}/payment` (`payment` = paid with `reference`, or refunded):
/// back to the order's page, or the page with the problem.
pub async fn record_payment(
    State(ServicesState(services)): State<ServicesState>,
    Path(number): Path<String>,
    OperatorForm {
        staff,
        operator,
        fields,
    }: OperatorForm<PaymentForm>,
) -> Result<Response, ConsoleError> {
    let order = placed_order(&services, &number).await?;
    let reference = fields.reference;
    let requested = match fields.payment.as_str() {
        "paid" => PaymentMove::Paid { reference },
        "refunded" => PaymentMove::Refunded { reference },
        _ => {
            let problem = (
                StatusCode::BAD_REQUEST,
                "payment: paid or refunded".to_owned(),
            );
            return order_page(&services, &staff, &order, Some(problem)).await;
        }
    };
    let (store, clock) = (services.store.as_ref(), &services.clock);
    let by = operator.signature();
    match payments::record(store, clock, &order.number, requested, &by).await {
        Ok(_) => {
            services.wake.webhooks.notify_one();
            Ok(redirect_setting(&format!("/admin/orders/{number}"), &[]))
        }
        Err(PaymentError::Store(error)) => Err(error.into()),
        Err(PaymentError::NoSuchOrder(_)) => Err(no_order(&number)),
        Err(error) => {
            let status = match error {
                PaymentError::Illegal { .. } => StatusCode::CONFLICT,
                _ => StatusCode::BAD_REQUEST,
            };
            refused(&services, &staff, &number, status, &error.to_string()).await
        }
    }
}

/// The form asking for new artwork: the pack, counted from 1 as the page shows it.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ArtworkForm {
    pack: String,
}

/// `POST /admin/orders/{number}/artwork` (`pack`): asks the customer of a held order for new
/// artwork of that pack; back to the order's page, or the page with the problem.
pub async fn ask_for_artwork(
    State(ServicesState(services)): State<ServicesState>,
    Path(number): Path<String>,
    OperatorForm {
        staff,
        operator,
        fields,
    }: OperatorForm<ArtworkForm>,
) -> Result<Response, ConsoleError> {
    let order = placed_order(&services, &number).await?;
    let Some(line) =
        (fields.pack.trim().parse::<usize>().ok()).and_then(|pack| pack.checked_sub(1))
    else {
        let problem = "pack: the number of a pack of the order".to_owned();
        return order_page(
            &services,
            &staff,
            &order,
            Some((StatusCode::BAD_REQUEST, problem)),
        )
        .await;
    };
    let mailing = Mailing::when(services.mailer.is_configured());
    let by = operator.signature();
    match artwork::request(&services, &order.number, line, &by, mailing).await {
        Ok(_) => {
            services.wake.mail.notify_one();
            Ok(redirect_setting(&format!("/admin/orders/{number}"), &[]))
        }
        Err(ArtworkError::Domain(error)) => Err(PageError::from(error).into()),
        Err(ArtworkError::NoSuchOrder(_)) => Err(no_order(&number)),
        Err(error) => {
            refused(
                &services,
                &staff,
                &number,
                StatusCode::CONFLICT,
                &error.to_string(),
            )
            .await
        }
    }
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
