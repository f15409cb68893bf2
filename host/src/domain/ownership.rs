//! Who holds a pack a customer page changes: a customer, who took it through a drop-in, or a
//! guest, a visitor designing before they have an account.
//!
//! A guest holds a pack from their first save, as `guest:{id}` in the pack's `owner`, just as
//! a customer does (API keys lose access alike), for [`GUEST_TTL`] after their latest save.
//! Their hold is kept in a guest record listing their packs; the browser keeps it through a
//! guest session (see the pages' `Visitor`). Signing up or in hands every pack the guest holds
//! to the account ([`hand_over`]). Once a guest's hold has run out, the pack is as before any
//! visitor took it: its drop-in links open it for whoever has them, with what the guest saved.
//! The records of guests whose hold has run out are swept ([`sweep_lapsed`]).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::ids::PackId;
use crate::domain::packs::{self, PackRecord};
use crate::domain::services::Services;
use crate::infra::clock::Clock;
use crate::infra::store::{self, Kind, Records, Store, StoreError, random_id};

/// Record kind: guests, by guest id (`guest:{hex}`).
pub const GUESTS: Kind = Kind::new("guest");

/// How long a guest holds their packs after their latest save.
pub const GUEST_TTL: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// Most packs one guest holds: an account keeps more.
pub const MAX_GUEST_PACKS: usize = 20;

const GUEST_PREFIX: &str = "guest:";

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GuestRecord {
    packs: Vec<PackId>,
    /// Unix seconds; the hold has run out after.
    expires_at: u64,
}

/// A new guest's id: unguessable, and never a customer's.
pub fn new_guest_id() -> String {
    format!("{GUEST_PREFIX}{}", random_id())
}

/// Whether `owner` (of a pack) is a guest.
pub fn is_guest(owner: &str) -> bool {
    owner.starts_with(GUEST_PREFIX)
}

/// Whether `owner` holds its packs now: a customer always, a guest until their hold runs out.
pub async fn holds(store: &dyn Records, clock: &Clock, owner: &str) -> Result<bool, StoreError> {
    if !is_guest(owner) {
        return Ok(true);
    }
    let record = store::load::<GuestRecord>(store, GUESTS, owner).await?;
    Ok(record.is_some_and(|(guest, _)| guest.expires_at > clock.unix_seconds()))
}

/// Why a pack held by `owner` cannot be taken, in the words of the customer pages.
pub fn held_by_another(owner: &str) -> DomainError {
    let message = match is_guest(owner) {
        true => {
            "This pack is being designed in another browser. Sign in there to keep it in an account; a guest's hold ends seven days after their last save."
        }
        false => "This pack belongs to another account. Sign in with the account that saved it.",
    };
    DomainError::new(ErrorCode::PackOwnedByCustomer, message)
}

/// Makes `owner` (a customer's id or a guest's) the pack's holder, unless someone else holds
/// it (a customer, or a guest whose hold has not run out): `pack_owned_by_customer`. The
/// owner seen is checked again as the pack is written, so of two at once one wins.
pub async fn take(
    services: &Services,
    pack_id: &PackId,
    owner: &str,
) -> Result<PackRecord, DomainError> {
    let store = services.store.as_ref();
    let stored = packs::load(services, pack_id).await?;
    let seen = stored.record.owner.clone();
    if let Some(holder) = seen.as_deref()
        && holder != owner
        && holds(store, &services.clock, holder).await?
    {
        return Err(held_by_another(holder));
    }
    if is_guest(owner) {
        extend(store, &services.clock, owner, pack_id).await?;
    }
    let taken = packs::modify(services, pack_id, |pack| {
        match pack.owner.as_deref() {
            Some(holder) if holder == owner => {}
            holder if holder == seen.as_deref() => pack.owner = Some(owner.to_owned()),
            Some(holder) => return Err(held_by_another(holder)),
            None => pack.owner = Some(owner.to_owned()),
        }
        Ok(())
    })
    .await?;
    Ok(taken.record)
}

