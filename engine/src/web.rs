//! The browser surface (feature `web`), through wasm-bindgen: the same engine, calls and
//! results as the server's, with JavaScript values in and out (serde-wasm-bindgen).
//!
//! ```js
//! const engine = new WebEngine(catalogue, [{ name: "dejavu:sans", bytes }, ...]);
//! engine.addTemplate(xml);
//! const { png, width, height, report } = engine.render(
//!   { side, overlays: [], boxType: "bleed", maxSide: 1024, partial: false },
//!   [{ resourceUri: "store://...", bytes }]);
//! const { pixels, width, height } = engine.renderPixels(request, images); // RGBA rows
//! const { textWidth, numberOfLines } = engine.measure({ text, fontFamily: "helvetica",
//!   bold: false, italic: false, size: 3.5278, wrappingWidth: null, leading: null });
//! const warnings = engine.packWarnings("businesscard", pack); // [{element, code, message}]
//! const planned = engine.imagesToFetch(request, pack.imageBasket); // renditions to fetch
//! const { size, modules } = engine.qrCode({ kind: "link", url: "https://print.example" });
//! ```
//!
//! Every refusal is thrown as an `Error` named `PresspackError` with the engine's failure
//! `code` (`invalid_request`, `invalid_side`, `unknown_template`, `missing_image`, ...).

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::failure::FailureCode;
use crate::images::plan_images;
use crate::layout::LayoutReport;
use crate::model::{
    Alignment, Catalogue, Colour, Explained, FromJson, ImageBasket, ItemKind, Pack,
    PreflightLimits, Product, Side, Template, Warning, explain, layout_label, pack_warnings,
    slot_label, template_warnings,
};
use crate::raster::ViewArea;
use crate::render::{BoxType, Engine, EngineError, ImageInput, MeasureRequest, RenderRequest};
use crate::text::{FontBook, FontCatalogue};
use crate::wire::RenderHeaderInput;

#[derive(Deserialize)]
struct Face {
    name: String,
    bytes: serde_bytes::ByteBuf,
}

#[derive(Deserialize)]
struct Image {
    #[serde(rename = "resourceUri")]
    resource_uri: String,
    bytes: serde_bytes::ByteBuf,
    #[serde(default)]
    enhance: bool,
}

#[derive(Serialize)]
struct RenderOutput {
    png: serde_bytes::ByteBuf,
    width: u32,
    height: u32,
    report: LayoutReport,
}

/// `renderPixels`'s answer but its `pixels`, which are set on the object as a typed array.
#[derive(Serialize)]
struct PixelsOutput {
    width: u32,
    height: u32,
    report: LayoutReport,
}

/// Reads a render call's arguments: the request and the images by resource URI.
fn render_input(request: JsValue, images: JsValue) -> Result<(RenderRequest, Vec<Image>), JsValue> {
    let input: RenderHeaderInput = serde_wasm_bindgen::from_value(request).map_err(invalid)?;
    let images: Vec<Image> = serde_wasm_bindgen::from_value(images).map_err(invalid)?;
    Ok((input.into_request().map_err(invalid)?, images))
}

fn image_inputs(images: &[Image]) -> HashMap<String, ImageInput<'_>> {
    images
        .iter()
        .map(|i| {
            let input = ImageInput {
                bytes: i.bytes.as_slice(),
                enhance: i.enhance,
            };
            (i.resource_uri.clone(), input)
        })
        .collect()
}

/// A template as an editor sees it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TemplateOutline<'t> {
    code: &'t str,
    /// What the customer calls the layout ([`layout_label`]).
    label: String,
    width: f64,
    height: f64,
    bleed: Area,
    cut: Area,
    safe: Area,
    items: Vec<ItemOutline<'t>>,
}

#[derive(Serialize)]
struct Area {
    left: f64,
    top: f64,
    width: f64,
    height: f64,
}

