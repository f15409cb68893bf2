//! The `presspack` command: `serve`, and the operator commands that manage what the server
//! uses. Operator commands open the same store as the server (same configuration) and may
//! run while it serves.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use presspack_engine::model::Catalogue;

use crate::app::{Application, open_store};
use crate::config::{Config, LogFormat};
use crate::domain::designs::{self, Design};
use crate::domain::keys::{self, ApiKey, NewKey, Permission};
use crate::domain::mail::Mails;
use crate::domain::operators;
use crate::domain::orders::press_files::{self, PressFileState};
use crate::domain::orders::status::{self, Mailing, Move};
use crate::domain::orders::{self, Order};
use crate::domain::webhooks::Webhooks;
use crate::infra::queue::{self, Queue};
use crate::infra::store::{SharedStore, SqliteStore};

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
enum BlobCommand {
    /// Copy every blob from one blob store to another, verifying each copy by SHA-256; run
    /// it again to resume. Then set blob_store to the destination and restart the servers.
    Migrate {
        /// Where the blobs are: dir:PATH, redis (redis_url) or s3://bucket/prefix (the s3_*
        /// settings).
        #[arg(long)]
        from: String,
        /// Where they go, in the same form.
        #[arg(long)]
        to: String,
    },
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

#[derive(Subcommand)]
enum OrderCommand {
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
    /// Put a placed order in production (tells the partners: order.in_production).
    Start {
        /// The order number (PP-...).
        number: String,
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
    /// Cancel a placed order, before production (tells the partners: order.cancelled).
    Cancel {
        /// The order number (PP-...).
        number: String,
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

#[derive(Subcommand)]
enum OperatorAccountCommand {
    /// Add an operator; their password is read from standard input (one line).
    Add {
        /// What they sign in with: 1 to 40 of a-z, 0-9, '.', '_' and '-'.
        name: String,
        /// Also give them an authenticator (TOTP) secret, as `totp` does.
        #[arg(long)]
        totp: bool,
    },
    /// Set an operator's password, read from standard input (one line); their console
    /// sessions end at once.
    Password {
        /// The operator's name.
        name: String,
    },
    /// Give an operator a new authenticator (TOTP) secret, so signing in needs its code too;
    /// prints the secret and its otpauth:// address for the app; their console sessions end.
    Totp {
        /// The operator's name.
        name: String,
    },
    /// Let an operator sign in without an authenticator code again; their console sessions
    /// end.
    NoTotp {
        /// The operator's name.
        name: String,
    },
    /// Remove an operator; their console sessions end at once.
    Remove {
        /// The operator's name.
        name: String,
    },
    /// List the operators.
    List,
}

#[derive(Subcommand)]
enum MailCommand {
    /// List e-mail to customers: waiting ones first, then sent and given up.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum WebhookCommand {
    /// List webhook messages: pending ones first, then delivered and given up.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum KeyCommand {
    /// Create a key; prints its consumer key and secret (the secret is shown only now).
    Create {
        /// A name for the key: the partner or shop it is for.
        #[arg(long)]
        name: String,
        /// Permissions beyond the ones every key has: create_trial_pack, add_to_cart,
        /// render_side, import_image (comma-separated).
        #[arg(long, value_delimiter = ',')]
        grant: Vec<Permission>,
        /// The partner's trial-partner id, for createTrialPartnerPack.
        #[arg(long)]
        trial_partner: Option<String>,
        /// Where order confirmations with the pack's trackingId are sent.
        #[arg(long)]
        order_callback_url: Option<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List the keys (never their secrets).
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Show one key (never its secret).
    Show {
        /// The key's consumer key.
        key: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Grant permissions (comma-separated): create_trial_pack, add_to_cart, render_side,
    /// import_image. Every key has create, get_template, read and update.
    Grant {
        /// The key's consumer key.
        key: String,
        /// Permissions, comma-separated.
        #[arg(value_delimiter = ',', required = true)]
        permissions: Vec<Permission>,
    },
    /// Revoke granted permissions (comma-separated): create_trial_pack, add_to_cart,
    /// render_side, import_image.
    Revoke {
        /// The key's consumer key.
        key: String,
        /// Permissions, comma-separated.
        #[arg(value_delimiter = ',', required = true)]
        permissions: Vec<Permission>,
    },
    /// Refuse every call signed with the key.
    Disable {
        /// The key's consumer key.
        key: String,
    },
    /// Accept calls signed with the key again.
    Enable {
        /// The key's consumer key.
        key: String,
    },
    /// Replace the key's secret and print the new one; the old one stops working at once.
    RotateSecret {
        /// The key's consumer key.
        key: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Set the order-confirmation callback URL (or clear it with --clear); prints the new
    /// webhook signing secret, which replaces the old one at once.
    SetCallback {
        /// The key's consumer key.
        key: String,
        /// The callback URL (https, or http to an allowed host).
        #[arg(required_unless_present = "clear")]
        url: Option<String>,
        /// Remove the callback URL: no more order confirmations for this key.
        #[arg(long, conflicts_with = "url")]
        clear: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum DesignCommand {
    /// Register a design code.
    Add {
        /// The code partners pass as createPack's designCode.
        #[arg(long)]
        code: String,
        /// What customers see it called in the editor's designs (the code if not given).
        #[arg(long)]
        label: Option<String>,
        /// The product the design is for (businesscard, minicard, postcard, sticker).
        #[arg(long)]
        product: String,
        /// File with the design's pack JSON.
        #[arg(long)]
        pack: PathBuf,
        /// File with the design's physical specification JSON.
        #[arg(long)]
        physical_spec: Option<PathBuf>,
    },
    /// List the design codes.
    List,
    /// Print a design as JSON.
    Show {
        /// The design code.
        code: String,
    },
    /// Remove a design code.
    Remove {
        /// The design code.
        code: String,
    },
}

pub async fn run(cli: Cli) -> ExitCode {
    let result = async {
        let config = Config::from_env(cli.config.as_deref()).map_err(|e| e.to_string())?;
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
                    orders::rebuild_index(store).await?;
                    queue::rebuild_indexes::<Webhooks>(store).await?;
                    queue::rebuild_indexes::<press_files::PressFileJobs>(store).await?;
                    queue::rebuild_indexes::<Mails>(store).await
                };
                rebuilt.await.map_err(|e| e.to_string())?;
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
                    .await
                    .map_err(|e| e.to_string())?;
                let swept = crate::domain::images::retention::sweep(store.as_ref(), &blobs, limit)
                    .await
                    .map_err(|e| e.to_string())?;
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
            eprintln!("presspack: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The store an operator command works on, named on standard error (standard output stays
/// the command's answer). An embedded store must exist unless `init` says to create it.
async fn operator_store(config: &Config, init: bool) -> Result<SharedStore, String> {
    if config.store.redis_url.is_none()
        && !init
        && !SqliteStore::exists_in(&config.service.data_dir)
    {
        let dir = std::path::absolute(&config.service.data_dir)
            .unwrap_or_else(|_| config.service.data_dir.clone());
        return Err(format!(
            "no store in {} (PRESSPACK_DATA_DIR, default ./presspack-data): run this command \
             with the server's configuration (--config, PRESSPACK_DATA_DIR or \
             PRESSPACK_REDIS_URL), or pass --init to create a new store there",
            dir.display()
        ));
    }
    let store = open_store(config).await.map_err(|e| e.to_string())?;
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

async fn serve(config: &Config) -> Result<(), String> {
    init_logs(config.service.log_format);
    tracing::info!(version = env!("CARGO_PKG_VERSION"), "presspack starting");
    let shutdown = shutdown_signal()?;
    let creates_store =
        config.store.redis_url.is_none() && !SqliteStore::exists_in(&config.service.data_dir);
    let app = Application::build(config)
        .await
        .map_err(|e| e.to_string())?;
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
    let served = app
        .run_until(shutdown)
        .await
        .map_err(|e| format!("server failed: {e}"));
    tracing::info!("presspack stopped");
    served
}

/// A future that completes on Ctrl-C or SIGTERM. The handlers are installed now, before the
/// server starts: a signal during start-up stops it gracefully too, rather than killing it.
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()>, String> {
    use tokio::signal::unix::{SignalKind, signal};
    let handler = |kind| signal(kind).map_err(|e| format!("cannot handle signals: {e}"));
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

fn read_file(path: &PathBuf) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

async fn design_command(store: SharedStore, command: DesignCommand) -> Result<(), String> {
    let store = store.as_ref();
    match command {
        DesignCommand::Add {
            code,
            label,
            product,
            pack,
            physical_spec,
        } => {
            let pack = read_file(&pack)?;
            let spec = physical_spec.as_ref().map(read_file).transpose()?;
            let design = Design::new(
                Catalogue::builtin(),
                &code,
                label.as_deref(),
                &product,
                &pack,
                spec.as_deref(),
            )?;
            if !designs::add(store, &design).await.map_err(|e| e.message)? {
                return Err(format!(
                    "design code {code:?} exists already; remove it first"
                ));
            }
            println!("added design code {code} for {product}");
        }
        DesignCommand::List => {
            for code in designs::list(store).await.map_err(|e| e.to_string())? {
                println!("{code}");
            }
        }
        DesignCommand::Show { code } => {
            let design = designs::find(store, &code)
                .await
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("no design code {code:?}"))?;
            println!(
                "{}",
                serde_json::to_string_pretty(&design).map_err(|e| e.to_string())?
            );
        }
        DesignCommand::Remove { code } => {
            if !designs::remove(store, &code)
                .await
                .map_err(|e| e.to_string())?
            {
                return Err(format!("no design code {code:?}"));
            }
            println!("removed design code {code}");
        }
    }
    Ok(())
}

fn print_key(key: &ApiKey, json: bool) -> Result<(), String> {
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&key.summary()).map_err(|e| e.to_string())?
        );
    } else {
        let permissions: Vec<&str> = key.permissions().iter().map(|p| p.as_str()).collect();
        println!(
            "{}  {}  {}{}",
            key.consumer_key,
            key.name,
            permissions.join(","),
            if key.disabled { "  DISABLED" } else { "" }
        );
    }
    Ok(())
}

/// The keys as a table with a header, columns aligned.
fn print_key_table(keys: &[ApiKey]) {
    let rows: Vec<[String; 4]> = keys
        .iter()
        .map(|key| {
            let permissions: Vec<&str> = key.permissions().iter().map(|p| p.as_str()).collect();
            let state = if key.disabled { "disabled" } else { "enabled" };
            [
                key.consumer_key.clone(),
                key.name.clone(),
                state.to_owned(),
                permissions.join(","),
            ]
        })
        .collect();
    let header = ["CONSUMER KEY", "NAME", "STATE", "PERMISSIONS"].map(str::to_owned);
    let width = |column: usize| {
        std::iter::once(&header)
            .chain(&rows)
            .map(|row| row[column].chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths = [width(0), width(1), width(2)];
    for row in std::iter::once(&header).chain(&rows) {
        println!(
            "{:w0$}  {:w1$}  {:w2$}  {}",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        );
    }
}

/// Every setting, from the configuration table of the README (the one list of them), for
/// `--help`: `PRESSPACK_LISTEN (listen; default 127.0.0.1:8080)` and what it does.
fn settings_help() -> String {
    const README: &str = include_str!("../../README.md");
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

/// Prints a key with its secret, which is shown only when created or rotated.
fn print_credentials(key: &ApiKey, json: bool) -> Result<(), String> {
    if json {
        let mut value = serde_json::to_value(key.summary()).map_err(|e| e.to_string())?;
        value["secret"] = key.secret.clone().into();
        if let Some(secret) = &key.webhook_secret {
            value["webhookSecret"] = secret.clone().into();
        }
        println!(
            "{}",
            serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?
        );
    } else {
        println!("key: {}", key.consumer_key);
        println!("secret: {}", key.secret);
        if let Some(secret) = &key.webhook_secret {
            println!("webhook-secret: {secret}");
        }
    }
    Ok(())
}

async fn key_command(store: SharedStore, command: KeyCommand) -> Result<(), String> {
    let store = store.as_ref();
    let text = |e: keys::KeyError| e.to_string();
    match command {
        KeyCommand::Create {
            name,
            grant,
            trial_partner,
            order_callback_url,
            json,
        } => {
            let new = NewKey {
                name,
                grant,
                trial_partner,
                order_callback_url,
            };
            print_credentials(&keys::create(store, new).await.map_err(text)?, json)
        }
        KeyCommand::List { json } => {
            let all = keys::list(store).await.map_err(|e| e.to_string())?;
            if json {
                let summaries: Vec<_> = all.iter().map(ApiKey::summary).collect();
                println!(
                    "{}",
                    serde_json::to_string_pretty(&summaries).map_err(|e| e.to_string())?
                );
                return Ok(());
            }
            print_key_table(&all);
            Ok(())
        }
        KeyCommand::Show { key, json } => {
            let found = keys::find(store, &key)
                .await
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("no API key {key:?}"))?;
            print_key(&found, json)
        }
        KeyCommand::Grant { key, permissions } => print_key(
            &keys::grant(store, &key, &permissions).await.map_err(text)?,
            false,
        ),
        KeyCommand::Revoke { key, permissions } => print_key(
            &keys::revoke(store, &key, &permissions)
                .await
                .map_err(text)?,
            false,
        ),
        KeyCommand::Disable { key } => print_key(
            &keys::set_disabled(store, &key, true).await.map_err(text)?,
            false,
        ),
        KeyCommand::Enable { key } => print_key(
            &keys::set_disabled(store, &key, false).await.map_err(text)?,
            false,
        ),
        KeyCommand::RotateSecret { key, json } => {
            print_credentials(&keys::rotate_secret(store, &key).await.map_err(text)?, json)
        }
        KeyCommand::SetCallback {
            key,
            url,
            clear,
            json,
        } => {
            let url = if clear { None } else { url };
            let changed = keys::set_callback(store, &key, url).await.map_err(text)?;
            if json {
                let mut value =
                    serde_json::to_value(changed.summary()).map_err(|e| e.to_string())?;
                if let Some(secret) = &changed.webhook_secret {
                    value["webhookSecret"] = secret.clone().into();
                }
                println!(
                    "{}",
                    serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?
                );
                return Ok(());
            }
            print_key(&changed, false)?;
            if let Some(secret) = &changed.webhook_secret {
                println!("webhook-secret: {secret}");
            }
            Ok(())
        }
    }
}

fn pretty(value: &impl serde::Serialize) -> Result<String, String> {
    serde_json::to_string_pretty(value).map_err(|e| e.to_string())
}

async fn order_command(
    config: &Config,
    store: SharedStore,
    command: OrderCommand,
) -> Result<(), String> {
    let store = store.as_ref();
    match command {
        OrderCommand::List { json } => {
            let all = orders::list(store).await.map_err(|e| e.to_string())?;
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
                    crate::domain::prices::money(&order.currency, order.total),
                    order.payment.state.describe()
                );
            }
            Ok(())
        }
        OrderCommand::Show { number } => {
            let order = find_order(store, &number).await?;
            let states = press_files::states(store, &order)
                .await
                .map_err(|e| e.to_string())?;
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
            let mut shown = serde_json::to_value(&order).map_err(|e| e.to_string())?;
            shown["pressFiles"] = files.into();
            println!("{}", pretty(&shown)?);
            Ok(())
        }
        OrderCommand::Start { number } => {
            move_order(config, store, &number, Move::StartProduction).await
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
        OrderCommand::Cancel { number } => move_order(config, store, &number, Move::Cancel).await,
        OrderCommand::Artwork { number, out } => {
            let order = find_order(store, &number).await?;
            let blobs = crate::app::open_blobs(config)
                .await
                .map_err(|e| e.to_string())?;
            write_press_files(store, blobs.as_ref(), &order, &out).await
        }
    }
}

/// A password from standard input: its first line, without the line break.
fn read_password() -> Result<String, String> {
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .map_err(|e| format!("reading the password from standard input: {e}"))?;
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}

async fn operator_account_command(
    config: &Config,
    store: SharedStore,
    command: OperatorAccountCommand,
) -> Result<(), String> {
    let store = store.as_ref();
    let hashing = crate::domain::customers::PasswordHashing::new(1);
    let print_totp = |name: &str, secret: &str| {
        println!("authenticator secret: {secret}");
        let issuer = &config.brand.shop_name;
        println!("{}", operators::totp_address(issuer, name, secret));
    };
    match command {
        OperatorAccountCommand::Add { name, totp } => {
            let password = read_password()?;
            let operator = operators::add(store, &hashing, &name, &password)
                .await
                .map_err(|e| e.to_string())?;
            println!("operator {} added", operator.name);
            if totp {
                let secret = operators::enable_totp(store, &operator.name)
                    .await
                    .map_err(|e| e.to_string())?;
                print_totp(&operator.name, &secret);
            }
        }
        OperatorAccountCommand::Password { name } => {
            let password = read_password()?;
            operators::set_password(store, &hashing, &name, &password)
                .await
                .map_err(|e| e.to_string())?;
            println!("password of {name} changed");
        }
        OperatorAccountCommand::Totp { name } => {
            let secret = operators::enable_totp(store, &name)
                .await
                .map_err(|e| e.to_string())?;
            print_totp(&name, &secret);
        }
        OperatorAccountCommand::NoTotp { name } => {
            operators::disable_totp(store, &name)
                .await
                .map_err(|e| e.to_string())?;
            println!("{name} signs in without an authenticator code");
        }
        OperatorAccountCommand::Remove { name } => {
            operators::remove(store, &name)
                .await
                .map_err(|e| e.to_string())?;
            println!("operator {name} removed");
        }
        OperatorAccountCommand::List => {
            for operator in operators::list(store).await.map_err(|e| e.to_string())? {
                let totp = match operator.totp_secret {
                    Some(_) => "password and authenticator code",
                    None => "password",
                };
                println!("{}  {totp}", operator.name);
            }
        }
    }
    Ok(())
}

/// Moves an order on as the operator running the command (`cli:$USER`).
async fn move_order(
    config: &Config,
    store: &dyn crate::infra::store::Store,
    number: &str,
    requested: Move,
) -> Result<(), String> {
    let user = std::env::var("USER").unwrap_or_else(|_| "operator".to_owned());
    let mailing = Mailing::when(config.mail.smtp_host.is_some());
    let order = status::change(store, number, requested, &format!("cli:{user}"), mailing)
        .await
        .map_err(|e| e.to_string())?;
    println!("{}  {}", order.number, order.status.describe());
    Ok(())
}

/// A blob store named on the command line: `dir:PATH`, `redis` or `s3://bucket/prefix` (no
/// read cache: a copy is verified against the store itself).
async fn named_blobs(
    config: &Config,
    name: &str,
) -> Result<Box<dyn crate::infra::store::BlobStore>, String> {
    use crate::infra::store::{DirectoryBlobs, RedisStore, S3Blobs, S3Location};
    let opened: Result<Box<dyn crate::infra::store::BlobStore>, _> =
        if let Some(path) = name.strip_prefix("dir:") {
            DirectoryBlobs::open(std::path::Path::new(path)).map(|b| Box::new(b) as _)
        } else if name == "redis" {
            let store = &config.store;
            let url = store
                .redis_url
                .as_deref()
                .ok_or("redis: redis_url (PRESSPACK_REDIS_URL) is not set")?;
            RedisStore::connect(url, &store.redis_key_prefix, store.redis_cluster)
                .await
                .map(|b| Box::new(b) as _)
        } else if let Some(location) = S3Location::parse(name) {
            S3Blobs::open(&location, &config.s3)
                .await
                .map(|b| Box::new(b) as _)
        } else {
            return Err(format!(
                "{name:?}: expected dir:PATH, redis or s3://bucket/prefix"
            ));
        };
    opened.map_err(|e| format!("{name}: {e}"))
}

/// `blobs migrate`: every blob of `from` copied into `to`, with the progress on standard
/// error.
async fn migrate_blobs(config: &Config, from: &str, to: &str) -> Result<(), String> {
    let source = named_blobs(config, from).await?;
    let destination = named_blobs(config, to).await?;
    let mut shown = std::time::Instant::now();
    let done = crate::infra::store::migrate(source.as_ref(), destination.as_ref(), |done| {
        if shown.elapsed() >= std::time::Duration::from_millis(500) {
            shown = std::time::Instant::now();
            eprint!(
                "\rcopied {} blobs ({} bytes), {} already there",
                done.copied, done.bytes, done.present
            );
        }
    })
    .await
    .map_err(|e| format!("{e} (run the command again to resume)"))?;
    eprintln!();
    println!(
        "copied {} blobs ({} bytes), {} already there; every copy verified by SHA-256",
        done.copied, done.bytes, done.present
    );
    Ok(())
}

async fn find_order(store: &dyn crate::infra::store::Store, number: &str) -> Result<Order, String> {
    orders::load(store, number)
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no order {number:?}"))
}

/// `orders artwork`: every press file of `order` that is made, written to `out`; an error
/// naming the packs whose file is not (yet) there.
async fn write_press_files(
    store: &dyn crate::infra::store::Store,
    blobs: &dyn crate::infra::store::BlobStore,
    order: &Order,
    out: &std::path::Path,
) -> Result<(), String> {
    let states = press_files::states(store, order)
        .await
        .map_err(|e| e.to_string())?;
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
                press_files::enqueue(store, &order.number)
                    .await
                    .map_err(|e| e.to_string())?;
                missing.push(format!(
                    "{pack} had no press file; it is queued now and a running server makes it"
                ));
                continue;
            }
        };
        let pdf = blobs
            .get(blob)
            .await
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("the press file of {pack} is missing from the blob store"))?;
        std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
        let path = out.join(press_files::file_name(&order.number, line));
        std::fs::write(&path, &pdf).map_err(|e| format!("{}: {e}", path.display()))?;
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
        Err(missing.join("; "))
    }
}

/// `webhooks list`, `mail list`: a queue's jobs, pending first; `to` says where each goes.
async fn list_jobs<Q: Queue>(
    store: SharedStore,
    json: bool,
    to: impl Fn(&Q::Payload) -> String,
) -> Result<(), String> {
    let all = queue::list::<Q>(store.as_ref())
        .await
        .map_err(|e| e.to_string())?;
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
