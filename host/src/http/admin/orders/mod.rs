//! The console's order pages: the paged, filtered list (list.rs) and its CSV export
//! (export.rs); an order's page (page.rs) with the state changes, notes and the reprint
//! (actions.rs).

mod actions;
mod export;
mod list;
pub(crate) mod page;

pub use actions::{add_note, batch, move_order, reprint};
pub use export::export;
pub use list::list;
pub use page::{show, side_image};
