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
}

impl Default for BrandSettings {
    fn default() -> Self {
        BrandSettings {
            shop_name: "Presspack".to_owned(),
            brand_colour: "#0f6b5c".to_owned(),
            brand_logo: None,
            footer_text: String::new(),
            edit_frame_ancestors: Vec::new(),
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
}