impl Area {
    fn of(area: ViewArea) -> Area {
        Area {
            left: area.left,
            top: area.top,
            width: area.width,
            height: area.height,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ItemOutline<'t> {
    link_id: &'t str,
    /// What the customer calls it ([`slot_label`]): "Photo", "Background", "Line 2".
    label: String,
    /// `Box`, `Image`, `Text`, `MultiLineText` or `FixedImage`.
    kind: &'static str,
    /// The clipping box's upright extent.
    area: Area,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<TextOutline<'t>>,
    /// A box item's colour (a `boxData` datum replaces it), when the box is filled.
    #[serde(skip_serializing_if = "Option::is_none")]
    colour: Option<Colour>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TextOutline<'t> {
    font_family: &'t str,
    bold: bool,
    italic: bool,
    point_size: f64,
    alignment: Alignment,
    colour: Colour,
    default_text: &'t str,
    font_fixed: bool,
    colour_fixed: bool,
    point_size_fixed: bool,
    alignment_fixed: bool,
}

impl<'t> TemplateOutline<'t> {
    fn of(template: &'t Template) -> Self {
        let items = template
            .items
            .iter()
            .map(|item| ItemOutline {
                link_id: &item.link_id,
                label: slot_label(Some(template), &item.link_id),
                kind: item.kind.name(),
                area: Area::of(ViewArea::of_box(&item.clipping_box)),
                text: match &item.kind {
                    ItemKind::Text(text) => Some(TextOutline {
                        font_family: &text.font.family,
                        bold: text.font.bold,
                        italic: text.font.italic,
                        point_size: text.point_size,
                        alignment: text.alignment,
                        colour: text.colour,
                        default_text: &text.default_text,
                        font_fixed: text.constraints.font_fixed,
                        colour_fixed: text.constraints.colour_fixed,
                        point_size_fixed: text.constraints.point_size_fixed,
                        alignment_fixed: text.constraints.alignment_fixed,
                    }),
                    _ => None,
                },
                colour: match item.kind {
                    ItemKind::Box {
                        colour,
                        filled: true,
                    } => Some(colour),
                    _ => None,
                },
            })
            .collect();
        TemplateOutline {
            code: &template.code,
            label: layout_label(template),
            width: template.print_area.width,
            height: template.print_area.height,
            bleed: Area::of(BoxType::Bleed.area(template)),
            cut: Area::of(BoxType::Cut.area(template)),
            safe: Area::of(BoxType::Safe.area(template)),
            items,
        }
    }
}

fn to_js(value: &impl Serialize) -> Result<JsValue, JsValue> {
    value
        // Plain objects, not `Map`s, for maps (colours): what JSON.stringify and callers expect.
        .serialize(&serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true))
        .map_err(invalid)
}

/// A thrown error: a JavaScript `Error` named `PresspackError` whose `code` is the engine's
/// failure code (the snake_case names the server's engine reports too, such as
/// `invalid_side` or `unknown_template`), so callers branch on the code, not the message.
fn thrown(code: FailureCode, error: impl std::fmt::Display) -> JsValue {
    let thrown = js_sys::Error::new(&error.to_string());
    thrown.set_name("PresspackError");
    let code: &'static str = code.into();
    // Setting a property of a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(&thrown, &"code".into(), &code.into());
    thrown.into()
}

/// Arguments that are not what the call takes.
fn invalid(error: impl std::fmt::Display) -> JsValue {
    thrown(FailureCode::InvalidRequest, error)
}

/// The engine's refusal, with its own code (and, for `font_not_loaded`, the `face` to add).
fn refused(error: EngineError) -> JsValue {
    let face = error.face_not_loaded().map(str::to_owned);
    let thrown = thrown(error.code(), error);
    if let Some(face) = face {
        // Setting a property of a fresh Error object cannot fail.
        let _ = js_sys::Reflect::set(&thrown, &"face".into(), &face.into());
    }
    thrown
}

#[wasm_bindgen]
pub struct WebEngine {
    engine: Engine,
    /// The resolutions the server's preflight warns and blocks at ([`WebEngine::set_limits`]).
    limits: PreflightLimits,
}

#[wasm_bindgen]
impl WebEngine {
    /// An engine with a font catalogue (the format of `fonts/catalogue.json`) and the bytes
    /// of some or all of the faces and word lists it names (`[{name, bytes}]`). A render or
    /// measurement that needs a file not given throws an error with code `font_not_loaded`
    /// and the file's name in `face`: give it with `addFace` and call again. (A word list,
    /// `words/….dict`, is needed only to wrap a line of Thai, Lao, Khmer or Myanmar.)
    #[wasm_bindgen(constructor)]
    pub fn new(catalogue: JsValue, faces: JsValue) -> Result<WebEngine, JsValue> {
        let catalogue: FontCatalogue =
            serde_wasm_bindgen::from_value(catalogue).map_err(invalid)?;
        let faces: Vec<Face> = serde_wasm_bindgen::from_value(faces).map_err(invalid)?;
        let faces = faces
            .into_iter()
            .map(|f| (f.name, Arc::<[u8]>::from(f.bytes.into_vec())));
        let book = FontBook::partial(&catalogue, faces)
            .map_err(|e| thrown(FailureCode::UnknownFont, e))?;
        Ok(WebEngine {
            engine: Engine::new(book),
            limits: PreflightLimits::default(),
        })
    }

