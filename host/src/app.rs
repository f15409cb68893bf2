//! Building and running the HTTP service: opens the store, starts the engine, builds the
//! state and the routes, and runs the server and its background tasks. The only module that
//! sees every layer.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use presspack_engine::model::Catalogue;
use tokio::net::TcpListener;

use crate::config::{BlobStoreKind, Config};
use crate::domain::brand::Brand;
use crate::domain::customers::PasswordHashing;
use crate::domain::images::service::ImageService;
use crate::domain::mail::Mails;
use crate::domain::orders::InvoicePayment;
use crate::domain::orders::press_files::PressFileJobs;
use crate::domain::prices::PriceList;
use crate::domain::services::Services;
use crate::domain::services::Wakers;
use crate::domain::webhooks::Webhooks;
use crate::http::auth::oauth::SignatureCheck;
use crate::http::metrics::Metrics;
use crate::http::pages::settings::{CookiePolicy, SignInLimits};
use crate::http::serve;
use crate::http::state::AppState;
use crate::infra::engine::{EngineCallError, EngineClient, EngineHost, EngineSetup, engine_wasm};
use crate::infra::fonts::{Fonts, FontsError};
use crate::infra::mail::Mailer;
use crate::infra::queue;
use crate::infra::secrets::SecretKey;
use crate::infra::store::{
    CachedBlobs, DirectoryBlobs, RedisStore, S3Blobs, SharedBlobs, SharedStore, SqliteStore,
    StoreError,
};
use crate::infra::templates::{Templates, TemplatesError};

/// Opens the store the configuration names: Redis if `redis_url` is set, else the embedded
/// SQLite files in the data directory.
pub async fn open_store(config: &Config) -> Result<SharedStore, StoreError> {
    let store = &config.store;
    Ok(match &store.redis_url {
        Some(url) => {
            Arc::new(RedisStore::connect(url, &store.redis_key_prefix, store.redis_cluster).await?)
        }
        None => Arc::new(SqliteStore::open(&config.service.data_dir)?),
    })
}

