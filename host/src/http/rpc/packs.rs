//! Pack operations: createPack, getPack, updatePack, getPhysicalSpec, updatePhysicalSpec.

use std::collections::BTreeMap;

use presspack_engine::model::{Catalogue, Pack, PhysicalSpec, PhysicalSpecInput, Product, Warning};
use serde::Serialize;

use crate::domain::dropins;
use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::packs::{
    self, AlsoRecord, PackRecord, PackToCreate, StoredPack, complete_physical_spec, replace_pack,
    stored_product,
};
use crate::domain::services::Services;
use crate::http::rpc::call::{Call, Reply};
use crate::http::rpc::params::{Params, truncate};

/// Bounds on the free-text parameters of a pack.
const MAX_TRACKING_ID: usize = 255;
const MAX_FRIENDLY_NAME: usize = 255;
const MAX_URL: usize = 2048;
const MAX_DESIGN_CODE: usize = 64;
const MAX_TRIAL_PARTNER: usize = 255;

/// The pack response envelope of createPack, getPack and updatePack.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PackEnvelope<'a> {
    pack_id: &'a str,
    pack: serde_json::Value,
    warnings: &'a [Warning],
    drop_ins: BTreeMap<&'static str, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    physical_spec: Option<&'a PhysicalSpec>,
}

/// The physical-specification envelope; updatePhysicalSpec adds the drop-ins.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalSpecEnvelope<'a> {
    pack_id: &'a str,
    physical_spec: &'a PhysicalSpec,
    #[serde(skip_serializing_if = "Option::is_none")]
    drop_ins: Option<BTreeMap<&'static str, String>>,
}

fn drop_ins(base_url: &str, id: &str, record: &PackRecord) -> BTreeMap<&'static str, String> {
    dropins::for_pack(base_url, id, &record.drop_in_token, &record.warnings)
}

fn pack_reply(
    services: &Services,
    base_url: &str,
    id: &str,
    record: &PackRecord,
    include_spec: bool,
) -> Result<Reply, DomainError> {
    Reply::json(&PackEnvelope {
        pack_id: id,
        pack: packs::as_returned(services, record)?,
        warnings: &record.warnings,
        drop_ins: drop_ins(base_url, id, record),
        physical_spec: include_spec.then_some(&record.physical_spec),
    })
}

fn product<'a>(services: &'a Services, code: &str) -> Result<&'a Product, DomainError> {
    services.catalogue.product(code).ok_or_else(|| {
        DomainError::new(
            ErrorCode::UnknownProduct,
            format!(
                "product: {:?} is not a product; products are {}",
                truncate(code),
                services.catalogue.product_codes()
            ),
        )
    })
}

fn read_pack(params: &Params, product: &Product) -> Result<Option<Pack>, DomainError> {
    params
        .get("pack")
        .map(|text| Pack::parse(text, "pack", product))
        .transpose()
        .map_err(|e| DomainError::from_model(e, ErrorCode::InvalidPack))
}

/// The `physicalSpec` parameter as given (the domain completes it and checks it against the
/// product).
fn read_physical_spec(params: &Params) -> Result<Option<PhysicalSpecInput>, DomainError> {
    params.json::<PhysicalSpecInput>("physicalSpec", ErrorCode::InvalidPhysicalSpec)
}