    /// The image resolutions the server's preflight warns and blocks at (`{warnDpi,
    /// blockDpi}`, dots per inch, as the server's pages give them): the page's warnings then
    /// block what the server would. Until set, 300 and 150.
    #[wasm_bindgen(js_name = setLimits)]
    pub fn set_limits(&mut self, limits: JsValue) -> Result<(), JsValue> {
        let limits: PreflightLimits = serde_wasm_bindgen::from_value(limits).map_err(invalid)?;
        self.limits = limits.checked().map_err(invalid)?;
        Ok(())
    }

    /// Supplies the bytes of a face or word list the catalogue names (one already there is
    /// kept).
    #[wasm_bindgen(js_name = addFace)]
    pub fn add_face(&mut self, name: &str, bytes: Vec<u8>) -> Result<(), JsValue> {
        self.engine
            .add_face(name, Arc::from(bytes))
            .map_err(|e| thrown(FailureCode::UnknownFont, e))
    }

    /// Adds a template (XML); returns its code.
    #[wasm_bindgen(js_name = addTemplate)]
    pub fn add_template(&mut self, xml: &str) -> Result<String, JsValue> {
        let template = Template::parse(xml).map_err(|e| thrown(FailureCode::InvalidTemplate, e))?;
        self.engine.add_template(template).map_err(refused)
    }

    /// Renders a side: `{png, width, height, report}`.
    pub fn render(&self, request: JsValue, images: JsValue) -> Result<JsValue, JsValue> {
        let (request, images) = render_input(request, images)?;
        let (canvas, report) = self
            .engine
            .draw(&request, &image_inputs(&images))
            .map_err(refused)?;
        let pixels = canvas.pixels();
        to_js(&RenderOutput {
            png: serde_bytes::ByteBuf::from(
                pixels
                    .encode_png()
                    .map_err(|e| thrown(FailureCode::RenderFailed, e))?,
            ),
            width: pixels.width(),
            height: pixels.height(),
            report,
        })
    }

