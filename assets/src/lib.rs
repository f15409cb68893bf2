//! Presspack's built-in data, in one tree (`assets/`) and embedded by this one crate: the
//! products, the price list, the templates, the design canvas's sample pack and the starter
//! designs; and the font catalogue with the faces it names, which stay in `fonts/` with their
//! licences. Nothing here is read from disk at run time; every build carries the same bytes.

/// The products: geometry, card counts, physical-spec options, empty packs (engine).
pub const PRODUCTS: &str = include_str!("../products.json");

/// The built-in price list (host; an operator's `prices_file` replaces it).
pub const PRICES: &str = include_str!("../prices.json");

/// The font catalogue: families, styles, client aliases, fallback order (engine).
pub const FONT_CATALOGUE: &str = include_str!("../../fonts/catalogue.json");

/// The face and word-list files the catalogue names, as `(name, raw deflate of the file)`; the
/// engine inflates them once.
pub const FONT_FACES_DEFLATED: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/fonts.rs"));

/// The default printing condition's ICC output profile, FOGRA39 (see `icc/README.md`): the
/// output intent of press files and the target of their CMYK conversion (engine).
pub const PRESS_PROFILE: &[u8] = include_bytes!("../icc/FOGRA39-presspack.icc");

/// The pack the design canvas opens with (`/web-demo/sample.json`), also a fuzzing seed.
pub const SAMPLE_PACK: &str = include_str!("../samples/sample-pack.json");

/// The starter designs (`designs/starters.json`, written with their pictures by
/// `cargo run -p presspack-engine --example starter_designs`): `{designs: [{code, label,
/// product, pack}]}`, each picture named in the pack as `art:<file name>` (host).
pub const STARTER_DESIGNS: &str = include_str!("../designs/starters.json");

/// The starter designs' pictures, as `(file name, PNG)` in file-name order.
pub const STARTER_ART: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/starter_art.rs"));

/// Every template, as `(file name, XML)` in file-name order (host; an operator's
/// `templates_dir` adds to them).
pub const TEMPLATES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/templates.rs"));

/// Where the templates are in the repository, for tools that copy them (the npm package).
pub const TEMPLATES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/templates");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_asset_is_there() {
        assert!(TEMPLATES.len() > 20, "{}", TEMPLATES.len());
        assert!(TEMPLATES.windows(2).all(|pair| pair[0].0 < pair[1].0));
        assert!(STARTER_ART.len() >= 30, "{}", STARTER_ART.len());
        for text in [
            PRODUCTS,
            PRICES,
            FONT_CATALOGUE,
            SAMPLE_PACK,
            STARTER_DESIGNS,
        ] {
            assert!(text.trim_start().starts_with('{'));
        }
    }
}
