//! The names of packs and orders, parsed once where they arrive (a parameter, a path, a
//! form) so that the domain only ever holds one that could name something. Each reads as the
//! `str` it is (`Deref`), so keys, links and pages take it as they took the string.

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

/// A pack's id: 32 lower-case hex digits (128 random bits), unguessable because drop-in
/// pages reach a pack by it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct PackId(String);

impl PackId {
    /// The id `raw` spells, if it is one; anything else cannot name a pack.
    pub fn parse(raw: &str) -> Option<PackId> {
        let is_id = raw.len() == 32 && raw.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        is_id.then(|| PackId(raw.to_owned()))
    }

    /// A fresh id.
    pub fn random() -> PackId {
        PackId(format!("{:032x}", rand::random::<u128>()))
    }
}

/// An order's number: `PP-` and 12 characters of Crockford base32 (60 random bits), short
/// enough to read out on the phone and unguessable because links carry it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct OrderNumber(String);

const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

impl OrderNumber {
    /// The number `raw` spells, if it is one.
    pub fn parse(raw: &str) -> Option<OrderNumber> {
        let digits = raw.strip_prefix("PP-")?;
        let is_number = digits.len() == 12 && digits.bytes().all(|b| CROCKFORD.contains(&b));
        is_number.then(|| OrderNumber(raw.to_owned()))
    }

    /// A fresh number.
    pub fn random() -> OrderNumber {
        let bits = rand::random::<u64>();
        let digits: String = (0..12)
            .map(|i| CROCKFORD[((bits >> (i * 5)) & 31) as usize] as char)
            .collect();
        OrderNumber(format!("PP-{digits}"))
    }
}

/// The string forms and conversions both names share.
macro_rules! string_name {
    ($name:ident, $what:literal) => {
        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<$name> for String {
            fn from(name: $name) -> String {
                name.0
            }
        }

        /// Stored records are read through `parse` too, so a record cannot smuggle in a
        /// name that the edge would have refused.
        impl TryFrom<String> for $name {
            type Error = String;
            fn try_from(raw: String) -> Result<Self, String> {
                $name::parse(&raw).ok_or_else(|| format!("{raw:?} is not {}", $what))
            }
        }
    };
}

string_name!(PackId, "a pack id");
string_name!(OrderNumber, "an order number");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pack_id_is_32_lower_case_hex_digits() {
        let id = PackId::random();
        assert_eq!(PackId::parse(&id), Some(id.clone()));
        assert_eq!(id.len(), 32);
        for bad in [
            "",
            "0123456789abcdef0123456789ABCDEF",
            "0123456789abcdef0123456789abcde",
            "0123456789abcdef0123456789abcdef0",
            "../../0123456789abcdef0123456789",
            "0123456789abcdef0123456789abcdeg",
        ] {
            assert_eq!(PackId::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn an_order_number_is_pp_and_12_crockford_digits() {
        let number = OrderNumber::random();
        assert_eq!(OrderNumber::parse(&number), Some(number.clone()));
        assert!(OrderNumber::parse("PP-0123456789AB").is_some());
        for bad in [
            "",
            "PP-0123456789A",
            "PP-0123456789ABC",
            "pp-0123456789AB",
            "PP-0123456789IL",
            "XX-0123456789AB",
            "PP-0123456789ab",
        ] {
            assert_eq!(OrderNumber::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_stored_name_is_parsed_as_it_is_read() {
        let number: OrderNumber = serde_json::from_str("\"PP-0123456789AB\"").unwrap();
        assert_eq!(
            serde_json::to_string(&number).unwrap(),
            "\"PP-0123456789AB\""
        );
        let error = serde_json::from_str::<PackId>("\"nope\"").unwrap_err();
        assert!(error.to_string().contains("is not a pack id"), "{error}");
    }
}
