//! `presspack orders`: customers' orders, moving them through production, their payments,
//! their press files.

use anyhow::{Context, anyhow};
use std::path::PathBuf;

use clap::Subcommand;

use crate::cli::io::pretty;
use crate::config::Config;
use crate::domain::ids::OrderNumber;
use crate::domain::orders::artwork::{self, ArtworkError};
use crate::domain::orders::payments::{self, PaymentError, PaymentMove};
use crate::domain::orders::press_files::{self, PressFileState};
use crate::domain::orders::shipments;
use crate::domain::orders::status::{self, Mailing, Move, MoveError};
use crate::domain::orders::{self, Order};
use crate::infra::clock::Clock;
use crate::infra::store::SharedStore;

#[derive(Subcommand)]
pub(super) enum OrderCommand {
    /// List every order, oldest first.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print one order as JSON: each pack's data as ordered, and its press file with its
    /// preflight report (`pressFiles`).
    Show {
        /// The order number (PP-...).
        number: String,
    },
    /// Put a placed or held order in production (tells the partners: order.in_production).
    Start {
        /// The order number (PP-...).
        number: String,
        /// Start it even though its press file blocks (you have looked at it); the history
        /// records that you did.
        #[arg(long)]
        over_block: bool,
    },
    /// Mark an order in production as shipped (tells the partners: order.shipped).
    Ship {
        /// The order number (PP-...).
        number: String,
        /// The carrier (at most 60 characters).
        #[arg(long)]
        carrier: String,
        /// The carrier's tracking number (at most 100 characters).
        #[arg(long)]
        tracking: String,
    },
    /// Ship the orders of a CSV list (order number, carrier, tracking number on each line),
    /// each line judged on its own as in the console; prints every line's outcome and fails
    /// if any line was refused.
    ShipList {
        /// The CSV file (UTF-8, at most 1 MiB and 1000 lines).
        file: PathBuf,
    },
    /// Put a placed order on hold, before production (tells the partners: order.on_hold).
    Hold {
        /// The order number (PP-...).
        number: String,
        /// Why (at most 200 characters): the partners and the console see it.
        #[arg(long)]
        reason: String,
    },
    /// Ask the customer of a held order for new artwork of one pack: a copy of the pack in
    /// their account and an e-mail with the one link that gives it, which the running server
    /// sends (needs smtp_host; when they approve, the partners hear order.artwork_replaced).
    AskArtwork {
        /// The order number (PP-...).
        number: String,
        /// The pack, counted from 1 as the console shows them.
        #[arg(long, default_value_t = 1)]
        pack: usize,
    },
    /// Cancel a placed or held order, before production (tells the partners: order.cancelled).
    Cancel {
        /// The order number (PP-...).
        number: String,
    },
    /// Record that an order's invoice was paid (tells the partners: order.paid). Again with
    /// the same reference, it records nothing more.
    Paid {
        /// The order number (PP-...).
        number: String,
        /// The payment's reference: the bank transfer's, say (at most 100 characters).
        #[arg(long)]
        reference: String,
    },
    /// Record that a paid order's payment was given back (tells the partners: order.refunded).
    Refunded {
        /// The order number (PP-...).
        number: String,
        /// The refund's reference, if there is one (at most 100 characters).
        #[arg(long, default_value = "")]
        reference: String,
    },
    /// Write an order's press files (one PDF per pack) and print their preflight verdicts;
    /// queues an order placed before press files were made.
    Artwork {
        /// The order number (PP-...).
        number: String,
        /// The directory to write them to (made if missing).
        #[arg(long, default_value = ".")]
        out: PathBuf,
    },
}

