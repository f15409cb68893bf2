//! `presspack keys`: API keys (OAuth consumer keys and secrets, permissions, callbacks).

use anyhow::anyhow;
use clap::Subcommand;

use crate::cli::io::pretty;
use crate::domain::keys::{self, ApiKey, NewKey, Permission};
use crate::infra::store::SharedStore;

#[derive(Subcommand)]
pub(super) enum KeyCommand {
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

pub(super) async fn key_command(store: SharedStore, command: KeyCommand) -> anyhow::Result<()> {
    let store = store.as_ref();
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
            print_credentials(&keys::create(store, new).await?, json)
        }
        KeyCommand::List { json } => {
            let all = keys::list(store).await?;
            if json {
                let summaries: Vec<_> = all.iter().map(ApiKey::summary).collect();
                println!("{}", pretty(&summaries)?);
                return Ok(());
            }
            print_key_table(&all);
            Ok(())
        }
        KeyCommand::Show { key, json } => {
            let found = keys::find(store, &key)
                .await?
                .ok_or_else(|| anyhow!("no API key {key:?}"))?;
            print_key(&found, json)
        }
        KeyCommand::Grant { key, permissions } => {
            print_key(&keys::grant(store, &key, &permissions).await?, false)
        }
        KeyCommand::Revoke { key, permissions } => {
            print_key(&keys::revoke(store, &key, &permissions).await?, false)
        }
        KeyCommand::Disable { key } => {
            print_key(&keys::set_disabled(store, &key, true).await?, false)
        }
        KeyCommand::Enable { key } => {
            print_key(&keys::set_disabled(store, &key, false).await?, false)
        }
        KeyCommand::RotateSecret { key, json } => {
            print_credentials(&keys::rotate_secret(store, &key).await?, json)
        }
        KeyCommand::SetCallback {
            key,
            url,
            clear,
            json,
        } => {
            let url = if clear { None } else { url };
            let changed = keys::set_callback(store, &key, url).await?;
            if json {
                let mut value = serde_json::to_value(changed.summary())?;
                if let Some(secret) = &changed.webhook_secret {
                    value["webhookSecret"] = secret.clone().into();
                }
                println!("{}", pretty(&value)?);
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

fn print_key(key: &ApiKey, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", pretty(&key.summary())?);
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

/// Prints a key with its secret, which is shown only when created or rotated.
fn print_credentials(key: &ApiKey, json: bool) -> anyhow::Result<()> {
    if json {
        let mut value = serde_json::to_value(key.summary())?;
        value["secret"] = key.secret.clone().into();
        if let Some(secret) = &key.webhook_secret {
            value["webhookSecret"] = secret.clone().into();
        }
        println!("{}", pretty(&value)?);
    } else {
        println!("key: {}", key.consumer_key);
        println!("secret: {}", key.secret);
        if let Some(secret) = &key.webhook_secret {
            println!("webhook-secret: {secret}");
        }
    }
    Ok(())
}
