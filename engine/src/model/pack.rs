//! The pack and everything inside it (wire-formats section 2 and 3).

use serde::Serialize;
use serde_json::{Map, Value};

use super::json::{Fields, FromJson};
use super::{Colour, ModelError, Product};

/// Bounds on a pack's lists: far beyond any real pack (a MiniCard pack has 100 cards, each
/// with at most an image and a details side), so that a hostile pack cannot make every later
/// step (warnings, renders, storage) do unbounded work.
pub const MAX_SIDES: usize = 256;
pub const MAX_CARDS: usize = 1024;
pub const MAX_EXTRAS: usize = 256;
pub const MAX_BASKET_ITEMS: usize = 256;

/// Properties a client sent that Presspack does not interpret; kept and echoed back.
type Other = Map<String, Value>;

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pack {
    pub num_cards: u32,
    pub product_code: String,
    pub product_version: u32,
    pub sides: Vec<Side>,
    pub cards: Vec<Card>,
    pub extras: Vec<Extra>,
    pub image_basket: ImageBasket,
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub other: Other,
}

impl Pack {
    /// Reads a client's pack for `product`. Absent `numCards`, `productCode` and
    /// `productVersion` take the product's values; a `productCode` naming another product is
    /// an error.
    pub fn read(value: Value, path: &str, product: &Product) -> Result<Pack, ModelError> {
        let mut fields = Fields::new(value, path)?;
        let product_code: Option<String> = fields.optional("productCode")?;
        if let Some(code) = &product_code
            && code != &product.code
        {
            return Err(ModelError::invalid(
                &format!("{path}.productCode"),
                format!("is {code:?} but the pack is a {:?} pack", product.code),
            ));
        }
        Ok(Pack {
            num_cards: fields.optional("numCards")?.unwrap_or(product.num_cards),
            product_code: product.code.clone(),
            product_version: fields.optional("productVersion")?.unwrap_or(1),
            sides: fields.bounded_list("sides", MAX_SIDES)?,
            cards: fields.bounded_list("cards", MAX_CARDS)?,
            extras: fields.bounded_list("extras", MAX_EXTRAS)?,
            image_basket: fields.optional("imageBasket")?.unwrap_or_default(),
            other: fields.rest(),
        })
    }

    /// Reads a pack from JSON text (the `pack` parameter).
    pub fn parse(text: &str, path: &str, product: &Product) -> Result<Pack, ModelError> {
        let value = serde_json::from_str(text).map_err(|e| ModelError::Syntax {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        Pack::read(value, path, product)
    }

    /// The pack a new pack starts as when the client sends none: the product's default sides
    /// with no data.
    pub fn empty(product: &Product) -> Pack {
        Pack {
            num_cards: product.num_cards,
            product_code: product.code.clone(),
            product_version: 1,
            sides: product.empty_pack_sides.clone(),
            cards: Vec::new(),
            extras: Vec::new(),
            image_basket: ImageBasket::default(),
            other: Other::new(),
        }
    }
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SideType {
    Image,
    Details,
}

impl SideType {
    pub fn as_str(self) -> &'static str {
        match self {
            SideType::Image => "image",
            SideType::Details => "details",
        }
    }
}

impl FromJson for SideType {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        match String::from_json(value, path)?.as_str() {
            "image" => Ok(SideType::Image),
            "details" => Ok(SideType::Details),
            other => Err(ModelError::invalid(
                path,
                format!("expected \"image\" or \"details\", got {other:?}"),
            )),
        }
    }
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Side {
    #[serde(rename = "type")]
    pub side_type: SideType,
    pub side_num: u32,
    pub template_code: String,
    pub data: Vec<Datum>,
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub other: Other,
}

impl Side {
    /// The dotted element name warnings use for this side: `pack.sides.image.1`.
    pub fn element(&self) -> String {
        format!("pack.sides.{}.{}", self.side_type.as_str(), self.side_num)
    }
}

impl FromJson for Side {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        let mut fields = Fields::new(value, path)?;
        Ok(Side {
            side_type: fields.required("type")?,
            side_num: fields.required("sideNum")?,
            template_code: fields.required("templateCode")?,
            data: fields.list("data")?,
            other: fields.rest(),
        })
    }
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Card {
    pub card_num: u32,
    pub card_sides: Vec<CardSide>,
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub other: Other,
}

impl FromJson for Card {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        let mut fields = Fields::new(value, path)?;
        Ok(Card {
            card_num: fields.required("cardNum")?,
            card_sides: fields.list("cardSides")?,
            other: fields.rest(),
        })
    }
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CardSide {
    pub side_type: SideType,
    pub side_num: u32,
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub other: Other,
}

impl FromJson for CardSide {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        let mut fields = Fields::new(value, path)?;
        Ok(CardSide {
            side_type: fields.required("sideType")?,
            side_num: fields.required("sideNum")?,
            other: fields.rest(),
        })
    }
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Extra {
    pub key: String,
    pub value: String,
}

impl FromJson for Extra {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        let mut fields = Fields::new(value, path)?;
        let extra = Extra {
            key: fields.required("key")?,
            value: fields.optional("value")?.unwrap_or_default(),
        };
        fields.deny_rest(&["key", "value"])?;
        Ok(extra)
    }
}

/// One datum of a side, filling the template item named by its `linkId`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum Datum {
    #[serde(rename = "textData")]
    Text(TextDatum),
    /// As text, but wrapped inside the item's clipping box.
    #[serde(rename = "multiLineTextData")]
    MultiLineText(TextDatum),
    #[serde(rename = "imageData")]
    Image(ImageDatum),
    #[serde(rename = "fixedImageData")]
    FixedImage(FixedImageDatum),
    #[serde(rename = "boxData")]
    Box(BoxDatum),
}

