//! Template XML (wire-formats section 7), read once into a typed [`Template`].
//!
//! The XML is first deserialised into private `raw` structs that mirror the elements one to
//! one (quick-xml's serde support, with the path of a failure kept by
//! `serde_path_to_error`), then converted into the public types, which hold only what layout
//! needs, already checked: finite numbers, positive sizes, unique link ids, items in paint
//! order.

use std::collections::HashSet;
use std::fmt;

use super::{Alignment, BoundingBox, Colour, Point};

/// The XML namespace every template's root element declares.
pub const TEMPLATE_NAMESPACE: &str = "http://www.moo.com/xsd/template-1.0";

/// At most this many items in one template (a bound on layout work, wire-formats 7 has ~15).
pub const MAX_TEMPLATE_ITEMS: usize = 256;
/// Templates are small data files; anything larger is a mistake.
pub const MAX_TEMPLATE_BYTES: usize = 256 * 1024;

/// The built-in fixed image that masks everything outside a rounded rectangle (the sticker's
/// cut line). `?radius=` gives the corner radius in millimetres.
pub const ROUNDED_CORNER_MASK_URI: &str = "mask:rounded-corners";

#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pub code: String,
    pub version: u32,
    /// The layout's name for people (`<Label>`, a Presspack addition to the format: MOO's
    /// templates have none, and [`super::layout_label`] names them from their code).
    pub label: Option<String>,
    /// Width and height of the print area in millimetres (the bleed box's extent).
    pub print_area: Size,
    pub bleed_box: BoundingBox,
    pub cut_box: BoundingBox,
    pub safe_area_box: BoundingBox,
    /// Degrees between the design and the sheet (0 landscape, 90 or 270 portrait).
    pub rotation_angle: f64,
    pub font_substitution: FontSubstitution,
    /// In paint order: ascending zIndex, document order among equals.
    pub items: Vec<TemplateItem>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Size {
    pub width: f64,
    pub height: f64,
}

/// Which lines switch to a fallback font when a character is missing from the requested one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FontSubstitution {
    /// The whole text is set in the fallback face if any character needs it.
    AllLinesIfAnyNeeded,
    /// Each paragraph (hard line) decides for itself.
    LineByLine,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TemplateItem {
    pub link_id: String,
    /// The slot's name for people (`<Label>`, as the template's), such as "Your name".
    pub label: Option<String>,
    pub clipping_box: BoundingBox,
    pub z_index: i32,
    pub kind: ItemKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ItemKind {
    Box { colour: Colour, filled: bool },
    Image { constraints: EdgeConstraints },
    Text(TextItem),
    FixedImage(FixedImageItem),
}

impl ItemKind {
    /// The element name, as errors and warnings call it.
    pub fn name(&self) -> &'static str {
        match self {
            ItemKind::Box { .. } => "Box",
            ItemKind::Image { .. } => "Image",
            ItemKind::Text(text) if text.multi_line.is_some() => "MultiLineText",
            ItemKind::Text(_) => "Text",
            ItemKind::FixedImage(_) => "FixedImage",
        }
    }
}

