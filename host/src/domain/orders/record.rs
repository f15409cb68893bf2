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
use crate::infra::store::{self, IndexEnd, Kind, Records, Schedule, Store, StoreError};

/// Record kind: placed orders, by order number.
pub const ORDERS: Kind = Kind::new("order");

/// Index: the numbers of placed orders in the order they were placed (each at its
/// `placed_at`), so that the console and the CLI find orders without listing every record of
/// the store (on Redis, a scan of the whole key space).
pub const PLACED: Kind = Kind::new("orders-placed");

/// Index: placed orders still to work on (placed, on hold or in production), by
/// `placed_at`: the console's default view.
pub const OPEN: Kind = Kind::new("orders-open");
/// Index: orders not started yet (placed) whose press verdict is [`PressVerdict::Block`], by
/// `placed_at`: what the floor must look at first. An operator who starts one over the block
/// has looked.
pub const BLOCKED: Kind = Kind::new("orders-blocked");
/// Indexes: placed orders in each state, by `placed_at`.
const IN_STATE: [(&str, Kind); 5] = [
    ("placed", Kind::new("orders-in-placed")),
    ("on_hold", Kind::new("orders-in-on_hold")),
    ("in_production", Kind::new("orders-in-in_production")),
    ("shipped", Kind::new("orders-in-shipped")),
    ("cancelled", Kind::new("orders-in-cancelled")),
];

/// The index of the orders in the state whose code (`in_production`) is `code`.
pub fn state_index(code: &str) -> Option<Kind> {
    IN_STATE
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, kind)| *kind)
}

/// What the printer's check says of an order's press files, the worst of its packs' first:
/// a pack that cannot be printed as it is, one whose file is not made yet, one with a
/// warning, all clear.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PressVerdict {
    Block,
    NotMade,
    Warning,
    Pass,
}

impl PressVerdict {
    pub const ALL: [PressVerdict; 4] = [
        PressVerdict::Block,
        PressVerdict::NotMade,
        PressVerdict::Warning,
        PressVerdict::Pass,
    ];

    /// As the console's filter spells it: `not_made`.
    pub fn code(self) -> &'static str {
        match self {
            PressVerdict::Block => "block",
            PressVerdict::NotMade => "not_made",
            PressVerdict::Warning => "warning",
            PressVerdict::Pass => "pass",
        }
    }

    pub fn parse(code: &str) -> Option<PressVerdict> {
        PressVerdict::ALL.into_iter().find(|v| v.code() == code)
    }

    /// For people: "blocked", "not made yet".
    pub fn describe(self) -> &'static str {
        match self {
            PressVerdict::Block => "blocked",
            PressVerdict::NotMade => "not made yet",
            PressVerdict::Warning => "warning",
            PressVerdict::Pass => "pass",
        }
    }
}

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
    /// Paid, then given back.
    Refunded,
}

impl PaymentState {
    pub const ALL: [PaymentState; 3] = [
        PaymentState::AwaitingInvoicePayment,
        PaymentState::Paid,
        PaymentState::Refunded,
    ];

    pub fn describe(self) -> &'static str {
        match self {
            PaymentState::AwaitingInvoicePayment => "awaiting invoice payment",
            PaymentState::Paid => "paid",
            PaymentState::Refunded => "refunded",
        }
    }

    /// As the order's JSON spells it: `awaiting_invoice_payment`.
    pub fn code(self) -> &'static str {
        match self {
            PaymentState::AwaitingInvoicePayment => "awaiting_invoice_payment",
            PaymentState::Paid => "paid",
            PaymentState::Refunded => "refunded",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Payment {
    pub provider: String,
    pub state: PaymentState,
    /// Every change of `state` recorded after the order was placed, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<PaymentChange>,
}

impl Payment {
    /// The change that made the payment what it is now, if one did.
    pub fn latest(&self) -> Option<&PaymentChange> {
        self.history.last()
    }
}

/// One change of an order's payment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentChange {
    /// `pay_` and 128 random bits: the change's webhooks name it.
    pub id: String,
    /// The state it moved to.
    pub state: PaymentState,
    /// Seconds since 1970.
    pub at: u64,
    /// Who recorded it: `admin:<name>`, `cli:<user>` or `api:<consumer key>`.
    pub by: String,
    /// The bank transfer's, card provider's or back office's reference (may be empty for a
    /// refund).
    pub reference: String,
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
    /// New artwork asked of the customer and given, oldest first (the packs it replaced
    /// kept in it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artwork: Vec<ArtworkChange>,
    /// The paperwork operators took of it (press files, packing slips, job tickets,
    /// invoices), the latest [`MAX_PAPERWORK`] kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paperwork: Vec<PaperworkTaken>,
}

