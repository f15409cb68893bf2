//! Paperwork the engine prints for an order: the job ticket that travels with the job on the
//! floor (its number as a Code 128 barcode, what to print on which paper, a thumbnail of every
//! side, the press check's verdict). This module says what a document says; the engine's
//! `paperwork` lays it out and writes the PDF with the press files' fonts.

use presspack_engine::paperwork::{Block, Column, Paper, Thumbnail};
use presspack_engine::render::{BoxType, ImageInput};

use crate::domain::cart::option_name;
use crate::domain::error::DomainError;
use crate::domain::orders::press_files::{self, PressFileState, verdict_of_file};
use crate::domain::orders::record::{Order, OrderLine, OrderStatus};
use crate::domain::packs::stored_pack;
use crate::domain::services::Services;
use crate::domain::sides::parsed_pack_side;
use crate::infra::clock::when;

/// Most orders in one printout of job tickets: each side of each pack is drawn for it.
pub const MAX_TICKETS: usize = 25;
/// Most sides drawn for one printout.
const MAX_THUMBNAILS: usize = 100;
/// Pixels of a thumbnail's longer side: sharp at the ticket's 54 mm (about 225 dpi).
const THUMBNAIL_PIXELS: u32 = 480;

/// The job tickets of `orders`, one order after another, each starting on a new page.
pub async fn job_tickets(services: &Services, orders: &[Order]) -> Result<Vec<u8>, DomainError> {
    if orders.is_empty() || orders.len() > MAX_TICKETS {
        return Err(DomainError::invalid(
            "orders",
            format!("job tickets print 1 to {MAX_TICKETS} orders at once"),
        ));
    }
    // Each pack read once, its sides counted before any is drawn: each is an engine render
    // and a picture in the file.
    let mut packs = Vec::new();
    for order in orders {
        let read: Result<Vec<_>, _> = (order.lines.iter())
            .map(|line| stored_pack(services, &line.product, &line.pack))
            .collect();
        packs.push(read?);
    }
    let sides: usize = packs.iter().flatten().map(|pack| pack.sides.len()).sum();
    if sides > MAX_THUMBNAILS {
        return Err(DomainError::invalid(
            "orders",
            format!(
                "their packs have {sides} sides; job tickets show at most {MAX_THUMBNAILS} at once"
            ),
        ));
    }
    let mut blocks = Vec::new();
    let mut pictures: Vec<(String, Vec<u8>)> = Vec::new();
    for (index, (order, packs)) in orders.iter().zip(&packs).enumerate() {
        if index > 0 {
            blocks.push(Block::PageBreak);
        }
        let states = press_files::states(services.store.as_ref(), order).await?;
        blocks.extend(ticket_heading(order));
        for (line_index, ((line, state), pack)) in
            order.lines.iter().zip(&states).zip(packs).enumerate()
        {
            let mut thumbnails = Vec::with_capacity(pack.sides.len());
            for (side_index, side) in pack.sides.iter().enumerate() {
                let png =
                    parsed_pack_side(services, pack, side_index, THUMBNAIL_PIXELS, BoxType::Cut)
                        .await?;
                let uri = format!("{}/{line_index}/{side_index}", order.number);
                thumbnails.push(Thumbnail {
                    resource_uri: uri.clone(),
                    caption: format!(
                        "Side {}: {} {}",
                        side_index + 1,
                        side.side_type.as_str(),
                        side.side_num
                    ),
                });
                pictures.push((uri, png));
            }
            blocks.extend(line_blocks(line_index, line, state, thumbnails));
        }
    }
    let paper = Paper {
        title: match orders {
            [order] => format!("Job ticket {}", order.number),
            _ => format!("Job tickets of {} orders", orders.len()),
        },
        created: services.clock.unix_millis() / 1000,
        blocks,
    };
    let images: Vec<(&str, ImageInput)> = pictures
        .iter()
        .map(|(uri, png)| {
            let input = ImageInput {
                bytes: png,
                enhance: false,
            };
            (uri.as_str(), input)
        })
        .collect();
    Ok(services.engine.paperwork(&paper, &images).await?)
}

/// The top of a ticket: the number as a barcode, when, where to and how it stands.
fn ticket_heading(order: &Order) -> Vec<Block> {
    let address = &order.delivery;
    let mut facts = vec![
        format!("Ordered {}", when(order.placed_at)),
        format!("State: {}", order.status.describe()),
        format!("Payment: {}", order.payment.state.describe()),
    ];
    if let OrderStatus::OnHold { reason } = &order.status {
        facts.push(format!("On hold: {reason}"));
    }
    if let Some(original) = &order.reprint_of {
        facts.push(format!("Reprint of {original}"));
    }
    vec![
        Block::Heading {
            text: format!("Job ticket {}", order.number),
        },
        Block::Barcode {
            value: order.number.to_string(),
        },
        Block::Columns {
            texts: vec![
                facts.join("\n"),
                format!(
                    "Ship to\n{}\n{} {}\n{}",
                    address.name, address.postcode, address.city, address.country
                ),
            ],
        },
    ]
}

/// One pack of the order: what to print it on, how many, the check's verdict, its sides.
fn line_blocks(
    index: usize,
    line: &OrderLine,
    state: &PressFileState,
    thumbnails: Vec<Thumbnail>,
) -> Vec<Block> {
    let spec = &line.physical_spec;
    let column = |heading: &str, share: f64, right: bool| Column {
        heading: heading.to_owned(),
        share,
        right,
    };
    let verdict = verdict_of_file(state).describe();
    let check = match state {
        PressFileState::Produced { report, .. } => {
            let findings: usize = report.pages.iter().map(|page| page.findings.len()).sum();
            let plural = if findings == 1 { "" } else { "s" };
            format!("Press check: {verdict} ({findings} finding{plural})")
        }
        PressFileState::Failed { reason } => format!("Press check: {verdict}: {reason}"),
        _ => format!("Press check: {verdict}"),
    };
    vec![
        Block::Text {
            text: format!("Pack {}: {}", index + 1, line.name),
            bold: true,
            small: false,
        },
        Block::Table {
            columns: vec![
                column("Product", 2.0, false),
                column("Paper", 2.0, false),
                column("Finish", 2.0, false),
                column("Laminate", 2.0, false),
                column("Cards per pack", 1.5, true),
                column("Packs", 1.0, true),
            ],
            rows: vec![vec![
                line.product.clone(),
                option_name(&spec.paper_class),
                option_name(&spec.finishing_option),
                option_name(&spec.paper_laminate),
                spec.pack_size.to_string(),
                line.quantity.to_string(),
            ]],
        },
        Block::Text {
            text: check,
            bold: false,
            small: false,
        },
        Block::Thumbnails { images: thumbnails },
    ]
}
