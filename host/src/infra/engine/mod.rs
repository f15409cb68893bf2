//! The engine, as the service calls it: [`EngineClient`] asks with typed requests and gets
//! typed answers; [`pool`] runs the engine's wasm module under wasmtime and carries the calls
//! as bytes ([`presspack_engine::wire`] frames).

pub mod pool;

use std::sync::Arc;

use presspack_engine::ingest::{IngestRequest, Ingested};
use presspack_engine::layout::LayoutReport;
use presspack_engine::model::Side;
use presspack_engine::render::{EngineError, ImageInput, MeasureRequest, Measurement};
use presspack_engine::wire::{
    Op, RenderHeaderInput, ingest_frame, read_drawn, read_ingested, render_frame,
};
use serde::de::DeserializeOwned;

pub use pool::{ENGINE_WASM, EngineCallError, EngineHost, EngineLimits, EngineSetup};

/// The engine's operations with typed requests and answers, on the sandboxed pool.
#[derive(Clone)]
pub struct EngineClient {
    pool: Arc<EngineHost>,
}

/// An answer of the engine read as `T`; one that cannot be read is the engine's failure.
fn read<T: DeserializeOwned>(what: &str, output: &[u8]) -> Result<T, EngineCallError> {
    serde_json::from_slice(output).map_err(|e| EngineCallError::Unreadable(format!("{what}: {e}")))
}

impl EngineClient {
    pub fn new(pool: Arc<EngineHost>) -> EngineClient {
        EngineClient { pool }
    }

    /// (instances running a call now, instances in the pool).
    pub fn usage(&self) -> (usize, usize) {
        self.pool.usage()
    }

    /// A text's size once set (`svc.text.measure`).
    pub async fn measure(&self, request: &MeasureRequest) -> Result<Measurement, EngineCallError> {
        let input = serde_json::to_vec(request).expect("requests serialise");
        read("measurement", &self.pool.call(Op::Measure, input).await?)
    }

    /// Each side's layout report (text overflow, font substitution), on one instance taken
    /// once; a side the engine refuses has its own error.
    pub async fn reports(
        &self,
        sides: &[&Side],
    ) -> Result<Vec<Result<LayoutReport, EngineCallError>>, EngineCallError> {
        let inputs = sides
            .iter()
            .map(|side| serde_json::to_vec(side).expect("sides serialise"))
            .collect();
        let outputs = self.pool.call_each(Op::Report, inputs).await?;
        Ok(outputs
            .into_iter()
            .map(|output| output.and_then(|bytes| read("layout report", &bytes)))
            .collect())
    }

    /// A side drawn as PNG. The sandbox draws (it reads the untrusted templates, texts and
    /// images); its pixels are encoded natively, where they lie in its memory: encoding is
    /// plain arithmetic on a bounded buffer, and twice as fast as in wasm.
    pub async fn draw_png(
        &self,
        request: &RenderHeaderInput,
        images: &[(&str, ImageInput<'_>)],
    ) -> Result<Vec<u8>, EngineCallError> {
        let encode = |drawn: &[u8]| {
            let (_, pixels) = read_drawn(drawn)?;
            pixels.encode_png().map_err(EngineError::Raster)
        };
        self.pool
            .call_with(Op::Draw, render_frame(request, images), encode)
            .await?
            .map_err(|e| EngineCallError::Unreadable(format!("the drawn side: {e}")))
    }

    /// An uploaded file checked, with its renditions.
    pub async fn ingest(
        &self,
        request: &IngestRequest,
        file: &[u8],
    ) -> Result<Ingested, EngineCallError> {
        let output = self
            .pool
            .call(Op::Ingest, ingest_frame(request, file))
            .await?;
        read_ingested(&output).map_err(|e| EngineCallError::Unreadable(format!("ingest: {e}")))
    }
}
