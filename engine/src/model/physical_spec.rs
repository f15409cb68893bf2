//! The physical specification of a pack (wire-formats section 4): paper, finishing, pack size
//! and laminate, each checked against the product's options.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::json::{Fields, FromJson};
use super::{ModelError, Product};

/// A complete physical specification, valid for its product.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PhysicalSpec {
    pub product_type: String,
    pub paper_class: String,
    pub finishing_option: String,
    pub pack_size: u32,
    pub paper_laminate: String,
}

/// A physical specification as a client sent it: every field optional.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PhysicalSpecInput {
    pub product_type: Option<String>,
    pub paper_class: Option<String>,
    pub finishing_option: Option<String>,
    pub pack_size: Option<u32>,
    pub paper_laminate: Option<String>,
}

const FIELDS: [&str; 5] = [
    "productType",
    "paperClass",
    "finishingOption",
    "packSize",
    "paperLaminate",
];

impl FromJson for PhysicalSpecInput {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        let mut fields = Fields::new(value, path)?;
        let input = PhysicalSpecInput {
            product_type: fields.optional("productType")?,
            paper_class: fields.optional("paperClass")?,
            finishing_option: fields.optional("finishingOption")?,
            pack_size: fields.optional("packSize")?,
            paper_laminate: fields.optional("paperLaminate")?,
        };
        fields.deny_rest(&FIELDS)?;
        Ok(input)
    }
}

/// Picks `given` if it is one of `allowed` (absent means the first), else an error naming
/// the field and the allowed values.
fn choose<T: PartialEq + ToString + Clone>(
    given: Option<T>,
    allowed: &[T],
    path: &str,
    context: &str,
) -> Result<T, ModelError> {
    match given {
        None => Ok(allowed[0].clone()),
        Some(value) if allowed.contains(&value) => Ok(value),
        Some(value) => {
            let names: Vec<String> = allowed.iter().map(ToString::to_string).collect();
            Err(ModelError::invalid(
                path,
                format!(
                    "{:?} is not available{context}; allowed: {}",
                    value.to_string(),
                    names.join(", ")
                ),
            ))
        }
    }
}

impl Product {
    /// The specification a new pack gets: the first option of each row.
    pub fn default_physical_spec(&self) -> PhysicalSpec {
        self.physical_spec(PhysicalSpecInput::default(), "physicalSpec")
            .expect("the first option of each catalogue row is valid")
    }

    /// Completes and checks a client's physical specification for this product; absent
    /// fields take the first allowed value.
    pub fn physical_spec(
        &self,
        input: PhysicalSpecInput,
        path: &str,
    ) -> Result<PhysicalSpec, ModelError> {
        let options = &self.physical_spec;
        let product = std::slice::from_ref(&self.code);
        let for_product = format!(" for {}", self.code);
        let product_type = choose(
            input.product_type,
            product,
            &format!("{path}.productType"),
            " (it must be the pack's product)",
        )?;
        let paper_codes: Vec<String> = options
            .paper_classes
            .iter()
            .map(|c| c.code.clone())
            .collect();
        let paper_class = choose(
            input.paper_class,
            &paper_codes,
            &format!("{path}.paperClass"),
            &for_product,
        )?;
        let finishing = &options
            .paper_classes
            .iter()
            .find(|c| c.code == paper_class)
            .expect("paper_class was chosen from this list")
            .finishing_options;
        Ok(PhysicalSpec {
            product_type,
            finishing_option: choose(
                input.finishing_option,
                finishing,
                &format!("{path}.finishingOption"),
                &format!(" for {} on {paper_class} paper", self.code),
            )?,
            paper_class,
            pack_size: choose(
                input.pack_size,
                &options.pack_sizes,
                &format!("{path}.packSize"),
                &for_product,
            )?,
            paper_laminate: choose(
                input.paper_laminate,
                &options.paper_laminates,
                &format!("{path}.paperLaminate"),
                &for_product,
            )?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Catalogue, parse};

    fn resolve(product: &str, json: &str) -> Result<PhysicalSpec, ModelError> {
        let input: PhysicalSpecInput = parse(json, "physicalSpec")?;
        Catalogue::builtin()
            .product(product)
            .unwrap()
            .physical_spec(input, "physicalSpec")
    }

    #[test]
    fn absent_fields_take_the_first_option() {
        let spec = resolve("businesscard", "{}").unwrap();
        assert_eq!(
            spec,
            PhysicalSpec {
                product_type: "businesscard".into(),
                paper_class: "classic".into(),
                finishing_option: "square_corners".into(),
                pack_size: 50,
                paper_laminate: "nolam".into(),
            }
        );
        assert_eq!(resolve("sticker", "{}").unwrap().pack_size, 90);
    }

    #[test]
    fn rounded_corners_only_on_classic_and_green() {
        assert!(
            resolve(
                "businesscard",
                r#"{"paperClass":"green","finishingOption":"rounded_corners"}"#
            )
            .is_ok()
        );
        let err = resolve(
            "businesscard",
            r#"{"paperClass":"quadplex_red","finishingOption":"rounded_corners"}"#,
        )
        .unwrap_err();
        assert_eq!(err.path(), "physicalSpec.finishingOption");
        assert!(err.to_string().contains("allowed: square_corners"), "{err}");
    }

    #[test]
    fn values_outside_the_table_name_field_and_allowed_values() {
        let err = resolve("minicard", r#"{"packSize":50}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "physicalSpec.packSize: \"50\" is not available for minicard; allowed: 100, 400"
        );
        let err = resolve("minicard", r#"{"productType":"postcard"}"#).unwrap_err();
        assert_eq!(err.path(), "physicalSpec.productType");
        let err = resolve("minicard", r#"{"paper":"x"}"#).unwrap_err();
        assert_eq!(err.path(), "physicalSpec.paper");
    }
}
