//! The engine's calls given as bytes ([`crate::wire`] frames) and answered as bytes: what the
//! wasm guest runs for its host, and what native callers can run in the same form.

use serde_json::Value;

use crate::ingest::{IngestRequest, ingest};
use crate::model::{FromJson, Side, Template};
use crate::press::colour::PrintingCondition;
use crate::render::{Engine, EngineError, MeasureRequest};
use crate::wire::{
    AddedTemplate, DrawnHeader, Frame, FrameBuilder, IngestedHeader, Op, PaperworkHeader,
    PressHeader, PressedHeader, RenderHeader, drawn_answer, frame_images,
};

impl Engine {
    /// Runs one call given as bytes; the answer is bytes too. `Init` is not a call on an
    /// engine (see [`engine_from_init`]).
    pub fn call(&mut self, op: Op, input: &[u8]) -> Result<Vec<u8>, EngineError> {
        match op {
            Op::Init => Err(EngineError::Request(
                "the engine is already initialised".into(),
            )),
            Op::AddTemplate => {
                let xml = std::str::from_utf8(input)
                    .map_err(|_| EngineError::Request("template is not UTF-8".into()))?;
                let template = Template::parse(xml).map_err(EngineError::Template)?;
                let code = self.add_template(template)?;
                Ok(serde_json::to_vec(&AddedTemplate { code }).expect("serialises"))
            }
            Op::Draw => {
                let frame = Frame::read(input)?;
                let header: RenderHeader = frame.header()?;
                let request = header.request.into_request()?;
                let images = frame_images(&frame, &header.images)?;
                let (canvas, report) = self.draw(&request, &images)?;
                let header = DrawnHeader {
                    width: canvas.width(),
                    height: canvas.height(),
                    report,
                };
                Ok(drawn_answer(canvas.into_premultiplied(), &header))
            }
            Op::Report => {
                let value: Value = serde_json::from_slice(input)
                    .map_err(|e| EngineError::Request(format!("side: {e}")))?;
                let side = Side::from_json(value, "side").map_err(|error| EngineError::Side {
                    path: "side".into(),
                    error,
                })?;
                let report = self.report(&side)?;
                Ok(serde_json::to_vec(&report).expect("serialises"))
            }
            Op::Ingest => {
                let frame = Frame::read(input)?;
                let request: IngestRequest = frame.header()?;
                let ingested = ingest(frame.blobs(), &request).map_err(EngineError::Ingest)?;
                let mut out = FrameBuilder::new();
                let blobs = ingested.blobs.iter().map(|blob| out.blob(blob)).collect();
                Ok(out.finish(&IngestedHeader {
                    report: ingested.report,
                    blobs,
                }))
            }
            Op::Press => {
                let frame = Frame::read(input)?;
                let header: PressHeader = frame.header()?;
                let images = frame_images(&frame, &header.images)?;
                let pages = header
                    .pages
                    .into_iter()
                    .enumerate()
                    .map(|(index, page)| page.into_page(index))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut options = header.options;
                if let Some(profile) = &header.profile {
                    let name = options.condition_name.as_deref().unwrap_or("Custom");
                    let condition = PrintingCondition::shared(name, frame.blob(profile)?).map_err(
                        |problem| EngineError::Request(format!("the press profile is {problem}")),
                    )?;
                    options.condition = Some(condition);
                }
                let (pdf, report) = self.press(&pages, &options, &images)?;
                let mut out = FrameBuilder::new();
                let pdf = out.blob(&pdf);
                Ok(out.finish(&PressedHeader { report, pdf }))
            }
            Op::Paperwork => {
                let frame = Frame::read(input)?;
                let header: PaperworkHeader = frame.header()?;
                let images = frame_images(&frame, &header.images)?;
                self.paperwork(header.paper, &images)
            }
            Op::Measure => {
                let request: MeasureRequest = serde_json::from_slice(input)
                    .map_err(|e| EngineError::Request(format!("measure request: {e}")))?;
                let measurement = self.measure(&request)?;
                Ok(serde_json::to_vec(&measurement).expect("serialises"))
            }
        }
    }
}
