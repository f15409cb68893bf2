//! The `presspack` command: `serve`, and the operator commands that manage what the server
//! uses. Operator commands open the same store as the server (same configuration) and may
//! run while it serves.

mod blobs;
mod designs;
mod io;
mod jobs;
mod keys;
mod operators;
mod orders;

use anyhow::{Context, bail};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::app::{Application, open_store};
use crate::config::{Config, LogFormat};
use crate::domain::mail::Mails;
use crate::domain::orders::press_files;
use crate::domain::webhooks::Webhooks;
use crate::infra::queue;
use crate::infra::store::{SharedStore, SqliteStore};
use blobs::{BlobCommand, migrate_blobs};
use designs::{DesignCommand, design_command};
use jobs::{MailCommand, WebhookCommand, list_jobs};
use keys::{KeyCommand, key_command};
use operators::{OperatorAccountCommand, operator_account_command};
use orders::{OrderCommand, order_command};

#[derive(Parser)]
#[command(
    name = "presspack",
    version,
    about = "The Presspack print-pack service",
    after_help = "Settings come from PRESSPACK_* variables or a TOML file; \
                  `presspack serve --help` lists each with its default."
)]
pub struct Cli {
    /// TOML configuration file (also PRESSPACK_CONFIG); PRESSPACK_* variables override it.
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    /// Let an operator command create the embedded store when the data directory has none
    /// (without it they refuse, so a command run from the wrong directory cannot quietly
    /// start a second store; `serve` creates its own).
    #[arg(long, global = true)]
    init: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP service.
    #[command(
        after_help = "Settings come from PRESSPACK_* variables or a TOML file; --help lists \
                      them.",
        after_long_help = settings_help()
    )]
    Serve,
    #[command(flatten)]
    Operator(OperatorCommand),
}

/// The commands that work on the server's store, running or not.
#[derive(Subcommand)]
enum OperatorCommand {
    /// Manage design codes: stored starting packs for createPack's designCode.
    #[command(subcommand)]
    Designs(DesignCommand),
    /// Manage API keys (OAuth consumer keys and secrets, permissions).
    #[command(subcommand)]
    Keys(KeyCommand),
    /// Customers' orders.
    #[command(subcommand)]
    Orders(OrderCommand),
    /// The order-confirmation webhook queue.
    #[command(subcommand)]
    Webhooks(WebhookCommand),
    /// E-mail to customers.
    #[command(subcommand)]
    Mail(MailCommand),
    /// The operators who sign in to the shop's console at /admin/.
    #[command(subcommand)]
    Operators(OperatorAccountCommand),
    /// The image store.
    #[command(subcommand)]
    Images(ImageCommand),
    /// The blob stores (image files, renditions, press files).
    #[command(subcommand)]
    Blobs(BlobCommand),
    /// The store's indexes (placed orders; finished webhooks, press-file jobs and e-mail).
    #[command(subcommand)]
    Indexes(IndexCommand),
}

#[derive(Subcommand)]
enum IndexCommand {
    /// Fill every index again from the records. Run it once all the hosts of a rolling
    /// upgrade run a version with the indexes (what older hosts did meanwhile is not in
    /// them), and whenever the console seems to miss an order or a message.
    Rebuild,
}

#[derive(Subcommand)]
enum ImageCommand {
    /// Delete the images no pack or design refers to whose retention time has passed (a
    /// running server does this every 10 minutes too).
    Sweep {
        /// Most images to look at.
        #[arg(long, default_value_t = 100_000)]
        limit: usize,
    },
}

pub async fn run(cli: Cli) -> ExitCode {
    let result = async {
        let config = Config::from_env(cli.config.as_deref())?;
        let command = match cli.command {
            Command::Serve => return serve(&config).await,
            Command::Operator(command) => command,
        };
        let store = operator_store(&config, cli.init).await?;
        match command {
            OperatorCommand::Designs(command) => design_command(store, command).await,
            OperatorCommand::Keys(command) => key_command(store, command).await,
            OperatorCommand::Orders(command) => order_command(&config, store, command).await,
            OperatorCommand::Webhooks(WebhookCommand::List { json }) => {
                list_jobs::<Webhooks>(store, json, |message| message.url.clone()).await
            }
            OperatorCommand::Indexes(IndexCommand::Rebuild) => {
                let store = store.as_ref();
                let rebuilt = async {
                    crate::domain::orders::rebuild_indexes(store).await?;
                    queue::rebuild_indexes::<Webhooks>(store).await?;
                    queue::rebuild_indexes::<press_files::PressFileJobs>(store).await?;
                    queue::rebuild_indexes::<Mails>(store).await
                };
                rebuilt.await?;
                println!(
                    "rebuilt the indexes of placed orders and of finished webhooks, press-file jobs and e-mail"
                );
                Ok(())
            }
            OperatorCommand::Mail(MailCommand::List { json }) => {
                list_jobs::<Mails>(store, json, |mail| {
                    format!("{:?} to {}", mail.kind, mail.to)
                })
                .await
            }
            OperatorCommand::Operators(command) => {
                operator_account_command(&config, store, command).await
            }
            OperatorCommand::Blobs(BlobCommand::Migrate { from, to }) => {
                migrate_blobs(&config, &from, &to).await
            }
            OperatorCommand::Images(ImageCommand::Sweep { limit }) => {
                let blobs = crate::app::open_blobs(&config)
                    .await?;
                let swept = crate::domain::images::retention::sweep(
                    store.as_ref(),
                    &blobs,
                    &crate::infra::clock::Clock::default(),
                    limit,
                )
                    .await?;
                println!(
                    "deleted {} unused images ({} bytes)",
                    swept.images, swept.bytes
                );
                Ok(())
            }
        }
    }
    .await;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("presspack: {message:#}");
            ExitCode::FAILURE
        }
    }
}