/// A `Text` or `MultiLineText` item: the defaults a datum may override, and which of them it
/// may not.
#[derive(Debug, Clone, PartialEq)]
pub struct TextItem {
    pub font: TemplateFont,
    /// The em size in millimetres.
    pub point_size: f64,
    pub alignment: Alignment,
    pub colour: Colour,
    pub default_text: String,
    pub constraints: TextConstraints,
    /// Present for `MultiLineText`, whose text wraps inside the clipping box.
    pub multi_line: Option<MultiLine>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateFont {
    pub family: String,
    pub bold: bool,
    pub italic: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TextConstraints {
    pub font_fixed: bool,
    pub colour_fixed: bool,
    pub point_size_fixed: bool,
    pub alignment_fixed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MultiLine {
    /// Extra downward shift of every baseline, in millimetres.
    pub baseline_offset: f64,
    /// Line pitch as a multiple of the face's line height.
    pub leading: f64,
    pub vertical_alignment: VerticalAlignment,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerticalAlignment {
    Top,
    Middle,
    Bottom,
}

/// Where an image may be moved to, per edge (used by editors; drawing ignores it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EdgeConstraints {
    pub top: EdgeRule,
    pub left: EdgeRule,
    pub bottom: EdgeRule,
    pub right: EdgeRule,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EdgeRule {
    pub outside: bool,
    pub between_bleed_and_cut: bool,
    pub between_cut_and_safe: bool,
    pub inside_safe: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FixedImageItem {
    pub image_box: BoundingBox,
    pub source: FixedImageSource,
    pub constraints: EdgeConstraints,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FixedImageSource {
    /// No image unless a `fixedImageData` datum supplies one.
    None,
    /// An image by resource URI, replaceable by a datum.
    Resource(String),
    /// Everything outside a rounded rectangle (the item's clipping box) becomes transparent.
    RoundedCornerMask { radius: f64 },
}

/// Why a template could not be read: `path` names the element (`Items/Text[2]/PointSize`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    pub path: String,
    pub message: String,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for TemplateError {}

fn error(path: impl Into<String>, message: impl Into<String>) -> TemplateError {
    TemplateError {
        path: path.into(),
        message: message.into(),
    }
}

impl Template {
    /// Reads a template document.
    pub fn parse(xml: &str) -> Result<Template, TemplateError> {
        if xml.len() > MAX_TEMPLATE_BYTES {
            return Err(error(
                "",
                format!(
                    "template is {} bytes, more than {MAX_TEMPLATE_BYTES}",
                    xml.len()
                ),
            ));
        }
        let mut deserializer = quick_xml::de::Deserializer::from_str(xml);
        let raw: raw::Template = serde_path_to_error::deserialize(&mut deserializer)
            .map_err(|e| error(xml_path(e.path()), e.inner().to_string()))?;
        raw.into_template()
    }

    /// The item a datum's linkId names, if the template has it.
    pub fn item(&self, link_id: &str) -> Option<&TemplateItem> {
        self.items.iter().find(|item| item.link_id == link_id)
    }
}

/// serde_path_to_error's path in XML terms: `Items.$value[2].PointSize` -> `Items/[2]/PointSize`.
fn xml_path(path: &serde_path_to_error::Path) -> String {
    path.to_string()
        .replace(".$value", "/")
        .replace(['.'], "/")
        .trim_start_matches('/')
        .replace("//", "/")
}

mod raw {
    //! One struct per element of wire-formats section 7, as quick-xml deserialises them.

    use serde::Deserialize;

    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase", deny_unknown_fields)]
    pub struct Template {
        #[serde(rename = "@xmlns")]
        pub xmlns: Option<String>,
        pub code: String,
        pub version: u32,
        #[serde(default)]
        pub label: Option<String>,
        pub settings: Settings,
        pub items: Items,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase", deny_unknown_fields)]
    pub struct Settings {
        pub units: Units,
        pub origin: Origin,
        pub print_area: PrintArea,
        pub bleed_box: BoundingBox,
        pub cut_box: BoundingBox,
        pub safe_area_box: BoundingBox,
        pub rotation_angle: f64,
        pub font_substitution_strategy: String,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Units {
        #[serde(rename = "@type")]
        pub kind: String,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Origin {
        #[serde(rename = "@orientation")]
        pub orientation: String,
        #[serde(rename = "@offsetX", default)]
        pub offset_x: f64,
        #[serde(rename = "@offsetY", default)]
        pub offset_y: f64,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase", deny_unknown_fields)]
    pub struct PrintArea {
        pub width: f64,
        pub height: f64,
    }

    #[derive(Deserialize, Clone, Copy)]
    #[serde(rename_all = "PascalCase", deny_unknown_fields)]
    pub struct BoundingBox {
        pub centre: Centre,
        pub width: f64,
        pub height: f64,
        #[serde(default)]
        pub angle: f64,
    }

    #[derive(Deserialize, Clone, Copy)]
    #[serde(deny_unknown_fields)]
    pub struct Centre {
        #[serde(rename = "@x")]
        pub x: f64,
        #[serde(rename = "@y")]
        pub y: f64,
    }

    #[derive(Deserialize)]
    pub struct Items {
        #[serde(rename = "$value", default)]
        pub items: Vec<Item>,
    }

    #[derive(Deserialize)]
    pub enum Item {
        Box(BoxItem),
        Image(ImageItem),
        Text(TextItem),
        MultiLineText(TextItem),
        FixedImage(FixedImageItem),
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase", deny_unknown_fields)]
    pub struct Layout {
        #[serde(rename = "zIndex")]
        pub z_index: i32,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase", deny_unknown_fields)]
    pub struct BoxItem {
        pub link_id: String,
        #[serde(default)]
        pub label: Option<String>,
        pub clipping_box: BoundingBox,
        pub layout: Layout,
        pub colour: Colour,
        pub filled: bool,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase", deny_unknown_fields)]
    pub struct ImageItem {
        pub link_id: String,
        #[serde(default)]
        pub label: Option<String>,
        pub clipping_box: BoundingBox,
        pub layout: Layout,
        #[serde(default)]
        pub constraints: Option<EdgeConstraints>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase", deny_unknown_fields)]
    pub struct FixedImageItem {
        pub link_id: String,
        #[serde(default)]
        pub label: Option<String>,
        pub clipping_box: BoundingBox,
        pub layout: Layout,
        #[serde(default)]
        pub constraints: Option<EdgeConstraints>,
        pub image_box: BoundingBox,
        #[serde(rename = "ResourceURI", alias = "ResourceUri", default)]
        pub resource_uri: Option<String>,
    }

    #[derive(Deserialize, Default)]
    #[serde(rename_all = "PascalCase", deny_unknown_fields)]
    pub struct EdgeConstraints {
        pub top_edge: Option<EdgeRule>,
        pub left_edge: Option<EdgeRule>,
        pub bottom_edge: Option<EdgeRule>,
        pub right_edge: Option<EdgeRule>,
    }

    #[derive(Deserialize, Default, Clone, Copy)]
    #[serde(deny_unknown_fields)]
    pub struct EdgeRule {
        #[serde(rename = "@outside", default)]
        pub outside: bool,
        #[serde(rename = "@betweenBleedAndCut", default)]
        pub between_bleed_and_cut: bool,
        #[serde(rename = "@betweenCutAndSafe", default)]
        pub between_cut_and_safe: bool,
        #[serde(rename = "@insideSafe", default)]
        pub inside_safe: bool,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase", deny_unknown_fields)]
    pub struct TextItem {
        pub link_id: String,
        #[serde(default)]
        pub label: Option<String>,
        pub clipping_box: BoundingBox,
        pub layout: Layout,
        pub font: Font,
        pub point_size: f64,
        pub alignment: String,
        #[serde(default)]
        pub constraints: Option<TextConstraints>,
        pub colour: Colour,
        #[serde(default)]
        pub text: Option<String>,
        pub baseline_offset: Option<f64>,
        pub leading: Option<f64>,
        pub vertical_alignment: Option<String>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase", deny_unknown_fields)]
    pub struct Font {
        pub family: String,
        #[serde(default)]
        pub bold: bool,
        #[serde(default)]
        pub italic: bool,
    }

    #[derive(Deserialize, Default)]
    #[serde(deny_unknown_fields)]
    pub struct TextConstraints {
        #[serde(rename = "@fontFixed", default)]
        pub font_fixed: bool,
        #[serde(rename = "@colourFixed", default)]
        pub colour_fixed: bool,
        #[serde(rename = "@pointSizeFixed", default)]
        pub point_size_fixed: bool,
        #[serde(rename = "@alignmentFixed", default)]
        pub alignment_fixed: bool,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase", deny_unknown_fields)]
    pub struct Colour {
        #[serde(rename = "@type")]
        pub kind: String,
        pub red: Option<f64>,
        pub green: Option<f64>,
        pub blue: Option<f64>,
        pub cyan: Option<f64>,
        pub magenta: Option<f64>,
        pub yellow: Option<f64>,
        pub black: Option<f64>,
    }
}

/// Converts raw elements into typed values; `path` is the element being converted.
impl raw::Template {
    fn into_template(self) -> Result<Template, TemplateError> {
        if let Some(ns) = &self.xmlns
            && ns != TEMPLATE_NAMESPACE
        {
            return Err(error(
                "Template/@xmlns",
                format!("expected {TEMPLATE_NAMESPACE:?}, got {ns:?}"),
            ));
        }
        if self.code.is_empty() || self.code.len() > 128 {
            return Err(error("Code", "must be 1 to 128 characters"));
        }
        if self.version != 1 {
            return Err(error(
                "Version",
                format!("only version 1 is known, got {}", self.version),
            ));
        }
        let settings = self.settings;
        if settings.units.kind != "millimetres" {
            return Err(error(
                "Settings/Units/@type",
                format!("expected \"millimetres\", got {:?}", settings.units.kind),
            ));
        }
        if settings.origin.orientation != "top-left"
            || settings.origin.offset_x != 0.0
            || settings.origin.offset_y != 0.0
        {
            return Err(error(
                "Settings/Origin",
                "only orientation=\"top-left\" with offsets 0 is supported",
            ));
        }
        let print_area = Size {
            width: positive(settings.print_area.width, "Settings/PrintArea/Width")?,
            height: positive(settings.print_area.height, "Settings/PrintArea/Height")?,
        };
        let font_substitution = match settings.font_substitution_strategy.as_str() {
            "allLinesIfAnyNeeded" => FontSubstitution::AllLinesIfAnyNeeded,
            "lineByLine" => FontSubstitution::LineByLine,
            other => {
                return Err(error(
                    "Settings/FontSubstitutionStrategy",
                    format!("expected allLinesIfAnyNeeded or lineByLine, got {other:?}"),
                ));
            }
        };
        if self.items.items.len() > MAX_TEMPLATE_ITEMS {
            return Err(error(
                "Items",
                format!("more than {MAX_TEMPLATE_ITEMS} items"),
            ));
        }
        let mut link_ids = HashSet::new();
        let mut items = Vec::with_capacity(self.items.items.len());
        for (index, item) in self.items.items.into_iter().enumerate() {
            let item = item.into_item(index)?;
            if !link_ids.insert(item.link_id.clone()) {
                return Err(error(
                    format!("Items/[{index}]/LinkId"),
                    format!("linkId {:?} is used by two items", item.link_id),
                ));
            }
            items.push(item);
        }
        // A stable sort keeps document order among items with the same zIndex.
        items.sort_by_key(|item| item.z_index);
        Ok(Template {
            label: checked_label(self.label.as_deref(), "Label")?,
            code: self.code,
            version: self.version,
            print_area,
            bleed_box: bounding_box(settings.bleed_box, "Settings/BleedBox")?,
            cut_box: bounding_box(settings.cut_box, "Settings/CutBox")?,
            safe_area_box: bounding_box(settings.safe_area_box, "Settings/SafeAreaBox")?,
            rotation_angle: finite(settings.rotation_angle, "Settings/RotationAngle")?,
            font_substitution,
            items,
        })
    }
}

/// Longest `<Label>`, in characters.
pub const MAX_LABEL: usize = 60;

/// A `<Label>`: one line of 1 to [`MAX_LABEL`] characters, trimmed.
fn checked_label(label: Option<&str>, path: &str) -> Result<Option<String>, TemplateError> {
    let Some(label) = label.map(str::trim) else {
        return Ok(None);
    };
    if label.is_empty() || label.chars().count() > MAX_LABEL || label.chars().any(char::is_control)
    {
        return Err(error(
            path,
            format!("must be one line of 1 to {MAX_LABEL} characters"),
        ));
    }
    Ok(Some(label.to_owned()))
}

impl raw::Item {
    fn into_item(self, index: usize) -> Result<TemplateItem, TemplateError> {
        let (name, link_id, label, clipping_box, layout) = match &self {
            raw::Item::Box(i) => ("Box", &i.link_id, &i.label, i.clipping_box, &i.layout),
            raw::Item::Image(i) => ("Image", &i.link_id, &i.label, i.clipping_box, &i.layout),
            raw::Item::Text(i) => ("Text", &i.link_id, &i.label, i.clipping_box, &i.layout),
            raw::Item::MultiLineText(i) => (
                "MultiLineText",
                &i.link_id,
                &i.label,
                i.clipping_box,
                &i.layout,
            ),
            raw::Item::FixedImage(i) => (
                "FixedImage",
                &i.link_id,
                &i.label,
                i.clipping_box,
                &i.layout,
            ),
        };
        let path = format!("Items/{name}[{index}]");
        let label = checked_label(label.as_deref(), &format!("{path}/Label"))?;
        if link_id.is_empty() || link_id.len() > 128 {
            return Err(error(
                format!("{path}/LinkId"),
                "must be 1 to 128 characters",
            ));
        }
        let link_id = link_id.clone();
        let z_index = layout.z_index;
        let clipping_box = bounding_box(clipping_box, &format!("{path}/ClippingBox"))?;
        let kind = match self {
            raw::Item::Box(item) => ItemKind::Box {
                colour: colour(item.colour, &format!("{path}/Colour"))?,
                filled: item.filled,
            },
            raw::Item::Image(item) => ItemKind::Image {
                constraints: edge_constraints(item.constraints),
            },
            raw::Item::Text(item) => ItemKind::Text(text_item(item, false, &path)?),
            raw::Item::MultiLineText(item) => ItemKind::Text(text_item(item, true, &path)?),
            raw::Item::FixedImage(item) => ItemKind::FixedImage(FixedImageItem {
                image_box: bounding_box(item.image_box, &format!("{path}/ImageBox"))?,
                source: fixed_image_source(item.resource_uri, &format!("{path}/ResourceURI"))?,
                constraints: edge_constraints(item.constraints),
            }),
        };
        Ok(TemplateItem {
            link_id,
            label,
            clipping_box,
            z_index,
            kind,
        })
    }
}

fn text_item(item: raw::TextItem, multi_line: bool, path: &str) -> Result<TextItem, TemplateError> {
    let alignment = match item.alignment.to_ascii_lowercase().as_str() {
        "left" => Alignment::Left,
        "center" | "centre" => Alignment::Center,
        "right" => Alignment::Right,
        other => {
            return Err(error(
                format!("{path}/Alignment"),
                format!("expected left, center or right, got {other:?}"),
            ));
        }
    };
    let multi_line_fields = item.baseline_offset.is_some()
        || item.leading.is_some()
        || item.vertical_alignment.is_some();
    let multi_line = if multi_line {
        let vertical_alignment = match item
            .vertical_alignment
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("top") => VerticalAlignment::Top,
            Some("middle") | Some("center") | Some("centre") => VerticalAlignment::Middle,
            Some("bottom") => VerticalAlignment::Bottom,
            Some(other) => {
                return Err(error(
                    format!("{path}/VerticalAlignment"),
                    format!("expected top, middle or bottom, got {other:?}"),
                ));
            }
        };
        Some(MultiLine {
            baseline_offset: finite(
                item.baseline_offset.unwrap_or(0.0),
                &format!("{path}/BaselineOffset"),
            )?,
            leading: positive(item.leading.unwrap_or(1.0), &format!("{path}/Leading"))?,
            vertical_alignment,
        })
    } else if multi_line_fields {
        return Err(error(
            path,
            "BaselineOffset, Leading and VerticalAlignment belong to MultiLineText only",
        ));
    } else {
        None
    };
    let constraints = item.constraints.unwrap_or_default();
    Ok(TextItem {
        font: TemplateFont {
            family: item.font.family,
            bold: item.font.bold,
            italic: item.font.italic,
        },
        point_size: positive(item.point_size, &format!("{path}/PointSize"))?,
        alignment,
        colour: colour(item.colour, &format!("{path}/Colour"))?,
        default_text: item.text.unwrap_or_default(),
        constraints: TextConstraints {
            font_fixed: constraints.font_fixed,
            colour_fixed: constraints.colour_fixed,
            point_size_fixed: constraints.point_size_fixed,
            alignment_fixed: constraints.alignment_fixed,
        },
        multi_line,
    })
}

fn fixed_image_source(uri: Option<String>, path: &str) -> Result<FixedImageSource, TemplateError> {
    let Some(uri) = uri.filter(|u| !u.trim().is_empty()) else {
        return Ok(FixedImageSource::None);
    };
    let Some(rest) = uri.strip_prefix(ROUNDED_CORNER_MASK_URI) else {
        return Ok(FixedImageSource::Resource(uri));
    };
    let radius = rest
        .strip_prefix("?radius=")
        .and_then(|r| r.parse::<f64>().ok())
        .filter(|r| r.is_finite() && *r >= 0.0)
        .ok_or_else(|| {
            error(
                path,
                format!("expected {ROUNDED_CORNER_MASK_URI}?radius=<millimetres>, got {uri:?}"),
            )
        })?;
    Ok(FixedImageSource::RoundedCornerMask { radius })
}

fn edge_constraints(raw: Option<raw::EdgeConstraints>) -> EdgeConstraints {
    let raw = raw.unwrap_or_default();
    let rule = |r: Option<raw::EdgeRule>| {
        let r = r.unwrap_or_default();
        EdgeRule {
            outside: r.outside,
            between_bleed_and_cut: r.between_bleed_and_cut,
            between_cut_and_safe: r.between_cut_and_safe,
            inside_safe: r.inside_safe,
        }
    };
    EdgeConstraints {
        top: rule(raw.top_edge),
        left: rule(raw.left_edge),
        bottom: rule(raw.bottom_edge),
        right: rule(raw.right_edge),
    }
}

fn colour(raw: raw::Colour, path: &str) -> Result<Colour, TemplateError> {
    let channel = |value: Option<f64>, name: &str, max: f64| -> Result<f64, TemplateError> {
        let value = value.ok_or_else(|| error(format!("{path}/{name}"), "is required"))?;
        if !(0.0..=max).contains(&value) {
            return Err(error(
                format!("{path}/{name}"),
                format!("expected 0 to {max}, got {value}"),
            ));
        }
        Ok(value)
    };
    let byte = |value: Option<f64>, name: &str| -> Result<u8, TemplateError> {
        let value = channel(value, name, 255.0)?;
        if value.fract() != 0.0 {
            return Err(error(
                format!("{path}/{name}"),
                format!("expected a whole number, got {value}"),
            ));
        }
        Ok(value as u8)
    };
    match raw.kind.to_ascii_uppercase().as_str() {
        "RGB" => Ok(Colour::Rgb {
            r: byte(raw.red, "Red")?,
            g: byte(raw.green, "Green")?,
            b: byte(raw.blue, "Blue")?,
        }),
        "CMYK" => Ok(Colour::Cmyk {
            c: channel(raw.cyan, "Cyan", 100.0)?,
            m: channel(raw.magenta, "Magenta", 100.0)?,
            y: channel(raw.yellow, "Yellow", 100.0)?,
            k: channel(raw.black, "Black", 100.0)?,
        }),
        other => Err(error(
            format!("{path}/@type"),
            format!("expected RGB or CMYK, got {other:?}"),
        )),
    }
}

fn bounding_box(raw: raw::BoundingBox, path: &str) -> Result<BoundingBox, TemplateError> {
    Ok(BoundingBox {
        center: Point {
            x: finite(raw.centre.x, &format!("{path}/Centre/@x"))?,
            y: finite(raw.centre.y, &format!("{path}/Centre/@y"))?,
        },
        width: non_negative(raw.width, &format!("{path}/Width"))?,
        height: non_negative(raw.height, &format!("{path}/Height"))?,
        angle: finite(raw.angle, &format!("{path}/Angle"))?,
    })
}

/// Template coordinates stay within a metre of the origin; anything else is a typo.
const MAX_MM: f64 = 1000.0;

fn finite(value: f64, path: &str) -> Result<f64, TemplateError> {
    if value.is_finite() && value.abs() <= MAX_MM {
        Ok(value)
    } else {
        Err(error(
            path,
            format!("expected a number within ±{MAX_MM}, got {value}"),
        ))
    }
}

fn non_negative(value: f64, path: &str) -> Result<f64, TemplateError> {
    let value = finite(value, path)?;
    if value < 0.0 {
        return Err(error(path, format!("must not be negative, got {value}")));
    }
    Ok(value)
}

fn positive(value: f64, path: &str) -> Result<f64, TemplateError> {
    let value = finite(value, path)?;
    if value <= 0.0 {
        return Err(error(path, format!("must be positive, got {value}")));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const SAMPLE: &str =
        include_str!("../../tests/scenes/templates/sample_all_items.xml");

    #[test]
    fn reads_every_item_kind_in_paint_order() {
        let template = Template::parse(SAMPLE).unwrap();
        assert_eq!(template.code, "sample_all_items");
        assert_eq!(
            template.print_area,
            Size {
                width: 88.0,
                height: 59.0
            }
        );
        assert_eq!(template.cut_box.width, 84.0);
        assert_eq!(template.font_substitution, FontSubstitution::LineByLine);
        let kinds: Vec<&str> = template.items.iter().map(|i| i.kind.name()).collect();
        assert_eq!(
            kinds,
            ["Box", "Image", "Box", "Text", "MultiLineText", "FixedImage"]
        );
        let z: Vec<i32> = template.items.iter().map(|i| i.z_index).collect();
        assert!(z.windows(2).all(|w| w[0] <= w[1]), "{z:?}");
        let ItemKind::Text(text) = &template.item("body").unwrap().kind else {
            panic!("body is a text item")
        };
        let multi = text.multi_line.unwrap();
        assert_eq!(multi.leading, 1.2);
        assert_eq!(multi.vertical_alignment, VerticalAlignment::Middle);
        assert!(text.constraints.point_size_fixed);
        assert_eq!(
            text.colour,
            Colour::Cmyk {
                c: 100.0,
                m: 50.0,
                y: 0.0,
                k: 10.0
            }
        );
        let ItemKind::FixedImage(fixed) = &template.item("corner_mask").unwrap().kind else {
            panic!("corner_mask is a fixed image")
        };
        assert_eq!(
            fixed.source,
            FixedImageSource::RoundedCornerMask { radius: 3.0 }
        );
    }

    #[test]
    fn errors_name_the_element() {
        let broken = SAMPLE.replace("<PointSize>3.5278</PointSize>", "<PointSize>-1</PointSize>");
        let err = Template::parse(&broken).unwrap_err();
        assert!(err.path.ends_with("/PointSize"), "{err}");
        assert!(err.message.contains("positive"), "{err}");

        let broken = SAMPLE.replace("<Filled>true</Filled>", "<Filled>maybe</Filled>");
        let err = Template::parse(&broken).unwrap_err();
        assert!(err.to_string().contains("Filled"), "{err}");

        let broken = SAMPLE.replace(
            "<Alignment>right</Alignment>",
            "<Alignment>justify</Alignment>",
        );
        let err = Template::parse(&broken).unwrap_err();
        assert!(err.path.ends_with("/Alignment"), "{err}");

        let broken = SAMPLE.replace("<LinkId>body</LinkId>", "<LinkId>title</LinkId>");
        let err = Template::parse(&broken).unwrap_err();
        assert!(err.message.contains("used by two items"), "{err}");

        let broken = SAMPLE.replace("<Version>1</Version>", "<Version>1</Version><Extra/>");
        assert!(Template::parse(&broken).is_err());
        assert!(Template::parse("<Template>").is_err());
        assert!(Template::parse("not xml").is_err());
    }

    #[test]
    fn resource_uri_is_accepted_in_either_spelling() {
        let other = SAMPLE
            .replace("<ResourceURI>", "<ResourceUri>")
            .replace("</ResourceURI>", "</ResourceUri>");
        assert_eq!(
            Template::parse(&other).unwrap(),
            Template::parse(SAMPLE).unwrap()
        );
    }
}
