//! `presspack webhooks` and `presspack mail`: the durable queues of order-confirmation
//! webhooks and e-mail, listed.

use clap::Subcommand;

use crate::cli::io::pretty;
use crate::infra::queue::{self, Queue};
use crate::infra::store::SharedStore;

#[derive(Subcommand)]
pub(super) enum MailCommand {
    /// List e-mail to customers: waiting ones first, then sent and given up.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
pub(super) enum WebhookCommand {
    /// List webhook messages: pending ones first, then delivered and given up.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// `webhooks list`, `mail list`: a queue's jobs, pending first; `to` says where each goes.
pub(super) async fn list_jobs<Q: Queue>(
    store: SharedStore,
    json: bool,
    to: impl Fn(&Q::Payload) -> String,
) -> anyhow::Result<()> {
    let all = queue::list::<Q>(store.as_ref()).await?;
    if json {
        println!("{}", pretty(&all)?);
        return Ok(());
    }
    for job in all {
        println!(
            "{}  {:?}  attempts {}  {}{}",
            job.id,
            job.state,
            job.attempts,
            to(&job.payload),
            job.last_error
                .map(|e| format!("  last error: {e}"))
                .unwrap_or_default()
        );
    }
    Ok(())
}
