//! The links that ask a customer for new artwork (see [`super::artwork`]): each order line's
//! latest request, which keeps the SHA-256 of the one link that works, made as its e-mail is
//! sent (a message sent again makes the one before it useless).

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::domain::ids::{OrderNumber, PackId};
use crate::domain::orders::record;
use crate::infra::store::{self, Kind, Records, StoreError};

/// Record kind: `{order}:{line}` -> that line's latest request.
pub const ARTWORK_REQUESTS: Kind = Kind::new("artwork-request");

/// The latest request for new artwork of one order line.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtworkRequest {
    pub order: OrderNumber,
    pub line: usize,
    pub customer_id: String,
    /// The copy the customer edits (in their account).
    pub copy: PackId,
    /// The order's artwork change that asked for it (its e-mail names it).
    pub change: String,
    /// SHA-256 (hex) of the link last sent; none until one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_sha256: Option<String>,
    /// When the link was used (the copy replaced the line's pack).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_at: Option<u64>,
}

pub fn request_id(number: &OrderNumber, line: usize) -> String {
    format!("{number}:{line}")
}

/// Writes `request` as its line's latest, over any earlier one.
pub async fn put_request(store: &dyn Records, request: &ArtworkRequest) -> Result<(), StoreError> {
    let id = request_id(&request.order, request.line);
    let value = serde_json::to_vec(request).map_err(|e| StoreError::corrupt(e.to_string()))?;
    for _ in 0..16 {
        let written = match store.get(ARTWORK_REQUESTS, &id).await? {
            Some(stored) => {
                store
                    .replace(ARTWORK_REQUESTS, &id, &value, stored.revision)
                    .await?
            }
            None => store.insert(ARTWORK_REQUESTS, &id, &value).await?,
        };
        if written {
            return Ok(());
        }
    }
    Err(StoreError::conflict(
        "the artwork request is being changed by many at once; try again",
    ))
}

/// A new link for the request `change` of order `number` (the e-mail's), the path it opens;
/// `None` when a newer request replaced it or it was used.
pub async fn issue_link(
    store: &dyn Records,
    number: &OrderNumber,
    change: &str,
) -> Result<Option<String>, StoreError> {
    let Some(line) = line_of(store, number, change).await? else {
        return Ok(None);
    };
    let token = hex::encode(rand::random::<[u8; 32]>());
    let issued = store::modify(
        store,
        ARTWORK_REQUESTS,
        &request_id(number, line),
        |request: &mut ArtworkRequest| {
            if request.change != change || request.used_at.is_some() {
                return Err(Issue::Superseded);
            }
            request.link_sha256 = Some(digest(&token));
            Ok(())
        },
    )
    .await;
    match issued {
        Ok(Some(_)) => Ok(Some(path(number, line, &token))),
        Ok(None) | Err(Issue::Superseded) => Ok(None),
        Err(Issue::Store(error)) => Err(error),
    }
}

/// Why no link is issued.
enum Issue {
    /// A newer request for the line, or the link was used.
    Superseded,
    Store(StoreError),
}

impl From<StoreError> for Issue {
    fn from(error: StoreError) -> Self {
        Issue::Store(error)
    }
}

/// The line the order's artwork change `change` asked for.
async fn line_of(
    store: &dyn Records,
    number: &OrderNumber,
    change: &str,
) -> Result<Option<usize>, StoreError> {
    Ok(record::load(store, number).await?.and_then(|order| {
        (order.artwork.iter())
            .find(|c| c.id == change)
            .map(|c| c.line)
    }))
}

/// The page a link opens: `/artwork/{order}/{line}?token=…`.
pub fn path(number: &OrderNumber, line: usize, token: &str) -> String {
    format!("/artwork/{number}/{line}?token={token}")
}

fn digest(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

impl ArtworkRequest {
    /// Whether link `token` is this request's, unused, for customer `customer_id` (the
    /// digests compared in constant time).
    pub fn opens_for(&self, token: &str, customer_id: &str) -> bool {
        let plausible = token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit());
        let sent = self.link_sha256.as_deref().unwrap_or_default();
        let matches: bool = sent.as_bytes().ct_eq(digest(token).as_bytes()).into();
        plausible && matches && self.used_at.is_none() && self.customer_id == customer_id
    }
}
