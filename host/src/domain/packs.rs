//! Packs: the stored form, the store operations on it, and the warnings worked out whenever a
//! pack is written. The pack data is kept as the canonical JSON the model produced, so
//! reading a pack never re-parses it.

use presspack_engine::failure::FailureCode;
use presspack_engine::model::{
    Pack, PhysicalSpec, PhysicalSpecInput, PreflightLimits, Product, Side, Template, Warning,
    WarningCode, explain, missing_characters_message, pack_warnings, template_warnings,
};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::domain::designs;
use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::ids::PackId;
use crate::domain::images::retention::pin_images;
use crate::domain::keys::ApiKey;
use crate::domain::services::Services;
use crate::infra::engine::EngineCallError;
use crate::infra::store::{Kind, Records, random_id};
use crate::infra::templates::Templates;

/// Record kind: packs, by pack id.
pub const PACKS: Kind = Kind::new("pack");

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackRecord {
    pub product: String,
    pub pack: Box<RawValue>,
    /// The pack's warnings, computed whenever the pack is written; its pictures' resolution
    /// judged again when it is read under other press limits ([`PackRecord::judge_pictures`]).
    pub warnings: Vec<Warning>,
    /// The press limits `warnings` judged the pictures by (none in records from before they
    /// were kept, which are judged again when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged_by: Option<PreflightLimits>,
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
    pub id: PackId,
    pub record: PackRecord,
}

fn internal(what: &str, e: impl std::fmt::Display) -> DomainError {
    DomainError::new(ErrorCode::Internal, format!("{what}: {e}"))
}

impl PackRecord {
    /// A new record of `pack`, written at `now` (seconds since 1970).
    pub fn new(
        product: &Product,
        pack: &Pack,
        physical_spec: PhysicalSpec,
        created_by: &str,
        judge: &Judge<'_>,
        now: u64,
    ) -> Result<Self, DomainError> {
        let (pack, warnings) = canonical(pack, product, judge)?;
        Ok(PackRecord {
            product: product.code.clone(),
            pack,
            warnings,
            judged_by: Some(judge.limits),
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
            created_at: now,
            updated_at: now,
        })
    }

