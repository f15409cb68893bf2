//! `presspack operators`: the accounts that sign in to the console at /admin/.

use anyhow::Context;
use clap::Subcommand;

use crate::config::Config;
use crate::domain::operators;
use crate::infra::clock::Clock;
use crate::infra::store::SharedStore;

#[derive(Subcommand)]
pub(super) enum OperatorAccountCommand {
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

pub(super) async fn operator_account_command(
    config: &Config,
    store: SharedStore,
    command: OperatorAccountCommand,
) -> anyhow::Result<()> {
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
            let operator =
                operators::add(store, &hashing, &Clock::default(), &name, &password).await?;
            println!("operator {} added", operator.name);
            if totp {
                let secret = operators::enable_totp(store, &operator.name).await?;
                print_totp(&operator.name, &secret);
            }
        }
        OperatorAccountCommand::Password { name } => {
            let password = read_password()?;
            operators::set_password(store, &hashing, &name, &password).await?;
            println!("password of {name} changed");
        }
        OperatorAccountCommand::Totp { name } => {
            let secret = operators::enable_totp(store, &name).await?;
            print_totp(&name, &secret);
        }
        OperatorAccountCommand::NoTotp { name } => {
            operators::disable_totp(store, &name).await?;
            println!("{name} signs in without an authenticator code");
        }
        OperatorAccountCommand::Remove { name } => {
            operators::remove(store, &name).await?;
            println!("operator {name} removed");
        }
        OperatorAccountCommand::List => {
            for operator in operators::list(store).await? {
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

/// A password from standard input: its first line, without the line break.
fn read_password() -> anyhow::Result<String> {
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .context("reading the password from standard input")?;
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}