/// Most paperwork entries an order keeps: the oldest go first.
pub const MAX_PAPERWORK: usize = 50;

/// Paperwork an operator took of an order: what, when, who.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaperworkTaken {
    pub what: Paperwork,
    /// Seconds since 1970.
    pub at: u64,
    /// `admin:<name>`.
    pub by: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Paperwork {
    /// Its press files, in an archive.
    PressFiles,
    PackingSlip,
    JobTicket,
    Invoice,
}

impl Paperwork {
    /// For people: "job ticket".
    pub fn describe(self) -> &'static str {
        match self {
            Paperwork::PressFiles => "press files downloaded",
            Paperwork::PackingSlip => "packing slip printed",
            Paperwork::JobTicket => "job ticket printed",
            Paperwork::Invoice => "invoice downloaded",
        }
    }
}

/// Records in each of `numbers` that `by` took its paperwork `what` at `at`.
pub async fn record_paperwork(
    store: &dyn Records,
    numbers: &[OrderNumber],
    what: Paperwork,
    at: u64,
    by: &str,
) -> Result<(), StoreError> {
    for number in numbers {
        store::modify(store, ORDERS, number, |order: &mut Order| {
            if order.paperwork.len() >= MAX_PAPERWORK {
                order.paperwork.remove(0);
            }
            order.paperwork.push(PaperworkTaken {
                what,
                at,
                by: by.to_owned(),
            });
            Ok::<_, StoreError>(())
        })
        .await?;
    }
    Ok(())
}

/// New artwork for one pack of an order: asked for by an operator, or given by the customer
/// (the pack it replaced kept here, as ordered).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtworkChange {
    /// `art_` and 128 random bits: the e-mail asking for it names it.
    pub id: String,
    /// The order line, counted from 0.
    pub line: usize,
    /// Seconds since 1970.
    pub at: u64,
    /// `admin:<name>` or `cli:<user>` for a request, `customer:<id>` for new artwork given.
    pub by: String,
    pub kind: ArtworkChangeKind,
}

/// Externally tagged (`{"replaced": {...}}`): a pack's raw JSON cannot pass through the buffer
/// an internally tagged or flattened enum is read through.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArtworkChangeKind {
    /// The customer was asked to edit `copy`, a copy of the ordered pack in their account.
    #[serde(rename_all = "camelCase")]
    Requested { copy: PackId },
    /// The customer's approved copy became the line's pack; this is what it replaced.
    #[serde(rename_all = "camelCase")]
    Replaced {
        previous_pack_id: PackId,
        previous_pack: Box<RawValue>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        previous_approval: Option<ProofApproval>,
    },
}

