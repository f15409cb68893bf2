//! New artwork for an order on hold. An operator asks for it for one pack: a copy of the pack
//! as ordered goes into the customer's account and they are e-mailed a link. The link opens
//! the copy in the editor, then its proof; when the customer approves the proof, the copy
//! becomes the line's pack (the order's artwork history keeps the one it replaced), the press
//! file is made again, and the order leaves the hold (placed again).
//!
//! The link works only for that order line and its customer, only while the order is on hold,
//! and once. It carries 256 random bits made as the e-mail is sent; the line's request keeps
//! only their SHA-256, so a message sent again makes the one before it useless. Using it
//! writes the order (compare-and-swap: of two approvals at once one wins; the other finds the
//! order placed) and then marks the request used.

use crate::domain::error::DomainError;
use crate::domain::ids::{OrderNumber, PackId};
use crate::domain::mail::{self, MailKind};
use crate::domain::orders::artwork_links::{
    ARTWORK_REQUESTS, ArtworkRequest, put_request, request_id,
};
use crate::domain::orders::press_files;
use crate::domain::orders::record::{
    self, ArtworkChange, ArtworkChangeKind, Order, OrderStatus, ProofApproval, StatusChange,
};
use crate::domain::orders::status::{Mailing, write_told};
use crate::domain::ownership;
use crate::domain::packs::{self, PackRecord, PackToCreate, SHOP_CREATOR};
use crate::domain::services::Services;
use crate::domain::webhooks::{self, OrderEvent};
use crate::infra::store::{self, StoreError};

#[derive(Debug, thiserror::Error)]
pub enum ArtworkError {
    #[error("there is no order {0:?}")]
    NoSuchOrder(String),
    #[error("line: order {number} has no pack {line} (it has {count})")]
    NoSuchLine {
        number: String,
        line: usize,
        count: usize,
    },
    #[error(
        "order {number} is {state}: new artwork is asked for and given only while an order is on hold"
    )]
    NotOnHold { number: String, state: &'static str },
    /// The link is not this line's latest, was used, or is for another customer: one answer
    /// for all, so a guess learns nothing.
    #[error("this link for new artwork does not work (any more)")]
    LinkInvalid,
    /// The approval names another design than the copy holds now (edited in another tab).
    #[error("the design changed since its proof was shown; look at the proof again")]
    ProofOutdated,
    #[error(
        "this shop sends no e-mail (no SMTP server is configured): the customer could not be sent the link"
    )]
    NoMail,
    /// The copy has what stops a pack being ordered (its proof says what).
    #[error("the design cannot be printed as it is; its proof says what to change")]
    NotPrintable,
    #[error("{}", .0.message)]
    Domain(DomainError),
}

impl From<DomainError> for ArtworkError {
    fn from(error: DomainError) -> Self {
        ArtworkError::Domain(error)
    }
}

impl From<StoreError> for ArtworkError {
    fn from(error: StoreError) -> Self {
        ArtworkError::Domain(error.into())
    }
}

/// Order `number` as stored, placed (committed).
async fn placed(services: &Services, number: &OrderNumber) -> Result<Order, ArtworkError> {
    let store = services.store.as_ref();
    match record::load(store, number).await? {
        Some(order) if record::is_committed(store, &order).await? => Ok(order),
        _ => Err(ArtworkError::NoSuchOrder(number.to_string())),
    }
}

fn on_hold(order: &Order) -> Result<(), ArtworkError> {
    match order.status {
        OrderStatus::OnHold { .. } => Ok(()),
        _ => Err(ArtworkError::NotOnHold {
            number: order.number.to_string(),
            state: order.status.describe(),
        }),
    }
}

fn has_line(order: &Order, line: usize) -> Result<(), ArtworkError> {
    match line < order.lines.len() {
        true => Ok(()),
        false => Err(ArtworkError::NoSuchLine {
            number: order.number.to_string(),
            line: line + 1,
            count: order.lines.len(),
        }),
    }
}

