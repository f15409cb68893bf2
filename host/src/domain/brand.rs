//! The shop's brand: its name, colour, logo and footer line, from configuration. The pages,
//! the console and the e-mail to customers all wear it.

use std::path::PathBuf;

use serde::Deserialize;

use crate::infra::settings;

/// Largest logo file.
pub const MAX_LOGO_BYTES: usize = 512 * 1024;

/// The brand's settings (`shop_name`, `brand_colour`, `brand_logo`, `footer_text`).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct BrandSettings {
    /// The shop's name: header, titles, footer, e-mail heading and signature.
    #[serde(deserialize_with = "one_line::<_, 60>")]
    pub shop_name: String,
    /// The colour of links, buttons and the mark, `#rrggbb`.
    #[serde(deserialize_with = "colour")]
    pub brand_colour: String,
    /// A logo (PNG, JPEG or SVG, at most 512 KiB) shown before the name in the header.
    #[serde(deserialize_with = "settings::some_path")]
    pub brand_logo: Option<PathBuf>,
    /// The pages' footer line; empty: "Printed with care by <shop_name>".
    #[serde(deserialize_with = "one_line::<_, 200>")]
    pub footer_text: String,
    /// Origins (`https://shop.example`) allowed to show the `edit` drop-in in a frame; none
    /// by default. Behind https the customer's cookies then go `SameSite=None; Partitioned`,
    /// so a framed editor keeps its sign-in.
    #[serde(deserialize_with = "settings::origins")]
    pub edit_frame_ancestors: Vec<String>,
    /// The shop's palette: the colours the editor offers beside its free picker, each a
    /// name and the inks it prints with (`Name=C/M/Y/K`, comma-separated).
    #[serde(deserialize_with = "palette")]
    pub palette: Vec<Swatch>,
}

/// Most swatches in a palette: a row the customer takes in at a glance.
pub const MAX_SWATCHES: usize = 24;
/// Longest swatch name.
pub const MAX_SWATCH_NAME: usize = 40;

/// A colour of the shop's palette: its name and its inks in percent. The editor stores a
/// chosen swatch as these inks (a CMYK colour), so the press file prints exactly them.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Swatch {
    pub name: String,
    pub colour: presspack_engine::model::Colour,
}

impl Swatch {
    /// `Name=C/M/Y/K`, inks 0 to 100.
    fn parse(entry: &str) -> Option<Swatch> {
        let (name, inks) = entry.split_once('=')?;
        let name = crate::domain::one_line::required(name, MAX_SWATCH_NAME).ok()?;
        let inks: Vec<f64> = (inks.split('/'))
            .map(|ink| {
                ink.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|i| (0.0..=100.0).contains(i))
            })
            .collect::<Option<_>>()?;
        let [c, m, y, k] = <[f64; 4]>::try_from(inks).ok()?;
        Some(Swatch {
            name: name.to_owned(),
            colour: presspack_engine::model::Colour::Cmyk { c, m, y, k },
        })
    }
}

fn palette<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<Swatch>, D::Error> {
    let expected = format!(
        "up to {MAX_SWATCHES} comma-separated Name=C/M/Y/K swatches (a name of at most {MAX_SWATCH_NAME} characters, inks 0 to 100), such as Shop green=90/0/70/20"
    );
    let swatches = settings::list(deserializer, Swatch::parse, &expected)?;
    if swatches.len() > MAX_SWATCHES {
        return Err(serde::de::Error::custom(format!("expected {expected}")));
    }
    Ok(swatches)
}

/// The palette a shop has until it sets its own: black and greys in black ink alone, and a
/// few colours printers hold well.
pub const DEFAULT_PALETTE: &str = "Black=0/0/0/100, Dark grey=0/0/0/80, Grey=0/0/0/50, Navy=100/80/0/40, Blue=100/50/0/0, Green=80/0/90/10, Red=0/95/90/0, Orange=0/60/100/0, White=0/0/0/0";

impl Default for BrandSettings {
    fn default() -> Self {
        BrandSettings {
            shop_name: "Presspack".to_owned(),
            brand_colour: "#0f6b5c".to_owned(),
            brand_logo: None,
            footer_text: String::new(),
            edit_frame_ancestors: Vec::new(),
            palette: (DEFAULT_PALETTE.split(','))
                .map(|entry| Swatch::parse(entry.trim()).expect("the default palette reads"))
                .collect(),
        }
    }
}

/// Text on one line of at most `MAX` characters (`shop_name` must not be empty: checked by
/// [`Brand::load`]).
fn one_line<'de, D: serde::Deserializer<'de>, const MAX: usize>(
    deserializer: D,
) -> Result<String, D::Error> {
    let text = settings::text(deserializer)?;
    crate::domain::one_line::optional(&text, MAX)
        .map(str::to_owned)
        .map_err(|problem| serde::de::Error::custom(format!("expected one line: {problem}")))
}