impl Datum {
    pub fn link_id(&self) -> &str {
        match self {
            Datum::Text(d) | Datum::MultiLineText(d) => &d.link_id,
            Datum::Image(d) => &d.link_id,
            Datum::FixedImage(d) => &d.link_id,
            Datum::Box(d) => &d.link_id,
        }
    }
}

impl FromJson for Datum {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        let mut fields = Fields::new(value, path)?;
        let kind: String = fields.required("type")?;
        let link_id: String = fields.required("linkId")?;
        let datum = match kind.as_str() {
            "textData" => Datum::Text(TextDatum::read(link_id, &mut fields)?),
            "multiLineTextData" => Datum::MultiLineText(TextDatum::read(link_id, &mut fields)?),
            "imageData" => Datum::Image(ImageDatum {
                link_id,
                image_box: fields.optional("imageBox")?,
                resource_uri: fields.optional("resourceUri")?,
                image_store_file_id: fields.optional("imageStoreFileId")?,
                enhance: fields.optional("enhance")?,
                other: Other::new(),
            }),
            "fixedImageData" => Datum::FixedImage(FixedImageDatum {
                link_id,
                resource_uri: fields.optional("resourceUri")?,
                other: Other::new(),
            }),
            "boxData" => Datum::Box(BoxDatum {
                link_id,
                colour: fields.required("colour")?,
                other: Other::new(),
            }),
            other => {
                return Err(ModelError::invalid(
                    &format!("{path}.type"),
                    format!(
                        "unknown datum type {other:?}; expected textData, multiLineTextData, \
                         imageData, fixedImageData or boxData"
                    ),
                ));
            }
        };
        Ok(datum.with_other(fields.rest()))
    }
}