    /// Renders a side as straight-alpha RGBA rows for a canvas: `{pixels, width, height,
    /// report}`; the pixels `render` encodes as PNG. `into`, if given, is a `Uint8Array`
    /// (an earlier answer's `pixels`) that is filled and handed back as `pixels` when it has
    /// the render's size; a new array is made otherwise. A page that redraws reuses one
    /// array: the browser zeroes a new one's memory page by page, which costs more than
    /// drawing into it at 2048 px and up (docs/benchmarks.md).
    #[wasm_bindgen(js_name = renderPixels)]
    pub fn render_pixels(
        &self,
        request: JsValue,
        images: JsValue,
        into: JsValue,
    ) -> Result<JsValue, JsValue> {
        let into =
            if into.is_undefined() || into.is_null() {
                None
            } else {
                Some(into.dyn_into::<js_sys::Uint8Array>().map_err(|_| {
                    invalid("into: expected a Uint8Array (an earlier answer's pixels)")
                })?)
            };
        let (request, images) = render_input(request, images)?;
        let (canvas, report) = self
            .engine
            .draw(&request, &image_inputs(&images))
            .map_err(refused)?;
        let pixels = canvas.pixels();
        let rgba = pixels.rgba();
        let array = match into {
            Some(array) if array.length() as usize == rgba.len() => {
                array.copy_from(&rgba);
                array
            }
            _ => js_sys::Uint8Array::from(&rgba[..]),
        };
        let output = to_js(&PixelsOutput {
            width: pixels.width(),
            height: pixels.height(),
            report,
        })?;
        js_sys::Reflect::set(&output, &JsValue::from_str("pixels"), &array)?;
        Ok(output)
    }

    /// The images a render draws and the stored rendition to fetch for each (the one the
    /// server's renderSide uses): `[{resourceUri, renditionUri, enhance}]`. Pass the bytes
    /// of each rendition to `render`/`renderPixels` under its `resourceUri`.
    #[wasm_bindgen(js_name = imagesToFetch)]
    pub fn images_to_fetch(&self, request: JsValue, basket: JsValue) -> Result<JsValue, JsValue> {
        let input: RenderHeaderInput = serde_wasm_bindgen::from_value(request).map_err(invalid)?;
        let request = input.into_request().map_err(invalid)?;
        let basket: serde_json::Value = serde_wasm_bindgen::from_value(basket).map_err(invalid)?;
        let basket = ImageBasket::from_json(basket, "imageBasket").map_err(invalid)?;
        let planned = plan_images(&request, &basket, |code| self.engine.template(code).ok())
            .map_err(invalid)?;
        to_js(&planned)
    }

    /// What an editor needs of a template: its size, its boxes and its items with their
    /// areas (mm, upright) and the text defaults and constraints; see [`TemplateOutline`].
    #[wasm_bindgen(js_name = describeTemplate)]
    pub fn describe_template(&self, code: &str) -> Result<JsValue, JsValue> {
        let template = self.engine.template(code).map_err(refused)?;
        to_js(&TemplateOutline::of(template))
    }

    /// What a side's layout reports without drawing it: `{overflows, fontSubstituted,
    /// ignoredFixed, images}`.
    pub fn report(&self, side: JsValue) -> Result<JsValue, JsValue> {
        let side: serde_json::Value = serde_wasm_bindgen::from_value(side).map_err(invalid)?;
        let side =
            Side::from_json(side, "side").map_err(|e| thrown(FailureCode::InvalidSide, e))?;
        to_js(&self.engine.report(&side).map_err(refused)?)
    }

    /// The pack warnings the server computes for a pack of `product` (wire-formats section
    /// 5: structure, images outside the basket, low resolution, templates): `[{element,
    /// code, message}]`. Text overflow and fallback fonts come from [`WebEngine::report`].
    #[wasm_bindgen(js_name = packWarnings)]
    pub fn pack_warnings(&self, product: &str, pack: JsValue) -> Result<JsValue, JsValue> {
        to_js(&self.warnings_of(product, pack)?.2)
    }

