//! The press files of many orders as one bundle for the floor: what goes in it (each made
//! file, by its name) and its manifest (a line per ordered pack: order, line, product, paper,
//! finish, quantity, file name, preflight verdict). Only the plan is held; the files are read
//! one at a time as the bundle is sent ([`crate::infra::zip`] writes it).

use crate::domain::ids::OrderNumber;
use crate::domain::orders::press_files::{self, PressFileState};
use crate::domain::orders::record::{self, PressVerdict};
use crate::infra::store::{Store, StoreError};

/// Most orders in one bundle (counted before any work).
pub const MAX_ORDERS: usize = 500;

/// One pack of a bundled order: its manifest line and its file, if made.
#[derive(Debug, Clone)]
pub struct BundledPack {
    pub order: OrderNumber,
    /// 1 for an order's first pack.
    pub line: usize,
    pub product: String,
    pub paper: String,
    pub finish: String,
    pub quantity: u32,
    /// The name the file has in the bundle (`PP-…-1-press.pdf`).
    pub file_name: String,
    pub verdict: PressVerdict,
    /// Why there is no file, when there is none ("being made", "cannot be printed: …").
    pub missing: Option<String>,
    /// The blob holding the file, and its size, when made.
    pub blob: Option<(String, u64)>,
}

/// What a bundle of `numbers` holds, in their order; the numbers that name no placed order
/// (left out).
pub async fn plan(
    store: &dyn Store,
    numbers: &[OrderNumber],
) -> Result<(Vec<BundledPack>, Vec<OrderNumber>), StoreError> {
    let (mut packs, mut unknown) = (Vec::new(), Vec::new());
    for number in numbers {
        let order = match record::load(store, number).await? {
            Some(order) if record::is_committed(store, &order).await? => order,
            _ => {
                unknown.push(number.clone());
                continue;
            }
        };
        let states = press_files::states(store, &order).await?;
        for (index, (line, state)) in order.lines.iter().zip(&states).enumerate() {
            let spec = &line.physical_spec;
            let (blob, missing) = match state {
                PressFileState::Produced { blob, bytes, .. } => {
                    (Some((blob.clone(), *bytes)), None)
                }
                PressFileState::Failed { reason } => {
                    (None, Some(format!("cannot be printed: {reason}")))
                }
                PressFileState::GaveUp { last_error } => (
                    None,
                    Some(format!(
                        "could not be made: {}",
                        last_error.as_deref().unwrap_or("no reason recorded")
                    )),
                ),
                PressFileState::InProduction { .. } => (None, Some("being made".to_owned())),
                PressFileState::NotQueued => (None, Some("not queued".to_owned())),
            };
            packs.push(BundledPack {
                order: order.number.clone(),
                line: index + 1,
                product: line.product.clone(),
                paper: spec.paper_class.clone(),
                finish: spec.finishing_option.clone(),
                quantity: line.quantity,
                file_name: press_files::file_name(&order.number, index),
                verdict: press_files::verdict_of_file(state),
                missing,
                blob,
            });
        }
    }
    Ok((packs, unknown))
}
