//! Reprints: an operator prints an order again (lost in the post, damaged, misprinted) as a
//! new order of the same packs, as they were ordered, for the same customer and address. The
//! shop bears the cost: every price is 0 and nothing is charged. The new order starts placed,
//! names the order it repeats, records who made it, and gets its own press files.
//!
//! One reprint form gives one new order however often it is sent: its key is claimed by
//! insert, under the order it reprints (a key sent on another order's form claims nothing
//! of this one's), and a second sending finds the first one's order.
//!
//! A reprint may itself be reprinted, without a limit: each is an operator's deliberate act,
//! recorded with who made it, and a parcel can go missing twice (docs/security.md). The order is stored and its
//! press files queued before it is committed to the customer's record, as at checkout.

use crate::domain::customers;
use crate::domain::ids::OrderNumber;
use crate::domain::orders::record::{self, ORDERS, Order, OrderStatus, StatusChange};
use crate::domain::orders::{Payment, PaymentState, press_files};
use crate::domain::services::Services;
use crate::infra::store::{Kind, StoreError};

/// Record kind: `{order}:{key}` of a reprint form that was sent -> the order it made.
pub const REPRINT_KEYS: Kind = Kind::new("reprint-key");

#[derive(Debug, thiserror::Error)]
pub enum ReprintError {
    #[error("there is no order {0:?}")]
    NoSuchOrder(String),
    #[error("key: a reprint form's key is 32 hex digits")]
    InvalidKey,
    #[error("order {0} was cancelled, so it was never delivered to be printed again")]
    Cancelled(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What sending a reprint form did: the new order's number, and whether this sending made it.
pub struct Reprinted {
    pub number: OrderNumber,
    pub new: bool,
}

/// A fresh key for a reprint form.
pub fn form_key() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// Prints order `number` again, as `by`, once per form `key`.
pub async fn reprint(
    services: &Services,
    number: &OrderNumber,
    key: &str,
    by: &str,
) -> Result<Reprinted, ReprintError> {
    if key.len() != 32 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ReprintError::InvalidKey);
    }
    let store = services.store.as_ref();
    let original = super::load(store, number)
        .await?
        .ok_or_else(|| ReprintError::NoSuchOrder(number.to_string()))?;
    if !super::is_committed(store, &original).await? {
        return Err(ReprintError::NoSuchOrder(number.to_string()));
    }
    if original.status == OrderStatus::Cancelled {
        return Err(ReprintError::Cancelled(original.number.to_string()));
    }
    let new_number = OrderNumber::random();
    let key = format!("{number}:{key}");
    if !store
        .insert(REPRINT_KEYS, &key, new_number.as_bytes())
        .await?
    {
        let earlier = store
            .get(REPRINT_KEYS, &key)
            .await?
            .ok_or_else(|| StoreError::conflict("a reprint form's key vanished"))?;
        let number = OrderNumber::parse(&String::from_utf8_lossy(&earlier.value))
            .ok_or_else(|| StoreError::corrupt("a reprint form's key names no order number"))?;
        return Ok(Reprinted { number, new: false });
    }
    let placed_at = services.clock.unix_seconds();
    let order = Order {
        number: new_number.clone(),
        lines: original
            .lines
            .iter()
            .cloned()
            .map(|mut line| {
                (line.unit_price, line.line_total) = (0, 0);
                line
            })
            .collect(),
        total: 0,
        payment: Payment {
            provider: "reprint".to_owned(),
            state: PaymentState::Paid,
            history: Vec::new(),
        },
        placed_at,
        status: OrderStatus::Placed,
        history: vec![StatusChange {
            id: format!("chg_{:032x}", rand::random::<u128>()),
            status: OrderStatus::Placed,
            at: placed_at,
            by: by.to_owned(),
            over_block: false,
        }],
        reprint_of: Some(original.number.clone()),
        artwork: Vec::new(),
        paperwork: Vec::new(),
        ..original
    };
    let value = serde_json::to_vec(&order).map_err(|e| StoreError::corrupt(e.to_string()))?;
    if !store.insert(ORDERS, &order.number, &value).await? {
        store.delete(REPRINT_KEYS, &key).await?;
        return Err(StoreError::conflict("order number collision; try again").into());
    }
    press_files::enqueue(store, &order.number).await?;
    let committed = customers::modify(store, &order.customer_id, |customer| {
        customer.orders.push(order.number.clone());
        Ok::<_, StoreError>(())
    })
    .await;
    if let Err(error) = committed {
        press_files::withdraw(store, &order.number).await?;
        store.delete(ORDERS, &order.number).await?;
        store.delete(REPRINT_KEYS, &key).await?;
        return Err(error.into());
    }
    // Placed. Should this write fail, the order's press-file job indexes it.
    if let Err(error) = record::index(store, &order, None).await {
        tracing::warn!(order = %order.number, %error, "the order is not in the index yet");
    }
    services.wake.press_files.notify_one();
    tracing::info!(order = %order.number, of = %number, by, "order reprinted");
    Ok(Reprinted {
        number: new_number,
        new: true,
    })
}
