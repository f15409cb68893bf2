//! Design codes: registered starting packs. `createPack` with a `designCode` starts from the
//! design's pack (and physical spec, if it has one); the editor offers a product's designs as
//! starting points. Managed with `presspack designs ...`; the starter set the project ships
//! ([`register_starters`]) is registered the same way on a server's first start.

use presspack_engine::model::{Catalogue, Pack, PhysicalSpec, PhysicalSpecInput, Product};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::images::retention::pin_images;
use crate::domain::images::store_image;
use crate::domain::services::Services;
use crate::infra::store::{Kind, Records, Store, StoreError};

/// Record kind: designs (starting packs), by design code.
pub const DESIGNS: Kind = Kind::new("design");

/// Record kind: the starter designs registered once, by design code. A starter an operator
/// removes stays removed.
const STARTERS: Kind = Kind::new("starter");

/// Longest design label, in characters.
pub const MAX_LABEL_CHARS: usize = 60;

/// Most designs the editor offers for one product.
pub const MAX_OFFERED: usize = 48;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Design {
    pub code: String,
    /// What customers see it called ("Sunrise"); the code when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
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
        label: Option<&str>,
        product: &str,
        pack_json: &str,
        physical_spec_json: Option<&str>,
    ) -> Result<Design, String> {
        if !is_code(code) {
            return Err(format!(
                "design code {code:?}: use 1 to 64 letters, digits, '-' or '_'"
            ));
        }
        if let Some(label) = label
            && (label.trim().is_empty()
                || label.chars().count() > MAX_LABEL_CHARS
                || label.chars().any(char::is_control))
        {
            return Err(format!(
                "label {label:?}: use 1 to {MAX_LABEL_CHARS} characters, no control characters"
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
            label: label.map(str::to_owned),
            product: product.code.clone(),
            pack: RawValue::from_string(pack).map_err(|e| e.to_string())?,
            physical_spec,
        })
    }

    /// What customers see it called.
    pub fn label(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.code)
    }

    /// The design's pack, read for its product.
    pub fn pack(&self, product: &Product) -> Result<Pack, String> {
        Pack::parse(self.pack.get(), "design.pack", product).map_err(|e| e.to_string())
    }
}

/// Whether `code` can be a design code: 1 to 64 letters, digits, '-' or '_'.
fn is_code(code: &str) -> bool {
    (1..=64).contains(&code.len())
        && code
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The design `code`; none for what cannot be a code (the store is not asked).
pub async fn find(store: &dyn Records, code: &str) -> Result<Option<Design>, StoreError> {
    if !is_code(code) {
        return Ok(None);
    }
    Ok(crate::infra::store::load(store, DESIGNS, code)
        .await?
        .map(|(design, _)| design))
}

/// Pins the design's images ([`pin_images`]: kept for good) and stores it; `false` if the
/// code is taken.
pub async fn add(store: &dyn Store, design: &Design) -> Result<bool, DomainError> {
    pin_images(store, design.pack.get()).await?;
    Ok(insert(store, design).await?)
}

async fn insert(store: &dyn Records, design: &Design) -> Result<bool, StoreError> {
    let value = serde_json::to_vec(design).map_err(|e| StoreError::corrupt(e.to_string()))?;
    store.insert(DESIGNS, &design.code, &value).await
}

pub async fn list(store: &dyn Records) -> Result<Vec<String>, StoreError> {
    store.list(DESIGNS).await
}

pub async fn remove(store: &dyn Records, code: &str) -> Result<bool, StoreError> {
    store.delete(DESIGNS, code).await
}

/// The designs of `product`, by label, at most [`MAX_OFFERED`].
pub async fn for_product(store: &dyn Records, product: &str) -> Result<Vec<Design>, StoreError> {
    let mut designs = Vec::new();
    for code in list(store).await? {
        if let Some(design) = find(store, &code).await?
            && design.product == product
        {
            designs.push(design);
        }
    }
    designs.sort_by(|a, b| a.label().cmp(b.label()).then_with(|| a.code.cmp(&b.code)));
    designs.truncate(MAX_OFFERED);
    Ok(designs)
}

/// A starter design as `assets/designs/starters.json` has it.
#[derive(Deserialize)]
struct Starter {
    code: String,
    label: String,
    product: String,
    pack: Box<RawValue>,
}

#[derive(Deserialize)]
struct Starters {
    designs: Vec<Starter>,
}

/// The prefix of a starter's picture in its pack: `art:<file name>` of
/// [`presspack_assets::STARTER_ART`].
const ART_SCHEME: &str = "art:";

/// Registers the starter designs the project ships that were never registered in this store:
/// stores their pictures as images, puts those in the packs (and their baskets), and adds the
/// designs. Returns how many it added. Hosts starting at once add each design once (the
/// design and its marker are inserted, never overwritten); a code an operator took first
/// keeps the operator's design. Once `stopping` says so it stores no more pictures (the rest
/// wait for the next start), so a server stopping soon after its first start stops soon.
pub async fn register_starters(
    services: &Services,
    stopping: impl Fn() -> bool,
) -> Result<usize, DomainError> {
    let starters: Starters = serde_json::from_str(presspack_assets::STARTER_DESIGNS)
        .map_err(|e| DomainError::new(ErrorCode::Internal, format!("starters.json: {e}")))?;
    let store = services.store.as_ref();
    let registered = store.list(STARTERS).await?;
    let mut added = 0;
    for starter in starters.designs {
        if registered.contains(&starter.code) {
            continue;
        }
        if stopping() {
            break;
        }
        let pack = starter_pack(services, &starter).await?;
        let design = Design::new(
            services.catalogue,
            &starter.code,
            Some(&starter.label),
            &starter.product,
            &pack,
            None,
        )
        .map_err(|e| DomainError::new(ErrorCode::Internal, format!("{}: {e}", starter.code)))?;
        if add(store, &design).await? {
            added += 1;
        }
        store.insert(STARTERS, &starter.code, b"1").await?;
    }
    Ok(added)
}

/// The starter's pack with each `art:` picture stored and named by its `store://` address,
/// and the basket holding them.
async fn starter_pack(services: &Services, starter: &Starter) -> Result<String, DomainError> {
    let broken = |what: String| {
        DomainError::new(
            ErrorCode::Internal,
            format!("starter {}: {what}", starter.code),
        )
    };
    let mut pack: serde_json::Value =
        serde_json::from_str(starter.pack.get()).map_err(|e| broken(e.to_string()))?;
    let mut basket = Vec::new();
    for side in pack["sides"].as_array_mut().into_iter().flatten() {
        for datum in side["data"].as_array_mut().into_iter().flatten() {
            let Some(name) = datum["resourceUri"]
                .as_str()
                .and_then(|uri| uri.strip_prefix(ART_SCHEME))
                .map(str::to_owned)
            else {
                continue;
            };
            let (_, png) = presspack_assets::STARTER_ART
                .iter()
                .find(|(file, _)| *file == name)
                .ok_or_else(|| broken(format!("no picture {name}")))?;
            let (id, record) = match store_image(services, bytes::Bytes::from_static(png)).await? {
                Ok(stored) => stored,
                Err(refusal) => return Err(broken(format!("{name}: {}", refusal.message))),
            };
            let item = record.basket_item(&id, "unknown", false, &name, "starter design");
            datum["resourceUri"] = item["resourceUri"].clone();
            basket.push(item);
        }
    }
    pack["imageBasket"]["items"] = serde_json::Value::Array(basket);
    Ok(pack.to_string())
}