fn absolute_http_url(name: &str, value: &str) -> Result<String, DomainError> {
    let url = url::Url::parse(value).map_err(|e| {
        DomainError::invalid(name, format!("must be an absolute http(s) URL ({e})"))
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(DomainError::invalid(
            name,
            "must be an absolute http:// or https:// URL",
        ));
    }
    Ok(url.into())
}

pub async fn create_pack(services: &Services, call: &Call<'_>) -> Result<Reply, DomainError> {
    create(services, call, false).await
}

/// `createTrialPartnerPack`: createPack for a trial partner's key, `businesscard` and
/// `minicard` only; the pack is marked as a trial pack.
pub async fn create_trial_partner_pack(
    services: &Services,
    call: &Call<'_>,
) -> Result<Reply, DomainError> {
    create(services, call, true).await
}

/// Checks what only trial packs need: the key's trial-partner id and a trial product.
fn check_trial(
    call: &Call<'_>,
    product: &Product,
    catalogue: &Catalogue,
) -> Result<(), DomainError> {
    let partner = call
        .params
        .text("trialPartner", MAX_TRIAL_PARTNER)?
        .ok_or_else(|| DomainError::missing("trialPartner"))?;
    let key_partner = call.key.as_ref().and_then(|k| k.trial_partner.as_deref());
    if key_partner != Some(partner) {
        return Err(DomainError::new(
            ErrorCode::TrialPartnerMismatch,
            "trialPartner: does not match the trial-partner id of the API key that signed the call",
        ));
    }
    if !product.trial_pack {
        let trial: Vec<&str> = catalogue
            .products()
            .iter()
            .filter(|p| p.trial_pack)
            .map(|p| p.code.as_str())
            .collect();
        return Err(DomainError::new(
            ErrorCode::NotATrialProduct,
            format!(
                "product: {} cannot be a trial pack; trial packs are {}",
                product.code,
                trial.join(", ")
            ),
        ));
    }
    Ok(())
}

/// The product a createPack names: `product`, else `physicalSpec.productType`, else
/// `pack.productCode` (MOO's PHP client sends only the last two). Two that disagree are an
/// error naming both.
fn named_product(params: &Params) -> Result<String, DomainError> {
    // Only the top level is read: a pack's sides are parsed once, by `read_pack`.
    let inner = |parameter: &str, field: &str| -> Option<String> {
        let fields: BTreeMap<String, &serde_json::value::RawValue> =
            serde_json::from_str(params.get(parameter)?).ok()?;
        serde_json::from_str(fields.get(field)?.get()).ok()
    };
    let named = [
        ("product", params.get("product").map(str::to_owned)),
        (
            "physicalSpec.productType",
            inner("physicalSpec", "productType"),
        ),
        ("pack.productCode", inner("pack", "productCode")),
    ];
    let mut found = named
        .iter()
        .filter_map(|(name, value)| value.as_ref().map(|value| (*name, value)));
    let Some((first_name, first)) = found.next() else {
        return Err(DomainError::new(
            ErrorCode::MissingParameter,
            "product: this parameter is required (or name the product in physicalSpec.productType \
             or pack.productCode)",
        ));
    };
    if let Some((name, other)) = found.find(|(_, value)| *value != first) {
        return Err(DomainError::new(
            ErrorCode::ConflictingParameters,
            format!(
                "{first_name}, {name}: name different products ({:?} and {:?}); name one",
                truncate(first),
                truncate(other)
            ),
        ));
    }
    Ok(first.clone())
}

async fn create(services: &Services, call: &Call<'_>, trial: bool) -> Result<Reply, DomainError> {
    let params = call.params;
    let product = product(services, &named_product(params)?)?;
    if trial {
        check_trial(call, product, services.catalogue)?;
    }
    let tracking_id = params.text("trackingId", MAX_TRACKING_ID)?;
    let friendly_name = params.text("friendlyName", MAX_FRIENDLY_NAME)?;
    let start_again_url = params
        .text("startAgainUrl", MAX_URL)?
        .map(|url| absolute_http_url("startAgainUrl", url))
        .transpose()?;
    let include_spec = params.bool("includePhysicalSpec")?.unwrap_or(false);
    let design_code = params.text("designCode", MAX_DESIGN_CODE)?;
    let pack = read_pack(params, product)?;
    let physical_spec = read_physical_spec(params)?;
    let creator = call.key.as_ref().ok_or_else(|| {
        DomainError::new(
            ErrorCode::MissingSignature,
            "createPack needs a signed call",
        )
    })?;
    let (id, record) = packs::create(
        services,
        PackToCreate {
            product,
            pack,
            design_code,
            started_from: None,
            physical_spec,
            tracking_id,
            friendly_name,
            start_again_url,
            trial,
            created_by: &creator.consumer_key,
        },
    )
    .await?;
    pack_reply(services, call.base_url, &id, &record, include_spec)
}

/// The pack named by `packId`, if the calling key may read and update it.
pub async fn load(services: &Services, call: &Call<'_>) -> Result<StoredPack, DomainError> {
    let id = packs::pack_id(call.params.required("packId")?)?;
    let stored = packs::load(services, &id).await?;
    stored.record.check_access(call.key.as_ref())?;
    Ok(stored)
}

pub async fn get_pack(services: &Services, call: &Call<'_>) -> Result<Reply, DomainError> {
    let params = call.params;
    let include_spec = params.bool("includePhysicalSpec")?.unwrap_or(false);
    let stored = load(services, call).await?;
    pack_reply(
        services,
        call.base_url,
        &stored.id,
        &stored.record,
        include_spec,
    )
}

pub async fn update_pack(services: &Services, call: &Call<'_>) -> Result<Reply, DomainError> {
    let params = call.params;
    let id = params.required("packId")?;
    let text = params.required("pack")?;
    let friendly_name = params.text("friendlyName", MAX_FRIENDLY_NAME)?;
    let include_spec = params.bool("includePhysicalSpec")?.unwrap_or(false);
    let also = AlsoRecord {
        friendly_name,
        design_code: None,
    };
    let stored = replace_pack(services, &packs::pack_id(id)?, text, also, |record| {
        record.check_access(call.key.as_ref())
    })
    .await?;
    pack_reply(
        services,
        call.base_url,
        &stored.id,
        &stored.record,
        include_spec,
    )
}

pub async fn get_physical_spec(services: &Services, call: &Call<'_>) -> Result<Reply, DomainError> {
    let stored = load(services, call).await?;
    Reply::json(&PhysicalSpecEnvelope {
        pack_id: &stored.id,
        physical_spec: &stored.record.physical_spec,
        drop_ins: None,
    })
}

pub async fn update_physical_spec(
    services: &Services,
    call: &Call<'_>,
) -> Result<Reply, DomainError> {
    let params = call.params;
    let id = params.required("packId")?;
    params.required("physicalSpec")?;
    let stored = packs::modify(services, &packs::pack_id(id)?, |record| {
        record.check_access(call.key.as_ref())?;
        let product = stored_product(services, record)?;
        // Fields the client leaves out keep the pack's current values.
        let input =
            read_physical_spec(params)?.ok_or_else(|| DomainError::missing("physicalSpec"))?;
        record.physical_spec = complete_physical_spec(product, input, &record.physical_spec)?;
        Ok(())
    })
    .await?;
    Reply::json(&PhysicalSpecEnvelope {
        pack_id: &stored.id,
        physical_spec: &stored.record.physical_spec,
        drop_ins: Some(drop_ins(call.base_url, &stored.id, &stored.record)),
    })
}
