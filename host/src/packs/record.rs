//! The stored form of a pack and the store operations on it. The pack data is kept as the
//! canonical JSON the model produced, so reading a pack never re-parses it.

use std::time::{SystemTime, UNIX_EPOCH};

use presspack_engine::model::{Pack, PhysicalSpec, Product, Warning, pack_warnings};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::api::{ApiError, ErrorCode};
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
    /// The secret in the pack's drop-in URLs.
    pub drop_in_token: String,
    pub created_at: u64,
    pub updated_at: u64,
}

/// A pack record as read, with the id and revision needed to write it back.
pub struct StoredPack {
    pub id: String,
    pub revision: u64,
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
    ) -> Result<Self, ApiError> {
        let mut record = PackRecord {
            product: product.code.clone(),
            pack: RawValue::from_string("{}".to_owned()).map_err(|e| internal("pack", e))?,
            warnings: Vec::new(),
            physical_spec,
            tracking_id: None,
            friendly_name: None,
            start_again_url: None,
            design_code: None,
            drop_in_token: random_id(),
            created_at: now(),
            updated_at: 0,
        };
        record.set_pack(pack, product)?;
        Ok(record)
    }

    /// Replaces the pack data and recomputes its warnings.
    pub fn set_pack(&mut self, pack: &Pack, product: &Product) -> Result<(), ApiError> {
        let json = serde_json::to_string(pack).map_err(|e| internal("pack", e))?;
        self.pack = RawValue::from_string(json).map_err(|e| internal("pack", e))?;
        self.warnings = pack_warnings(pack, product);
        self.updated_at = now();
        Ok(())
    }
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
    let stored = store.get(Kind::Pack, id).await?.ok_or_else(not_found)?;
    let record = serde_json::from_slice(&stored.value)
        .map_err(|e| internal("stored pack is unreadable", e))?;
    Ok(StoredPack {
        id: id.to_owned(),
        revision: stored.revision,
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

/// How often an update is retried when another write to the same pack got in first.
const MAX_ATTEMPTS: usize = 16;

/// Applies `change` to the current record and writes it back with compare-and-swap,
/// re-reading and re-applying if another writer got in between, so no write is lost.
pub async fn modify(
    store: &dyn Store,
    id: &str,
    mut change: impl FnMut(&mut PackRecord) -> Result<(), ApiError>,
) -> Result<StoredPack, ApiError> {
    for _ in 0..MAX_ATTEMPTS {
        let mut stored = load(store, id).await?;
        change(&mut stored.record)?;
        let value = serde_json::to_vec(&stored.record).map_err(|e| internal("pack", e))?;
        if store
            .replace(Kind::Pack, id, &value, stored.revision)
            .await?
        {
            stored.revision += 1;
            return Ok(stored);
        }
        tokio::task::yield_now().await;
    }
    Err(ApiError::new(
        ErrorCode::StoreUnavailable,
        "packId: the pack is being changed by many requests at once; try again",
    ))
}
