//! The product catalogue (wire-formats sections 4 and 8): products, their geometry, card
//! counts and physical-spec options. It is data, `assets/products.json`, compiled in so
//! that the browser build has it too.

use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;

use super::{FromJson, ModelError, Side, Template};

#[derive(Debug)]
pub struct Catalogue {
    products: Vec<Product>,
}

#[derive(Debug, Clone)]
pub struct Product {
    pub code: String,
    pub num_cards: u32,
    /// Whether `createTrialPartnerPack` may create this product.
    pub trial_pack: bool,
    pub boxes: ProductBoxes,
    pub physical_spec: PhysicalSpecOptions,
    /// The sides of a new pack created without pack data.
    pub empty_pack_sides: Vec<Side>,
}

impl Product {
    /// Whether `template` is one of this product's: its print area is the product's, either
    /// way up.
    pub fn fits(&self, template: &Template) -> bool {
        let (w, h) = (template.print_area.width, template.print_area.height);
        let print = self.boxes.print;
        let close = |a: f64, b: f64| (a - b).abs() < 0.01;
        (close(w, print.width) && close(h, print.height))
            || (close(w, print.height) && close(h, print.width))
    }
}

/// Landscape sizes in millimetres; portrait templates swap width and height.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct ProductBoxes {
    /// The print area, which is also the bleed box.
    pub print: BoxSize,
    pub cut: BoxSize,
    pub safe: BoxSize,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct BoxSize {
    pub width: f64,
    pub height: f64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PhysicalSpecOptions {
    /// Paper classes in order of preference; the first is the default.
    pub paper_classes: Vec<PaperClass>,
    pub pack_sizes: Vec<u32>,
    pub paper_laminates: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaperClass {
    pub code: String,
    /// The finishing options this paper allows; the first is the default.
    pub finishing_options: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ProductFile {
    code: String,
    num_cards: u32,
    trial_pack: bool,
    boxes: ProductBoxes,
    physical_spec: PhysicalSpecOptions,
    empty_pack_sides: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogueFile {
    products: Vec<ProductFile>,
}

impl Catalogue {
    /// Reads a catalogue document; `Err` says which product and value is wrong.
    pub fn from_json(text: &str) -> Result<Catalogue, String> {
        let file: CatalogueFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let products = file
            .products
            .into_iter()
            .map(|p| {
                let path = format!("products.{}.emptyPackSides", p.code);
                let empty_pack_sides = Vec::<Side>::from_json(p.empty_pack_sides, &path)
                    .map_err(|e: ModelError| e.to_string())?;
                let spec = &p.physical_spec;
                if spec.paper_classes.is_empty()
                    || spec.pack_sizes.is_empty()
                    || spec.paper_laminates.is_empty()
                    || spec
                        .paper_classes
                        .iter()
                        .any(|c| c.finishing_options.is_empty())
                {
                    return Err(format!(
                        "products.{}.physicalSpec: every option list needs a value",
                        p.code
                    ));
                }
                Ok(Product {
                    code: p.code,
                    num_cards: p.num_cards,
                    trial_pack: p.trial_pack,
                    boxes: p.boxes,
                    physical_spec: p.physical_spec,
                    empty_pack_sides,
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(Catalogue { products })
    }

    /// The catalogue shipped with Presspack.
    pub fn builtin() -> &'static Catalogue {
        static BUILTIN: OnceLock<Catalogue> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            Catalogue::from_json(presspack_assets::PRODUCTS)
                // The file is part of the source and a unit test reads it.
                .expect("assets/products.json is valid")
        })
    }

    pub fn product(&self, code: &str) -> Option<&Product> {
        self.products.iter().find(|p| p.code == code)
    }

    pub fn products(&self) -> &[Product] {
        &self.products
    }

    /// The product codes, for error messages: `businesscard, minicard, ...`.
    pub fn product_codes(&self) -> String {
        let codes: Vec<&str> = self.products.iter().map(|p| p.code.as_str()).collect();
        codes.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_catalogue_has_the_four_products_of_the_wire_formats() {
        let catalogue = Catalogue::builtin();
        assert_eq!(
            catalogue.product_codes(),
            "businesscard, minicard, postcard, sticker"
        );
        let card = catalogue.product("businesscard").unwrap();
        assert_eq!(card.num_cards, 50);
        assert_eq!(
            card.boxes.print,
            BoxSize {
                width: 88.0,
                height: 59.0
            }
        );
        assert!(card.trial_pack);
        assert!(!catalogue.product("postcard").unwrap().trial_pack);
        assert_eq!(
            catalogue.product("sticker").unwrap().empty_pack_sides.len(),
            1
        );
    }

    #[test]
    fn a_broken_catalogue_names_the_problem() {
        let err = Catalogue::from_json(r#"{"products":[{"code":"x"}]}"#).unwrap_err();
        assert!(err.contains("missing field"), "{err}");
    }
}
