//! The engine's calls as bytes: what crosses the wasm module's ABI (`guest.rs`), built and
//! read by the same code on both sides.
//!
//! A *frame* is `[u32 little-endian header length][header JSON][blobs]`; the header refers to
//! blobs by `offset` and `length` within the blob section, so images and fonts travel as raw
//! bytes, not base64. Calls ([`Op`]):
//! - `Init`: header `{"catalogue": <font catalogue JSON>, "faces": [{"name", "offset", "length"}]}`
//!   with the font files as blobs -> empty output. Must come first.
//! - `AddTemplate`: template XML -> `{"code": "..."}`.
//! - `Draw`: header `{"side": Side, "overlays": [Side], "boxType", "maxSide", "partial",
//!   "images": [{"resourceUri", "offset", "length"}]}` with encoded images as blobs ->
//!   the premultiplied RGBA rows, then the header `{"width", "height", "report"}`, then the
//!   header's length as a little-endian u32: the canvas is the answer, not copied into a
//!   frame ([`read_drawn`] reads it; the caller encodes the PNG, natively).
//! - `Measure`: [`MeasureRequest`] JSON -> [`Measurement`] JSON.
//! - `Report`: a Side JSON -> its [`LayoutReport`] JSON (layout only, nothing drawn): text
//!   overflow and font substitution for the pack warnings PVT001 and PVT002.
//!
//! - `Press`: header `{"pages": [{"side": Side, "copies"}], "options": PressOptions,
//!   "images": [{"resourceUri", "enhance", "offset", "length"}]}` with the print renditions as
//!   blobs -> frame with header `{"report": PressReport, "pdf": {"offset", "length"}}` and the
//!   PDF ([`press_frame`], [`read_pressed`]).
//! - `Ingest`: header [`IngestRequest`] with the image file as the blob section -> frame with
//!   header `{"report": IngestReport, "blobs": [{"offset", "length"}]}` and each rendition's
//!   bytes (in the report's order; empty where the original serves).
//!
//! A failure is `{"code": "<stable code>", "message": "...", "reason": "..."}` ([`Failure`];
//! `reason`, what to do instead, only for refused images).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::failure::FailureCode;
use crate::ingest::{IngestReport, IngestRequest, Ingested};
use crate::layout::LayoutReport;
use crate::model::{FromJson, Side};
use crate::paperwork::Paper;
use crate::press::{PressOptions, PressPage, PressReport};
use crate::raster::{DEFAULT_MAX_SIDE, Pixels};
use crate::render::{BoxType, Engine, EngineError, ImageInput, RenderRequest};
use crate::text::{FontBook, FontCatalogue};

/// Largest frame accepted (a 4096 px render's images plus headroom).
pub const MAX_FRAME_BYTES: usize = 256 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Op {
    Init = 1,
    AddTemplate = 2,
    Draw = 3,
    Measure = 4,
    Report = 5,
    Ingest = 6,
    Press = 7,
    Paperwork = 8,
}

impl Op {
    pub fn from_u32(value: u32) -> Option<Op> {
        match value {
            1 => Some(Op::Init),
            2 => Some(Op::AddTemplate),
            3 => Some(Op::Draw),
            4 => Some(Op::Measure),
            5 => Some(Op::Report),
            6 => Some(Op::Ingest),
            7 => Some(Op::Press),
            8 => Some(Op::Paperwork),
            _ => None,
        }
    }
}

/// An engine failure as it crosses the ABI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    pub code: FailureCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl From<&EngineError> for Failure {
    fn from(error: &EngineError) -> Failure {
        Failure {
            code: error.code(),
            message: error.to_string(),
            reason: match error {
                EngineError::Ingest(refused) => Some(refused.reason()),
                _ => None,
            },
        }
    }
}

/// Where a blob lies in a frame's blob section.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BlobRef {
    pub offset: usize,
    pub length: usize,
}

/// Builds a frame from a header and blobs; returns the blob refs in order with it.
pub struct FrameBuilder {
    blobs: Vec<u8>,
}

impl FrameBuilder {
    pub fn new() -> FrameBuilder {
        FrameBuilder { blobs: Vec::new() }
    }

