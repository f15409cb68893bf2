//! Drop-in URLs (wire-formats section 6): customer pages for a pack, each URL carrying the
//! pack's secret drop-in token. The pages themselves arrive with the customer issue.

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
        .map(|(name, _)| {
            (
                *name,
                format!("{base_url}/dropins/{pack_id}/{name}?token={token}"),
            )
        })
        .collect()
}