    /// Whether `key` may read and update this pack: only the key that created it, and only
    /// until a customer owns it. Another key's pack looks like no pack at all.
    pub fn check_access(&self, key: Option<&ApiKey>) -> Result<(), DomainError> {
        match key {
            Some(key) if key.consumer_key == self.created_by => {}
            _ => return Err(not_found()),
        }
        if self.owner.is_some() {
            return Err(DomainError::new(
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

    /// Whether `token` is the pack's drop-in token (compared in constant time).
    pub fn opens_with(&self, token: Option<&str>) -> bool {
        use subtle::ConstantTimeEq;
        let expected = self.drop_in_token.as_bytes();
        let given = token.unwrap_or_default().as_bytes();
        given.len() == expected.len() && bool::from(given.ct_eq(expected))
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

    /// The design's content hash: what a customer's proof approval names, so that an
    /// approval given for one design never stands for a design changed since.
    pub fn design_hash(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        for part in [self.product.as_bytes(), self.pack.get().as_bytes()] {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
        hex::encode(&hasher.finalize()[..16])
    }

    /// Replaces the pack data and recomputes its warnings, at `now` (seconds since 1970).
    pub fn set_pack(
        &mut self,
        pack: &Pack,
        product: &Product,
        judge: &Judge<'_>,
        now: u64,
    ) -> Result<(), DomainError> {
        (self.pack, self.warnings) = canonical(pack, product, judge)?;
        self.judged_by = Some(judge.limits);
        self.updated_at = now;
        Ok(())
    }

    /// Judges the pictures' resolution again if the press limits are not the ones the warnings
    /// used: an operator who raises `press_block_dpi` blocks the packs already written (in
    /// carts too) that a press file would now block, and one who lowers it frees them.
    fn judge_pictures(&mut self, product: &Product, judge: &Judge<'_>) {
        if self.judged_by == Some(judge.limits) {
            return;
        }
        // A stored pack always reads back; if one ever does not, its verdict stands.
        let Ok(pack) = Pack::parse(self.pack.get(), "pack", product) else {
            return;
        };
        let template = |code: &str| judge.template(code);
        let judged_now = template_warnings(&pack, product, &template, judge.limits);
        let is_resolution = |w: &Warning| {
            matches!(
                w.code,
                WarningCode::LowResolution | WarningCode::PoorResolution
            )
        };
        self.warnings.retain(|w| !is_resolution(w));
        self.warnings
            .extend(judged_now.into_iter().filter(|w| is_resolution(w)));
        self.judged_by = Some(judge.limits);
    }
}

/// What a pack's warnings are worked out with: the server's templates, and pictures judged
/// by the press's own limits.
pub struct Judge<'a> {
    pub templates: &'a Templates,
    pub limits: PreflightLimits,
}

impl<'a> Judge<'a> {
    pub fn new(services: &'a Services) -> Self {
        Judge {
            templates: &services.templates,
            limits: services.images.settings().preflight_limits(),
        }
    }

    /// The template `code` names, if the server has it.
    pub fn template(&self, code: &str) -> Option<&'a Template> {
        self.templates.get(code).map(|entry| &entry.template)
    }
}

/// Pins the images `pack` names ([`pin_images`]) and gives its basket their sizes as the
/// store knows them.
async fn pin_and_measure(services: &Services, pack: &mut Pack) -> Result<(), DomainError> {
    // (the whole pack: an image named anywhere in it, unknown properties too, is kept)
    let json = serde_json::to_string(&*pack).map_err(|e| internal("pack", e))?;
    let known = pin_images(services.store.as_ref(), &json).await?;
    pack.image_basket.set_known_sizes(&known);
    Ok(())
}

/// The pack's warnings in the customer's words (the engine's [`explain`]), each with whether
/// it blocks ordering: one wording for every page that refuses an order.
pub fn explained_warnings(services: &Services, record: &PackRecord) -> Vec<(String, bool)> {
    let product = services.catalogue.product(&record.product);
    let typed = product.and_then(|product| {
        let value = serde_json::from_str(record.pack.get()).ok()?;
        Some((Pack::read(value, "pack", product).ok()?, product))
    });
    let judge = Judge::new(services);
    let template = |code: &str| judge.template(code);
    // A stored pack always reads back; its partner's message stands in if it ever does not.
    record
        .warnings
        .iter()
        .map(|warning| match &typed {
            Some((typed, product)) => {
                let explained = explain(warning, typed, product, &template, judge.limits);
                (explained.text, explained.blocks_ordering)
            }
            None => (warning.message.clone(), warning.code.blocks_ordering()),
        })
        .collect()
}

/// Why the pack cannot be ordered (its warnings that block ordering, in the customer's
/// words); empty when it can.
pub fn blocking_reasons(services: &Services, record: &PackRecord) -> Vec<String> {
    if record.is_orderable() {
        return Vec::new();
    }
    explained_warnings(services, record)
        .into_iter()
        .filter_map(|(text, blocks)| blocks.then_some(text))
        .collect()
}

/// What createPack makes a pack from, its parameters read.
pub struct PackToCreate<'a> {
    pub product: &'a Product,
    /// The `pack` given; else the design's, else an empty pack.
    pub pack: Option<Pack>,
    pub design_code: Option<&'a str>,
    /// A design the customer started `pack` from in the editor: recorded as the pack's design
    /// code, the pack kept as given (the caller checked the code).
    pub started_from: Option<&'a str>,
    /// `physicalSpec` as given; what it leaves out comes from the design's specification,
    /// else the product's default.
    pub physical_spec: Option<PhysicalSpecInput>,
    pub tracking_id: Option<&'a str>,
    pub friendly_name: Option<&'a str>,
    pub start_again_url: Option<String>,
    /// A trial partner's pack (createTrialPartnerPack, its rules already checked).
    pub trial: bool,
    /// The consumer key of the API key that signed the call ([`SHOP_CREATOR`] for a pack the
    /// shop's design canvas started).
    pub created_by: &'a str,
}

/// The creator of packs a visitor starts on the shop's own design canvas, not a partner's API
/// key (no key has it: their consumer keys are random hex).
pub const SHOP_CREATOR: &str = "shop-design-canvas";

/// createPack's use case: the pack (given, from a design, or empty) with its physical
/// specification, all its warnings and its images pinned, stored under a new id.
pub async fn create(
    services: &Services,
    new: PackToCreate<'_>,
) -> Result<(PackId, PackRecord), DomainError> {
    let product = new.product;
    let design = match new.design_code {
        None => None,
        Some(code) => {
            let design = designs::find(services.store.as_ref(), code)
                .await?
                .ok_or_else(|| {
                    DomainError::new(
                        ErrorCode::UnknownDesignCode,
                        format!("designCode: {code:?} is not a design code"),
                    )
                })?;
            if design.product != product.code {
                return Err(DomainError::new(
                    ErrorCode::ConflictingParameters,
                    format!(
                        "designCode: design {code:?} is for {}, not for product {}",
                        design.product, product.code
                    ),
                ));
            }
            Some(design)
        }
    };
    let pack = match (new.pack, &design) {
        (Some(_), Some(_)) => {
            return Err(DomainError::new(
                ErrorCode::ConflictingParameters,
                "pack, designCode: give one or the other; a design code supplies the pack",
            ));
        }
        (Some(pack), None) => pack,
        (None, Some(design)) => design
            .pack(product)
            .map_err(|e| DomainError::new(ErrorCode::Internal, format!("design pack: {e}")))?,
        (None, None) => Pack::empty(product),
    };
    let base_spec = design
        .as_ref()
        .and_then(|d| d.physical_spec.clone())
        .unwrap_or_else(|| product.default_physical_spec());
    let physical_spec = match new.physical_spec {
        Some(input) => complete_physical_spec(product, input, &base_spec)?,
        None => base_spec,
    };

    let mut record = new_record(services, product, pack, physical_spec, new.created_by).await?;
    record.tracking_id = new.tracking_id.map(str::to_owned);
    record.friendly_name = new.friendly_name.map(str::to_owned);
    record.start_again_url = new.start_again_url;
    record.design_code = design
        .map(|d| d.code)
        .or_else(|| new.started_from.map(str::to_owned));
    record.trial = new.trial;
    let id = insert(services.store.as_ref(), &record).await?;
    Ok((id, record))
}

/// A physical specification as a client gives it, completed from `base` (what it leaves out
/// keeps `base`'s values) and checked against the product.
pub fn complete_physical_spec(
    product: &Product,
    input: PhysicalSpecInput,
    base: &PhysicalSpec,
) -> Result<PhysicalSpec, DomainError> {
    let input = PhysicalSpecInput {
        product_type: input.product_type,
        paper_class: input.paper_class.or_else(|| Some(base.paper_class.clone())),
        finishing_option: input
            .finishing_option
            .or_else(|| Some(base.finishing_option.clone())),
        pack_size: input.pack_size.or(Some(base.pack_size)),
        paper_laminate: input
            .paper_laminate
            .or_else(|| Some(base.paper_laminate.clone())),
    };
    product
        .physical_spec(input, "physicalSpec")
        .map_err(|e| DomainError::from_model(e, ErrorCode::InvalidPhysicalSpec))
}

/// A new pack's record, with all its warnings, its images pinned.
async fn new_record(
    services: &Services,
    product: &Product,
    mut pack: Pack,
    physical_spec: PhysicalSpec,
    created_by: &str,
) -> Result<PackRecord, DomainError> {
    pin_and_measure(services, &mut pack).await?;
    let mut record = PackRecord::new(
        product,
        &pack,
        physical_spec,
        created_by,
        &Judge::new(services),
        services.clock.unix_seconds(),
    )?;
    record
        .warnings
        .extend(text_warnings(services, &pack).await?);
    Ok(record)
}

/// The pack as stored (its canonical JSON) and its warnings.
fn canonical(
    pack: &Pack,
    product: &Product,
    judge: &Judge<'_>,
) -> Result<(Box<RawValue>, Vec<Warning>), DomainError> {
    let json = serde_json::to_string(pack).map_err(|e| internal("pack", e))?;
    let raw = RawValue::from_string(json).map_err(|e| internal("pack", e))?;
    let mut warnings = pack_warnings(pack, product);
    warnings.extend(template_warnings(
        pack,
        product,
        &|code| judge.template(code),
        judge.limits,
    ));
    Ok((raw, warnings))
}

fn not_found() -> DomainError {
    DomainError::new(ErrorCode::PackNotFound, "packId: no pack has this id")
}

/// The pack `raw` names, parsed where it arrives; a string that cannot be an id is "not
/// found" like an id of no pack, so the answer does not tell the two apart.
pub fn pack_id(raw: &str) -> Result<PackId, DomainError> {
    PackId::parse(raw).ok_or_else(not_found)
}

/// The pack `id`, its pictures judged by today's press limits.
pub async fn load(services: &Services, id: &PackId) -> Result<StoredPack, DomainError> {
    let (mut record, _) = crate::infra::store::load(services.store.as_ref(), PACKS, id)
        .await?
        .ok_or_else(not_found)?;
    judge_pictures(services, &mut record);
    Ok(StoredPack {
        id: id.clone(),
        record,
    })
}

/// [`PackRecord::judge_pictures`] with the server's judge.
fn judge_pictures(services: &Services, record: &mut PackRecord) {
    if let Some(product) = services.catalogue.product(&record.product) {
        record.judge_pictures(product, &Judge::new(services));
    }
}

/// Stores a new pack under a fresh id and returns the id.
pub async fn insert(store: &dyn Records, record: &PackRecord) -> Result<PackId, DomainError> {
    let value = serde_json::to_vec(record).map_err(|e| internal("pack", e))?;
    // A collision of 128 random bits does not happen; the loop only keeps that a certainty.
    for _ in 0..4 {
        let id = PackId::random();
        if store.insert(PACKS, &id, &value).await? {
            return Ok(id);
        }
    }
    Err(internal("pack", "no free pack id"))
}

/// Applies `change` to the pack, its pictures judged by today's press limits, and writes it
/// back; see [`crate::infra::store::modify`].
pub async fn modify(
    services: &Services,
    id: &PackId,
    mut change: impl FnMut(&mut PackRecord) -> Result<(), DomainError>,
) -> Result<StoredPack, DomainError> {
    let store = services.store.as_ref();
    let record = crate::infra::store::modify(store, PACKS, id, |record: &mut PackRecord| {
        judge_pictures(services, record);
        change(record)
    })
    .await?
    .ok_or_else(not_found)?;
    Ok(StoredPack {
        id: id.clone(),
        record,
    })
}

/// The product of a stored pack, which the catalogue must still have.
pub fn stored_product<'a>(
    state: &'a Services,
    record: &PackRecord,
) -> Result<&'a Product, DomainError> {
    catalogue_product(state, &record.product)
}

/// A product a stored pack names, which the catalogue must still have.
fn catalogue_product<'a>(state: &'a Services, code: &str) -> Result<&'a Product, DomainError> {
    state.catalogue.product(code).ok_or_else(|| {
        DomainError::new(
            ErrorCode::Internal,
            format!("the pack's product {code:?} is no longer in the catalogue"),
        )
    })
}

