//! API keys: a consumer key and secret for OAuth signatures, a name, permissions, and the
//! partner settings later operations use. Managed with `presspack keys ...`.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use strum::IntoEnumIterator;

use crate::infra::clock::system_seconds;
use crate::infra::store::{self, Kind, Records, StoreError, Versioned};

/// Record kind: API keys, by consumer key.
pub const API_KEYS: Kind = Kind::new("apikey");

/// What a key may do. `create`, `get_template`, `read` and `update` belong to every key
/// (`read` and `update` only on the key's own packs); the others are granted by the operator.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    strum::EnumIter,
    strum::IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Permission {
    Create,
    GetTemplate,
    Read,
    Update,
    CreateTrialPack,
    AddToCart,
    RenderSide,
    ImportImage,
    /// Record that orders were paid (`svc.order.markPaid`): for the shop's own back office.
    MarkOrdersPaid,
}

impl Permission {
    /// The name in the store, the CLI and messages (as serde writes it).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether every key has this permission, so it cannot be granted or revoked.
    pub fn is_inherent(self) -> bool {
        matches!(
            self,
            Permission::Create | Permission::GetTemplate | Permission::Read | Permission::Update
        )
    }
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Permission {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Permission::iter().find(|p| p.as_str() == s).ok_or_else(|| {
            let names: Vec<&str> = Permission::iter().map(Permission::as_str).collect();
            format!(
                "{s:?} is not a permission; permissions are {}",
                names.join(", ")
            )
        })
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiKey {
    pub consumer_key: String,
    /// The OAuth consumer secret. HMAC verification needs it in the clear, so it is stored
    /// as is; it is shown once, when created or rotated, and never logged.
    pub secret: String,
    pub name: String,
    /// The granted permissions beyond the inherent ones.
    pub granted: BTreeSet<Permission>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trial_partner: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_callback_url: Option<String>,
    /// Signs the order-confirmation webhooks (Standard Webhooks `whsec_` + base64 of 32
    /// random bytes); made with the callback URL, shown once like the consumer secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_secret: Option<String>,
    pub disabled: bool,
    pub created_at: u64,
}

impl ApiKey {
    pub fn has(&self, permission: Permission) -> bool {
        permission.is_inherent() || self.granted.contains(&permission)
    }

    /// All permissions of the key, inherent ones included.
    pub fn permissions(&self) -> Vec<Permission> {
        Permission::iter().filter(|p| self.has(*p)).collect()
    }
}

/// A key as the operator sees it: everything but the secret.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeySummary<'a> {
    pub consumer_key: &'a str,
    pub name: &'a str,
    pub permissions: Vec<Permission>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trial_partner: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order_callback_url: Option<&'a str>,
    pub disabled: bool,
}

impl ApiKey {
    pub fn summary(&self) -> KeySummary<'_> {
        KeySummary {
            consumer_key: &self.consumer_key,
            name: &self.name,
            permissions: self.permissions(),
            trial_partner: self.trial_partner.as_deref(),
            order_callback_url: self.order_callback_url.as_deref(),
            disabled: self.disabled,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("{0}")]
    Invalid(String),
    #[error("no API key {0:?}")]
    NotFound(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What the operator gives to create a key.
#[derive(Debug, Default)]
pub struct NewKey {
    pub name: String,
    pub grant: Vec<Permission>,
    pub trial_partner: Option<String>,
    pub order_callback_url: Option<String>,
}

fn random_hex(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    rand::fill(&mut buffer[..]);
    hex::encode(buffer)
}

fn check_grantable(permissions: &[Permission]) -> Result<(), KeyError> {
    match permissions.iter().find(|p| p.is_inherent()) {
        Some(p) => Err(KeyError::Invalid(format!(
            "{p} belongs to every key; grant only create_trial_pack, add_to_cart, render_side, import_image"
        ))),
        None => Ok(()),
    }
}

/// A new webhook signing secret.
pub fn new_webhook_secret() -> String {
    use base64::Engine;
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes[..]);
    format!(
        "whsec_{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

fn check_callback_url(url: &str) -> Result<(), KeyError> {
    match url::Url::parse(url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") && parsed.host().is_some() => {
            Ok(())
        }
        _ => Err(KeyError::Invalid(format!(
            "order callback URL {url:?}: expected an absolute http:// or https:// URL"
        ))),
    }
}

/// Creates and stores a key with a fresh consumer key (128 bits) and secret (256 bits).
pub async fn create(store: &dyn Records, new: NewKey) -> Result<ApiKey, KeyError> {
    if new.name.trim().is_empty() || new.name.chars().count() > 100 {
        return Err(KeyError::Invalid("name: 1 to 100 characters".into()));
    }
    check_grantable(&new.grant)?;
    if let Some(url) = &new.order_callback_url {
        check_callback_url(url)?;
    }
    let key = ApiKey {
        consumer_key: random_hex(16),
        secret: random_hex(32),
        name: new.name,
        granted: new.grant.into_iter().collect(),
        trial_partner: new.trial_partner,
        webhook_secret: new
            .order_callback_url
            .as_ref()
            .map(|_| new_webhook_secret()),
        order_callback_url: new.order_callback_url,
        disabled: false,
        // Keys are made by the CLI, outside any server: the system clock.
        created_at: system_seconds(),
    };
    let value = serde_json::to_vec(&key).map_err(|e| StoreError::corrupt(e.to_string()))?;
    if !store.insert(API_KEYS, &key.consumer_key, &value).await? {
        return Err(KeyError::Invalid(
            "consumer key collision; try again".into(),
        ));
    }
    Ok(key)
}

pub async fn find(store: &dyn Records, consumer_key: &str) -> Result<Option<ApiKey>, StoreError> {
    Ok(store::load(store, API_KEYS, consumer_key)
        .await?
        .map(|(key, _)| key))
}

/// The key in a record read from the store.
pub fn decode(consumer_key: &str, stored: Versioned) -> Result<ApiKey, StoreError> {
    store::decode(API_KEYS, consumer_key, stored).map(|(key, _)| key)
}

pub async fn list(store: &dyn Records) -> Result<Vec<ApiKey>, StoreError> {
    let mut keys = Vec::new();
    for id in store.list(API_KEYS).await? {
        keys.extend(find(store, &id).await?);
    }
    Ok(keys)
}

/// Changes a stored key; see [`store::modify`].
pub async fn change(
    store: &dyn Records,
    consumer_key: &str,
    change: impl FnMut(&mut ApiKey) -> Result<(), KeyError>,
) -> Result<ApiKey, KeyError> {
    store::modify(store, API_KEYS, consumer_key, change)
        .await?
        .ok_or_else(|| KeyError::NotFound(consumer_key.to_owned()))
}

pub async fn grant(
    store: &dyn Records,
    consumer_key: &str,
    permissions: &[Permission],
) -> Result<ApiKey, KeyError> {
    check_grantable(permissions)?;
    change(store, consumer_key, |key| {
        key.granted.extend(permissions);
        Ok(())
    })
    .await
}

pub async fn revoke(
    store: &dyn Records,
    consumer_key: &str,
    permissions: &[Permission],
) -> Result<ApiKey, KeyError> {
    check_grantable(permissions)?;
    change(store, consumer_key, |key| {
        key.granted.retain(|p| !permissions.contains(p));
        Ok(())
    })
    .await
}

pub async fn set_disabled(
    store: &dyn Records,
    consumer_key: &str,
    disabled: bool,
) -> Result<ApiKey, KeyError> {
    change(store, consumer_key, |key| {
        key.disabled = disabled;
        Ok(())
    })
    .await
}

/// Replaces the secret; the old one stops working at once.
pub async fn rotate_secret(store: &dyn Records, consumer_key: &str) -> Result<ApiKey, KeyError> {
    let secret = random_hex(32);
    change(store, consumer_key, |key| {
        key.secret = secret.clone();
        Ok(())
    })
    .await
}

/// Sets (or with `None` clears) the order-confirmation callback URL. Setting one makes a new
/// webhook signing secret, returned in the key: the old one stops verifying at once.
pub async fn set_callback(
    store: &dyn Records,
    consumer_key: &str,
    url: Option<String>,
) -> Result<ApiKey, KeyError> {
    if let Some(url) = &url {
        check_callback_url(url)?;
    }
    let secret = url.as_ref().map(|_| new_webhook_secret());
    change(store, consumer_key, |key| {
        key.order_callback_url.clone_from(&url);
        key.webhook_secret.clone_from(&secret);
        Ok(())
    })
    .await
}
