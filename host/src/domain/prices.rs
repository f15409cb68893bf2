//! Prices from the catalogue's price list: per product, paper class and pack size, in minor
//! units of one currency. Loaded and checked at start-up: every combination the product
//! catalogue offers must have a price, so no pack can reach a cart without one.

use std::collections::BTreeMap;
use std::path::Path;

use presspack_engine::model::{Catalogue, PhysicalSpec};
use serde::{Deserialize, Serialize};

const BUILTIN: &str = presspack_assets::PRICES;

/// An ISO 4217 currency code such as `GBP`: three upper-case letters, checked as the price
/// list is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Currency([u8; 3]);

impl Currency {
    pub fn parse(code: &str) -> Result<Currency, String> {
        match <[u8; 3]>::try_from(code.as_bytes()) {
            Ok(letters) if letters.iter().all(u8::is_ascii_uppercase) => Ok(Currency(letters)),
            _ => Err(format!("{code:?} is not an ISO 4217 code such as GBP")),
        }
    }

    pub fn code(&self) -> &str {
        // Three ASCII letters, by `parse`.
        std::str::from_utf8(&self.0).unwrap_or("XXX")
    }
}

impl TryFrom<String> for Currency {
    type Error = String;
    fn try_from(code: String) -> Result<Currency, String> {
        Currency::parse(&code)
    }
}

impl From<Currency> for String {
    fn from(currency: Currency) -> String {
        currency.code().to_owned()
    }
}

/// An amount in minor units (pence, cents) of a currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Money {
    pub minor: u64,
    pub currency: Currency,
}

impl Money {
    pub fn new(minor: u64, currency: Currency) -> Money {
        Money { minor, currency }
    }

    /// `quantity` of this amount.
    pub fn times(self, quantity: u32) -> Money {
        Money::new(self.minor * u64::from(quantity), self.currency)
    }
}

/// As every page and e-mail shows a price: "£12.00", "€9.50", "CHF 12.00".
impl std::fmt::Display for Money {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let amount = format!("{}.{:02}", self.minor / 100, self.minor % 100);
        match self.currency.code() {
            "GBP" => write!(f, "£{amount}"),
            "EUR" => write!(f, "€{amount}"),
            "USD" => write!(f, "${amount}"),
            other => write!(f, "{other} {amount}"),
        }
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
    pub currency: Currency,
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
        let currency = Currency::parse(&file.currency).map_err(|e| format!("currency: {e}"))?;
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
        let list = PriceList { currency, prices };
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
    pub fn unit_price(&self, product: &str, spec: &PhysicalSpec) -> Option<Money> {
        let minor = self.price(product, &spec.paper_class, spec.pack_size)?;
        Some(Money::new(minor, self.currency))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_list_prices_every_option_of_the_catalogue() {
        let list = PriceList::load(None, Catalogue::builtin()).unwrap();
        assert_eq!(list.currency.code(), "GBP");
        let spec = Catalogue::builtin()
            .product("businesscard")
            .unwrap()
            .default_physical_spec();
        let price = list.unit_price("businesscard", &spec).unwrap();
        assert_eq!(price.minor, 1499);
        assert_eq!(price.to_string(), "£14.99");
        assert_eq!(price.times(3).to_string(), "£44.97");
    }

    #[test]
    fn an_amount_shows_with_its_currency() {
        let chf = Currency::parse("CHF").unwrap();
        assert_eq!(Money::new(1205, chf).to_string(), "CHF 12.05");
        assert_eq!(
            Money::new(7, Currency::parse("EUR").unwrap()).to_string(),
            "€0.07"
        );
        for bad in ["gbp", "GB", "GBPX", "G€", ""] {
            assert!(Currency::parse(bad).is_err(), "{bad:?}");
        }
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