/// A stored pack (or one as ordered) read back for drawing: it was valid when written, so
/// failing now is the service's fault.
pub fn stored_pack(state: &Services, product: &str, pack: &RawValue) -> Result<Pack, DomainError> {
    let product = catalogue_product(state, product)?;
    Pack::parse(pack.get(), "pack", product)
        .map_err(|e| DomainError::new(ErrorCode::Internal, format!("stored pack: {e}")))
}

/// PVT001 (a text does not fit its box), PVT002 (a character came from a fallback font) and
/// PVT003 (a character no font has)
/// for every side with a template of the pack's product, from the engine's layout of it. A
/// datum the template cannot take (wrong kind, unknown font) makes the pack invalid.
pub async fn text_warnings(state: &Services, pack: &Pack) -> Result<Vec<Warning>, DomainError> {
    let sides: Vec<(usize, &Side)> = pack
        .sides
        .iter()
        .enumerate()
        // A side without a template of this server is warned about already (PV010).
        .filter(|(_, side)| state.templates.get(&side.template_code).is_some())
        .collect();
    let to_report: Vec<&Side> = sides.iter().map(|(_, side)| *side).collect();
    let reports = state.engine.reports(&to_report).await?;
    let mut warnings = Vec::new();
    for ((index, side), report) in sides.into_iter().zip(reports) {
        let report = match report {
            Ok(report) => report,
            Err(EngineCallError::Refused(failure))
                if failure.code != FailureCode::UnknownTemplate =>
            {
                return Err(DomainError::new(
                    ErrorCode::InvalidPack,
                    format!("pack.sides[{index}]: {}", failure.message),
                ));
            }
            Err(error) => return Err(error.into()),
        };
        for overflow in report.overflows {
            let mut too = Vec::new();
            if overflow.width > 0.0 {
                too.push(format!("{:.1} mm too wide", overflow.width));
            }
            if overflow.height > 0.0 {
                too.push(format!("{:.1} mm too tall", overflow.height));
            }
            warnings.push(Warning {
                element: format!("{}.{}", side.element(), overflow.link_id),
                code: WarningCode::TextOverflow,
                message: format!("the text is {} for its box", too.join(" and ")),
            });
        }
        for link_id in report.font_substituted {
            warnings.push(Warning {
                element: format!("{}.{link_id}", side.element()),
                code: WarningCode::FontSubstituted,
                message:
                    "a character is missing from the chosen font and is drawn in a fallback font"
                        .into(),
            });
        }
        for missing in report.missing_characters {
            warnings.push(Warning {
                element: format!("{}.{}", side.element(), missing.link_id),
                code: WarningCode::MissingCharacter,
                message: missing_characters_message(&missing.characters),
            });
        }
    }
    Ok(warnings)
}

