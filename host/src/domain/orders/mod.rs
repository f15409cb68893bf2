//! Orders: placing the customer's cart as an order with a delivery address, paid through a
//! [`PaymentProvider`], kept durably with what was ordered (each pack's data as it was), and
//! the one-trial-pack-per-customer rule.
//!
//! Placing an order: price the cart, check the trial rule, claim the checkout form's key in
//! the customer record (compare-and-swap: of several sendings of one form, the first claims
//! it and the others are shown its order), take payment, store the order and queue its
//! webhooks, then commit it to the customer record with compare-and-swap, which re-checks
//! the trial rule and that the key is still this sending's. A claim holds for
//! [`CHECKOUT_LEASE`]: a crash between claim and commit leaves one that a later sending of the
//! form takes over once it has run out (the crashed sending can then never commit, so its
//! stored order, if any, is deleted), and the form places the order after all. Two checkouts at once can both store an order, but only one
//! commit can claim the customer's trial; the loser deletes its order and its webhooks and
//! reports the rule. The order's jobs (its press files, webhooks, e-mail) are queued before the
//! commit so that a crash after it cannot lose them; their workers do nothing for an order
//! that was never committed ([`record::hold_until_placed`]).

pub mod artwork;
pub mod artwork_links;
pub mod bundle;
pub mod invoice_settings;
pub mod invoices;
pub mod notes;
pub mod paperwork;
pub mod payments;
pub mod press_files;
pub mod record;
pub mod reprint;
pub mod shipments;
pub mod status;
pub mod triage;

use crate::domain::cart::PricedLine;
use crate::domain::customers::{self, Checkout, Customer};
use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::ids::{OrderNumber, PackId};
use crate::domain::mail::{self, MailKind, Mails};
use crate::domain::orders::record::ORDERS;
use crate::domain::orders::record::OrderStatus;
use crate::domain::packs;
use crate::domain::services::Services;
use crate::domain::webhooks::{self, OrderEvent};
use crate::infra::queue;
use crate::infra::store::StoreError;

pub use record::{
    DeliveryAddress, InvoicePayment, Order, OrderLine, Payment, PaymentProvider, PaymentState,
    ProofApproval, index, is_committed, list, load,
};
pub use triage::rebuild_indexes;

/// The proofs a customer approved at checkout: pack id to the design hash its proof showed.
pub type Approvals = std::collections::HashMap<PackId, String>;

/// Checkout forms remembered per customer (the latest ones).
const REMEMBERED_CHECKOUTS: usize = 20;

/// Orders an account may place before its address is confirmed (when the shop sends mail,
/// which is how an address is confirmed): each is an invoice and a press job on trust.
pub const MAX_UNCONFIRMED_ORDERS: usize = 3;

/// Whether `customer` may place one more order now: [`MAX_UNCONFIRMED_ORDERS`] while the
/// address is not confirmed.
fn check_confirmation(state: &Services, customer: &Customer) -> Result<(), CheckoutError> {
    let unconfirmed = state.mailer.is_configured() && !customer.email_confirmed;
    if unconfirmed && customer.orders.len() >= MAX_UNCONFIRMED_ORDERS {
        return Err(CheckoutError::ConfirmAddressFirst(
            customer.email.to_string(),
        ));
    }
    Ok(())
}

/// How long a checkout form's claim keeps other sendings of the form waiting for its order.
/// Placing takes milliseconds; a claim this old whose order is not committed was left by a
/// crash (or a store so slow that the sending gave up), and another sending may take it over.
pub const CHECKOUT_LEASE: std::time::Duration = std::time::Duration::from_secs(10);

impl Checkout {
    /// Whether this claim's sending may still be placing its order at `now` (milliseconds).
    pub fn is_placing(&self, now: i64) -> bool {
        now < self
            .claimed_at
            .saturating_add(CHECKOUT_LEASE.as_millis() as i64)
    }
}

/// What sending a checkout form did.
pub enum Placed {
    /// It placed this order.
    New(Box<Order>),
    /// The same form was sent before (a second click): that sending's order number.
    Already(OrderNumber),
}

