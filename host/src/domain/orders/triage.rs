//! Triage: what the console's order list shows first. Orders are read through indexes of
//! their state, of the open ones (placed or in production) and of the open ones whose press
//! file blocks, each ordered by when the order was placed, so a page costs what it shows and
//! skips, not the whole store. Each order shown carries its press verdict.

use crate::domain::ids::OrderNumber;
use crate::domain::orders::press_files;
use crate::domain::orders::record::{
    self, BLOCKED, OPEN, ORDERS, Order, OrderStatus, PressVerdict,
};
use crate::infra::store::{self, INDEXES_BUILT, IndexEnd, Kind, Store, StoreError};

/// An order with its press verdict, as the console lists it.
pub struct Triaged {
    pub order: Order,
    pub verdict: PressVerdict,
}

/// Puts the orders placed before these indexes existed in them (once per store), each with
/// its verdict as its files stand. [`page`] does it first; a reader of the indexes through
/// [`record::indexed`] calls it once before.
pub async fn index_earlier_orders(store: &dyn Store) -> Result<(), StoreError> {
    record::index_earlier_orders(store).await?;
    store::index_once(store, OPEN, ORDERS, |number| {
        Box::pin(async move {
            if let Some(number) = OrderNumber::parse(&number)
                && let Some(order) = record::load(store, &number).await?
                && record::is_committed(store, &order).await?
            {
                let verdict = press_files::verdict(store, &order).await?;
                record::index(store, &order, Some(verdict)).await?;
            }
            Ok(())
        })
    })
    .await
}

/// Puts every placed order in every index again (`presspack indexes rebuild`).
pub async fn rebuild_indexes(store: &dyn Store) -> Result<(), StoreError> {
    for index in [record::PLACED, OPEN] {
        store.delete(INDEXES_BUILT, index.as_str()).await?;
    }
    index_earlier_orders(store).await
}

/// `orders` with their verdicts.
pub async fn with_verdicts(
    store: &dyn Store,
    orders: Vec<Order>,
) -> Result<Vec<Triaged>, StoreError> {
    let mut triaged = Vec::with_capacity(orders.len());
    for order in orders {
        let verdict = press_files::verdict(store, &order).await?;
        triaged.push(Triaged { order, verdict });
    }
    Ok(triaged)
}

/// How many orders `index` holds, and up to `limit` of them with their verdicts from the end
/// `from`, after skipping `skip`.
pub async fn page(
    store: &dyn Store,
    index: Kind,
    from: IndexEnd,
    skip: usize,
    limit: usize,
) -> Result<(u64, Vec<Triaged>), StoreError> {
    index_earlier_orders(store).await?;
    let (count, orders) = record::indexed(store, index, from, skip, limit).await?;
    Ok((count, with_verdicts(store, orders).await?))
}

/// Up to `limit` orders not started whose press file blocks, the oldest first: the top of the
/// console's default view. Their state and verdict are read again, so an order moved or made
/// again since it was indexed shows as it is now.
pub async fn blocked(store: &dyn Store, limit: usize) -> Result<Vec<Triaged>, StoreError> {
    let (_, orders) = page(store, BLOCKED, IndexEnd::Earliest, 0, limit).await?;
    Ok(orders
        .into_iter()
        .filter(|t| t.order.status == OrderStatus::Placed && t.verdict == PressVerdict::Block)
        .collect())
}
