//! The console's order pages: the paged, filtered list (list.rs) and its CSV export
//! (export.rs); an order's page (page.rs) with the state changes, payments, requests for new
//! artwork, notes and the reprint (actions.rs); batches of orders started or shipped from the
//! list (batches.rs), their press files as one archive (archive.rs), and the paperwork
//! (paperwork.rs): packing slips, job tickets, invoices.

mod actions;
mod archive;
mod batches;
mod export;
mod list;
pub(crate) mod page;
mod paperwork;

pub use actions::{add_note, ask_for_artwork, move_order, record_payment, reprint};
pub use archive::of_filter as press_file_archive;
pub use batches::{batch, ship_list};
pub use export::export;
pub use list::list;
pub use page::{show, side_image};
pub use paperwork::{invoice_page, job_ticket_page, packing_slip_page};
