//! `svc.pack.addToCart`: marks a pack for its customer's cart.

use presspack_engine::model::Warning;
use serde::Serialize;

use crate::domain::cart::parse_quantity;
use crate::domain::dropins;
use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::packs::{self, PackRecord};
use crate::domain::services::Services;
use crate::http::rpc::call::{Call, Reply};
use crate::http::rpc::packs::load;

/// The cart envelope of addToCart: warnings and the `cart` and `checkout` drop-ins.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CartEnvelope<'a> {
    warnings: &'a [Warning],
    drop_ins: std::collections::BTreeMap<&'static str, String>,
}

/// `svc.pack.addToCart`: marks the pack for the cart with its quantity and returns the
/// drop-ins that take the customer there. A pack with warnings that block ordering is refused
/// with the warnings listed.
pub async fn add_to_cart(services: &Services, call: &Call<'_>) -> Result<Reply, DomainError> {
    let quantity = call.params.required("quantity")?;
    let quantity = parse_quantity("quantity", quantity)
        .map_err(|problem| DomainError::new(ErrorCode::InvalidParameter, problem))?;
    let id = load(services, call).await?.id;
    let stored = packs::modify(services, &id, |pack| {
        pack.check_access(call.key.as_ref())?;
        if !pack.is_orderable() {
            return Err(not_orderable(pack));
        }
        pack.cart_quantity = Some(quantity);
        Ok(())
    })
    .await?;
    Reply::json(&CartEnvelope {
        warnings: &stored.record.warnings,
        drop_ins: dropins::for_cart(call.base_url, &stored.id, &stored.record.drop_in_token),
    })
}

fn not_orderable(pack: &PackRecord) -> DomainError {
    let listed: Vec<String> = pack
        .warnings
        .iter()
        .filter(|w| w.code.blocks_ordering())
        .map(|w| {
            let code = serde_json::to_value(w.code).unwrap_or_default();
            format!(
                "{} at {}: {}",
                code.as_str().unwrap_or("?"),
                w.element,
                w.message
            )
        })
        .collect();
    DomainError::new(
        ErrorCode::PackNotOrderable,
        format!(
            "packId: the pack cannot be ordered until these warnings are resolved: {}",
            listed.join("; ")
        ),
    )
}
