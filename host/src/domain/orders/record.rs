//! An order as stored: what was ordered, where it goes and how it is paid; reading orders
//! back. Placing one is [`super::place`]'s.

use async_trait::async_trait;
use presspack_engine::model::PhysicalSpec;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::domain::customers::{self, EmailAddress};
use crate::domain::ids::{OrderNumber, PackId};
use crate::domain::prices::{Currency, Money};
use crate::infra::clock::system_millis;
use crate::infra::queue::Outcome;
use crate::infra::store::{self, Kind, Records, Schedule, Store, StoreError};

/// Record kind: placed orders, by order number.
pub const ORDERS: Kind = Kind::new("order");

/// Index: the numbers of placed orders in the order they were placed (each at its
/// `placed_at`), so that the console and the CLI find orders without listing every record of
/// the store (on Redis, a scan of the whole key space).
pub const PLACED: Kind = Kind::new("orders-placed");

/// Where an order goes. Every field is bounded; `line2` may be empty.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryAddress {
    pub name: String,
    pub line1: String,
    pub line2: String,
    pub city: String,
    pub postcode: String,
    pub country: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaymentState {
    /// Ordered on account: the customer pays the invoice sent with the order.
    AwaitingInvoicePayment,
    Paid,
}

impl PaymentState {
    pub fn describe(self) -> &'static str {
        match self {
            PaymentState::AwaitingInvoicePayment => "awaiting invoice payment",
            PaymentState::Paid => "paid",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Payment {
    pub provider: String,
    pub state: PaymentState,
}

/// One pack of an order, as it was ordered.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderLine {
    pub pack_id: PackId,
    pub name: String,
    pub product: String,
    pub physical_spec: PhysicalSpec,
    pub quantity: u32,
    pub unit_price: u64,
    pub line_total: u64,
    pub trial: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking_id: Option<String>,
    /// The consumer key of the API key that created the pack.
    pub created_by: String,
    /// The pack data as ordered, for production.
    pub pack: Box<RawValue>,
    /// The customer's approval of this pack's proof (orders placed before approvals have
    /// none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof_approval: Option<ProofApproval>,
}

/// A customer's approval of a pack's proof at checkout: which design (its
/// [`crate::domain::packs::PackRecord::design_hash`]), when, and what the printer's check
/// told them about it as they approved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProofApproval {
    pub design: String,
    /// Unix seconds.
    pub approved_at: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    pub number: OrderNumber,
    pub customer_id: String,
    pub customer_email: EmailAddress,
    pub lines: Vec<OrderLine>,
    pub currency: Currency,
    pub total: u64,
    pub delivery: DeliveryAddress,
    pub payment: Payment,
    pub placed_at: u64,
    /// Where it is now (orders stored before states existed are `placed`).
    #[serde(default)]
    pub status: OrderStatus,
    /// Every change of `status`, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<StatusChange>,
    /// The order this one prints again, for an operator's reprint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reprint_of: Option<OrderNumber>,
}

impl Order {
    /// `minor` units of the order's currency: a line's price or the total.
    pub fn amount(&self, minor: u64) -> Money {
        Money::new(minor, self.currency)
    }
}

/// Takes payment for an order. The built-in [`InvoicePayment`] records the order as awaiting
/// payment of an invoice; a card provider would redirect, then confirm here.
#[async_trait]
pub trait PaymentProvider: Send + Sync {
    fn name(&self) -> &'static str;
    async fn pay(&self, order: &Order) -> Result<PaymentState, String>;
}

pub struct InvoicePayment;

#[async_trait]
impl PaymentProvider for InvoicePayment {
    fn name(&self) -> &'static str {
        "invoice"
    }

    async fn pay(&self, _order: &Order) -> Result<PaymentState, String> {
        Ok(PaymentState::AwaitingInvoicePayment)
    }
}

/// Whether the order was committed to its customer's record, that is, really placed (an
/// order record without it is a checkout that lost the trial rule or crashed midway).
pub async fn is_committed(store: &dyn Records, order: &Order) -> Result<bool, StoreError> {
    Ok(customers::load(store, &order.customer_id)
        .await?
        .is_some_and(|customer| customer.orders.contains(&order.number)))
}

/// An order's state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum OrderStatus {
    #[default]
    Placed,
    InProduction,
    #[serde(rename_all = "camelCase")]
    Shipped {
        carrier: String,
        tracking_number: String,
    },
    Cancelled,
}

impl OrderStatus {
    /// As the order's JSON spells the state: `in_production`.
    pub fn code(&self) -> &'static str {
        match self {
            OrderStatus::Placed => "placed",
            OrderStatus::InProduction => "in_production",
            OrderStatus::Shipped { .. } => "shipped",
            OrderStatus::Cancelled => "cancelled",
        }
    }

    /// For people: "in production", "shipped".
    pub fn describe(&self) -> &'static str {
        match self {
            OrderStatus::Placed => "placed",
            OrderStatus::InProduction => "in production",
            OrderStatus::Shipped { .. } => "shipped",
            OrderStatus::Cancelled => "cancelled",
        }
    }
}

