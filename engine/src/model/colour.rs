use serde::Serialize;
use serde_json::Value;

use super::ModelError;
use super::json::{Fields, FromJson};

/// A colour as clients send it: RGB channels 0-255, or CMYK percentages 0-100 (fractions
/// allowed). Type names are accepted in any case and always emitted upper-case.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type")]
pub enum Colour {
    #[serde(rename = "RGB")]
    Rgb { r: u8, g: u8, b: u8 },
    #[serde(rename = "CMYK")]
    Cmyk { c: f64, m: f64, y: f64, k: f64 },
}

impl Colour {
    /// The colour for display as 8-bit sRGB channels. CMYK uses the one documented naive
    /// formula (docs/architecture.md): `r = 255 × (1 − c) × (1 − k)`, likewise g from m and
    /// b from y, percentages as fractions, rounded to the nearest integer. Proofs of press
    /// colour need an ICC workflow; previews need the same answer everywhere.
    pub fn to_rgb(self) -> [u8; 3] {
        match self {
            Colour::Rgb { r, g, b } => [r, g, b],
            Colour::Cmyk { c, m, y, k } => {
                let white = 1.0 - k / 100.0;
                let channel = |ink: f64| libm::round(255.0 * (1.0 - ink / 100.0) * white) as u8;
                [channel(c), channel(m), channel(y)]
            }
        }
    }
}

impl FromJson for Colour {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        let mut fields = Fields::new(value, path)?;
        let kind: String = fields.required("type")?;
        let channel = |fields: &mut Fields, key: &str| -> Result<u8, ModelError> {
            let n: u32 = fields.required(key)?;
            u8::try_from(n).map_err(|_| {
                ModelError::invalid(
                    &format!("{path}.{key}"),
                    format!("expected a whole number from 0 to 255, got {n}"),
                )
            })
        };
        let percent = |fields: &mut Fields, key: &str| -> Result<f64, ModelError> {
            let n: f64 = fields.required(key)?;
            if (0.0..=100.0).contains(&n) {
                Ok(n)
            } else {
                Err(ModelError::invalid(
                    &format!("{path}.{key}"),
                    format!("expected a number from 0 to 100, got {n}"),
                ))
            }
        };
        match kind.to_ascii_uppercase().as_str() {
            "RGB" => Ok(Colour::Rgb {
                r: channel(&mut fields, "r")?,
                g: channel(&mut fields, "g")?,
                b: channel(&mut fields, "b")?,
            }),
            "CMYK" => Ok(Colour::Cmyk {
                c: percent(&mut fields, "c")?,
                m: percent(&mut fields, "m")?,
                y: percent(&mut fields, "y")?,
                k: percent(&mut fields, "k")?,
            }),
            _ => Err(ModelError::invalid(
                &format!("{path}.type"),
                format!("expected \"RGB\" or \"CMYK\", got {kind:?}"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::parse;

    #[test]
    fn lower_case_type_is_read_and_emitted_upper_case() {
        let colour: Colour =
            parse(r#"{"type":"cmyk","c":0,"m":12.5,"y":100,"k":0}"#, "colour").unwrap();
        assert_eq!(
            colour,
            Colour::Cmyk {
                c: 0.0,
                m: 12.5,
                y: 100.0,
                k: 0.0
            }
        );
        let json = serde_json::to_string(&colour).unwrap();
        assert_eq!(
            json,
            r#"{"type":"CMYK","c":0.0,"m":12.5,"y":100.0,"k":0.0}"#
        );
    }

    #[test]
    fn out_of_range_channel_names_the_channel() {
        let err = parse::<Colour>(r#"{"type":"RGB","r":0,"g":256,"b":0}"#, "colour").unwrap_err();
        assert_eq!(err.path(), "colour.g");
        assert!(err.to_string().contains("0 to 255"), "{err}");
        let err =
            parse::<Colour>(r#"{"type":"CMYK","c":0,"m":0,"y":0,"k":101}"#, "colour").unwrap_err();
        assert_eq!(err.path(), "colour.k");
        assert!(err.to_string().contains("0 to 100, got 101"), "{err}");
    }

    #[test]
    fn cmyk_converts_by_the_documented_formula() {
        let rgb = |c, m, y, k| Colour::Cmyk { c, m, y, k }.to_rgb();
        assert_eq!(rgb(0.0, 0.0, 0.0, 0.0), [255, 255, 255]);
        assert_eq!(rgb(0.0, 0.0, 0.0, 100.0), [0, 0, 0]);
        assert_eq!(rgb(100.0, 0.0, 0.0, 0.0), [0, 255, 255]);
        assert_eq!(rgb(0.0, 100.0, 100.0, 0.0), [255, 0, 0]);
        // 255 × 0.5 × 0.9 = 114.75
        assert_eq!(rgb(50.0, 0.0, 0.0, 10.0), [115, 230, 230]);
        assert_eq!(Colour::Rgb { r: 1, g: 2, b: 3 }.to_rgb(), [1, 2, 3]);
    }

    #[test]
    fn unknown_type_is_an_error() {
        let err = parse::<Colour>(r#"{"type":"HSV"}"#, "colour").unwrap_err();
        assert_eq!(err.path(), "colour.type");
    }
}