impl Datum {
    fn with_other(mut self, rest: Other) -> Self {
        match &mut self {
            Datum::Text(d) | Datum::MultiLineText(d) => d.other = rest,
            Datum::Image(d) => d.other = rest,
            Datum::FixedImage(d) => d.other = rest,
            Datum::Box(d) => d.other = rest,
        }
        self
    }
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TextDatum {
    pub link_id: String,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub font: Option<Font>,
    /// Millimetres, despite the name (wire-formats section 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub point_size: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub colour: Option<Colour>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub alignment: Option<Alignment>,
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub other: Other,
}

impl TextDatum {
    fn read(link_id: String, fields: &mut Fields) -> Result<Self, ModelError> {
        let point_size: Option<f64> = fields.optional("pointSize")?;
        if let Some(size) = point_size
            && size <= 0.0
        {
            return Err(ModelError::invalid(
                &format!("{}.pointSize", fields.path()),
                format!("must be a positive size in millimetres, got {size}"),
            ));
        }
        Ok(TextDatum {
            link_id,
            text: fields.optional("text")?.unwrap_or_default(),
            font: fields.optional("font")?,
            point_size,
            colour: fields.optional("colour")?,
            alignment: fields.optional("alignment")?,
            other: Other::new(),
        })
    }
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageDatum {
    pub link_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub image_box: Option<BoundingBox>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub resource_uri: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub image_store_file_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub enhance: Option<bool>,
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub other: Other,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FixedImageDatum {
    pub link_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub resource_uri: Option<String>,
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub other: Other,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BoxDatum {
    pub link_id: String,
    pub colour: Colour,
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub other: Other,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Font {
    pub font_family: String,
    pub bold: bool,
    pub italic: bool,
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub other: Other,
}

impl FromJson for Font {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        let mut fields = Fields::new(value, path)?;
        Ok(Font {
            font_family: fields.required("fontFamily")?,
            bold: fields.optional("bold")?.unwrap_or(false),
            italic: fields.optional("italic")?.unwrap_or(false),
            other: fields.rest(),
        })
    }
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Alignment {
    Left,
    Center,
    Right,
}

impl FromJson for Alignment {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        match String::from_json(value, path)?.as_str() {
            "left" => Ok(Alignment::Left),
            "center" | "centre" => Ok(Alignment::Center),
            "right" => Ok(Alignment::Right),
            other => Err(ModelError::invalid(
                path,
                format!("expected \"left\", \"center\" or \"right\", got {other:?}"),
            )),
        }
    }
}

/// A rectangle in millimetres: its centre, size, and clockwise rotation in degrees. Origin
/// at the top-left of the print area, x right, y down.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BoundingBox {
    pub center: Point,
    pub width: f64,
    pub height: f64,
    pub angle: f64,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl FromJson for Point {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        let mut fields = Fields::new(value, path)?;
        Ok(Point {
            x: fields.required("x")?,
            y: fields.required("y")?,
        })
    }
}

impl FromJson for BoundingBox {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        let mut fields = Fields::new(value, path)?;
        let center = fields
            .optional_either("center", "centre")?
            .ok_or_else(|| ModelError::invalid(&format!("{path}.center"), "is required"))?;
        let mut size = |key: &str| -> Result<f64, ModelError> {
            let value: f64 = fields.required(key)?;
            if value < 0.0 {
                return Err(ModelError::invalid(
                    &format!("{path}.{key}"),
                    format!("must not be negative, got {value}"),
                ));
            }
            Ok(value)
        };
        Ok(BoundingBox {
            center,
            width: size("width")?,
            height: size("height")?,
            angle: fields.optional("angle")?.unwrap_or(0.0),
        })
    }
}

/// The images a pack may use (wire-formats section 3).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ImageBasket {
    pub items: Vec<ImageBasketItem>,
    #[serde(rename = "type")]
    pub basket_type: Option<String>,
    pub name: Option<String>,
    pub immutable: bool,
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub other: Other,
}

impl ImageBasket {
    /// Sets the size of each rendition whose URI `known` holds to that size: what a server
    /// knows of its own stored images wins over what a client wrote, so every reader of the
    /// pack (warnings, the editor, preflight) judges the same pixels.
    pub fn set_known_sizes(&mut self, known: &std::collections::BTreeMap<String, (u32, u32)>) {
        let renditions = self.items.iter_mut().flat_map(|item| &mut item.image_items);
        for rendition in renditions {
            if let Some(&(width, height)) = rendition
                .resource_uri
                .as_ref()
                .and_then(|uri| known.get(uri))
            {
                rendition.width = Some(width);
                rendition.height = Some(height);
            }
        }
    }

    /// Whether `uri` names an item of the basket or one of its renditions.
    pub fn contains(&self, uri: &str) -> bool {
        self.item(uri).is_some()
    }

