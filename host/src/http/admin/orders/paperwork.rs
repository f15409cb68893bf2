//! Paperwork that travels with an order, for one order from its page or for the orders ticked
//! in the list: its packing slip (the shop, the delivery address, each pack and how many, no
//! prices), one printed page per order, which the browser prints (the console's stylesheet
//! hides everything but the sheets on paper and starts each on a new page); and its job
//! ticket, a PDF the engine makes (`domain::orders::paperwork`). The order's invoice is here
//! too (`domain::orders::invoices`).

use axum::extract::{Path, State};
use axum::response::Response;
use maud::{Markup, html};

use crate::domain::brand::Brand;
use crate::domain::cart::describe_spec;
use crate::domain::ids::OrderNumber;
use crate::domain::orders::Order;
use crate::domain::orders::record::{Paperwork, record_paperwork};
use crate::domain::orders::{invoices, paperwork};
use crate::domain::services::Services;
use crate::http::admin::orders::page::placed_order;
use crate::http::admin::page::page;
use crate::http::admin::session::{ConsoleError, Staff};
use crate::http::pages::error::PageError;
use crate::http::pages::layout::{self, when};
use crate::http::pages::orders::delivery_address;
use crate::http::state::ServicesState;

/// One order's packing slip, a printed page of its own.
fn packing_slip(brand: &Brand, order: &Order) -> Markup {
    let address = &order.delivery;
    html! {
        section.sheet.packing-slip aria-label=(format!("Packing slip of {}", order.number)) {
            p.sheet-shop { strong { (brand.name) } }
            h2 { "Packing slip · " span.order-number { (order.number) } }
            p { "Ordered " (when(order.placed_at)) }
            (delivery_address(address))
            table.slip-lines {
                caption.visually-hidden { "What the parcel holds" }
                thead { tr { th scope="col" { "Pack" } th scope="col" { "Product" } th scope="col" { "Packs" } } }
                tbody {
                    @for line in &order.lines {
                        tr {
                            td { (line.name) }
                            td { (line.product) " · " (describe_spec(&line.physical_spec)) }
                            td.quantity { (line.quantity) }
                        }
                    }
                }
            }
        }
    }
}

/// Writes in each of `orders` that the operator took `what` of it.
async fn taken(
    services: &Services,
    staff: &Staff,
    orders: &[Order],
    what: Paperwork,
) -> Result<(), ConsoleError> {
    let by = staff.operator()?.signature();
    let numbers: Vec<OrderNumber> = orders.iter().map(|o| o.number.clone()).collect();
    let at = services.clock.unix_seconds();
    record_paperwork(services.store.as_ref(), &numbers, what, at, &by).await?;
    Ok(())
}

/// The packing slips of `orders`, as one page to print.
pub(crate) async fn packing_slips(
    services: &Services,
    staff: &Staff,
    orders: &[Order],
) -> Result<Response, ConsoleError> {
    taken(services, staff, orders, Paperwork::PackingSlip).await?;
    let content = html! {
        p.no-print { "Print this page: each packing slip comes out on a page of its own." }
        @for order in orders { (packing_slip(&services.brand, order)) }
    };
    Ok(page(staff, "Packing slips", content))
}

/// `GET /admin/orders/{number}/packing-slip`
pub async fn packing_slip_page(
    State(ServicesState(services)): State<ServicesState>,
    staff: Staff,
    Path(number): Path<String>,
) -> Result<Response, ConsoleError> {
    staff.operator()?;
    let order = placed_order(&services, &number).await?;
    packing_slips(&services, &staff, &[order]).await
}

/// The job tickets of `orders` as one PDF, each order from a new page.
pub(crate) async fn job_tickets(
    services: &Services,
    staff: &Staff,
    orders: &[Order],
) -> Result<Response, ConsoleError> {
    let pdf = paperwork::job_tickets(services, orders)
        .await
        .map_err(PageError::from)?;
    taken(services, staff, orders, Paperwork::JobTicket).await?;
    let name = match orders {
        [order] => format!("{}-job-ticket.pdf", order.number),
        _ => format!("job-tickets-{}.pdf", orders.len()),
    };
    Ok(layout::pdf(pdf, &name))
}

/// `GET /admin/orders/{number}/job-ticket`
pub async fn job_ticket_page(
    State(ServicesState(services)): State<ServicesState>,
    staff: Staff,
    Path(number): Path<String>,
) -> Result<Response, ConsoleError> {
    staff.operator()?;
    let order = placed_order(&services, &number).await?;
    job_tickets(&services, &staff, &[order]).await
}

/// `GET /admin/orders/{number}/invoice`: the invoice as the customer downloads it.
pub async fn invoice_page(
    State(ServicesState(services)): State<ServicesState>,
    staff: Staff,
    Path(number): Path<String>,
) -> Result<Response, ConsoleError> {
    staff.operator()?;
    let order = placed_order(&services, &number).await?;
    let (number, pdf) = invoices::invoice_pdf(&services, &order)
        .await
        .map_err(PageError::from)?;
    taken(&services, &staff, &[order], Paperwork::Invoice).await?;
    Ok(layout::pdf(pdf, &invoices::file_name(&number)))
}