/// Why an order was not placed; the checkout page shows it.
#[derive(Debug, thiserror::Error)]
pub enum CheckoutError {
    #[error("Your cart is empty.")]
    EmptyCart,
    #[error("{name} cannot be ordered yet: {reasons} Open it from your cart to fix it.")]
    NotOrderable { name: String, reasons: String },
    #[error("Check the proof of {0} and tick “I approve this proof” to order it.")]
    ProofNotApproved(String),
    /// The approval sent names another design than the pack's now: it changed after its
    /// proof was shown (in another tab), or an old approval was sent again.
    #[error(
        "The design of {0} changed after its proof was shown to you: check the new proof below and approve it again."
    )]
    ProofChanged(String),
    #[error(
        "You have already ordered a trial pack, and a trial pack can be ordered only once. Remove {0} from your cart to order the rest."
    )]
    TrialAlreadyOrdered(String),
    #[error("An order can hold one trial pack, once: keep one trial pack with quantity 1.")]
    OneTrialPerOrder,
    #[error("The payment did not go through: {0}")]
    Payment(String),
    #[error("{}", .0.message)]
    Api(DomainError),
    /// The cart no longer holds the lines this form was for (another form ordered them).
    #[error(
        "Your cart changed while this order was being placed: was it ordered from another page? Look in Your orders, or check your order below and place it again."
    )]
    CartChanged,
    /// The account's address is not confirmed, and it has placed as many orders as an
    /// unconfirmed account may.
    #[error(
        "Confirm your e-mail address to place more orders: follow the link we sent to {0}, or send it again."
    )]
    ConfirmAddressFirst(String),
    /// The form's key was claimed by an earlier sending, for this order.
    #[error("This order is being placed already.")]
    AlreadyPlaced(OrderNumber),
}

impl From<DomainError> for CheckoutError {
    fn from(error: DomainError) -> Self {
        CheckoutError::Api(error)
    }
}

impl From<StoreError> for CheckoutError {
    fn from(error: StoreError) -> Self {
        CheckoutError::Api(error.into())
    }
}

/// The trial line of an order, if any; more than one trial pack (or copy) is refused.
fn trial_line(lines: &[PricedLine]) -> Result<Option<&PricedLine>, CheckoutError> {
    let trials: Vec<&PricedLine> = lines.iter().filter(|l| l.pack.trial).collect();
    match trials.as_slice() {
        [] => Ok(None),
        [one] if one.quantity == 1 => Ok(Some(one)),
        _ => Err(CheckoutError::OneTrialPerOrder),
    }
}

