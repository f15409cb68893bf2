//! The stored form of a pack and the store operations on it. The pack data is kept as the
//! canonical JSON the model produced, so reading a pack never re-parses it.

use std::time::{SystemTime, UNIX_EPOCH};

use presspack_engine::model::{
    Pack, PhysicalSpec, Product, Warning, pack_warnings, template_warnings,
};

use crate::templates::Templates;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::api::{ApiError, ErrorCode};
use crate::auth::keys::ApiKey;
use crate::store::{Kind, Store};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackRecord {
    pub product: String,
    pub pack: Box<RawValue>,
    /// The pack's warnings, computed whenever the pack is written.
    pub warnings: Vec<Warning>,
    pub physical_spec: PhysicalSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friendly_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_again_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design_code: Option<String>,
    /// The consumer key of the API key that created the pack.
    pub created_by: String,
    /// The customer who took ownership through a drop-in; from then API keys lose access.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// The secret in the pack's drop-in URLs.
    pub drop_in_token: String,
    /// Created by createTrialPartnerPack: a customer may order one trial pack, ever.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub trial: bool,
    /// The quantity addToCart asked for; the customer's cart takes it when they open the
    /// `cart` or `checkout` drop-in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cart_quantity: Option<u32>,
    pub created_at: u64,
    pub updated_at: u64,
}

/// A pack record with its id.
pub struct StoredPack {
    pub id: String,
    pub record: PackRecord,
}

/// 128 random bits as 32 lower-case hex digits, from the thread's CSPRNG.
pub fn random_id() -> String {
    format!("{:032x}", rand::random::<u128>())
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn internal(what: &str, e: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::Internal, format!("{what}: {e}"))
}

impl PackRecord {
    pub fn new(
        product: &Product,
        pack: &Pack,
        physical_spec: PhysicalSpec,
        created_by: &str,
        templates: &Templates,
    ) -> Result<Self, ApiError> {
        let (pack, warnings) = canonical(pack, product, templates)?;
        Ok(PackRecord {
            product: product.code.clone(),
            pack,
            warnings,
            physical_spec,
            tracking_id: None,
            friendly_name: None,
            start_again_url: None,
            design_code: None,
            created_by: created_by.to_owned(),
            owner: None,
            drop_in_token: random_id(),
            trial: false,
            cart_quantity: None,
            created_at: now(),
            updated_at: now(),
        })
    }

    /// Whether `key` may read and update this pack: only the key that created it, and only
    /// until a customer owns it. Another key's pack looks like no pack at all.
    pub fn check_access(&self, key: Option<&ApiKey>) -> Result<(), ApiError> {
        match key {
            Some(key) if key.consumer_key == self.created_by => {}
            _ => return Err(not_found()),
        }
        if self.owner.is_some() {
            return Err(ApiError::new(
                ErrorCode::PackOwnedByCustomer,
                "packId: a customer has taken ownership of this pack; API keys can no longer read or update it",
            ));
        }
        Ok(())
    }

    /// Whether the pack may be ordered: none of its warnings blocks ordering.
    pub fn is_orderable(&self) -> bool {
        !self.warnings.iter().any(|w| w.code.blocks_ordering())
    }

    /// Whether the customer `customer_id` has taken the pack through a drop-in.
    pub fn is_owned_by(&self, customer_id: &str) -> bool {
        self.owner.as_deref() == Some(customer_id)
    }

    /// The name the customer sees: the pack's `friendlyName`, else its product's.
    pub fn display_name(&self) -> String {
        match &self.friendly_name {
            Some(name) if !name.trim().is_empty() => name.clone(),
            _ => match self.product.as_str() {
                "businesscard" => "Business cards".into(),
                "minicard" => "MiniCards".into(),
                "postcard" => "Postcards".into(),
                "sticker" => "Stickers".into(),
                other => other.to_owned(),
            },
        }
    }

    /// Replaces the pack data and recomputes its warnings.
    pub fn set_pack(
        &mut self,
        pack: &Pack,
        product: &Product,
        templates: &Templates,
    ) -> Result<(), ApiError> {
        (self.pack, self.warnings) = canonical(pack, product, templates)?;
        self.updated_at = now();
        Ok(())
    }
}

/// The pack as stored (its canonical JSON) and its warnings.
fn canonical(
    pack: &Pack,
    product: &Product,
    templates: &Templates,
) -> Result<(Box<RawValue>, Vec<Warning>), ApiError> {
    let json = serde_json::to_string(pack).map_err(|e| internal("pack", e))?;
    let raw = RawValue::from_string(json).map_err(|e| internal("pack", e))?;
    let mut warnings = pack_warnings(pack, product);
    warnings.extend(template_warnings(pack, product, &|code| {
        templates.get(code).map(|entry| &entry.template)
    }));
    Ok((raw, warnings))
}

fn not_found() -> ApiError {
    ApiError::new(ErrorCode::PackNotFound, "packId: no pack has this id")
}

/// Ids are 32 hex digits; anything else cannot name a pack and is not looked up.
fn is_pack_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

pub async fn load(store: &dyn Store, id: &str) -> Result<StoredPack, ApiError> {
    if !is_pack_id(id) {
        return Err(not_found());
    }
    let (record, _) = crate::store::load(store, Kind::Pack, id)
        .await?
        .ok_or_else(not_found)?;
    Ok(StoredPack {
        id: id.to_owned(),
        record,
    })
}

/// Stores a new pack under a fresh id and returns the id.
pub async fn insert(store: &dyn Store, record: &PackRecord) -> Result<String, ApiError> {
    let value = serde_json::to_vec(record).map_err(|e| internal("pack", e))?;
    // A collision of 128 random bits does not happen; the loop only keeps that a certainty.
    for _ in 0..4 {
        let id = random_id();
        if store.insert(Kind::Pack, &id, &value).await? {
            return Ok(id);
        }
    }
    Err(internal("pack", "no free pack id"))
}

/// Applies `change` to the pack and writes it back; see [`crate::store::modify`].
pub async fn modify(
    store: &dyn Store,
    id: &str,
    change: impl FnMut(&mut PackRecord) -> Result<(), ApiError>,
) -> Result<StoredPack, ApiError> {
    if !is_pack_id(id) {
        return Err(not_found());
    }
    let record = crate::store::modify(store, Kind::Pack, id, change)
        .await?
        .ok_or_else(not_found)?;
    Ok(StoredPack {
        id: id.to_owned(),
        record,
    })
}