    /// `packWarnings` and `extra` (warnings the page found itself, such as a side's text
    /// overflow: `[{element, code, message}]`) in a customer's words, as the server's pages
    /// show them: `[{element, code, blocksOrdering, side, linkId, text, fix}]`.
    #[wasm_bindgen(js_name = explainWarnings)]
    pub fn explain_warnings(
        &self,
        product: &str,
        pack: JsValue,
        extra: JsValue,
    ) -> Result<JsValue, JsValue> {
        let extra: Vec<Warning> = serde_wasm_bindgen::from_value(extra).map_err(invalid)?;
        let (pack, product, mut warnings) = self.warnings_of(product, pack)?;
        warnings.extend(extra);
        let template = |code: &str| self.engine.template(code).ok();
        let explained: Vec<Explained> = warnings
            .iter()
            .map(|warning| explain(warning, &pack, product, &template, self.limits))
            .collect();
        to_js(&explained)
    }

    fn warnings_of(
        &self,
        product: &str,
        pack: JsValue,
    ) -> Result<(Pack, &'static Product, Vec<Warning>), JsValue> {
        let product = Catalogue::builtin()
            .product(product)
            .ok_or_else(|| invalid(format!("product: {product:?} is not a product")))?;
        let pack: serde_json::Value = serde_wasm_bindgen::from_value(pack).map_err(invalid)?;
        let pack = Pack::read(pack, "pack", product).map_err(invalid)?;
        let mut warnings = pack_warnings(&pack, product);
        warnings.extend(template_warnings(
            &pack,
            product,
            &|code| self.engine.template(code).ok(),
            self.limits,
        ));
        Ok((pack, product, warnings))
    }

    /// A QR code of `{kind: "link", url}` or `{kind: "contact", name, jobTitle, organisation,
    /// phone, email, website}`: `{size, modules, payload}` (modules row by row, 1 dark, quiet
    /// zone excluded). A refusal (`invalid_request`) names the field and the problem.
    #[wasm_bindgen(js_name = qrCode)]
    pub fn qr_code(&self, content: JsValue) -> Result<JsValue, JsValue> {
        // Read and answered field by field: serde's derives would weigh on this build.
        let field = |name: &str| {
            js_sys::Reflect::get(&content, &name.into())
                .ok()
                .and_then(|value| value.as_string())
                .unwrap_or_default()
        };
        let request = crate::qr::QrRequest {
            kind: field("kind"),
            url: field("url"),
            name: field("name"),
            job_title: field("jobTitle"),
            organisation: field("organisation"),
            phone: field("phone"),
            email: field("email"),
            website: field("website"),
        };
        let content = crate::qr::QrContent::try_from(request).map_err(invalid)?;
        let matrix = content.encode().map_err(invalid)?;
        let answer = js_sys::Object::new();
        for (name, value) in [
            ("size", JsValue::from(matrix.size)),
            (
                "modules",
                js_sys::Uint8Array::from(&matrix.modules[..]).into(),
            ),
            ("payload", JsValue::from(matrix.payload)),
        ] {
            // Setting a property of a fresh object cannot fail.
            let _ = js_sys::Reflect::set(&answer, &name.into(), &value);
        }
        Ok(answer.into())
    }

    /// A colour (`{type: "RGB", r, g, b}` or `{type: "CMYK", c, m, y, k}`) as the `#rrggbb`
    /// it is drawn with: pages show CMYK through the engine's conversion, never their own.
    #[wasm_bindgen(js_name = displayColour)]
    pub fn display_colour(&self, colour: JsValue) -> Result<String, JsValue> {
        let colour: serde_json::Value = serde_wasm_bindgen::from_value(colour).map_err(invalid)?;
        let [r, g, b] = Colour::from_json(colour, "colour")
            .map_err(invalid)?
            .to_rgb();
        Ok(format!("#{r:02x}{g:02x}{b:02x}"))
    }

    /// Measures a text: `{textWidth, textHeight, numberOfLines, fontSubstituted}` (mm).
    pub fn measure(&self, request: JsValue) -> Result<JsValue, JsValue> {
        let request: MeasureRequest = serde_wasm_bindgen::from_value(request).map_err(invalid)?;
        let measurement = self.engine.measure(&request).map_err(refused)?;
        serde_wasm_bindgen::to_value(&measurement).map_err(invalid)
    }
}