/// The pack as a response returns it: each text datum with its resolved `pointSize`, `font`,
/// `colour` and `alignment`, from its template where the client left them out (wire-formats
/// section 9); everything the client sent as sent.
pub fn as_returned(
    state: &Services,
    record: &PackRecord,
) -> Result<serde_json::Value, DomainError> {
    let pack: serde_json::Value = serde_json::from_str(record.pack.get()).map_err(|e| {
        DomainError::from(crate::infra::store::StoreError::corrupt(format!(
            "a stored pack is unreadable: {e}"
        )))
    })?;
    Ok(presspack_engine::model::with_text_styles(&pack, |code| {
        state.templates.get(code).map(|entry| &entry.template)
    }))
}

/// What a pack's write records besides the pack; each `Some` replaces the record's value.
#[derive(Debug, Default, Clone, Copy)]
pub struct AlsoRecord<'a> {
    /// updatePack's `friendlyName`.
    pub friendly_name: Option<&'a str>,
    /// The design the customer started from in the editor (a registered design code).
    pub design_code: Option<&'a str>,
}

/// Replaces a pack's sides and basket with `text` (pack JSON) and works out its warnings
/// again, if `may_update` allows it: updatePack for an API key, and the design canvas for the
/// owning customer.
pub async fn replace_pack(
    state: &Services,
    id: &PackId,
    text: &str,
    also: AlsoRecord<'_>,
    may_update: impl Fn(&PackRecord) -> Result<(), DomainError>,
) -> Result<StoredPack, DomainError> {
    // The text warnings need the engine (async), so they are worked out before the
    // compare-and-swap loop; a pack's product never changes.
    let current = load(state, id).await?;
    may_update(&current.record)?;
    let product = stored_product(state, &current.record)?;
    let mut pack = Pack::parse(text, "pack", product)
        .map_err(|e| DomainError::from_model(e, ErrorCode::InvalidPack))?;
    let text_warnings = text_warnings(state, &pack).await?;
    pin_and_measure(state, &mut pack).await?;
    let judge = Judge::new(state);
    modify(state, id, |record| {
        may_update(record)?;
        record.set_pack(&pack, product, &judge, state.clock.unix_seconds())?;
        record.warnings.extend(text_warnings.iter().cloned());
        if let Some(name) = also.friendly_name {
            record.friendly_name = Some(name.to_owned());
        }
        if let Some(code) = also.design_code {
            record.design_code = Some(code.to_owned());
        }
        Ok(())
    })
    .await
}