/// Opens the blob store `blob_store` names; by default the one beside the records: Redis
/// when the store is Redis (every host process sees every image), else the `blobs`
/// directory under the data directory.
pub async fn open_blobs(config: &Config) -> Result<SharedBlobs, StoreError> {
    let store = &config.store;
    let kind = store.blob_store.clone().unwrap_or(match store.redis_url {
        Some(_) => BlobStoreKind::Redis,
        None => BlobStoreKind::Directory,
    });
    Ok(match (kind, &store.redis_url) {
        (BlobStoreKind::S3(location), _) => {
            let s3: SharedBlobs = Arc::new(S3Blobs::open(&location, &config.s3).await?);
            match config.s3.cache_bytes {
                0 => s3,
                limit => Arc::new(CachedBlobs::new(s3, limit)),
            }
        }
        (BlobStoreKind::Redis, Some(url)) => {
            Arc::new(RedisStore::connect(url, &store.redis_key_prefix, store.redis_cluster).await?)
        }
        (BlobStoreKind::Redis, None) => {
            return Err(StoreError::unavailable(
                "blob_store = redis needs redis_url".to_owned(),
            ));
        }
        (BlobStoreKind::Directory, _) => Arc::new(DirectoryBlobs::open(
            &config.service.data_dir.join("blobs"),
        )?),
    })
}

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("store: {0}")]
    Store(#[from] StoreError),
    #[error(transparent)]
    Fonts(#[from] FontsError),
    #[error(transparent)]
    Templates(#[from] TemplatesError),
    #[error("engine: {0}")]
    Engine(#[from] EngineCallError),
    #[error("images: {0}")]
    Images(String),
    #[error("prices: {0}")]
    Prices(String),
    #[error("webhooks: {0}")]
    Webhooks(String),
    #[error("mail: {0}")]
    Mail(String),
    #[error("brand: {0}")]
    Brand(String),
    #[error("cannot listen on {address} (PRESSPACK_LISTEN): {source}")]
    Listen {
        address: SocketAddr,
        source: std::io::Error,
    },
}

/// A server bound to its port, ready to run.
pub struct Application {
    listener: TcpListener,
    router: Router,
    /// `/metrics` on its own listener, when the configuration gives one.
    metrics: Option<(TcpListener, Router)>,
    limits: serve::ServerLimits,
    /// Whether to register the starter designs the store lacks.
    starter_designs: bool,
    state: Arc<AppState>,
    /// What the webhook worker sends with.
    webhooks: Arc<Webhooks>,
}

impl Application {
    pub async fn build(config: &Config) -> Result<Application, StartupError> {
        Application::build_with(config, SignatureCheck::Verify).await
    }

    /// A server that trusts `oauth_consumer_key` without checking signatures: the
    /// benchmark's baseline for what verification costs. Never reachable from configuration.
    pub async fn build_for_benchmark(config: &Config) -> Result<Application, StartupError> {
        Application::build_with(config, SignatureCheck::TrustConsumerKey).await
    }

    async fn build_with(
        config: &Config,
        signature_check: SignatureCheck,
    ) -> Result<Application, StartupError> {
        let store = open_store(config).await?;
        store.prepare_to_serve().await?;
        let listen = config.service.listen;
        let listener = TcpListener::bind(listen)
            .await
            .map_err(|source| StartupError::Listen {
                address: listen,
                source,
            })?;
        let address = listener
            .local_addr()
            .map_err(|source| StartupError::Listen {
                address: listen,
                source,
            })?;
        let (services, fonts) = open_services(config, store, address).await?;
        let webhooks = Webhooks::new(config.webhooks.clone()).map_err(StartupError::Webhooks)?;
        let state = Arc::new(AppState {
            cookies: CookiePolicy::for_base_url(
                &services.base_url,
                !services.brand.edit_frame_ancestors.is_empty(),
            ),
            services,
            sign_in_limits: SignInLimits::default(),
            edge: config.edge.clone(),
            unsigned_limits: config.unsigned_limits,
            signature_check,
            fonts,
            metrics: Metrics::default(),
            static_files: Arc::default(),
        });
        let (router, metrics_router) =
            crate::http::router::router(&state, config.service.metrics_listen.is_some());
        let metrics = match (config.service.metrics_listen, metrics_router) {
            (Some(address), Some(metrics_router)) => {
                let listener = TcpListener::bind(address)
                    .await
                    .map_err(|source| StartupError::Listen { address, source })?;
                Some((listener, metrics_router))
            }
            _ => None,
        };
        Ok(Application {
            listener,
            router,
            metrics,
            limits: config.server,
            starter_designs: config.service.starter_designs,
            state,
            webhooks: Arc::new(webhooks),
        })
    }

    /// Where `/metrics` is served when it has its own listener.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics
            .as_ref()
            .and_then(|(listener, _)| listener.local_addr().ok())
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    pub fn base_url(&self) -> &str {
        &self.state.services.base_url
    }

    /// The engine, which starts in the background (see [`EngineClient::started`]).
    pub fn engine(&self) -> EngineClient {
        self.state.services.engine.clone()
    }

    /// The server's clock (a copy: moving it forward moves the server's).
    pub fn clock(&self) -> crate::infra::clock::Clock {
        self.state.services.clock.clone()
    }

    pub fn store_description(&self) -> String {
        self.state.services.store.describe()
    }

    /// Serves (and runs the background jobs: webhooks, press files, e-mail, the image sweep) until
    /// `shutdown` completes, then finishes the requests and job attempts in flight.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let (stop, stopped) = tokio::sync::watch::channel(false);
        tokio::task::spawn_blocking(crate::http::pages::canvas::prepare_engine_wasm);
        let starters = self.starter_designs.then(|| {
            tokio::spawn(register_starters(
                Arc::clone(&self.state.services),
                stopped.clone(),
            ))
        });
        let sweeper = tokio::spawn(run_sweeps(
            Arc::clone(&self.state.services),
            stopped.clone(),
        ));
        let workers = [
            tokio::spawn(queue::run_worker(
                Arc::clone(&self.state.services.store),
                self.webhooks,
                Arc::clone(&self.state.services.wake.webhooks),
                stopped.clone(),
            )),
            tokio::spawn(queue::run_worker(
                Arc::clone(&self.state.services.store),
                Arc::new(PressFileJobs(Arc::clone(&self.state.services))),
                Arc::clone(&self.state.services.wake.press_files),
                stopped.clone(),
            )),
            tokio::spawn(queue::run_worker(
                Arc::clone(&self.state.services.store),
                Arc::new(Mails(Arc::clone(&self.state.services))),
                Arc::clone(&self.state.services.wake.mail),
                stopped,
            )),
        ];
        let metrics = self.metrics.map(|(listener, router)| {
            let mut stopped = stop.subscribe();
            tokio::spawn(serve::serve(listener, router, self.limits, async move {
                let _ = stopped.wait_for(|stop| *stop).await;
            }))
        });
        let served = serve::serve(self.listener, self.router, self.limits, shutdown).await;
        // Let a job attempt under way finish (each is time-limited), then stop.
        let _ = stop.send(true);
        for worker in workers {
            let _ = worker.await;
        }
        let _ = sweeper.await;
        if let Some(starters) = starters {
            let _ = starters.await;
        }
        if let Some(metrics) = metrics {
            let _ = metrics.await;
        }
        served
    }
}

/// The engine with what it starts with.
struct StartedEngine {
    engine: EngineClient,
    templates: Arc<Templates>,
    fonts: Arc<Fonts>,
}

/// Loads fonts and templates (a broken one stops start-up, named) and starts the engine's
/// instances with them in the background: compiling the module takes seconds on the first
/// start of a build, and the server listens meanwhile (calls wait for the engine; `/readyz`
/// says it is starting).
/// The domain's services on `store` as `config` gives them, the engine starting in the
/// background, and the fonts it was given: a server's (listening on `address`), or an
/// operator command's that needs the engine (`orders ask-artwork`).
pub async fn open_services(
    config: &Config,
    store: SharedStore,
    address: SocketAddr,
) -> Result<(Arc<Services>, Arc<Fonts>), StartupError> {
    let secret_key = SecretKey::load_or_create(store.as_ref()).await?;
    let blobs = open_blobs(config).await?;
    let images = ImageService::new(&config.images, config.engine.memory_bytes)
        .map_err(StartupError::Images)?;
    let engine = start_engine(config)?;
    let prices = PriceList::load(config.service.prices_file.as_deref(), Catalogue::builtin())
        .map_err(StartupError::Prices)?;
    let base_url = config
        .service
        .base_url
        .clone()
        .unwrap_or_else(|| format!("http://{address}"));
    let services = Arc::new(Services {
        store,
        blobs,
        images,
        catalogue: Catalogue::builtin(),
        prices,
        payment: Box::new(InvoicePayment),
        passwords: PasswordHashing::new(config.engine.instances.max(2)),
        secret_key,
        base_url,
        press_file_link: config.webhooks.press_file_link,
        wake: Wakers::default(),
        mailer: Mailer::new(&config.mail).map_err(StartupError::Mail)?,
        brand: Arc::new(Brand::load(&config.brand).map_err(StartupError::Brand)?),
        invoicing: config.invoicing.clone(),
        engine: engine.engine,
        templates: engine.templates,
        proof_makers: crate::infra::shares::Shares::new(1),
        clock: crate::infra::clock::Clock::default(),
    });
    Ok((services, engine.fonts))
}

fn start_engine(config: &Config) -> Result<StartedEngine, StartupError> {
    let files = &config.service;
    let fonts = Fonts::load(files.fonts_dir.as_deref())?;
    let templates = Arc::new(Templates::load(files.templates_dir.as_deref())?);
    let setup = EngineSetup {
        init_frame: Arc::new(fonts.init_frame()),
        templates: Arc::new(templates.documents()),
    };
    let limits = config.engine.clone();
    let cache_dir = files
        .engine_cache_dir
        .clone()
        .unwrap_or_else(|| files.data_dir.join("engine-cache"));
    let engine = EngineClient::start_in_background(move || {
        EngineHost::start(&engine_wasm(), Some(&cache_dir), setup, limits)
    });
    Ok(StartedEngine {
        engine,
        templates,
        fonts: Arc::new(fonts),
    })
}

/// Registers the starter designs this store lacks, in the background: a first start serves at
/// once, and the designs appear as their pictures are stored.
async fn register_starters(services: Arc<Services>, stop: tokio::sync::watch::Receiver<bool>) {
    match crate::domain::designs::register_starters(&services, || *stop.borrow()).await {
        Ok(0) => {}
        Ok(added) => tracing::info!(added, "starter designs registered"),
        Err(error) => {
            tracing::warn!(message = %error.message, "registering the starter designs failed; trying at the next start")
        }
    }
}

/// The server's sweeps, every [`SWEEP_EVERY`] until `stop` says so: unused images, and the
/// records of guests whose hold has run out.
async fn run_sweeps(services: Arc<Services>, mut stop: tokio::sync::watch::Receiver<bool>) {
    use crate::domain::images::retention::{SWEEP_EVERY, sweep};
    let (store, clock) = (services.store.as_ref(), &services.clock);
    loop {
        match sweep(store, &services.blobs, clock, 10_000).await {
            Ok(swept) if swept.images > 0 => {
                tracing::info!(images = swept.images, bytes = swept.bytes, "sweep done");
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "sweeping unused images failed; trying later"),
        }
        match crate::domain::ownership::sweep_lapsed(store, clock, 10_000).await {
            Ok(0) => {}
            Ok(guests) => tracing::info!(guests, "lapsed guests' records deleted"),
            Err(error) => tracing::warn!(%error, "sweeping lapsed guests failed; trying later"),
        }
        tokio::select! {
            () = tokio::time::sleep(SWEEP_EVERY) => {}
            _ = stop.wait_for(|stop| *stop) => return,
        }
    }
}