    pub fn blob(&mut self, bytes: &[u8]) -> BlobRef {
        let offset = self.blobs.len();
        self.blobs.extend_from_slice(bytes);
        BlobRef {
            offset,
            length: bytes.len(),
        }
    }

    pub fn finish<H: Serialize>(self, header: &H) -> Vec<u8> {
        let header = serde_json::to_vec(header).expect("frame headers serialise");
        let mut frame = Vec::with_capacity(4 + header.len() + self.blobs.len());
        frame.extend_from_slice(&(header.len() as u32).to_le_bytes());
        frame.extend_from_slice(&header);
        frame.extend_from_slice(&self.blobs);
        frame
    }
}

impl Default for FrameBuilder {
    fn default() -> Self {
        FrameBuilder::new()
    }
}

/// A frame split into its header and blob section.
pub struct Frame<'a> {
    pub header: &'a [u8],
    blobs: &'a [u8],
}

impl<'a> Frame<'a> {
    pub fn read(bytes: &'a [u8]) -> Result<Frame<'a>, EngineError> {
        if bytes.len() > MAX_FRAME_BYTES {
            return Err(EngineError::Request(format!(
                "frame of {} bytes is more than {MAX_FRAME_BYTES}",
                bytes.len()
            )));
        }
        let length: [u8; 4] = bytes
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| EngineError::Request("frame shorter than its length prefix".into()))?;
        let length = u32::from_le_bytes(length) as usize;
        let header = bytes
            .get(4..4 + length)
            .ok_or_else(|| EngineError::Request("frame header runs past the end".into()))?;
        Ok(Frame {
            header,
            blobs: &bytes[4 + length..],
        })
    }

    pub fn header<T: for<'de> Deserialize<'de>>(&self) -> Result<T, EngineError> {
        serde_json::from_slice(self.header)
            .map_err(|e| EngineError::Request(format!("frame header: {e}")))
    }

    pub fn blob(&self, blob: &BlobRef) -> Result<&'a [u8], EngineError> {
        blob.offset
            .checked_add(blob.length)
            .and_then(|end| self.blobs.get(blob.offset..end))
            .ok_or_else(|| EngineError::Request("blob runs past the end of the frame".into()))
    }

    /// The whole blob section.
    pub fn blobs(&self) -> &'a [u8] {
        self.blobs
    }
}

#[derive(Serialize, Deserialize)]
pub struct InitHeader {
    pub catalogue: Value,
    pub faces: Vec<NamedBlob>,
}

#[derive(Serialize, Deserialize)]
pub struct NamedBlob {
    pub name: String,
    #[serde(flatten)]
    pub blob: BlobRef,
}

