//! An order's payment, beside its production: awaiting payment of the invoice, paid (when,
//! the bank's or back office's reference, who said so), refunded. Operators record it in the
//! console and with the CLI; a shop's back office with a signed call (`svc.order.markPaid`).
//!
//! A payment is written as a state change is ([`status::write_told`]): its webhook
//! (`order.paid`, `order.refunded`) is queued first, naming the payment change, and sent once
//! the change is in the order. Marking an order paid again with the same reference (a back
//! office retrying after a timeout, two clicks) changes nothing and tells nobody twice; another
//! reference is refused, since the order is paid already.

use crate::domain::ids::OrderNumber;
use crate::domain::one_line;
use crate::domain::orders::record::{self, Order, PaymentChange, PaymentState};
use crate::domain::orders::status;
use crate::domain::webhooks::{self, OrderEvent};
use crate::infra::clock::Clock;
use crate::infra::store::{Store, StoreError};

/// Longest payment reference.
pub const MAX_REFERENCE: usize = 100;

/// What an operator or a back office records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaymentMove {
    /// The invoice was paid, with this reference.
    Paid { reference: String },
    /// The payment was given back (a reference is optional).
    Refunded { reference: String },
}

#[derive(Debug, thiserror::Error)]
pub enum PaymentError {
    #[error("there is no order {0:?}")]
    NoSuchOrder(String),
    #[error("reference: {0}")]
    InvalidReference(String),
    /// `by`: who recorded the payment as it is (`: admin:ann.ops recorded it, reference …`).
    #[error(
        "order {number} is {from}; it cannot be {to}{by} (a payment goes awaiting -> paid -> refunded)"
    )]
    Illegal {
        number: String,
        from: &'static str,
        to: &'static str,
        by: String,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl PaymentMove {
    /// The checked move (its reference as it will be stored).
    pub fn checked(self) -> Result<PaymentMove, PaymentError> {
        let invalid =
            |problem: one_line::LineProblem| PaymentError::InvalidReference(problem.to_string());
        Ok(match self {
            PaymentMove::Paid { reference } => PaymentMove::Paid {
                reference: one_line::required(&reference, MAX_REFERENCE)
                    .map_err(invalid)?
                    .to_owned(),
            },
            PaymentMove::Refunded { reference } => PaymentMove::Refunded {
                reference: one_line::optional(&reference, MAX_REFERENCE)
                    .map_err(invalid)?
                    .to_owned(),
            },
        })
    }

    fn reference(&self) -> &str {
        match self {
            PaymentMove::Paid { reference } | PaymentMove::Refunded { reference } => reference,
        }
    }

    fn to(&self) -> PaymentState {
        match self {
            PaymentMove::Paid { .. } => PaymentState::Paid,
            PaymentMove::Refunded { .. } => PaymentState::Refunded,
        }
    }

    /// Whether `order` already shows this move (the same reference): a retry.
    fn is_recorded(&self, order: &Order) -> bool {
        order.payment.state == self.to()
            && (order.payment.history.last()).is_some_and(|last| last.reference == self.reference())
    }

    /// Refused unless the move is legal from where `order`'s payment is.
    fn check(&self, order: &Order) -> Result<(), PaymentError> {
        let legal = matches!(
            (order.payment.state, self),
            (
                PaymentState::AwaitingInvoicePayment,
                PaymentMove::Paid { .. }
            )
        ) || matches!(
            (order.payment.state, self),
            // A reprint is paid and cost nothing: there is nothing to give back.
            (PaymentState::Paid, PaymentMove::Refunded { .. }) if order.total > 0
        );
        if legal {
            return Ok(());
        }
        let by = match order.payment.latest() {
            Some(last) if last.reference.is_empty() => format!(": {} recorded it", last.by),
            Some(last) => format!(": {} recorded it, reference {}", last.by, last.reference),
            None => String::new(),
        };
        Err(PaymentError::Illegal {
            number: order.number.to_string(),
            from: order.payment.state.describe(),
            to: self.to().describe(),
            by,
        })
    }
}

/// Records `requested` for placed order `number`, as `by`; the order as it is now. The
/// partners' webhooks are queued (the caller may wake their worker).
pub async fn record(
    store: &dyn Store,
    clock: &Clock,
    number: &OrderNumber,
    requested: PaymentMove,
    by: &str,
) -> Result<Order, PaymentError> {
    let requested = requested.checked()?;
    let no_order = || PaymentError::NoSuchOrder(number.to_string());
    let order = record::load(store, number).await?.ok_or_else(no_order)?;
    if !record::is_committed(store, &order).await? {
        return Err(no_order());
    }
    if requested.is_recorded(&order) {
        return Ok(order);
    }
    requested.check(&order)?;
    let change = PaymentChange {
        id: format!("pay_{:032x}", rand::random::<u128>()),
        state: requested.to(),
        at: clock.unix_seconds(),
        by: by.to_owned(),
        reference: requested.reference().to_owned(),
    };
    let queued =
        webhooks::enqueue_order_event(store, &order, &OrderEvent::Payment(&change)).await?;
    let written = status::write_told(store, number, &queued, &[], |order| {
        if requested.is_recorded(order) {
            // A second sending of this very move got in first: nothing more to record.
            return Err(Refused::Recorded);
        }
        requested.check(order)?;
        order.payment.state = change.state;
        order.payment.history.push(change.clone());
        Ok(())
    })
    .await;
    match written {
        Ok(Some(order)) => {
            let state = order.payment.state.describe();
            tracing::info!(order = %number, payment = state, by, "payment recorded");
            Ok(order)
        }
        Ok(None) => Err(no_order()),
        Err(Refused::Recorded) => record::load(store, number).await?.ok_or_else(no_order),
        Err(Refused::Error(error)) => Err(error),
    }
}

/// Why the write of a payment did not happen.
enum Refused {
    /// The same move is in the order already.
    Recorded,
    Error(PaymentError),
}

impl From<PaymentError> for Refused {
    fn from(error: PaymentError) -> Self {
        Refused::Error(error)
    }
}

impl From<StoreError> for Refused {
    fn from(error: StoreError) -> Self {
        Refused::Error(error.into())
    }
}