/// Lists `pack_id` among guest `guest`'s packs and extends their hold by [`GUEST_TTL`]; the
/// guest's record is due for the sweep when the hold ends.
async fn extend(
    store: &dyn Store,
    clock: &Clock,
    guest: &str,
    pack_id: &PackId,
) -> Result<(), DomainError> {
    let fresh = GuestRecord {
        packs: Vec::new(),
        expires_at: 0,
    };
    let value = serde_json::to_vec(&fresh).map_err(|e| StoreError::corrupt(e.to_string()))?;
    // Made if missing, then changed; made again if the sweep took it in between.
    let mut extended = None;
    for _ in 0..3 {
        store.insert(GUESTS, guest, &value).await?;
        extended = store::modify(store, GUESTS, guest, |record: &mut GuestRecord| {
        if !record.packs.iter().any(|p| p == pack_id) {
            if record.packs.len() >= MAX_GUEST_PACKS {
                return Err(DomainError::new(
                    ErrorCode::RateLimited,
                    format!(
                        "A guest keeps at most {MAX_GUEST_PACKS} designs. Create an account to keep this one."
                    ),
                ));
            }
            record.packs.push(pack_id.to_owned());
        }
        record.expires_at = clock.unix_seconds() + GUEST_TTL.as_secs();
        Ok(())
    })
    .await?;
        if extended.is_some() {
            break;
        }
    }
    if extended.is_none() {
        return Err(StoreError::conflict("a guest's record kept vanishing; try again").into());
    }
    let ends = clock
        .unix_millis()
        .saturating_add(GUEST_TTL.as_millis() as i64);
    store.schedule(GUESTS, guest, ends).await?;
    Ok(())
}

/// Deletes up to `limit` guest records whose hold has run out (their packs are free again
/// already: [`holds`] finds no hold without a record); the number deleted. A record whose
/// hold was extended since it came due is left.
pub async fn sweep_lapsed(
    store: &dyn Store,
    clock: &Clock,
    limit: usize,
) -> Result<usize, StoreError> {
    let mut deleted = 0;
    for guest in store.due(GUESTS, clock.unix_millis(), limit).await? {
        match store::load::<GuestRecord>(store, GUESTS, &guest).await? {
            Some((record, revision)) if record.expires_at <= clock.unix_seconds() => {
                // (A save in between changes the revision: then the record stays, and the
                // save has put it on the schedule again.)
                if store.remove(GUESTS, &guest, revision).await? {
                    deleted += 1;
                    store.unschedule(GUESTS, &guest).await?;
                }
            }
            Some((record, _)) => {
                let ends =
                    i64::try_from(record.expires_at.saturating_mul(1000)).unwrap_or(i64::MAX);
                store.schedule(GUESTS, &guest, ends).await?;
            }
            None => store.unschedule(GUESTS, &guest).await?,
        }
    }
    Ok(deleted)
}

/// Hands every pack guest `guest` holds to customer `customer_id` (at sign-up or sign-in),
/// and ends the guest's record. Packs another visitor took since the hold ran out stay theirs.
pub async fn hand_over(
    services: &Services,
    guest: &str,
    customer_id: &str,
) -> Result<(), DomainError> {
    let store = services.store.as_ref();
    let Some((record, _)) = store::load::<GuestRecord>(store, GUESTS, guest).await? else {
        return Ok(());
    };
    for pack_id in &record.packs {
        let moved = packs::modify(services, pack_id, |pack| {
            if pack.owner.as_deref() == Some(guest) {
                pack.owner = Some(customer_id.to_owned());
            }
            Ok(())
        })
        .await;
        match moved {
            Ok(_) => {}
            Err(e) if e.code == ErrorCode::PackNotFound => {}
            Err(e) => return Err(e),
        }
    }
    store.delete(GUESTS, guest).await?;
    Ok(())
}
