//! `svc.order.markPaid` (Presspack's own): the shop's back office, which takes payment itself,
//! records that an order was paid. Only a key granted `mark_orders_paid` may call it, and the
//! order's history names that key (`api:<consumer key>`), as it names the console's operators.

use serde::Serialize;

use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::ids::OrderNumber;
use crate::domain::orders::payments::{self, MAX_REFERENCE, PaymentError, PaymentMove};
use crate::domain::orders::record::PaymentChange;
use crate::domain::services::Services;
use crate::http::rpc::call::{Call, Reply};
use crate::http::rpc::params::truncate;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PaidEnvelope<'a> {
    order_number: &'a OrderNumber,
    payment_state: &'static str,
    payment: Option<&'a PaymentChange>,
}

/// `svc.order.markPaid` (`orderNumber`, `reference`): the order's payment as it is now. Sent
/// again with the same reference, it answers the same and records nothing more.
pub async fn mark_paid(services: &Services, call: &Call<'_>) -> Result<Reply, DomainError> {
    let raw = call.params.required("orderNumber")?;
    let not_found = || {
        DomainError::new(
            ErrorCode::OrderNotFound,
            format!("orderNumber: there is no order {:?}", truncate(raw)),
        )
    };
    let number = OrderNumber::parse(raw).ok_or_else(not_found)?;
    let reference = call.params.text("reference", MAX_REFERENCE)?;
    let reference = reference.ok_or_else(|| DomainError::missing("reference"))?;
    // The permission is checked before the call gets here; the key names who recorded it.
    let by = match &call.key {
        Some(key) => format!("api:{}", key.consumer_key),
        None => {
            return Err(DomainError::new(
                ErrorCode::MissingSignature,
                "sign the call",
            ));
        }
    };
    let paid = PaymentMove::Paid {
        reference: reference.to_owned(),
    };
    let (store, clock) = (services.store.as_ref(), &services.clock);
    let order = match payments::record(store, clock, &number, paid, &by).await {
        Ok(order) => order,
        Err(PaymentError::NoSuchOrder(_)) => return Err(not_found()),
        Err(error @ PaymentError::InvalidReference(_)) => {
            return Err(DomainError::new(
                ErrorCode::InvalidParameter,
                error.to_string(),
            ));
        }
        Err(error @ PaymentError::Illegal { .. }) => {
            return Err(DomainError::new(
                ErrorCode::PaymentConflict,
                error.to_string(),
            ));
        }
        Err(PaymentError::Store(error)) => return Err(error.into()),
    };
    services.wake.webhooks.notify_one();
    Reply::json(&PaidEnvelope {
        order_number: &order.number,
        payment_state: order.payment.state.code(),
        payment: order.payment.latest(),
    })
}