/// One change of an order's state.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusChange {
    /// `chg_` and 128 random bits: the change's webhooks name it.
    pub id: String,
    /// The state it moved to.
    pub status: OrderStatus,
    /// Seconds since 1970.
    pub at: u64,
    /// Who made it: `cli:<user>` for the operator command, `admin:<name>` for the console.
    pub by: String,
}

/// How long a checkout or a change may take between queueing its jobs and being written.
const WRITE_GRACE: std::time::Duration = std::time::Duration::from_secs(120);

/// What a job telling order `number` (or, with `change`, that change of it), queued at
/// `queued_at`, must do first: `None` once what it tells is written (see
/// [`hold_until_placed`]).
pub async fn hold_until_written(
    store: &dyn Records,
    number: &OrderNumber,
    change: Option<&str>,
    queued_at: i64,
) -> Option<Outcome> {
    let Some(change) = change else {
        return hold_until_placed(store, number, queued_at).await;
    };
    let written = load(store, number)
        .await
        .map(|order| order.is_some_and(|order| order.history.iter().any(|c| c.id == change)));
    hold(
        written,
        queued_at,
        "the order's change was never written (another change got in first)",
    )
}

/// What a job for order `number`, queued at `queued_at` (milliseconds since 1970), must do
/// before its work: `None` once the order is placed; else wait while its checkout may still
/// commit it, and give up once it cannot (an abandoned checkout is never placed).
pub async fn hold_until_placed(
    store: &dyn Records,
    number: &OrderNumber,
    queued_at: i64,
) -> Option<Outcome> {
    let placed = match load(store, number).await {
        Ok(Some(order)) => is_committed(store, &order).await,
        Ok(None) => Ok(false),
        Err(error) => Err(error),
    };
    hold(
        placed,
        queued_at,
        "the order was never placed (its checkout did not complete)",
    )
}

/// What a job queued at `queued_at` answers while what it tells may not be written yet: `None`
/// once it is (`written`); else try again in a second while the write may still come, and
/// give up (`never`) once it cannot.
fn hold(written: Result<bool, StoreError>, queued_at: i64, never: &str) -> Option<Outcome> {
    match written {
        Ok(true) => None,
        Err(error) => Some(Outcome::retry(error.to_string())),
        // (The queue stamps its jobs with the system clock.)
        Ok(false) if system_millis() - queued_at < WRITE_GRACE.as_millis() as i64 => {
            Some(Outcome::NotYet(std::time::Duration::from_secs(1)))
        }
        Ok(false) => Some(Outcome::give_up(never)),
    }
}

pub async fn load(store: &dyn Records, number: &OrderNumber) -> Result<Option<Order>, StoreError> {
    Ok(store::load(store, ORDERS, number).await?.map(|(o, _)| o))
}

/// Puts order `order` in the index of placed orders, once it is placed (committed). Doing it
/// again does nothing, so the press-file job of every order does it too: it mends an index
/// write lost to a crash just after the commit.
pub async fn index(store: &dyn Schedule, order: &Order) -> Result<(), StoreError> {
    let at = i64::try_from(order.placed_at).unwrap_or(i64::MAX);
    store.schedule(PLACED, &order.number, at).await
}

/// Indexes the orders placed before the index existed (once per store).
async fn index_earlier_orders(store: &dyn Store) -> Result<(), StoreError> {
    store::index_once(store, PLACED, ORDERS, |number| {
        Box::pin(async move {
            // An order record no customer lists (a checkout that crashed before its commit)
            // was never placed and is left out.
            if let Some(number) = OrderNumber::parse(&number)
                && let Some(order) = load(store, &number).await?
                && is_committed(store, &order).await?
            {
                index(store, &order).await?;
            }
            Ok(())
        })
    })
    .await
}

/// Puts every placed order in the index again (`presspack indexes rebuild`).
pub async fn rebuild_index(store: &dyn Store) -> Result<(), StoreError> {
    store.delete(store::INDEXES_BUILT, PLACED.as_str()).await?;
    index_earlier_orders(store).await
}

/// How many orders are placed, and up to `limit` of them, the newest first, after skipping
/// the `skip` newest.
pub async fn newest(
    store: &dyn Store,
    skip: usize,
    limit: usize,
) -> Result<(u64, Vec<Order>), StoreError> {
    index_earlier_orders(store).await?;
    let (placed, _) = store.backlog(PLACED).await?;
    let mut orders = Vec::new();
    for indexed in store.latest(PLACED, skip, limit).await? {
        let Some(number) = OrderNumber::parse(&indexed) else {
            tracing::warn!(order = %indexed, "the index of placed orders holds no order number");
            continue;
        };
        match load(store, &number).await? {
            Some(order) => orders.push(order),
            None => tracing::warn!(order = %number, "an indexed order has no record"),
        }
    }
    Ok((placed, orders))
}

/// Every placed order, oldest first (the operator CLI, the console's filtered lists).
pub async fn list(store: &dyn Store) -> Result<Vec<Order>, StoreError> {
    let (_, mut orders) = newest(store, 0, usize::MAX).await?;
    orders.reverse();
    Ok(orders)
}
