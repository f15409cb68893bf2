//! Links mailed to a customer that act on their account: confirming the address they signed
//! up with, and choosing a new password when they forgot theirs. Each link carries 256 random
//! bits; the store keeps only their SHA-256, as an expiring value naming the customer and the
//! address the link was sent to, so a link stops working when it expires, when it is used
//! (taking it deletes it: of two uses at once, one wins), or when the account's address has
//! changed since.

use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::infra::store::{Kind, Store, StoreError};

/// What a link does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkPurpose {
    ConfirmAddress,
    ResetPassword,
}

/// Record kinds: the links' hashes, by purpose.
pub const ADDRESS_LINKS: Kind = Kind::new("address-link");
pub const RESET_LINKS: Kind = Kind::new("reset-link");

impl LinkPurpose {
    fn kind(self) -> Kind {
        match self {
            LinkPurpose::ConfirmAddress => ADDRESS_LINKS,
            LinkPurpose::ResetPassword => RESET_LINKS,
        }
    }

    /// How long a link works: a reset link briefly (it is a key to the account), an address
    /// link for a week.
    pub const fn lifetime(self) -> Duration {
        match self {
            LinkPurpose::ConfirmAddress => Duration::from_secs(7 * 24 * 60 * 60),
            LinkPurpose::ResetPassword => Duration::from_secs(60 * 60),
        }
    }

    /// The path a link of this purpose opens, before its token.
    pub fn path(self) -> &'static str {
        match self {
            LinkPurpose::ConfirmAddress => "/account/confirm/",
            LinkPurpose::ResetPassword => "/account/reset/",
        }
    }
}

/// Who a link is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkHolder {
    pub customer_id: String,
    /// The address it was sent to: the link does nothing once the account has another.
    pub email: String,
    /// The account's session generation when it was sent: a password reset moves it on, so
    /// the other reset links sent before that reset do nothing.
    pub session_generation: u32,
}

fn key(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A token has the shape of the ones made here (64 hex digits), or is not looked up.
fn plausible(token: &str) -> bool {
    token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A new link token for `holder`.
pub async fn issue(
    store: &dyn Store,
    purpose: LinkPurpose,
    holder: &LinkHolder,
) -> Result<String, StoreError> {
    let token = hex::encode(rand::random::<[u8; 32]>());
    let value = format!(
        "{}\n{}\n{}",
        holder.customer_id, holder.email, holder.session_generation
    );
    store
        .put_blob(
            purpose.kind(),
            &key(&token),
            value.as_bytes(),
            Some(purpose.lifetime()),
        )
        .await?;
    Ok(token)
}

/// Who the link `token` is for, if it still works (without using it up).
pub async fn peek(
    store: &dyn Store,
    purpose: LinkPurpose,
    token: &str,
) -> Result<Option<LinkHolder>, StoreError> {
    if !plausible(token) {
        return Ok(None);
    }
    let Some(value) = store.get_blob(purpose.kind(), &key(token)).await? else {
        return Ok(None);
    };
    // `{id}\n{email}\n{generation}`; a link sent before generations were kept has none (0).
    let value = String::from_utf8_lossy(&value);
    let mut lines = value.split('\n');
    let (Some(id), Some(email)) = (lines.next(), lines.next()) else {
        return Ok(None);
    };
    Ok(Some(LinkHolder {
        customer_id: id.to_owned(),
        email: email.to_owned(),
        session_generation: lines.next().map_or(Ok(0), str::parse).unwrap_or(u32::MAX),
    }))
}

/// Uses the link `token` up: who it was for, if it worked and this call is the one that
/// used it.
pub async fn take(
    store: &dyn Store,
    purpose: LinkPurpose,
    token: &str,
) -> Result<Option<LinkHolder>, StoreError> {
    let Some(holder) = peek(store, purpose, token).await? else {
        return Ok(None);
    };
    Ok(store
        .delete(purpose.kind(), &key(token))
        .await?
        .then_some(holder))
}
