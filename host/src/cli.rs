//! The `presspack` command: `serve`, and the operator commands that manage what the server
//! uses. Operator commands open the same store as the server (same configuration) and may
//! run while it serves.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use presspack_engine::model::Catalogue;

use crate::app::{Application, open_store};
use crate::config::Config;
use crate::designs::{self, Design};
use crate::store::SharedStore;

#[derive(Parser)]
#[command(
    name = "presspack",
    version,
    about = "The Presspack print-pack service"
)]
pub struct Cli {
    /// TOML configuration file (also PRESSPACK_CONFIG); PRESSPACK_* variables override it.
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP service.
    Serve,
    /// Manage design codes: stored starting packs for createPack's designCode.
    #[command(subcommand)]
    Designs(DesignCommand),
}

#[derive(Subcommand)]
enum DesignCommand {
    /// Register a design code.
    Add {
        #[arg(long)]
        code: String,
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
    Show { code: String },
    /// Remove a design code.
    Remove { code: String },
}

pub async fn run(cli: Cli) -> ExitCode {
    let result = async {
        let config = Config::from_env(cli.config.as_deref()).map_err(|e| e.to_string())?;
        match cli.command {
            Command::Serve => serve(&config).await,
            Command::Designs(command) => {
                let store = open_store(&config).await.map_err(|e| e.to_string())?;
                design_command(store, command).await
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

async fn serve(config: &Config) -> Result<(), String> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let app = Application::build(config)
        .await
        .map_err(|e| e.to_string())?;
    println!(
        "presspack listening on http://{} (public base URL {}), store: {}",
        app.local_addr(),
        app.base_url(),
        app.store_description()
    );
    app.run_until(shutdown_signal())
        .await
        .map_err(|e| format!("server failed: {e}"))
}

/// Completes on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}

fn read_file(path: &PathBuf) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

async fn design_command(store: SharedStore, command: DesignCommand) -> Result<(), String> {
    let store = store.as_ref();
    match command {
        DesignCommand::Add {
            code,
            product,
            pack,
            physical_spec,
        } => {
            let pack = read_file(&pack)?;
            let spec = physical_spec.as_ref().map(read_file).transpose()?;
            let design = Design::new(
                Catalogue::builtin(),
                &code,
                &product,
                &pack,
                spec.as_deref(),
            )?;
            if !designs::add(store, &design)
                .await
                .map_err(|e| e.to_string())?
            {
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
