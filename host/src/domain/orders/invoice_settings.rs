//! How the shop's invoices read: its address, VAT number and rate, and the invoice numbers'
//! prefix, from configuration (the `invoices` module prints them).

use serde::Deserialize;

use crate::infra::settings;

/// How the shop's invoices read (`shop_address`, `vat_number`, `vat_rate`, `vat_note`,
/// `invoice_prefix`).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct InvoiceSettings {
    /// The shop's postal address, lines separated by `|`.
    #[serde(deserialize_with = "address")]
    pub shop_address: Vec<String>,
    /// The shop's VAT registration number; empty: none printed.
    #[serde(deserialize_with = "settings::some_text")]
    pub vat_number: Option<String>,
    /// The VAT rate the prices include, in hundredths of a percent (`20` or `7.7` in the
    /// settings); 0: the invoice shows no VAT.
    #[serde(deserialize_with = "vat_rate")]
    pub vat_rate: u32,
    /// What an invoice without VAT says instead (an exemption); empty: nothing.
    #[serde(deserialize_with = "settings::some_text")]
    pub vat_note: Option<String>,
    /// What every invoice number starts with.
    #[serde(deserialize_with = "prefix")]
    pub invoice_prefix: String,
}

impl Default for InvoiceSettings {
    fn default() -> Self {
        InvoiceSettings {
            shop_address: Vec::new(),
            vat_number: None,
            vat_rate: 0,
            vat_note: None,
            invoice_prefix: "INV-".to_owned(),
        }
    }
}

/// Most lines of the shop's address, and characters of each.
const MAX_ADDRESS_LINES: usize = 6;
const MAX_ADDRESS_LINE: usize = 80;

fn address<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    let text = settings::text(deserializer)?;
    let lines: Vec<String> = (text.split('|'))
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect();
    let fits = lines.len() <= MAX_ADDRESS_LINES
        && lines
            .iter()
            .all(|line| crate::domain::one_line::required(line, MAX_ADDRESS_LINE).is_ok());
    match fits {
        true => Ok(lines),
        false => Err(serde::de::Error::custom(format!(
            "expected at most {MAX_ADDRESS_LINES} lines separated by |, each one line of at \
             most {MAX_ADDRESS_LINE} characters"
        ))),
    }
}

/// A percentage with at most two decimals, 0 to 100, as hundredths of a percent.
fn vat_rate<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    let text = settings::text(deserializer)?;
    let text = text.trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let well_formed = (1..=3).contains(&whole.len()) && fraction.len() <= 2;
    let rate = (well_formed && digits(whole) && digits(fraction))
        .then(|| {
            Some(whole.parse::<u32>().ok()? * 100 + format!("{fraction:0<2}").parse::<u32>().ok()?)
        })
        .flatten()
        .filter(|rate| *rate <= 10_000);
    rate.ok_or_else(|| {
        serde::de::Error::custom("expected a VAT rate in percent from 0 to 100, such as 20 or 7.7")
    })
}

fn prefix<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = settings::text(deserializer)?;
    let fits = text.len() <= 12
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'/');
    match fits {
        true => Ok(text),
        false => Err(serde::de::Error::custom(
            "expected at most 12 letters, digits, - and /, such as INV-",
        )),
    }
}