/// Whether every line's proof was approved, for the design the line holds now.
fn check_approvals(lines: &[PricedLine], approvals: &Approvals) -> Result<(), CheckoutError> {
    for line in lines {
        match approvals.get(&line.pack_id) {
            None => return Err(CheckoutError::ProofNotApproved(line.pack.display_name())),
            Some(design) if *design != line.pack.design_hash() => {
                return Err(CheckoutError::ProofChanged(line.pack.display_name()));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Places the customer's cart `lines` (as the checkout page showed them, `cart_state`
/// checked) as an order, once per checkout form (`checkout_key`), each line's proof
/// approved for the design it holds (`approvals`). The order holds these lines' packs as
/// they were read, so a design saved since is not what gets printed.
pub async fn place(
    state: &Services,
    customer: &Customer,
    lines: &[PricedLine],
    approvals: &Approvals,
    delivery: DeliveryAddress,
    checkout_key: &str,
) -> Result<Placed, CheckoutError> {
    if lines.is_empty() {
        return Err(CheckoutError::EmptyCart);
    }
    if let Some(line) = lines.iter().find(|l| !l.pack.is_orderable()) {
        return Err(CheckoutError::NotOrderable {
            name: line.pack.display_name(),
            reasons: packs::blocking_reasons(state, &line.pack).join(" "),
        });
    }
    check_approvals(lines, approvals)?;
    check_confirmation(state, customer)?;
    let trial = trial_line(lines)?.map(|l| l.pack.display_name());
    if let Some(name) = &trial
        && customer.trial_order.is_some()
    {
        return Err(CheckoutError::TrialAlreadyOrdered(name.clone()));
    }
    let number = OrderNumber::random();
    let mut abandoned = None;
    let claimed = customers::modify(state.store.as_ref(), &customer.id, |record| {
        let now = state.clock.unix_millis();
        abandoned = None;
        let claim = Checkout {
            key: checkout_key.to_owned(),
            order_number: number.clone(),
            claimed_at: now,
        };
        if let Some(earlier) = record.checkouts.iter_mut().find(|c| c.key == checkout_key) {
            if record.orders.contains(&earlier.order_number) || earlier.is_placing(now) {
                return Err(CheckoutError::AlreadyPlaced(earlier.order_number.clone()));
            }
            // Left by a crash: this sending takes it over.
            abandoned = Some(std::mem::replace(earlier, claim).order_number);
            return Ok(());
        }
        record.checkouts.push(claim);
        let excess = record.checkouts.len().saturating_sub(REMEMBERED_CHECKOUTS);
        record.checkouts.drain(..excess);
        Ok(())
    })
    .await;
    match claimed {
        Ok(_) => {}
        Err(CheckoutError::AlreadyPlaced(number)) => return Ok(Placed::Already(number)),
        Err(error) => return Err(error),
    }
    if let Some(abandoned) = abandoned {
        forget_abandoned(state, &abandoned).await?;
    }
    match place_claimed(
        state,
        customer,
        lines,
        trial,
        delivery,
        number,
        checkout_key,
    )
    .await
    {
        Ok(order) => Ok(Placed::New(Box::new(order))),
        Err(error) => {
            // Not placed: the form may be sent again.
            let released = customers::modify(state.store.as_ref(), &customer.id, |record| {
                record.checkouts.retain(|c| c.key != checkout_key);
                Ok::<_, StoreError>(())
            })
            .await;
            if let Err(e) = released {
                tracing::warn!(error = %e, "could not release a failed checkout's key");
            }
            Err(error)
        }
    }
}

/// Deletes what the crashed sending of a checkout form stored for order `number`, whose claim
/// was taken over: it can never be committed now. Its queued webhooks and mail give up by
/// themselves, finding no order.
async fn forget_abandoned(state: &Services, number: &OrderNumber) -> Result<(), StoreError> {
    let store = state.store.as_ref();
    press_files::withdraw(store, number).await?;
    store.delete(ORDERS, number).await?;
    tracing::info!(order = %number, "took over the checkout of an order a crash left unplaced");
    Ok(())
}

/// Places the order `number` of the priced `lines` (its checkout key claimed).
async fn place_claimed(
    state: &Services,
    customer: &Customer,
    lines: &[PricedLine],
    trial: Option<String>,
    delivery: DeliveryAddress,
    number: OrderNumber,
    checkout_key: &str,
) -> Result<Order, CheckoutError> {
    let approved_at = state.clock.unix_seconds();
    let mut order = Order {
        number,
        customer_id: customer.id.clone(),
        customer_email: customer.email.clone(),
        lines: lines
            .iter()
            .map(|l| OrderLine {
                pack_id: l.pack_id.clone(),
                name: l.pack.display_name(),
                product: l.pack.product.clone(),
                physical_spec: l.pack.physical_spec.clone(),
                quantity: l.quantity,
                unit_price: l.unit_price.minor,
                line_total: l.line_total.minor,
                trial: l.pack.trial,
                tracking_id: l.pack.tracking_id.clone(),
                created_by: l.pack.created_by.clone(),
                pack: l.pack.pack.clone(),
                proof_approval: Some(ProofApproval {
                    design: l.pack.design_hash(),
                    approved_at,
                    warnings: (packs::explained_warnings(state, &l.pack).into_iter())
                        .map(|(text, _)| text)
                        .collect(),
                }),
            })
            .collect(),
        currency: state.prices.currency,
        total: crate::domain::cart::total(state.prices.currency, lines).minor,
        delivery,
        payment: Payment {
            provider: state.payment.name().to_owned(),
            state: PaymentState::AwaitingInvoicePayment,
            history: Vec::new(),
        },
        placed_at: approved_at,
        status: OrderStatus::Placed,
        history: Vec::new(),
        reprint_of: None,
        artwork: Vec::new(),
        paperwork: Vec::new(),
    };
    order.payment.state = state
        .payment
        .pay(&order)
        .await
        .map_err(CheckoutError::Payment)?;
    let value = serde_json::to_vec(&order).map_err(|e| StoreError::corrupt(e.to_string()))?;
    if !state.store.insert(ORDERS, &order.number, &value).await? {
        return Err(
            DomainError::new(ErrorCode::Internal, "order number collision; try again").into(),
        );
    }
    let store = state.store.as_ref();
    // The press files first: a webhook waits for them (it carries their addresses).
    press_files::enqueue(store, &order.number).await?;
    let links = press_files::PressFileLinks {
        base_url: &state.base_url,
        key: &state.secret_key,
        expires: order.placed_at + state.press_file_link.as_secs(),
    };
    let queued =
        webhooks::enqueue_order_event(store, &order, &OrderEvent::Confirmed(&links)).await?;
    let mail = match state.mailer.is_configured() {
        true => Some(mail::enqueue(store, &order, MailKind::OrderConfirmed, None).await?),
        false => None,
    };
    let ordered: Vec<&PackId> = order.lines.iter().map(|l| &l.pack_id).collect();
    let committed = customers::modify(state.store.as_ref(), &customer.id, |record| {
        // A later sending of this form took the claim over (this one took longer than the
        // lease): that sending places the order.
        let claimed = (record.checkouts.iter())
            .any(|c| c.key == checkout_key && c.order_number == order.number);
        if !claimed {
            return Err(CheckoutError::CartChanged);
        }
        check_confirmation(state, record)?;
        // Another checkout form (a second tab, a page come back from the browser's history)
        // may have ordered these lines since this one was checked: one cart, one order.
        let still_in_cart = lines.iter().all(|ordered| {
            record
                .cart
                .iter()
                .any(|l| l.pack_id == ordered.pack_id && l.quantity == ordered.quantity)
        });
        if !still_in_cart {
            return Err(CheckoutError::CartChanged);
        }
        if let Some(name) = &trial
            && record.trial_order.is_some()
        {
            return Err(CheckoutError::TrialAlreadyOrdered(name.clone()));
        }
        if trial.is_some() {
            record.trial_order = Some(order.number.clone());
        }
        record.orders.push(order.number.clone());
        record.cart.retain(|line| !ordered.contains(&&line.pack_id));
        Ok(())
    })
    .await;
    if let Err(error) = committed {
        queue::withdraw::<webhooks::Webhooks>(store, &queued).await?;
        queue::withdraw::<Mails>(store, &Vec::from_iter(mail)).await?;
        press_files::withdraw(store, &order.number).await?;
        store.delete(ORDERS, &order.number).await?;
        return Err(error);
    }
    // Placed. Should this write fail, the order's press-file job indexes it.
    if let Err(error) = index(store, &order, None).await {
        tracing::warn!(order = %order.number, %error, "the order is not in the index yet");
    }
    // Numbered now, so invoice numbers follow the orders; should this fail, the confirmation
    // (or the first download) numbers it.
    if let Err(error) = invoices::number_of(store, &order.number, order.placed_at).await {
        tracing::warn!(order = %order.number, %error, "the order's invoice has no number yet");
    }
    state.wake.press_files.notify_one();
    state.wake.webhooks.notify_one();
    state.wake.mail.notify_one();
    tracing::info!(order = %order.number, lines = order.lines.len(), "order placed");
    Ok(order)
}

/// The state of the cart a checkout page showed: a form sent for another state (the cart
/// changed in another tab since) is shown again rather than placed.
pub fn cart_state(lines: &[PricedLine]) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for line in lines {
        for part in [
            line.pack_id.as_bytes(),
            &line.quantity.to_le_bytes(),
            &line.unit_price.minor.to_le_bytes(),
            // What is printed, not when it was saved: two saves in one second differ here.
            line.pack.pack.get().as_bytes(),
            line.pack.display_name().as_bytes(),
            line.pack.physical_spec.pack_size.to_string().as_bytes(),
            line.pack.physical_spec.paper_class.as_bytes(),
            line.pack.physical_spec.finishing_option.as_bytes(),
            line.pack.physical_spec.paper_laminate.as_bytes(),
        ] {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
    }
    hex::encode(&hasher.finalize()[..16])
}
