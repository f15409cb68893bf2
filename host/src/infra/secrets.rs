//! The deployment's secret key: 256 random bits made on first start and kept in the store,
//! so every host of a deployment shares it. Tokens that must be unforgeable but need no
//! storage are MACs under it, one purpose each: CSRF tokens bound to a session, device
//! cookies of the sign-in limiter, image ids that cannot be derived from a file.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::infra::store::{Kind, Store, StoreError};

/// Record kind: the deployment's secret key.
pub const SECRETS: Kind = Kind::new("secret");

/// The record holding the key.
const KEY_ID: &str = "mac-key";

#[derive(Clone)]
pub struct SecretKey([u8; 32]);

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKey(..)")
    }
}

impl SecretKey {
    /// The store's key, made now if it has none (the first of several hosts to start wins;
    /// the others read its key).
    pub async fn load_or_create(store: &dyn Store) -> Result<SecretKey, StoreError> {
        let fresh: [u8; 32] = rand::random();
        store.insert(SECRETS, KEY_ID, &fresh).await?;
        let stored = store.get(SECRETS, KEY_ID).await?.ok_or_else(|| {
            StoreError::unavailable("the secret key vanished after it was stored")
        })?;
        let key: [u8; 32] = stored.value.as_slice().try_into().map_err(|_| {
            StoreError::corrupt(format!(
                "the stored secret key is {} bytes, not 32",
                stored.value.len()
            ))
        })?;
        Ok(SecretKey(key))
    }

    /// A key for tests and benchmarks that need no store.
    pub fn random() -> SecretKey {
        SecretKey(rand::random())
    }

    /// The MAC of `parts` for `purpose`, as 64 hex digits. Parts are length-prefixed, so no
    /// two different lists of parts share a MAC.
    pub fn mac(&self, purpose: &str, parts: &[&[u8]]) -> String {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0).expect("any key length");
        for part in std::iter::once(purpose.as_bytes()).chain(parts.iter().copied()) {
            mac.update(&(part.len() as u64).to_le_bytes());
            mac.update(part);
        }
        hex::encode(mac.finalize().into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macs_differ_by_purpose_key_and_parts() {
        let key = SecretKey([7; 32]);
        let a = key.mac("csrf", &[b"ab", b"c"]);
        assert_eq!(a.len(), 64);
        assert_eq!(a, key.mac("csrf", &[b"ab", b"c"]));
        assert_ne!(a, key.mac("csrf", &[b"a", b"bc"]));
        assert_ne!(a, key.mac("device", &[b"ab", b"c"]));
        assert_ne!(a, SecretKey([8; 32]).mac("csrf", &[b"ab", b"c"]));
    }
}