impl Order {
    /// Whether the change (of state or payment) whose id is `change` is in the order.
    fn tells(&self, change: &str) -> bool {
        self.history.iter().any(|c| c.id == change)
            || self.payment.history.iter().any(|c| c.id == change)
            || self.artwork.iter().any(|c| c.id == change)
    }

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
    /// Stopped before production, for `reason` (new artwork, a question to the customer).
    OnHold {
        reason: String,
    },
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
            OrderStatus::OnHold { .. } => "on_hold",
            OrderStatus::Shipped { .. } => "shipped",
            OrderStatus::Cancelled => "cancelled",
        }
    }

    /// Whether the floor still has work on it (placed, on hold or in production).
    pub fn is_open(&self) -> bool {
        matches!(
            self,
            OrderStatus::Placed | OrderStatus::OnHold { .. } | OrderStatus::InProduction
        )
    }

    /// For people: "in production", "shipped".
    pub fn describe(&self) -> &'static str {
        match self {
            OrderStatus::Placed => "placed",
            OrderStatus::InProduction => "in production",
            OrderStatus::OnHold { .. } => "on hold",
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
    /// Production was started over a press file that blocks, by `by`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub over_block: bool,
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
        .map(|order| order.is_some_and(|order| order.tells(change)));
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

/// Puts order `order` in the indexes once it is placed (committed): of placed orders, of its
/// state (and out of the others'), of open orders while it is open, and of blocked ones as
/// `verdict` says (`None`: as it was; an order that is started or over leaves it). Doing it
/// again does nothing, so the press-file job of every order does it too: it mends an index
/// write lost to a crash just after the commit or a move.
pub async fn index(
    store: &dyn Schedule,
    order: &Order,
    verdict: Option<PressVerdict>,
) -> Result<(), StoreError> {
    let (number, at) = (
        &order.number,
        i64::try_from(order.placed_at).unwrap_or(i64::MAX),
    );
    store.schedule(PLACED, number, at).await?;
    let open = order.status.is_open();
    let blocked = match verdict {
        _ if order.status != OrderStatus::Placed => Some(false),
        Some(verdict) => Some(verdict == PressVerdict::Block),
        None => None,
    };
    let memberships = (IN_STATE.iter())
        .map(|(code, kind)| (*kind, Some(*code == order.status.code())))
        .chain([(OPEN, Some(open)), (BLOCKED, blocked)]);
    for (kind, member) in memberships {
        match member {
            Some(true) => store.schedule(kind, number, at).await?,
            Some(false) => store.unschedule(kind, number).await?,
            None => {}
        }
    }
    Ok(())
}

/// Indexes the orders placed before the index of placed orders existed (once per store).
pub(super) async fn index_earlier_orders(store: &dyn Store) -> Result<(), StoreError> {
    store::index_once(store, PLACED, ORDERS, |number| {
        Box::pin(async move {
            // An order record no customer lists (a checkout that crashed before its commit)
            // was never placed and is left out.
            if let Some(number) = OrderNumber::parse(&number)
                && let Some(order) = load(store, &number).await?
                && is_committed(store, &order).await?
            {
                index(store, &order, None).await?;
            }
            Ok(())
        })
    })
    .await
}

/// How many orders index `index` holds, and up to `limit` of them from the end `from`, after
/// skipping `skip`. (The console reads the indexes of states and triage through
/// [`super::triage::page`], which first puts earlier orders in them.)
pub async fn indexed(
    store: &dyn Store,
    index: Kind,
    from: IndexEnd,
    skip: usize,
    limit: usize,
) -> Result<(u64, Vec<Order>), StoreError> {
    let (count, _) = store.backlog(index).await?;
    let mut orders = Vec::new();
    for indexed in store.page(index, from, skip, limit).await? {
        let Some(number) = OrderNumber::parse(&indexed) else {
            tracing::warn!(order = %indexed, "an index of orders holds no order number");
            continue;
        };
        match load(store, &number).await? {
            Some(order) => orders.push(order),
            None => tracing::warn!(order = %number, "an indexed order has no record"),
        }
    }
    Ok((count, orders))
}

/// Every placed order, oldest first (the operator CLI, the console's filtered lists).
pub async fn list(store: &dyn Store) -> Result<Vec<Order>, StoreError> {
    index_earlier_orders(store).await?;
    let (_, orders) = indexed(store, PLACED, IndexEnd::Earliest, 0, usize::MAX).await?;
    Ok(orders)
}