    /// The item an image URI names: the item's own URI or one of its renditions'.
    pub fn item(&self, uri: &str) -> Option<&ImageBasketItem> {
        self.items.iter().find(|item| {
            item.resource_uri == uri
                || item
                    .image_items
                    .iter()
                    .any(|r| r.resource_uri.as_deref() == Some(uri))
        })
    }
}

impl FromJson for ImageBasket {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        let mut fields = Fields::new(value, path)?;
        Ok(ImageBasket {
            items: fields.bounded_list("items", MAX_BASKET_ITEMS)?,
            basket_type: fields.optional("type")?,
            name: fields.optional("name")?,
            immutable: fields.optional("immutable")?.unwrap_or(false),
            other: fields.rest(),
        })
    }
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageBasketItem {
    pub resource_uri: String,
    pub image_items: Vec<ImageItem>,
    /// Whether renders enhance the image unless an imageData says otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub should_enhance: Option<bool>,
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub other: Other,
}

impl ImageBasketItem {
    /// The rendition a press file embeds: the original (`print`), else the largest with a
    /// size. Preflight and the pack warnings judge the pixels of this one.
    pub fn print_rendition(&self) -> Option<&ImageItem> {
        let with_uri = || self.image_items.iter().filter(|r| r.resource_uri.is_some());
        with_uri().find(|r| r.rendition == "print").or_else(|| {
            with_uri()
                .filter_map(|r| Some((u64::from(r.width?) * u64::from(r.height?), r)))
                .max_by_key(|&(pixels, _)| pixels)
                .map(|(_, r)| r)
        })
    }

    /// The URI a press file reads the item's pixels from ([`Self::print_rendition`]).
    pub fn print_uri(&self) -> &str {
        self.print_rendition()
            .and_then(|r| r.resource_uri.as_deref())
            .unwrap_or(&self.resource_uri)
    }
}

impl FromJson for ImageBasketItem {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        let mut fields = Fields::new(value, path)?;
        Ok(ImageBasketItem {
            resource_uri: fields.required("resourceUri")?,
            image_items: fields.list("imageItems")?,
            should_enhance: fields.optional("shouldEnhance")?,
            other: fields.rest(),
        })
    }
}

/// One rendition of a basket image (`print`, `preview`, ...).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageItem {
    #[serde(rename = "type")]
    pub rendition: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub resource_uri: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub width: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub height: Option<u32>,
    /// Degrees, echoed as the client wrote them (an integer stays one).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    #[cfg_attr(feature = "ts", ts(as = "Option<f64>"))]
    pub rotation: Option<serde_json::Number>,
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub other: Other,
}

