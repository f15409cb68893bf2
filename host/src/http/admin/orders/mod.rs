//! The console's order pages: the paged, filtered list (list.rs) and its CSV export
//! (export.rs); an order's page (page.rs) with the state changes, payments, notes and the
//! reprint (actions.rs); batches of orders started or shipped from the list (batches.rs),
//! their press files as one archive (archive.rs) and their packing slips (paperwork.rs).

mod actions;
mod archive;
mod batches;
mod export;
mod list;
pub(crate) mod page;
mod paperwork;

pub use actions::{add_note, move_order, record_payment, reprint};
pub use archive::of_filter as press_file_archive;
pub use batches::{batch, ship_list};
pub use export::export;
pub use list::list;
pub use page::{show, side_image};
pub use paperwork::packing_slip_page;
