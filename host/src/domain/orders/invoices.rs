//! Every order's invoice: a number from one gap-free sequence per shop, the shop's address and
//! VAT as configured, the lines and totals, and how the payment stands, as a PDF the engine
//! makes (the job ticket's `paperwork` call). The confirmation e-mail carries it; the customer
//! and the console download it.
//!
//! Gap-free: the sequence's record names the last number and the order it went to. A number
//! is first written there (compare-and-swap, so two orders never share one), then in the
//! order's invoice record; whoever next reads the sequence finishes a write that a crash cut
//! short, so no number is skipped and none is given twice.

use presspack_engine::paperwork::{Block, Column, Paper};
use serde::{Deserialize, Serialize};

use crate::domain::brand::Brand;
use crate::domain::error::DomainError;
use crate::domain::ids::OrderNumber;
use crate::domain::orders::invoice_settings::InvoiceSettings;
use crate::domain::orders::record::{Order, PaymentState};
use crate::domain::services::Services;
use crate::infra::clock::when;
use crate::infra::store::{self, Kind, Records, StoreError};

/// Record kind: the shop's invoice sequence (one record, [`SEQUENCE_ID`]).
pub const SEQUENCE: Kind = Kind::new("invoice-sequence");
const SEQUENCE_ID: &str = "shop";
/// Record kind: order number -> its invoice's number and date.
pub const INVOICES: Kind = Kind::new("invoice");
/// Tries before an invoice number is given up for now (many orders numbered at once).
const MAX_ATTEMPTS: usize = 64;

/// An order's invoice: its place in the sequence and when it was issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceNumber {
    pub number: u64,
    /// Seconds since 1970.
    pub issued_at: u64,
}

impl InvoiceNumber {
    /// As printed: the prefix and at least six digits, `INV-000042`.
    pub fn spelled(&self, settings: &InvoiceSettings) -> String {
        format!("{}{:06}", settings.invoice_prefix, self.number)
    }
}

/// The file name of the invoice numbered `spelled` (a prefix may hold `/`).
pub fn file_name(spelled: &str) -> String {
    format!("invoice-{}.pdf", spelled.replace('/', "-"))
}

/// The sequence: the last number given and the order it went to.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Sequence {
    last: u64,
    order: OrderNumber,
    issued_at: u64,
}

/// The invoice number of order `number`, given now (`now`, seconds) if it has none yet.
pub async fn number_of(
    store: &dyn Records,
    number: &OrderNumber,
    now: u64,
) -> Result<InvoiceNumber, StoreError> {
    for _ in 0..MAX_ATTEMPTS {
        if let Some((invoice, _)) = store::load::<InvoiceNumber>(store, INVOICES, number).await? {
            return Ok(invoice);
        }
        let current = store::load::<Sequence>(store, SEQUENCE, SEQUENCE_ID).await?;
        if let Some((sequence, _)) = &current {
            // The last number given is written in its order's record before another is.
            let given = InvoiceNumber {
                number: sequence.last,
                issued_at: sequence.issued_at,
            };
            write_number(store, &sequence.order, &given).await?;
            if sequence.order == *number {
                return Ok(given);
            }
        }
        let next = Sequence {
            last: current.as_ref().map_or(0, |(s, _)| s.last) + 1,
            order: number.clone(),
            issued_at: now,
        };
        let value = serde_json::to_vec(&next).expect("sequences serialise");
        let taken = match current {
            Some((_, revision)) => {
                store
                    .replace(SEQUENCE, SEQUENCE_ID, &value, revision)
                    .await?
            }
            None => store.insert(SEQUENCE, SEQUENCE_ID, &value).await?,
        };
        if taken {
            let given = InvoiceNumber {
                number: next.last,
                issued_at: now,
            };
            write_number(store, number, &given).await?;
            return Ok(given);
        }
        tokio::task::yield_now().await;
    }
    Err(StoreError::conflict(
        "many invoices are being numbered at once; try again",
    ))
}

/// Writes `invoice` as order `number`'s unless it has one (the same, written by another).
async fn write_number(
    store: &dyn Records,
    number: &OrderNumber,
    invoice: &InvoiceNumber,
) -> Result<(), StoreError> {
    let value = serde_json::to_vec(invoice).expect("invoice numbers serialise");
    store.insert(INVOICES, number, &value).await?;
    Ok(())
}

/// The VAT a gross amount includes at `rate` (hundredths of a percent), rounded half up to
/// the minor unit: gross − gross ÷ (1 + rate).
pub fn included_vat(gross: u64, rate: u32) -> u64 {
    let (gross, rate) = (u128::from(gross), u128::from(rate));
    let net = (gross * 10_000 * 2 + (10_000 + rate)) / (2 * (10_000 + rate));
    (gross - net) as u64
}

/// A rate for people: `20%`, `7.7%`.
fn percent(rate: u32) -> String {
    let (whole, fraction) = (rate / 100, rate % 100);
    match fraction {
        0 => format!("{whole}%"),
        f if f % 10 == 0 => format!("{whole}.{}%", f / 10),
        f => format!("{whole}.{f:02}%"),
    }
}