pub(super) async fn order_command(
    config: &Config,
    store: SharedStore,
    command: OrderCommand,
) -> anyhow::Result<()> {
    let shared = store.clone();
    let store = store.as_ref();
    match command {
        OrderCommand::List { json } => {
            let all = orders::list(store).await?;
            if json {
                println!("{}", pretty(&all)?);
                return Ok(());
            }
            for order in all {
                let names: Vec<String> = order
                    .lines
                    .iter()
                    .map(|l| format!("{} x{}", l.name, l.quantity))
                    .collect();
                println!(
                    "{}  {}  {}  {}  {}  {}",
                    order.number,
                    order.status.describe(),
                    order.customer_email,
                    names.join(", "),
                    order.amount(order.total),
                    order.payment.state.describe()
                );
            }
            Ok(())
        }
        OrderCommand::Show { number } => {
            let order = find_order(store, &number).await?;
            let states = press_files::states(store, &order).await?;
            let files: Vec<serde_json::Value> = states
                .iter()
                .enumerate()
                .map(|(line, state)| {
                    serde_json::json!({
                        "line": line,
                        "file": press_files::file_name(&order.number, line),
                        "pressFile": state,
                    })
                })
                .collect();
            let mut shown = serde_json::to_value(&order)?;
            shown["pressFiles"] = files.into();
            println!("{}", pretty(&shown)?);
            Ok(())
        }
        OrderCommand::Start { number, over_block } => {
            move_order(config, store, &number, Move::StartProduction { over_block }).await
        }
        OrderCommand::Ship {
            number,
            carrier,
            tracking,
        } => {
            let ship = Move::Ship {
                carrier,
                tracking_number: tracking,
            };
            move_order(config, store, &number, ship).await
        }
        OrderCommand::ShipList { file } => ship_list(config, store, &file).await,
        OrderCommand::Hold { number, reason } => {
            move_order(config, store, &number, Move::Hold { reason }).await
        }
        OrderCommand::AskArtwork { number, pack } => {
            ask_artwork(config, shared, &number, pack).await
        }
        OrderCommand::Cancel { number } => move_order(config, store, &number, Move::Cancel).await,
        OrderCommand::Paid { number, reference } => {
            record_payment(store, &number, PaymentMove::Paid { reference }).await
        }
        OrderCommand::Refunded { number, reference } => {
            record_payment(store, &number, PaymentMove::Refunded { reference }).await
        }
        OrderCommand::Artwork { number, out } => {
            let order = find_order(store, &number).await?;
            let blobs = crate::app::open_blobs(config).await?;
            write_press_files(store, blobs.as_ref(), &order, &out).await
        }
    }
}

/// Who runs the command, as the order's history names them: `cli:$USER`.
fn operator() -> String {
    let user = std::env::var("USER").unwrap_or_else(|_| "operator".to_owned());
    format!("cli:{user}")
}

/// Moves an order on as the operator running the command.
async fn move_order(
    config: &Config,
    store: &dyn crate::infra::store::Store,
    number: &str,
    requested: Move,
) -> anyhow::Result<()> {
    let mailing = Mailing::when(config.mail.smtp_host.is_some());
    let number =
        OrderNumber::parse(number).ok_or_else(|| MoveError::NoSuchOrder(number.to_owned()))?;
    let clock = Clock::default();
    let order = status::change(store, &clock, &number, requested, &operator(), mailing).await?;
    println!("{}  {}", order.number, order.status.describe());
    Ok(())
}

/// `orders ask-artwork`: asks for new artwork as the operator running the command, with the
/// services a server has (the copy of the pack is checked by the engine).
async fn ask_artwork(
    config: &Config,
    store: SharedStore,
    number: &str,
    pack: usize,
) -> anyhow::Result<()> {
    let parsed =
        OrderNumber::parse(number).ok_or_else(|| ArtworkError::NoSuchOrder(number.to_owned()))?;
    let line = pack
        .checked_sub(1)
        .ok_or_else(|| anyhow!("--pack: packs are counted from 1"))?;
    let (services, _) = crate::app::open_services(config, store, config.service.listen).await?;
    let mailing = Mailing::when(config.mail.smtp_host.is_some());
    let order = artwork::request(&services, &parsed, line, &operator(), mailing).await?;
    println!(
        "{}  new artwork for pack {pack} asked of {}",
        order.number, order.customer_email
    );
    Ok(())
}