/// The store an operator command works on, named on standard error (standard output stays
/// the command's answer). An embedded store must exist unless `init` says to create it.
async fn operator_store(config: &Config, init: bool) -> anyhow::Result<SharedStore> {
    if config.store.redis_url.is_none()
        && !init
        && !SqliteStore::exists_in(&config.service.data_dir)
    {
        let dir = std::path::absolute(&config.service.data_dir)
            .unwrap_or_else(|_| config.service.data_dir.clone());
        bail!(
            "no store in {} (PRESSPACK_DATA_DIR, default ./presspack-data): run this command \
             with the server's configuration (--config, PRESSPACK_DATA_DIR or \
             PRESSPACK_REDIS_URL), or pass --init to create a new store there",
            dir.display()
        );
    }
    let store = open_store(config).await?;
    eprintln!("store: {}", store.describe());
    Ok(store)
}

/// Installs the server's log output: `RUST_LOG` filtering (default `info`), text or JSON.
pub fn init_logs(format: LogFormat) {
    // Colours only on a terminal: a file or journald would keep the escape codes.
    let logs = tracing_subscriber::fmt()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        );
    match format {
        LogFormat::Text => logs.init(),
        LogFormat::Json => logs.json().init(),
    }
}

async fn serve(config: &Config) -> anyhow::Result<()> {
    init_logs(config.service.log_format);
    tracing::info!(version = env!("CARGO_PKG_VERSION"), "presspack starting");
    let shutdown = shutdown_signal()?;
    let creates_store =
        config.store.redis_url.is_none() && !SqliteStore::exists_in(&config.service.data_dir);
    let app = Application::build(config).await?;
    let listening = format!(
        "presspack listening on http://{} (public base URL {}), store: {}{}",
        app.local_addr(),
        app.base_url(),
        app.store_description(),
        if creates_store {
            " (new: created by this first start)"
        } else {
            ""
        }
    );
    // The line operators and scripts wait for: plain, or one more JSON line among the logs.
    match config.service.log_format {
        LogFormat::Text => println!("{listening}"),
        LogFormat::Json => tracing::info!("{listening}"),
    }
    let served = app.run_until(shutdown).await.context("server failed");
    tracing::info!("presspack stopped");
    served
}

/// A future that completes on Ctrl-C or SIGTERM. The handlers are installed now, before the
/// server starts: a signal during start-up stops it gracefully too, rather than killing it.
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let handler = |kind| signal(kind).context("cannot handle signals");
    let mut terminate = handler(SignalKind::terminate())?;
    let mut interrupt = handler(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = terminate.recv() => {},
            _ = interrupt.recv() => {},
        }
        tracing::info!("shutting down: finishing the requests in flight");
    })
}

/// Every setting, from the configuration table of the README (the one list of them), for
/// `--help`: `PRESSPACK_LISTEN (listen; default 127.0.0.1:8080)` and what it does.
fn settings_help() -> String {
    const README: &str = include_str!("../../../README.md");
    let mut help = String::from(
        "Settings: PRESSPACK_* environment variables override the TOML file of --config \
         (PRESSPACK_CONFIG), whose keys are the names without PRESSPACK_ in lower case; \
         both override the defaults.\n",
    );
    for row in README.lines().filter(|l| l.starts_with("| `PRESSPACK_")) {
        let cells: Vec<String> = row
            .trim_matches('|')
            .split(" | ")
            .map(|cell| cell.trim().replace('`', ""))
            .collect();
        if let [variable, key, default, meaning] = &cells[..] {
            help.push_str(&format!(
                "\n  {variable} ({key}; default {default})\n      {meaning}\n"
            ));
        }
    }
    help
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every command and every argument says what it is in `--help`.
    #[test]
    fn every_command_and_argument_has_help() {
        fn check(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in command.get_arguments() {
                let id = arg.get_id().as_str();
                if !matches!(id, "help" | "version") && arg.get_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in command.get_subcommands() {
                let sub_path = format!("{path} {}", sub.get_name());
                if sub.get_about().is_none() {
                    missing.push(sub_path.clone());
                }
                check(sub, &sub_path, missing);
            }
        }
        let mut missing = Vec::new();
        check(&Cli::command(), "presspack", &mut missing);
        assert!(missing.is_empty(), "without help text: {missing:?}");
    }
}
