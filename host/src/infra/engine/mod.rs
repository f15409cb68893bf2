//! The engine, as the service calls it: [`EngineClient`] asks with typed requests and gets
//! typed answers; [`pool`] runs the engine's wasm module under wasmtime and carries the calls
//! as bytes ([`presspack_engine::wire`] frames).

pub mod holders;
pub mod pool;

use std::sync::Arc;
use std::time::Duration;

use presspack_engine::ingest::{IngestRequest, Ingested};
use presspack_engine::layout::LayoutReport;
use presspack_engine::model::Side;
use presspack_engine::paperwork::Paper;
use presspack_engine::press::{PressOptions, PressReport};
use presspack_engine::render::{EngineError, ImageInput, MeasureRequest, Measurement};
use presspack_engine::wire::{
    Op, PressPageInput, RenderHeaderInput, ingest_frame, paperwork_frame, press_frame, read_drawn,
    read_ingested, read_pressed, render_frame,
};
use serde::de::DeserializeOwned;

pub use pool::{EngineCallError, EngineHost, EngineLimits, EngineSetup, EngineUsage, engine_wasm};

/// The engine's operations with typed requests and answers, on the sandboxed pool.
#[derive(Clone)]
pub struct EngineClient {
    pool: tokio::sync::watch::Receiver<Starting>,
}

/// Where the pool is: a server listens at once and starts the engine meanwhile (compiling it
/// takes seconds on the first start of a build).
#[derive(Clone)]
pub enum Starting {
    Pending,
    Ready(Arc<EngineHost>),
    Failed(String),
}

/// How long a call waits for an engine that is still starting: longer than a first compile.
const START_WAIT: Duration = Duration::from_secs(120);

/// An answer of the engine read as `T`; one that cannot be read is the engine's failure.
fn read<T: DeserializeOwned>(what: &str, output: &[u8]) -> Result<T, EngineCallError> {
    serde_json::from_slice(output).map_err(|e| EngineCallError::Unreadable(format!("{what}: {e}")))
}

impl EngineClient {
    /// A client of a started pool.
    pub fn new(pool: Arc<EngineHost>) -> EngineClient {
        EngineClient {
            pool: tokio::sync::watch::channel(Starting::Ready(pool)).1,
        }
    }

    /// Starts the pool with `start` on a blocking thread and answers at once; calls wait for
    /// the pool (up to [`START_WAIT`]), and a failed start fails them with its reason.
    pub fn start_in_background(
        start: impl FnOnce() -> Result<Arc<EngineHost>, EngineCallError> + Send + 'static,
    ) -> EngineClient {
        let (started, pool) = tokio::sync::watch::channel(Starting::Pending);
        tokio::task::spawn_blocking(move || {
            let state = match start() {
                Ok(pool) => Starting::Ready(pool),
                Err(error) => Starting::Failed(error.to_string()),
            };
            let ready = matches!(state, Starting::Ready(_));
            let failure = match &state {
                Starting::Failed(reason) => reason.clone(),
                _ => String::new(),
            };
            // The state is set before it is logged: whoever reads the line finds it so.
            let _ = started.send(state);
            if ready {
                tracing::info!("the engine is ready");
            } else {
                tracing::error!(%failure, "the engine could not start; renders and uploads fail");
            }
        });
        EngineClient { pool }
    }

    /// Where the pool is now (readiness).
    pub fn state(&self) -> Starting {
        self.pool.borrow().clone()
    }

    /// What the pool is doing now; nothing while starting.
    pub fn usage(&self) -> EngineUsage {
        match &*self.pool.borrow() {
            Starting::Ready(pool) => pool.usage(),
            _ => EngineUsage::default(),
        }
    }

    /// Waits until the engine has started (or failed to).
    pub async fn started(&self) -> Result<(), EngineCallError> {
        self.pool().await.map(drop)
    }

    /// The pool, once started.
    async fn pool(&self) -> Result<Arc<EngineHost>, EngineCallError> {
        let mut pool = self.pool.clone();
        let started = tokio::time::timeout(
            START_WAIT,
            pool.wait_for(|state| !matches!(state, Starting::Pending)),
        )
        .await;
        let stopped = || EngineCallError::Setup("the engine's start stopped".into());
        match started {
            Err(_) => Err(EngineCallError::Setup(format!(
                "the engine is still starting after {} s",
                START_WAIT.as_secs()
            ))),
            Ok(Err(_)) => Err(stopped()),
            Ok(Ok(state)) => match &*state {
                Starting::Ready(pool) => Ok(Arc::clone(pool)),
                Starting::Failed(reason) => Err(EngineCallError::Setup(reason.clone())),
                Starting::Pending => Err(stopped()),
            },
        }
    }

    /// A text's size once set (`svc.text.measure`).
    pub async fn measure(&self, request: &MeasureRequest) -> Result<Measurement, EngineCallError> {
        let input = serde_json::to_vec(request).expect("requests serialise");
        read(
            "measurement",
            &self.pool().await?.call(Op::Measure, input).await?,
        )
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
        let outputs = self.pool().await?.call_each(Op::Report, inputs).await?;
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
        self.pool()
            .await?
            .call_with(Op::Draw, render_frame(request, images), encode)
            .await?
            .map_err(|e| EngineCallError::Unreadable(format!("the drawn side: {e}")))
    }

    /// A press file (PDF) of `pages` with its preflight report. `images` are the print
    /// renditions of every image the pages draw.
    pub async fn press(
        &self,
        pages: &[PressPageInput],
        options: &PressOptions,
        images: &[(&str, ImageInput<'_>)],
        profile: Option<&[u8]>,
    ) -> Result<(PressReport, Vec<u8>), EngineCallError> {
        let output = self
            .pool()
            .await?
            .call(Op::Press, press_frame(pages, options, images, profile))
            .await?;
        read_pressed(&output).map_err(|e| EngineCallError::Unreadable(format!("press file: {e}")))
    }

    /// `paper` as a PDF; `images` holds every picture it shows (PNG or JPEG).
    pub async fn paperwork(
        &self,
        paper: &Paper,
        images: &[(&str, ImageInput<'_>)],
    ) -> Result<Vec<u8>, EngineCallError> {
        self.pool()
            .await?
            .call(Op::Paperwork, paperwork_frame(paper, images))
            .await
    }

    /// An uploaded file checked, with its renditions.
    pub async fn ingest(
        &self,
        request: &IngestRequest,
        file: &[u8],
    ) -> Result<Ingested, EngineCallError> {
        let output = self
            .pool()
            .await?
            .call(Op::Ingest, ingest_frame(request, file))
            .await?;
        read_ingested(&output).map_err(|e| EngineCallError::Unreadable(format!("ingest: {e}")))
    }
}
