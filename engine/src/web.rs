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
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::layout::LayoutReport;
use crate::model::{Catalogue, FromJson, Pack, Side, Template, pack_warnings, template_warnings};
use crate::render::{Engine, ImageInput, MeasureRequest, RenderRequest};
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

#[derive(Serialize)]
struct PixelsOutput {
    pixels: serde_bytes::ByteBuf,
    width: u32,
    height: u32,
    report: LayoutReport,
}

/// Reads a render call's arguments: the request and the images by resource URI.
fn render_input(request: JsValue, images: JsValue) -> Result<(RenderRequest, Vec<Image>), JsError> {
    let input: RenderHeaderInput = serde_wasm_bindgen::from_value(request).map_err(js_error)?;
    let images: Vec<Image> = serde_wasm_bindgen::from_value(images).map_err(js_error)?;
    Ok((input.into_request().map_err(js_error)?, images))
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

fn to_js(value: &impl Serialize) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::new())
        .map_err(js_error)
}

fn js_error(error: impl std::fmt::Display) -> JsError {
    JsError::new(&error.to_string())
}

#[wasm_bindgen]
pub struct WebEngine {
    engine: Engine,
}

#[wasm_bindgen]
impl WebEngine {
    /// An engine with a font catalogue (the format of `fonts/catalogue.json`) and the bytes
    /// of every face it names.
    #[wasm_bindgen(constructor)]
    pub fn new(catalogue: JsValue, faces: JsValue) -> Result<WebEngine, JsError> {
        let catalogue: FontCatalogue =
            serde_wasm_bindgen::from_value(catalogue).map_err(js_error)?;
        let faces: Vec<Face> = serde_wasm_bindgen::from_value(faces).map_err(js_error)?;
        let faces = faces
            .into_iter()
            .map(|f| (f.name, Arc::<[u8]>::from(f.bytes.into_vec())));
        let book = FontBook::new(&catalogue, faces).map_err(js_error)?;
        Ok(WebEngine {
            engine: Engine::new(book),
        })
    }

    /// Adds a template (XML); returns its code.
    #[wasm_bindgen(js_name = addTemplate)]
    pub fn add_template(&mut self, xml: &str) -> Result<String, JsError> {
        let template = Template::parse(xml).map_err(js_error)?;
        self.engine.add_template(template).map_err(js_error)
    }

    /// Renders a side: `{png, width, height, report}`.
    pub fn render(&self, request: JsValue, images: JsValue) -> Result<JsValue, JsError> {
        let (request, images) = render_input(request, images)?;
        let rendered = self
            .engine
            .render(&request, &image_inputs(&images))
            .map_err(js_error)?;
        to_js(&RenderOutput {
            png: serde_bytes::ByteBuf::from(rendered.png),
            width: rendered.width,
            height: rendered.height,
            report: rendered.report,
        })
    }

    /// Renders a side as straight-alpha RGBA rows for a canvas: `{pixels, width, height,
    /// report}`; the pixels `render` encodes as PNG.
    #[wasm_bindgen(js_name = renderPixels)]
    pub fn render_pixels(&self, request: JsValue, images: JsValue) -> Result<JsValue, JsError> {
        let (request, images) = render_input(request, images)?;
        let rendered = self
            .engine
            .render_pixels(&request, &image_inputs(&images))
            .map_err(js_error)?;
        to_js(&PixelsOutput {
            pixels: serde_bytes::ByteBuf::from(rendered.rgba),
            width: rendered.width,
            height: rendered.height,
            report: rendered.report,
        })
    }

    /// What a side's layout reports without drawing it: `{overflows, fontSubstituted,
    /// ignoredFixed, images}`.
    pub fn report(&self, side: JsValue) -> Result<JsValue, JsError> {
        let side: serde_json::Value = serde_wasm_bindgen::from_value(side).map_err(js_error)?;
        let side = Side::from_json(side, "side").map_err(js_error)?;
        to_js(&self.engine.report(&side).map_err(js_error)?)
    }

    /// The pack warnings the server computes for a pack of `product` (wire-formats section
    /// 5: structure, images outside the basket, low resolution, templates): `[{element,
    /// code, message}]`. Text overflow and fallback fonts come from [`WebEngine::report`].
    #[wasm_bindgen(js_name = packWarnings)]
    pub fn pack_warnings(&self, product: &str, pack: JsValue) -> Result<JsValue, JsError> {
        let product = Catalogue::builtin()
            .product(product)
            .ok_or_else(|| JsError::new(&format!("product: {product:?} is not a product")))?;
        let pack: serde_json::Value = serde_wasm_bindgen::from_value(pack).map_err(js_error)?;
        let pack = Pack::read(pack, "pack", product).map_err(js_error)?;
        let mut warnings = pack_warnings(&pack, product);
        warnings.extend(template_warnings(&pack, product, &|code| {
            self.engine.template(code).ok()
        }));
        to_js(&warnings)
    }

    /// Measures a text: `{textWidth, textHeight, numberOfLines, fontSubstituted}` (mm).
    pub fn measure(&self, request: JsValue) -> Result<JsValue, JsError> {
        let request: MeasureRequest = serde_wasm_bindgen::from_value(request).map_err(js_error)?;
        let measurement = self.engine.measure(&request).map_err(js_error)?;
        serde_wasm_bindgen::to_value(&measurement).map_err(js_error)
    }
}
