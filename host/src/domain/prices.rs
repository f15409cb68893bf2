//! Prices from the catalogue's price list: per product, paper class and pack size, in minor
//! units of one currency. Loaded and checked at start-up: every combination the product
//! catalogue offers must have a price, so no pack can reach a cart without one.

use std::collections::BTreeMap;
use std::path::Path;

use presspack_engine::model::{Catalogue, PhysicalSpec};
use serde::Deserialize;

const BUILTIN: &str = presspack_assets::PRICES;

/// An amount in minor units (pence, cents) with its currency's sign, as every page and
/// e-mail shows a price: "£12.00", "€9.50", "CHF 12.00".
pub fn money(currency: &str, minor: u64) -> String {
    let amount = format!("{}.{:02}", minor / 100, minor % 100);
    match currency {
        "GBP" => format!("£{amount}"),
        "EUR" => format!("€{amount}"),
        "USD" => format!("${amount}"),
        other => format!("{other} {amount}"),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PriceFile {
    currency: String,
    /// product -> paper class -> pack size -> price.
    prices: BTreeMap<String, BTreeMap<String, BTreeMap<String, u64>>>,
}

#[derive(Debug)]
pub struct PriceList {
    pub currency: String,
    prices: BTreeMap<(String, String, u32), u64>,
}

impl PriceList {
    /// The built-in list, or the operator's file.
    pub fn load(file: Option<&Path>, catalogue: &Catalogue) -> Result<PriceList, String> {
        let (text, name) = match file {
            Some(path) => (
                std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?,
                path.display().to_string(),
            ),
            None => (BUILTIN.to_owned(), "the built-in price list".to_owned()),
        };
        PriceList::parse(&text, catalogue).map_err(|e| format!("{name}: {e}"))
    }

    fn parse(text: &str, catalogue: &Catalogue) -> Result<PriceList, String> {
        let file: PriceFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if file.currency.len() != 3 || !file.currency.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(format!(
                "currency: {:?} is not an ISO 4217 code such as GBP",
                file.currency
            ));
        }
        let mut prices = BTreeMap::new();
        for (product, papers) in file.prices {
            for (paper, sizes) in papers {
                for (size, price) in sizes {
                    let size: u32 = size.parse().map_err(|_| {
                        format!("prices.{product}.{paper}: {size:?} is not a pack size")
                    })?;
                    prices.insert((product.clone(), paper.clone(), size), price);
                }
            }
        }
        let list = PriceList {
            currency: file.currency,
            prices,
        };
        for product in catalogue.products() {
            let options = &product.physical_spec;
            for paper in &options.paper_classes {
                for size in &options.pack_sizes {
                    if list.price(&product.code, &paper.code, *size).is_none() {
                        return Err(format!(
                            "prices.{}.{}.{size}: missing; every product, paper class and pack size needs a price",
                            product.code, paper.code
                        ));
                    }
                }
            }
        }
        Ok(list)
    }

    fn price(&self, product: &str, paper: &str, pack_size: u32) -> Option<u64> {
        self.prices
            .get(&(product.to_owned(), paper.to_owned(), pack_size))
            .copied()
    }

    /// The price of one pack with this specification.
    pub fn unit_price(&self, product: &str, spec: &PhysicalSpec) -> Option<u64> {
        self.price(product, &spec.paper_class, spec.pack_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_list_prices_every_option_of_the_catalogue() {
        let list = PriceList::load(None, Catalogue::builtin()).unwrap();
        assert_eq!(list.currency, "GBP");
        let spec = Catalogue::builtin()
            .product("businesscard")
            .unwrap()
            .default_physical_spec();
        assert_eq!(list.unit_price("businesscard", &spec), Some(1499));
    }

    #[test]
    fn a_missing_price_is_named() {
        let text = r#"{"currency": "EUR", "prices": {"businesscard": {"classic": {"50": 100}}}}"#;
        let error = PriceList::parse(text, Catalogue::builtin()).unwrap_err();
        assert!(
            error.contains("prices.businesscard.classic.200: missing"),
            "{error}"
        );
    }
}
