//! The browser surface (feature `web`), through wasm-bindgen: the same engine, calls and
//! results as the server's, with JavaScript values in and out (serde-wasm-bindgen).
//!
//! ```js
//! const engine = new WebEngine(catalogue, [{ name: "dejavu:sans", bytes }, ...]);
//! engine.addTemplate(xml);
//! const { png, width, height, report } = engine.render(
//!   { side, overlays: [], boxType: "bleed", maxSide: 1024, partial: false },
//!   [{ resourceUri: "store://...", bytes }]);
//! const { textWidth, numberOfLines } = engine.measure({ text, fontFamily: "helvetica",
//!   bold: false, italic: false, size: 3.5278, wrappingWidth: null, leading: null });
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::layout::LayoutReport;
use crate::model::Template;
use crate::render::{Engine, ImageInput, MeasureRequest};
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
        let input: RenderHeaderInput = serde_wasm_bindgen::from_value(request).map_err(js_error)?;
        let images: Vec<Image> = serde_wasm_bindgen::from_value(images).map_err(js_error)?;
        let request = input.into_request().map_err(js_error)?;
        let images: HashMap<String, ImageInput<'_>> = images
            .iter()
            .map(|i| {
                let input = ImageInput {
                    bytes: i.bytes.as_slice(),
                    enhance: i.enhance,
                };
                (i.resource_uri.clone(), input)
            })
            .collect();
        let rendered = self.engine.render(&request, &images).map_err(js_error)?;
        let output = RenderOutput {
            png: serde_bytes::ByteBuf::from(rendered.png),
            width: rendered.width,
            height: rendered.height,
            report: rendered.report,
        };
        output
            .serialize(&serde_wasm_bindgen::Serializer::new())
            .map_err(js_error)
    }

    /// Measures a text: `{textWidth, textHeight, numberOfLines, fontSubstituted}` (mm).
    pub fn measure(&self, request: JsValue) -> Result<JsValue, JsError> {
        let request: MeasureRequest = serde_wasm_bindgen::from_value(request).map_err(js_error)?;
        let measurement = self.engine.measure(&request).map_err(js_error)?;
        serde_wasm_bindgen::to_value(&measurement).map_err(js_error)
    }
}
