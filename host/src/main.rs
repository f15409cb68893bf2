use std::process::ExitCode;

use clap::Parser;

#[tokio::main]
async fn main() -> ExitCode {
    presspack::cli::run(presspack::cli::Cli::parse()).await
}
