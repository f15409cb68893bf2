//! The console's order pages: the paged, filtered list (list.rs); an order's page (page.rs)
//! with the state changes and the reprint (actions.rs).

mod actions;
mod list;
pub(crate) mod page;

pub use actions::{move_order, reprint};
pub use list::list;
pub use page::{show, side_image};