#[derive(Serialize, Deserialize)]
pub struct RenderHeader {
    #[serde(flatten)]
    pub request: RenderHeaderInput,
    #[serde(default)]
    pub images: Vec<ImageBlob>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageBlob {
    pub resource_uri: String,
    #[serde(default)]
    pub enhance: bool,
    #[serde(flatten)]
    pub blob: BlobRef,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct DrawnHeader {
    pub width: u32,
    pub height: u32,
    pub report: LayoutReport,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct IngestedHeader {
    pub report: IngestReport,
    pub blobs: Vec<BlobRef>,
}

/// A `Draw` answer: `pixels` (the canvas's rows, with room after them) followed by the
/// header and its length.
pub(crate) fn drawn_answer(mut pixels: Vec<u8>, header: &DrawnHeader) -> Vec<u8> {
    let start = pixels.len();
    serde_json::to_writer(&mut pixels, header).expect("drawn headers serialise");
    let length = (pixels.len() - start) as u32;
    pixels.extend_from_slice(&length.to_le_bytes());
    pixels
}

/// Reads a `Draw` answer: its header and its pixels, checked against the header's size.
pub fn read_drawn(bytes: &[u8]) -> Result<(DrawnHeader, Pixels<'_>), EngineError> {
    let malformed = |what: &str| EngineError::Request(format!("drawn answer: {what}"));
    let (rest, length) = bytes
        .split_last_chunk::<4>()
        .ok_or_else(|| malformed("shorter than its header length"))?;
    let header_start = rest
        .len()
        .checked_sub(u32::from_le_bytes(*length) as usize)
        .ok_or_else(|| malformed("header runs past the start"))?;
    let (rows, header) = rest.split_at(header_start);
    let header: DrawnHeader = serde_json::from_slice(header)
        .map_err(|e| EngineError::Request(format!("drawn answer header: {e}")))?;
    let pixels = Pixels::new(header.width, header.height, rows).map_err(EngineError::Raster)?;
    Ok((header, pixels))
}

/// Builds the `Ingest` frame for an image file.
pub fn ingest_frame(request: &IngestRequest, image: &[u8]) -> Vec<u8> {
    let mut frame = FrameBuilder::new();
    frame.blob(image);
    frame.finish(request)
}

/// Reads an `Ingest` answer: the report and each rendition's bytes.
pub fn read_ingested(bytes: &[u8]) -> Result<Ingested, EngineError> {
    let frame = Frame::read(bytes)?;
    let header: IngestedHeader = frame.header()?;
    let blobs = header
        .blobs
        .iter()
        .map(|blob| frame.blob(blob).map(<[u8]>::to_vec))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Ingested {
        report: header.report,
        blobs,
    })
}

#[derive(Serialize, Deserialize)]
pub struct AddedTemplate {
    pub code: String,
}

/// Builds the `Init` frame for a catalogue and its faces.
pub fn init_frame(catalogue: &FontCatalogue, faces: &[(String, Arc<[u8]>)]) -> Vec<u8> {
    let mut frame = FrameBuilder::new();
    let faces = faces
        .iter()
        .map(|(name, bytes)| NamedBlob {
            name: name.clone(),
            blob: frame.blob(bytes),
        })
        .collect();
    let catalogue = serde_json::to_value(catalogue).expect("catalogues serialise");
    frame.finish(&InitHeader { catalogue, faces })
}

/// Builds the engine an `Init` frame describes.
pub fn engine_from_init(bytes: &[u8]) -> Result<Engine, EngineError> {
    let frame = Frame::read(bytes)?;
    let header: InitHeader = frame.header()?;
    let catalogue: FontCatalogue = serde_json::from_value(header.catalogue)
        .map_err(|e| EngineError::Request(format!("font catalogue: {e}")))?;
    let faces = header
        .faces
        .iter()
        .map(|face| {
            Ok((
                face.name.clone(),
                Arc::<[u8]>::from(frame.blob(&face.blob)?),
            ))
        })
        .collect::<Result<Vec<_>, EngineError>>()?;
    Ok(Engine::new(
        FontBook::new(&catalogue, faces).map_err(EngineError::Font)?,
    ))
}

/// The images of a call as blobs of `frame`, by resource URI.
fn image_blobs(frame: &mut FrameBuilder, images: &[(&str, ImageInput<'_>)]) -> Vec<ImageBlob> {
    images
        .iter()
        .map(|(uri, image)| ImageBlob {
            resource_uri: (*uri).to_owned(),
            enhance: image.enhance,
            blob: frame.blob(image.bytes),
        })
        .collect()
}

/// The images a frame carries, by resource URI.
pub(crate) fn frame_images<'a>(
    frame: &Frame<'a>,
    images: &[ImageBlob],
) -> Result<std::collections::HashMap<String, ImageInput<'a>>, EngineError> {
    images
        .iter()
        .map(|image| {
            let input = ImageInput {
                bytes: frame.blob(&image.blob)?,
                enhance: image.enhance,
            };
            Ok((image.resource_uri.clone(), input))
        })
        .collect()
}

/// Builds the `Draw` frame for a request and the images it may draw, by resource URI.
pub fn render_frame(header: &RenderHeaderInput, images: &[(&str, ImageInput<'_>)]) -> Vec<u8> {
    let mut frame = FrameBuilder::new();
    let images = image_blobs(&mut frame, images);
    frame.finish(&RenderHeader {
        request: header.clone(),
        images,
    })
}

/// One page of a `Press` call: the side as JSON (read by the engine) and its cards.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PressPageInput {
    pub side: Value,
    pub copies: u32,
}

#[derive(Serialize, Deserialize)]
pub struct PressHeader {
    pub pages: Vec<PressPageInput>,
    pub options: PressOptions,
    #[serde(default)]
    pub images: Vec<ImageBlob>,
    /// The operator's press profile (`PressOptions::condition_name` names it).
    #[serde(default)]
    pub profile: Option<BlobRef>,
}

#[derive(Serialize, Deserialize)]
pub struct PressedHeader {
    pub report: PressReport,
    pub pdf: BlobRef,
}

/// Builds the `Press` frame: the pages, how to make the file, and the print renditions of
/// the images the pages draw, by resource URI.
pub fn press_frame(
    pages: &[PressPageInput],
    options: &PressOptions,
    images: &[(&str, ImageInput<'_>)],
    profile: Option<&[u8]>,
) -> Vec<u8> {
    let mut frame = FrameBuilder::new();
    let images = image_blobs(&mut frame, images);
    let profile = profile.map(|bytes| frame.blob(bytes));
    frame.finish(&PressHeader {
        pages: pages.to_vec(),
        options: options.clone(),
        images,
        profile,
    })
}

impl PressPageInput {
    /// Reads the side; errors name the page (`pages[1].data[0].type`).
    pub fn into_page(self, index: usize) -> Result<PressPage, EngineError> {
        let path = format!("pages[{index}]");
        let side =
            Side::from_json(self.side, &path).map_err(|error| EngineError::Side { path, error })?;
        Ok(PressPage {
            side,
            copies: self.copies,
        })
    }
}

/// A `Paperwork` call: the document and the pictures it shows.
#[derive(Serialize, Deserialize)]
pub struct PaperworkHeader {
    pub paper: Paper,
    #[serde(default)]
    pub images: Vec<ImageBlob>,
}

/// Builds the `Paperwork` frame (its answer is the PDF itself).
pub fn paperwork_frame(paper: &Paper, images: &[(&str, ImageInput<'_>)]) -> Vec<u8> {
    let mut frame = FrameBuilder::new();
    let images = image_blobs(&mut frame, images);
    frame.finish(&PaperworkHeader {
        paper: paper.clone(),
        images,
    })
}

/// Reads a `Press` answer: the report and the PDF.
pub fn read_pressed(bytes: &[u8]) -> Result<(PressReport, Vec<u8>), EngineError> {
    let frame = Frame::read(bytes)?;
    let header: PressedHeader = frame.header()?;
    Ok((header.report, frame.blob(&header.pdf)?.to_vec()))
}

/// A render call's parameters as JSON (sides not yet read), without its images: the same
/// shape in a frame header, a browser call and a scene file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderHeaderInput {
    pub side: Value,
    #[serde(default)]
    pub overlays: Vec<Value>,
    #[serde(default)]
    pub box_type: BoxType,
    #[serde(default = "default_max_side")]
    pub max_side: u32,
    #[serde(default)]
    pub partial: bool,
}

fn default_max_side() -> u32 {
    DEFAULT_MAX_SIDE
}

impl RenderHeaderInput {
    /// Reads the sides; errors name them (`side.data[0].type`, `overlays[1].sideNum`).
    pub fn into_request(self) -> Result<RenderRequest, EngineError> {
        let side = |value: Value, path: &str| {
            Side::from_json(value, path).map_err(|error| EngineError::Side {
                path: path.to_owned(),
                error,
            })
        };
        let overlays = self
            .overlays
            .into_iter()
            .enumerate()
            .map(|(i, value)| side(value, &format!("overlays[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RenderRequest {
            side: side(self.side, "side")?,
            overlays,
            box_type: self.box_type,
            max_side: self.max_side,
            partial: self.partial,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drawn_answer_reads_back_and_a_broken_one_is_an_error() {
        let rows: Vec<u8> = (0..2 * 3 * 4).map(|i| i as u8).collect();
        let header = DrawnHeader {
            width: 2,
            height: 3,
            report: Default::default(),
        };
        let answer = drawn_answer(rows.clone(), &header);
        let (read, pixels) = read_drawn(&answer).unwrap();
        assert_eq!((read.width, read.height), (2, 3));
        assert_eq!(pixels.premultiplied(), &rows[..]);

        // Cut short, a length longer than the answer, rows that do not fit the size.
        for broken in [
            &answer[..3],
            &answer[..answer.len() - 1],
            &[0, 0, 0, 0xff][..],
            &answer[1..],
        ] {
            assert!(read_drawn(broken).is_err(), "{broken:?}");
        }
    }
}
