//! Design codes: operator-registered starting packs. `createPack` with a `designCode` starts
//! from the design's pack (and physical spec, if it has one). Managed with
//! `presspack designs ...`.

use presspack_engine::model::{Catalogue, Pack, PhysicalSpec, PhysicalSpecInput, Product};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::infra::store::{Kind, Records, StoreError};

/// Record kind: designs (starting packs), by design code.
pub const DESIGNS: Kind = Kind::new("design");

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Design {
    pub code: String,
    pub product: String,
    /// Canonical pack JSON, as the model wrote it when the design was registered.
    pub pack: Box<RawValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical_spec: Option<PhysicalSpec>,
}

impl Design {
    /// Checks and builds a design from the operator's files. Errors name the problem.
    pub fn new(
        catalogue: &Catalogue,
        code: &str,
        product: &str,
        pack_json: &str,
        physical_spec_json: Option<&str>,
    ) -> Result<Design, String> {
        if code.is_empty()
            || code.len() > 64
            || !code
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(format!(
                "design code {code:?}: use 1 to 64 letters, digits, '-' or '_'"
            ));
        }
        let product = catalogue.product(product).ok_or_else(|| {
            format!(
                "product {product:?} is not a product; products are {}",
                catalogue.product_codes()
            )
        })?;
        let pack = Pack::parse(pack_json, "pack", product).map_err(|e| e.to_string())?;
        let physical_spec = physical_spec_json
            .map(|text| {
                let input: PhysicalSpecInput = presspack_engine::model::parse(text, "physicalSpec")
                    .map_err(|e| e.to_string())?;
                product
                    .physical_spec(input, "physicalSpec")
                    .map_err(|e| e.to_string())
            })
            .transpose()?;
        let pack = serde_json::to_string(&pack).map_err(|e| e.to_string())?;
        Ok(Design {
            code: code.to_owned(),
            product: product.code.clone(),
            pack: RawValue::from_string(pack).map_err(|e| e.to_string())?,
            physical_spec,
        })
    }

    /// The design's pack, read for its product.
    pub fn pack(&self, product: &Product) -> Result<Pack, String> {
        Pack::parse(self.pack.get(), "design.pack", product).map_err(|e| e.to_string())
    }
}

pub async fn find(store: &dyn Records, code: &str) -> Result<Option<Design>, StoreError> {
    Ok(crate::infra::store::load(store, DESIGNS, code)
        .await?
        .map(|(design, _)| design))
}

/// Stores a new design; `false` if the code is taken.
pub async fn add(store: &dyn Records, design: &Design) -> Result<bool, StoreError> {
    let value = serde_json::to_vec(design).map_err(|e| StoreError::corrupt(e.to_string()))?;
    store.insert(DESIGNS, &design.code, &value).await
}

pub async fn list(store: &dyn Records) -> Result<Vec<String>, StoreError> {
    store.list(DESIGNS).await
}

pub async fn remove(store: &dyn Records, code: &str) -> Result<bool, StoreError> {
    store.delete(DESIGNS, code).await
}
