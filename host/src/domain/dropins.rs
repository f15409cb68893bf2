//! Drop-in URLs (wire-formats section 6): customer pages for a pack, each URL carrying the
//! pack's secret drop-in token (128 random bits, unrelated to the pack id). The pages are in
//! [`pages`].

use std::collections::BTreeMap;

use presspack_engine::model::Warning;

/// The drop-ins of a pack, and whether each is offered while the pack has warnings that
/// block ordering.
const PACK_DROP_INS: [(&str, bool); 6] = [
    ("edit", true),
    ("finish", false),
    ("preview", true),
    ("crop", true),
    ("details", true),
    ("imageChooser", true),
];

/// The drop-ins of the cart envelope (addToCart), which need an orderable pack.
const CART_DROP_INS: [&str; 2] = ["cart", "checkout"];

/// Whether `name` is a drop-in, and whether it is offered while ordering is blocked.
pub fn allows_blocking_warnings(name: &str) -> Option<bool> {
    PACK_DROP_INS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, allows)| *allows)
        .or_else(|| CART_DROP_INS.contains(&name).then_some(false))
}

/// The path of drop-in `name` of a pack.
pub fn path(pack_id: &str, name: &str, token: &str) -> String {
    format!("/dropins/{pack_id}/{name}?token={token}")
}

fn url(base_url: &str, pack_id: &str, token: &str, name: &str) -> String {
    format!("{base_url}{}", path(pack_id, name, token))
}

/// The drop-in map of the cart envelope.
pub fn for_cart(base_url: &str, pack_id: &str, token: &str) -> BTreeMap<&'static str, String> {
    CART_DROP_INS
        .iter()
        .map(|name| (*name, url(base_url, pack_id, token, name)))
        .collect()
}

/// The drop-in map of a pack envelope.
pub fn for_pack(
    base_url: &str,
    pack_id: &str,
    token: &str,
    warnings: &[Warning],
) -> BTreeMap<&'static str, String> {
    let orderable = !warnings.iter().any(|w| w.code.blocks_ordering());
    PACK_DROP_INS
        .iter()
        .filter(|(_, allows_blocking)| orderable || *allows_blocking)
        .map(|(name, _)| (*name, url(base_url, pack_id, token, name)))
        .collect()
}