/// `orders ship-list`: ships each line's order that can be shipped, as the operator running
/// the command.
async fn ship_list(
    config: &Config,
    store: &dyn crate::infra::store::Store,
    file: &std::path::Path,
) -> anyhow::Result<()> {
    let size = std::fs::metadata(file)
        .with_context(|| file.display().to_string())?
        .len();
    if size > shipments::MAX_BYTES as u64 {
        return Err(anyhow!(
            "{}: a shipping list is at most {} KB and {} lines: split it",
            file.display(),
            shipments::MAX_BYTES / 1024,
            shipments::MAX_LINES
        ));
    }
    let list = std::fs::read(file).with_context(|| file.display().to_string())?;
    let list = String::from_utf8(list)
        .map_err(|_| anyhow!("{}: not UTF-8 text (save it as CSV UTF-8)", file.display()))?;
    let mailing = Mailing::when(config.mail.smtp_host.is_some());
    let clock = Clock::default();
    let outcomes = shipments::ship_list(store, &clock, &list, &operator(), mailing).await?;
    let refused = outcomes.iter().filter(|o| o.outcome.is_err()).count();
    for line in &outcomes {
        match &line.outcome {
            Ok(()) => println!("line {}  {}  shipped", line.line, line.order),
            Err(why) => println!("line {}  {}  refused: {why}", line.line, line.order),
        }
    }
    match refused {
        0 => Ok(()),
        _ => Err(anyhow!(
            "{refused} of {} lines were refused (above)",
            outcomes.len()
        )),
    }
}

/// Records a payment of an order as the operator running the command.
async fn record_payment(
    store: &dyn crate::infra::store::Store,
    number: &str,
    requested: PaymentMove,
) -> anyhow::Result<()> {
    let number =
        OrderNumber::parse(number).ok_or_else(|| PaymentError::NoSuchOrder(number.to_owned()))?;
    let clock = Clock::default();
    let order = payments::record(store, &clock, &number, requested, &operator()).await?;
    println!(
        "{}  payment {}",
        order.number,
        order.payment.state.describe()
    );
    Ok(())
}

async fn find_order(store: &dyn crate::infra::store::Store, number: &str) -> anyhow::Result<Order> {
    let no_order = || anyhow!("no order {number:?}");
    let parsed = OrderNumber::parse(number).ok_or_else(no_order)?;
    orders::load(store, &parsed).await?.ok_or_else(no_order)
}

/// `orders artwork`: every press file of `order` that is made, written to `out`; an error
/// naming the packs whose file is not (yet) there.
async fn write_press_files(
    store: &dyn crate::infra::store::Store,
    blobs: &dyn crate::infra::store::BlobStore,
    order: &Order,
    out: &std::path::Path,
) -> anyhow::Result<()> {
    let states = press_files::states(store, order).await?;
    let mut missing = Vec::new();
    for (line, state) in states.iter().enumerate() {
        let pack = format!("pack {} ({})", line + 1, order.lines[line].name);
        let (blob, report) = match state {
            PressFileState::Produced { blob, report, .. } => (blob, report),
            PressFileState::Failed { reason } => {
                missing.push(format!("{pack} cannot be printed: {reason}"));
                continue;
            }
            PressFileState::InProduction { last_error } => {
                missing.push(format!(
                    "{pack} is being made{}",
                    last_error
                        .as_ref()
                        .map(|e| format!(" (the last attempt failed: {e})"))
                        .unwrap_or_default()
                ));
                continue;
            }
            PressFileState::GaveUp { last_error } => {
                missing.push(format!(
                    "{pack} could not be made: {}",
                    last_error.as_deref().unwrap_or("no reason recorded")
                ));
                continue;
            }
            PressFileState::NotQueued => {
                press_files::enqueue(store, &order.number).await?;
                missing.push(format!(
                    "{pack} had no press file; it is queued now and a running server makes it"
                ));
                continue;
            }
        };
        let pdf = blobs
            .get(blob)
            .await?
            .ok_or_else(|| anyhow!("the press file of {pack} is missing from the blob store"))?;
        std::fs::create_dir_all(out).with_context(|| out.display().to_string())?;
        let path = out.join(press_files::file_name(&order.number, line));
        std::fs::write(&path, &pdf).with_context(|| path.display().to_string())?;
        println!(
            "{}  {} bytes  preflight: {}",
            path.display(),
            pdf.len(),
            report.verdict.name()
        );
        for page in &report.pages {
            for finding in &page.findings {
                // As the report's JSON spells them.
                let name = |value: serde_json::Result<serde_json::Value>| {
                    value.ok().and_then(|v| v.as_str().map(str::to_owned))
                };
                println!(
                    "  {} {} {} {}: {}",
                    page.side,
                    name(serde_json::to_value(finding.severity)).unwrap_or_default(),
                    name(serde_json::to_value(finding.code)).unwrap_or_default(),
                    finding.link_id,
                    finding.message
                );
            }
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(anyhow!(missing.join("; ")))
    }
}