impl FromJson for ImageItem {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        let mut fields = Fields::new(value, path)?;
        Ok(ImageItem {
            rendition: fields.required("type")?,
            resource_uri: fields.optional("resourceUri")?,
            width: fields.optional("width")?,
            height: fields.optional("height")?,
            rotation: fields.optional("rotation")?,
            other: fields.rest(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Catalogue;

    fn card() -> &'static Product {
        Catalogue::builtin().product("businesscard").unwrap()
    }

    #[test]
    fn absent_header_fields_take_the_products_values_and_unknown_properties_are_echoed() {
        let json = r#"{"sides":[{"type":"image","sideNum":1,"templateCode":"t","mine":{"a":1},
            "data":[{"type":"textData","linkId":"l","text":"Hi","colour":{"type":"rgb","r":1,"g":2,"b":3},"x":true}]}],
            "clientField":[1,2], "cards": null}"#;
        let pack = Pack::parse(json, "pack", card()).unwrap();
        assert_eq!(pack.num_cards, 50);
        assert_eq!(pack.product_code, "businesscard");
        let out = serde_json::to_value(&pack).unwrap();
        assert_eq!(out["clientField"], serde_json::json!([1, 2]));
        assert_eq!(out["sides"][0]["mine"], serde_json::json!({"a": 1}));
        let datum = &out["sides"][0]["data"][0];
        assert_eq!(datum["type"], "textData");
        assert_eq!(datum["x"], true);
        assert_eq!(datum["colour"]["type"], "RGB");
        assert_eq!(out["cards"], serde_json::json!([]));
        assert_eq!(out["imageBasket"]["items"], serde_json::json!([]));
    }

    #[test]
    fn errors_name_the_exact_value() {
        let cases = [
            (
                r#"{"sides":[{"type":"image","sideNum":"1","templateCode":"t"}]}"#,
                "pack.sides[0].sideNum",
            ),
            (
                r#"{"sides":[{"type":"front","sideNum":1,"templateCode":"t"}]}"#,
                "pack.sides[0].type",
            ),
            (
                r#"{"sides":[{"type":"image","sideNum":1}]}"#,
                "pack.sides[0].templateCode",
            ),
            (
                r#"{"sides":[{"type":"image","sideNum":1,"templateCode":"t","data":[{"type":"videoData","linkId":"v"}]}]}"#,
                "pack.sides[0].data[0].type",
            ),
            (
                r#"{"sides":[{"type":"image","sideNum":1,"templateCode":"t","data":[{"type":"boxData","linkId":"b","colour":{"type":"RGB","r":1,"g":2,"b":-3}}]}]}"#,
                "pack.sides[0].data[0].colour.b",
            ),
            // Paths are built in buffers reused for each entry and property: an error after
            // good entries and properties names the right one.
            (
                r#"{"sides":[{"type":"image","sideNum":1,"templateCode":"t"},{"type":"details","sideNum":1,"templateCode":"t","data":[{"type":"boxData","linkId":"a","colour":{"type":"RGB","r":1,"g":2,"b":3}},{"type":"boxData","linkId":"b","colour":{"type":"CMYK","c":0,"m":0,"y":0,"k":100.5}}]}]}"#,
                "pack.sides[1].data[1].colour.k",
            ),
            (r#"{"productCode":"minicard"}"#, "pack.productCode"),
            (r#"{"sides":{}}"#, "pack.sides"),
            (r#"[1]"#, "pack"),
        ];
        for (json, path) in cases {
            let err = Pack::parse(json, "pack", card()).unwrap_err();
            assert!(matches!(err, ModelError::Invalid { .. }), "{json}: {err}");
            assert_eq!(err.path(), path, "{json}: {err}");
        }
    }

    #[test]
    fn long_lists_are_refused_before_they_are_read() {
        let side = r#"{"type":"image","sideNum":1,"templateCode":"t"}"#;
        let sides = vec![side; MAX_SIDES + 1].join(",");
        let err = Pack::parse(&format!(r#"{{"sides":[{sides}]}}"#), "pack", card()).unwrap_err();
        assert_eq!(err.path(), "pack.sides", "{err}");
        assert!(
            err.to_string().contains("at most 256 entries, got 257"),
            "{err}"
        );
        let sides = vec![side; MAX_SIDES].join(",");
        assert!(Pack::parse(&format!(r#"{{"sides":[{sides}]}}"#), "pack", card()).is_ok());
        let items = vec!["1"; MAX_BASKET_ITEMS + 1].join(",");
        let err = Pack::parse(
            &format!(r#"{{"imageBasket":{{"items":[{items}]}}}}"#),
            "pack",
            card(),
        )
        .unwrap_err();
        assert_eq!(err.path(), "pack.imageBasket.items", "{err}");
    }

    #[test]
    fn malformed_json_is_a_syntax_error() {
        let err = Pack::parse(r#"{"sides": ["#, "pack", card()).unwrap_err();
        assert!(matches!(err, ModelError::Syntax { .. }), "{err}");
        assert!(err.to_string().starts_with("pack: malformed JSON"), "{err}");
    }

    #[test]
    fn serialised_pack_reads_back_equal() {
        let json = r#"{"numCards":50,"sides":[{"type":"image","sideNum":1,"templateCode":"t","data":[
            {"type":"imageData","linkId":"i","resourceUri":"store://a","imageBox":{"centre":{"x":1,"y":2},"width":3,"height":4}},
            {"type":"multiLineTextData","linkId":"m","text":"a\nb","pointSize":3.5278,"alignment":"center","font":{"fontFamily":"helvetica","bold":true}},
            {"type":"fixedImageData","linkId":"f"}]}],
            "extras":[{"key":"k","value":"v"}],
            "imageBasket":{"items":[{"resourceUri":"store://a","imageItems":[{"type":"print","width":10,"height":20}]}],"immutable":true}}"#;
        let pack = Pack::parse(json, "pack", card()).unwrap();
        let text = serde_json::to_string(&pack).unwrap();
        assert_eq!(Pack::parse(&text, "pack", card()).unwrap(), pack);
        assert!(text.contains(r#""center":{"x":1.0,"y":2.0}"#), "{text}");
    }
}
