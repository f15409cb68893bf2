//! Where an order is after it was placed: placed, on hold (with a reason), in production,
//! shipped (carrier and tracking number), or cancelled (before production). Each change is kept in the order's
//! history with its time and who made it.
//!
//! A change is written with compare-and-swap and checked against the state it finds there,
//! so of two operators changing one order at once the second finds the first's state and
//! gets the illegal move refused. The partner's webhooks for the change are queued before
//! the write, naming the change, so a crash just after it cannot lose them; their worker
//! sends them only once the change is in the order ([`record::hold_until_written`]). A change that
//! lost takes its messages back; after a crash between the two, the change is never in the
//! order and its messages are given up.

use crate::domain::ids::OrderNumber;
use crate::domain::mail::{self, MailKind, Mails};
use crate::domain::one_line::{self, LineProblem};
use crate::domain::orders::press_files;
use crate::domain::orders::record::{self, ORDERS, Order, OrderStatus, PressVerdict, StatusChange};
use crate::domain::webhooks::{self, OrderEvent};
use crate::infra::clock::Clock;
use crate::infra::queue;
use crate::infra::store::{self, Store, StoreError};

/// A move an operator asks for.
#[derive(Debug, Clone)]
pub enum Move {
    /// `over_block`: the operator has looked at a press file that blocks and starts anyway.
    StartProduction {
        over_block: bool,
    },
    Ship {
        carrier: String,
        tracking_number: String,
    },
    /// Stop a placed order before production, for `reason`.
    Hold {
        reason: String,
    },
    Cancel,
}

#[derive(Debug, thiserror::Error)]
pub enum MoveError {
    #[error("there is no order {0:?}")]
    NoSuchOrder(String),
    #[error("{parameter}: {problem}")]
    Invalid {
        parameter: &'static str,
        problem: String,
    },
    /// `by`: who made the order what it is (`: it was shipped by admin:bob`), when someone did.
    #[error(
        "order {number} is {from}; it cannot be {to}{by} (an order moves placed -> in production -> shipped; a placed order can be put on hold, and a placed or held one started or cancelled)"
    )]
    Illegal {
        number: String,
        from: &'static str,
        to: &'static str,
        by: String,
    },
    #[error(
        "order {0}'s press file blocks: it cannot be printed as it is. Look at its preflight, then start it anyway or ask for new artwork"
    )]
    Blocked(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Longest hold reason, carrier name and tracking number.
pub const MAX_HOLD_REASON: usize = 200;
const MAX_CARRIER: usize = 60;
const MAX_TRACKING_NUMBER: usize = 100;

/// A carrier or tracking number as it will be stored: one line (they go into e-mail and
/// pages), the tracking number in printable ASCII.
fn label(
    parameter: &'static str,
    value: &str,
    check: fn(&str, usize) -> Result<&str, LineProblem>,
    max: usize,
) -> Result<String, MoveError> {
    check(value, max)
        .map(str::to_owned)
        .map_err(|problem| MoveError::Invalid {
            parameter,
            problem: problem.to_string(),
        })
}

/// A carrier and tracking number as they will be stored, or why not.
pub fn checked_shipment(carrier: &str, tracking_number: &str) -> Result<Move, MoveError> {
    Ok(Move::Ship {
        carrier: label("carrier", carrier, one_line::required, MAX_CARRIER)?,
        tracking_number: label(
            "tracking",
            tracking_number,
            one_line::identifier,
            MAX_TRACKING_NUMBER,
        )?,
    })
}

impl Move {
    /// The checked move (carrier and tracking number as they will be stored).
    pub fn checked(self) -> Result<Move, MoveError> {
        match self {
            Move::Ship {
                carrier,
                tracking_number,
            } => checked_shipment(&carrier, &tracking_number),
            Move::Hold { reason } => Ok(Move::Hold {
                reason: label("reason", &reason, one_line::required, MAX_HOLD_REASON)?,
            }),
            other => Ok(other),
        }
    }

    fn verb(&self) -> &'static str {
        match self {
            Move::StartProduction { .. } => "put in production",
            Move::Ship { .. } => "shipped",
            Move::Hold { .. } => "put on hold",
            Move::Cancel => "cancelled",
        }
    }

    /// The move that made an order `status`.
    fn to(status: &OrderStatus) -> Option<&'static str> {
        match status {
            OrderStatus::Placed => None,
            OrderStatus::InProduction => Some("put in production"),
            OrderStatus::OnHold { .. } => Some("put on hold"),
            OrderStatus::Shipped { .. } => Some("shipped"),
            OrderStatus::Cancelled => Some("cancelled"),
        }
    }

    /// The state `from` moves to, if the move is legal there.
    fn from(&self, from: &OrderStatus) -> Option<OrderStatus> {
        match (from, self) {
            (OrderStatus::Placed | OrderStatus::OnHold { .. }, Move::StartProduction { .. }) => {
                Some(OrderStatus::InProduction)
            }
            (OrderStatus::Placed | OrderStatus::OnHold { .. }, Move::Cancel) => {
                Some(OrderStatus::Cancelled)
            }
            (OrderStatus::Placed, Move::Hold { reason }) => Some(OrderStatus::OnHold {
                reason: reason.clone(),
            }),
            (
                OrderStatus::InProduction,
                Move::Ship {
                    carrier,
                    tracking_number,
                },
            ) => Some(OrderStatus::Shipped {
                carrier: carrier.clone(),
                tracking_number: tracking_number.clone(),
            }),
            _ => None,
        }
    }

    fn illegal(&self, order: &Order) -> MoveError {
        // Of two operators (or batches) at once, the loser learns who won.
        let last = order.history.last().filter(|c| c.status == order.status);
        let by = match (last, Move::to(&order.status)) {
            (Some(change), Some(verb)) => format!(": it was {verb} by {}", change.by),
            _ => String::new(),
        };
        MoveError::Illegal {
            number: order.number.to_string(),
            from: order.status.describe(),
            to: self.verb(),
            by,
        }
    }
}