fn colour<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = settings::text(deserializer)?;
    let text = text.trim().to_lowercase();
    let valid = text.len() == 7
        && text.starts_with('#')
        && text[1..].bytes().all(|b| b.is_ascii_hexdigit());
    if !valid {
        return Err(serde::de::Error::custom(
            "expected a colour as #rrggbb, such as #0f6b5c",
        ));
    }
    Ok(text)
}

/// A logo as served: its media type and bytes.
#[derive(Debug, Clone)]
pub struct Logo {
    pub content_type: &'static str,
    pub bytes: Vec<u8>,
}

/// The brand, loaded.
#[derive(Debug, Clone)]
pub struct Brand {
    pub name: String,
    /// `#rrggbb`.
    pub colour: String,
    pub logo: Option<Logo>,
    pub footer: String,
    /// The origins that may frame the `edit` drop-in.
    pub edit_frame_ancestors: Vec<String>,
    /// The colours the editor offers.
    pub palette: Vec<Swatch>,
}

impl Brand {
    /// The brand the settings give, the logo read and checked; a refusal names the setting.
    pub fn load(settings: &BrandSettings) -> Result<Brand, String> {
        if settings.shop_name.is_empty() {
            return Err("shop_name: must not be empty".to_owned());
        }
        let logo = match &settings.brand_logo {
            Some(path) => Some(read_logo(path)?),
            None => None,
        };
        let footer = match settings.footer_text.as_str() {
            "" => format!("Printed with care by {}", settings.shop_name),
            text => text.to_owned(),
        };
        Ok(Brand {
            name: settings.shop_name.clone(),
            colour: settings.brand_colour.clone(),
            logo,
            footer,
            edit_frame_ancestors: settings.edit_frame_ancestors.clone(),
            palette: settings.palette.clone(),
        })
    }

    /// A darker shade of the colour (hover, pressed), three quarters of each channel.
    pub fn dark_colour(&self) -> String {
        let channel = |i: usize| u8::from_str_radix(&self.colour[i..i + 2], 16).unwrap_or(0);
        let dark = |value: u8| (u16::from(value) * 3 / 4) as u8;
        format!(
            "#{:02x}{:02x}{:02x}",
            dark(channel(1)),
            dark(channel(3)),
            dark(channel(5))
        )
    }
}

fn read_logo(path: &std::path::Path) -> Result<Logo, String> {
    let problem = |what: String| format!("brand_logo: {}: {what}", path.display());
    let bytes = std::fs::read(path).map_err(|e| problem(e.to_string()))?;
    if bytes.len() > MAX_LOGO_BYTES {
        return Err(problem(format!(
            "{} bytes; a logo is at most {MAX_LOGO_BYTES}",
            bytes.len()
        )));
    }
    let content_type = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        "image/png"
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        "image/jpeg"
    } else if std::str::from_utf8(&bytes).is_ok_and(|text| text.contains("<svg")) {
        "image/svg+xml"
    } else {
        return Err(problem("not a PNG, JPEG or SVG file".to_owned()));
    };
    Ok(Logo {
        content_type,
        bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dark_shade_is_three_quarters() {
        let brand = Brand::load(&BrandSettings {
            brand_colour: "#804020".to_owned(),
            ..BrandSettings::default()
        })
        .unwrap();
        assert_eq!(brand.dark_colour(), "#603018");
        assert_eq!(brand.footer, "Printed with care by Presspack");
    }

    #[test]
    fn swatches_are_a_name_and_four_inks() {
        let cmyk = |c, m, y, k| presspack_engine::model::Colour::Cmyk { c, m, y, k };
        assert_eq!(
            Swatch::parse("Shop green=90/0/70/20"),
            Some(Swatch {
                name: "Shop green".to_owned(),
                colour: cmyk(90.0, 0.0, 70.0, 20.0)
            })
        );
        assert_eq!(
            Swatch::parse(" Ink = 0 / 12.5 / 0 / 0 ").unwrap().colour,
            cmyk(0.0, 12.5, 0.0, 0.0)
        );
        for bad in [
            "=0/0/0/0",
            "Red",
            "Red=0/0/0",
            "Red=0/0/0/0/0",
            "Red=0/0/0/101",
            "Red=a/0/0/0",
            "Red=-1/0/0/0",
        ] {
            assert_eq!(Swatch::parse(bad), None, "{bad}");
        }
        assert_eq!(
            Swatch::parse(&format!("{}=0/0/0/0", "n".repeat(MAX_SWATCH_NAME + 1))),
            None
        );
        assert_eq!(BrandSettings::default().palette.len(), 9);
    }
}