/// Asks the customer of held order `number` for new artwork of pack `line` (from 0), as
/// `by`: a copy of the pack in their account, the request on the order's record and the
/// e-mail with the link (refused when `mailing` is off: nothing else gives the link). The
/// order as it is now.
pub async fn request(
    services: &Services,
    number: &OrderNumber,
    line: usize,
    by: &str,
    mailing: Mailing,
) -> Result<Order, ArtworkError> {
    if mailing == Mailing::Off {
        return Err(ArtworkError::NoMail);
    }
    let store = services.store.as_ref();
    let order = placed(services, number).await?;
    on_hold(&order)?;
    has_line(&order, line)?;
    let ordered = &order.lines[line];
    let copy = copy_for(services, &order, line).await?;
    let change = ArtworkChange {
        id: format!("art_{:032x}", rand::random::<u128>()),
        line,
        at: services.clock.unix_seconds(),
        by: by.to_owned(),
        kind: ArtworkChangeKind::Requested { copy: copy.clone() },
    };
    let request = ArtworkRequest {
        order: number.clone(),
        line,
        customer_id: order.customer_id.clone(),
        copy,
        change: change.id.clone(),
        link_sha256: None,
        used_at: None,
    };
    // The line's request before the order says so: its e-mail finds it by the change.
    put_request(store, &request).await?;
    let mailed = [mail::enqueue(store, &order, MailKind::NewArtwork, Some(&change.id)).await?];
    let written = write_told(store, number, &[], &mailed, |order| {
        on_hold(order)?;
        order.artwork.push(change.clone());
        Ok::<_, ArtworkError>(())
    })
    .await?
    .ok_or_else(|| ArtworkError::NoSuchOrder(number.to_string()))?;
    tracing::info!(order = %number, line, pack = %ordered.pack_id, by, "new artwork asked for");
    Ok(written)
}

/// A copy of pack `line` of `order` as ordered, in its customer's account.
async fn copy_for(services: &Services, order: &Order, line: usize) -> Result<PackId, ArtworkError> {
    let ordered = &order.lines[line];
    let product = services
        .catalogue
        .product(&ordered.product)
        .ok_or_else(|| {
            DomainError::invalid("line", format!("{} is no longer sold", ordered.product))
        })?;
    let spec = &ordered.physical_spec;
    let (id, _) = packs::create(
        services,
        PackToCreate {
            product,
            pack: Some(packs::stored_pack(
                services,
                &ordered.product,
                &ordered.pack,
            )?),
            design_code: None,
            started_from: None,
            physical_spec: Some(presspack_engine::model::PhysicalSpecInput {
                product_type: Some(spec.product_type.clone()),
                paper_class: Some(spec.paper_class.clone()),
                finishing_option: Some(spec.finishing_option.clone()),
                pack_size: Some(spec.pack_size),
                paper_laminate: Some(spec.paper_laminate.clone()),
            }),
            tracking_id: None,
            friendly_name: Some(&ordered.name),
            start_again_url: None,
            trial: false,
            created_by: SHOP_CREATOR,
        },
    )
    .await?;
    ownership::take(services, &id, &order.customer_id).await?;
    Ok(id)
}

/// What a working link opens: the order, the line's request and the copy as it is now.
pub struct Opened {
    pub order: Order,
    pub request: ArtworkRequest,
    pub copy: PackRecord,
}

/// The request that link `token` of line `line` of order `number` opens for customer
/// `customer_id`, if it works: the line's latest, not used, theirs, while the order is on
/// hold.
pub async fn open(
    services: &Services,
    number: &OrderNumber,
    line: usize,
    token: &str,
    customer_id: &str,
) -> Result<Opened, ArtworkError> {
    let store = services.store.as_ref();
    let (request, _) =
        store::load::<ArtworkRequest>(store, ARTWORK_REQUESTS, &request_id(number, line))
            .await?
            .ok_or(ArtworkError::LinkInvalid)?;
    if !request.opens_for(token, customer_id) {
        return Err(ArtworkError::LinkInvalid);
    }
    let order = placed(services, number).await?;
    on_hold(&order)?;
    let copy = packs::load(services, &request.copy).await?.record;
    Ok(Opened {
        order,
        request,
        copy,
    })
}