/// Order `order`'s invoice as a PDF, and its number as printed (the file's name).
pub async fn invoice_pdf(
    services: &Services,
    order: &Order,
) -> Result<(String, Vec<u8>), DomainError> {
    let now = services.clock.unix_seconds();
    let invoice = number_of(services.store.as_ref(), &order.number, now).await?;
    let spelled = invoice.spelled(&services.invoicing);
    let paper = invoice_paper(&services.brand, &services.invoicing, order, &invoice, now);
    let pdf = services.engine.paperwork(&paper, &[]).await?;
    Ok((spelled, pdf))
}

/// What order `order`'s invoice says.
fn invoice_paper(
    brand: &Brand,
    settings: &InvoiceSettings,
    order: &Order,
    invoice: &InvoiceNumber,
    now: u64,
) -> Paper {
    let spelled = invoice.spelled(settings);
    let address = &order.delivery;
    let mut shop = vec![brand.name.clone()];
    shop.extend(settings.shop_address.iter().cloned());
    if let Some(vat_number) = &settings.vat_number {
        shop.push(format!("VAT number: {vat_number}"));
    }
    let facts = [
        format!("Invoice number: {spelled}"),
        format!("Invoice date: {}", date(invoice.issued_at)),
        format!("Order: {}", order.number),
        format!("Order date: {}", date(order.placed_at)),
    ];
    let mut billed = vec![
        "Bill to".to_owned(),
        address.name.clone(),
        address.line1.clone(),
    ];
    if !address.line2.is_empty() {
        billed.push(address.line2.clone());
    }
    billed.push(format!("{} {}", address.postcode, address.city));
    billed.push(address.country.clone());
    billed.push(order.customer_email.to_string());
    let column = |heading: &str, share: f64, right: bool| Column {
        heading: heading.to_owned(),
        share,
        right,
    };
    let rows = order
        .lines
        .iter()
        .map(|line| {
            vec![
                line.name.clone(),
                line.product.clone(),
                line.quantity.to_string(),
                order.amount(line.unit_price).to_string(),
                order.amount(line.line_total).to_string(),
            ]
        })
        .collect();
    let mut totals = Vec::new();
    if settings.vat_rate > 0 {
        let vat = included_vat(order.total, settings.vat_rate);
        totals.push((
            "Total excluding VAT".to_owned(),
            order.amount(order.total - vat).to_string(),
        ));
        totals.push((
            format!("VAT {}", percent(settings.vat_rate)),
            order.amount(vat).to_string(),
        ));
    }
    totals.push(("Total".to_owned(), order.amount(order.total).to_string()));
    let mut blocks = vec![
        Block::Heading {
            text: format!("Invoice {spelled}"),
        },
        Block::Columns {
            texts: vec![shop.join("\n"), facts.join("\n")],
        },
        Block::Text {
            text: billed.join("\n"),
            bold: false,
            small: false,
        },
        Block::Table {
            columns: vec![
                column("Pack", 4.0, false),
                column("Product", 2.5, false),
                column("Packs", 1.0, true),
                column("Price each", 1.8, true),
                column("Amount", 1.8, true),
            ],
            rows,
        },
        Block::Totals { rows: totals },
    ];
    if settings.vat_rate == 0
        && let Some(note) = &settings.vat_note
    {
        blocks.push(Block::Text {
            text: note.clone(),
            bold: false,
            small: false,
        });
    }
    blocks.push(Block::Text {
        text: payment_note(order, &spelled),
        bold: true,
        small: false,
    });
    blocks.push(Block::Text {
        text: brand.footer.clone(),
        bold: false,
        small: true,
    });
    Paper {
        title: format!("Invoice {spelled} of {}", brand.name),
        created: now as i64,
        blocks,
    }
}

/// What the invoice says of its payment, as the order stands.
fn payment_note(order: &Order, spelled: &str) -> String {
    let latest = order.payment.latest();
    let on = |what: &str| match latest {
        Some(change) => format!("{what} on {}", date(change.at)),
        None => what.to_owned(),
    };
    match order.payment.state {
        PaymentState::AwaitingInvoicePayment => format!(
            "Please pay {} within 14 days, quoting {spelled}.",
            order.amount(order.total)
        ),
        PaymentState::Paid => format!("{}. Thank you.", on("Paid")),
        PaymentState::Refunded => format!("{}.", on("Refunded")),
    }
}

/// A day for people: `2026-12-06`.
fn date(seconds: u64) -> String {
    when(seconds).get(..10).unwrap_or_default().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn included_vat_is_what_the_gross_holds_rounded_half_up() {
        // 120.00 at 20% holds 20.00; 10.00 at 7.7% holds 0.71 (9.285 net rounds to 9.29).
        assert_eq!(included_vat(12_000, 2_000), 2_000);
        assert_eq!(included_vat(1_000, 770), 71);
        assert_eq!(included_vat(0, 2_000), 0);
        assert_eq!(included_vat(1_000, 0), 0);
        assert_eq!(percent(2_000), "20%");
        assert_eq!(percent(770), "7.7%");
        assert_eq!(percent(525), "5.25%");
    }
}