/// Whether customers are e-mailed (an SMTP server is configured).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mailing {
    Configured,
    Off,
}

impl Mailing {
    /// `Configured` when an SMTP server is.
    pub fn when(configured: bool) -> Mailing {
        if configured {
            Mailing::Configured
        } else {
            Mailing::Off
        }
    }
}

/// Moves placed order `number` on, as `by`; the order as it is now. The partner's webhooks
/// for the change are queued, and with `mail` the customer's shipping notice (the caller may
/// wake their workers).
pub async fn change(
    store: &dyn Store,
    clock: &Clock,
    number: &OrderNumber,
    requested: Move,
    by: &str,
    mail: Mailing,
) -> Result<Order, MoveError> {
    let requested = requested.checked()?;
    let order = record::load(store, number)
        .await?
        .ok_or_else(|| MoveError::NoSuchOrder(number.to_string()))?;
    if !record::is_committed(store, &order).await? {
        return Err(MoveError::NoSuchOrder(number.to_string()));
    }
    // Refused before anything is queued when it is plainly illegal; checked again on write.
    let Some(status) = requested.from(&order.status) else {
        return Err(requested.illegal(&order));
    };
    // A file that blocks goes to press only when someone says they looked, on the record.
    let over_block = match requested {
        Move::StartProduction { over_block } => {
            let blocks = press_files::verdict(store, &order).await? == PressVerdict::Block;
            if blocks && !over_block {
                return Err(MoveError::Blocked(order.number.to_string()));
            }
            blocks
        }
        _ => false,
    };
    let change = StatusChange {
        id: format!("chg_{:032x}", rand::random::<u128>()),
        status,
        at: clock.unix_seconds(),
        by: by.to_owned(),
        over_block,
    };
    let queued =
        webhooks::enqueue_order_event(store, &order, &OrderEvent::Changed(&change)).await?;
    let mailed = match (&change.status, mail) {
        (OrderStatus::Shipped { .. }, Mailing::Configured) => {
            vec![mail::enqueue(store, &order, MailKind::Shipped, Some(&change.id)).await?]
        }
        _ => Vec::new(),
    };
    let written = write_told(store, number, &queued, &mailed, |order| {
        let Some(status) = requested.from(&order.status) else {
            return Err(requested.illegal(order));
        };
        order.status = status;
        order.history.push(change.clone());
        Ok(())
    })
    .await;
    match written? {
        Some(order) => {
            tracing::info!(order = %number, status = order.status.describe(), by, "order moved");
            // Should this write fail, the list shows the order by its own state, and
            // `presspack indexes rebuild` mends the index.
            if let Err(error) = record::index(store, &order, None).await {
                tracing::warn!(order = %number, %error, "the order's indexes are behind its state");
            }
            Ok(order)
        }
        None => Err(MoveError::NoSuchOrder(number.to_string())),
    }
}

/// Writes `apply` to order `number` with compare-and-swap, the `webhooks` and `mails` that
/// tell of it queued already. Should `apply` refuse (it finds another state than the caller
/// checked) or the write fail, they are taken back: what they tell never happened.
pub(super) async fn write_told<E: From<StoreError>>(
    store: &dyn Store,
    number: &OrderNumber,
    webhooks: &[String],
    mails: &[String],
    apply: impl FnMut(&mut Order) -> Result<(), E>,
) -> Result<Option<Order>, E> {
    let written = store::modify(store, ORDERS, number, apply).await;
    if written.is_err() {
        queue::withdraw::<webhooks::Webhooks>(store, webhooks).await?;
        queue::withdraw::<Mails>(store, mails).await?;
    }
    written
}

/// Most orders one batch moves.
pub const MAX_BATCH: usize = 100;

/// Moves each of `numbers` as [`change`] does, one after the other, as `by`: what became of
/// each, in order, so that a batch reports every order it touched. An order another operator
/// moved first is refused like a single move (compare-and-swap), and the others go on.
pub async fn change_each(
    store: &dyn Store,
    clock: &Clock,
    numbers: &[OrderNumber],
    requested: &Move,
    by: &str,
    mail: Mailing,
) -> Vec<Result<Order, MoveError>> {
    let mut outcomes = Vec::with_capacity(numbers.len());
    for number in numbers {
        outcomes.push(change(store, clock, number, requested.clone(), by, mail).await);
    }
    outcomes
}