/// The customer's approval of the copy's proof (`design`, the design hash it showed), through
/// link `token`: the copy becomes the line's pack, the order leaves its hold and the press file
/// is made again. The order as it is now.
pub async fn approve(
    services: &Services,
    number: &OrderNumber,
    line: usize,
    token: &str,
    customer_id: &str,
    design: &str,
) -> Result<Order, ArtworkError> {
    let store = services.store.as_ref();
    let Opened {
        order,
        request,
        copy,
    } = open(services, number, line, token, customer_id).await?;
    if copy.design_hash() != design {
        return Err(ArtworkError::ProofOutdated);
    }
    if !copy.is_orderable() {
        return Err(ArtworkError::NotPrintable);
    }
    let now = services.clock.unix_seconds();
    let by = format!("customer:{customer_id}");
    let approval = ProofApproval {
        design: design.to_owned(),
        approved_at: now,
        warnings: packs::explained_warnings(services, &copy)
            .into_iter()
            .map(|(text, _)| text)
            .collect(),
    };
    let change = StatusChange {
        id: format!("chg_{:032x}", rand::random::<u128>()),
        status: OrderStatus::Placed,
        at: now,
        by: by.clone(),
        over_block: false,
    };
    let event = OrderEvent::ArtworkReplaced {
        change: &change,
        line,
    };
    let queued =
        webhooks::enqueue_order_event(store, &replaced(&order, line, &request, &copy), &event)
            .await?;
    let written = write_told(store, number, &queued, &[], |order| {
        on_hold(order)?;
        // Another request for the line since the link was opened: that one's link counts.
        let latest = (order.artwork.iter().rev())
            .find(|c| c.line == line && matches!(c.kind, ArtworkChangeKind::Requested { .. }));
        if latest.is_none_or(|c| c.id != request.change) {
            return Err(ArtworkError::LinkInvalid);
        }
        let ordered = &mut order.lines[line];
        order.artwork.push(ArtworkChange {
            id: format!("art_{:032x}", rand::random::<u128>()),
            line,
            at: now,
            by: by.clone(),
            kind: ArtworkChangeKind::Replaced {
                previous_pack_id: ordered.pack_id.clone(),
                previous_pack: ordered.pack.clone(),
                previous_approval: ordered.proof_approval.clone(),
            },
        });
        ordered.pack_id = request.copy.clone();
        ordered.pack = copy.pack.clone();
        ordered.proof_approval = Some(approval.clone());
        order.status = OrderStatus::Placed;
        order.history.push(change.clone());
        Ok(())
    })
    .await?
    .ok_or_else(|| ArtworkError::NoSuchOrder(number.to_string()))?;
    // Written: the link is used up. Should this write fail, the order is placed again and
    // the link, which works only on hold, opens nothing.
    let used = store::modify(
        store,
        ARTWORK_REQUESTS,
        &request_id(number, line),
        |request: &mut ArtworkRequest| {
            request.used_at = Some(now);
            Ok::<_, StoreError>(())
        },
    )
    .await;
    if let Err(error) = used {
        tracing::warn!(order = %number, line, %error, "the used artwork link is not marked");
    }
    press_files::make_again(store, number, line).await?;
    services.wake.press_files.notify_one();
    services.wake.webhooks.notify_one();
    if let Err(error) = record::index(store, &written, None).await {
        tracing::warn!(order = %number, %error, "the order's indexes are behind its state");
    }
    tracing::info!(order = %number, line, pack = %request.copy, "new artwork replaced a pack");
    Ok(written)
}

/// `order` as it will read once line `line` holds the copy (the webhooks name its new pack).
fn replaced(order: &Order, line: usize, request: &ArtworkRequest, copy: &PackRecord) -> Order {
    let mut order = order.clone();
    if let Some(ordered) = order.lines.get_mut(line) {
        ordered.pack_id = request.copy.clone();
        ordered.pack = copy.pack.clone();
    }
    order
}
