//! The image operations' settings, URL fetcher and upload permits.

use std::net::IpAddr;
use std::time::Duration;

use presspack_engine::ingest::IngestRequest;
use presspack_engine::model::PreflightLimits;
use presspack_engine::press::colour::InkSettings;
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::domain::error::{DomainError, ErrorCode};
use crate::infra::fetch::{FetchError, FetchPolicy, Fetcher};
use crate::infra::settings;
use crate::infra::shares::{Share, Shares};

/// How long an image request waits for a permit before it is told the server is busy.
const PERMIT_WAIT: Duration = Duration::from_secs(30);
/// The image operations' settings, URL fetcher and upload permits.
pub struct ImageService {
    settings: ImageSettings,
    fetcher: Fetcher,
    uploads: Semaphore,
    /// The upload permits each holder has.
    shares: Shares,
    /// An engine instance's memory limit, which decoding an image must fit in.
    engine_memory_bytes: usize,
}

/// A permit to read a large body (held until the request is answered).
pub struct UploadPermit<'a> {
    _permit: SemaphorePermit<'a>,
    _share: Option<Share<'a>>,
}

/// What an engine instance holds besides the image it is checking: fonts, templates, its
/// caches, its code's own allocations.
const ENGINE_RESIDENT_BYTES: usize = 96 << 20;

impl ImageService {
    pub fn new(
        settings: &ImageSettings,
        engine_memory_bytes: usize,
    ) -> Result<ImageService, String> {
        let policy = FetchPolicy {
            allow_hosts: settings.import_allow_hosts.clone(),
            resolve: settings.import_resolve.clone(),
            timeout: settings.import_timeout,
            max_bytes: settings.max_upload_bytes,
        };
        Ok(ImageService {
            settings: settings.clone(),
            fetcher: Fetcher::new(policy).map_err(|e| e.to_string())?,
            uploads: Semaphore::new(settings.concurrent_uploads),
            shares: Shares::new(settings.concurrent_uploads / 2),
            engine_memory_bytes,
        })
    }

    /// The largest body an image request may send: the largest file in base64 (importImage's
    /// `bytes`), plus room for the other parameters.
    pub fn max_body_bytes(&self) -> usize {
        self.settings.max_upload_bytes.div_ceil(3) * 4 + 1024 * 1024
    }

    /// One of the few permits to read a large body, waiting a while for one. `holder` (a
    /// client network, or an API key) holds at most half of them at once, so one client
    /// cannot hold them all (a slow body on every connection it opens, each just fast enough
    /// for the server's pace check).
    pub async fn upload_permit(
        &self,
        holder: Option<String>,
    ) -> Result<UploadPermit<'_>, DomainError> {
        let busy = || {
            DomainError::new(
                ErrorCode::ServerBusy,
                format!(
                    "the server is handling {} large requests (image uploads) already, or \
                     half of them for this client; try again shortly",
                    self.settings.concurrent_uploads
                ),
            )
        };
        let deadline = tokio::time::Instant::now() + PERMIT_WAIT;
        let share = match holder {
            Some(holder) => {
                Some((self.shares.take(&[holder], Some(deadline)).await).ok_or_else(busy)?)
            }
            None => None,
        };
        let permit = tokio::time::timeout_at(deadline, self.uploads.acquire())
            .await
            .map_err(|_| busy())?
            .map_err(|_| busy())?;
        Ok(UploadPermit {
            _permit: permit,
            _share: share,
        })
    }

    pub fn settings(&self) -> &ImageSettings {
        &self.settings
    }

    /// The file at `url`, fetched under the import policy.
    pub async fn fetch(&self, url: &str) -> Result<Vec<u8>, DomainError> {
        self.fetcher.fetch(url).await.map_err(fetch_error)
    }

    /// The limits for checking a file of `file_len` bytes, which itself sits in the
    /// instance's memory twice (the call's input and the decoder's view of it).
    pub fn ingest_request(&self, file_len: usize) -> IngestRequest {
        let decode_bytes = self
            .engine_memory_bytes
            .saturating_sub(ENGINE_RESIDENT_BYTES + 2 * file_len);
        IngestRequest {
            max_pixels: self.settings.max_pixels,
            max_side: self.settings.max_side,
            min_jpeg_quality: self.settings.min_jpeg_quality,
            max_decode_bytes: decode_bytes as u64,
        }
    }
}

fn fetch_error(error: FetchError) -> DomainError {
    if let Some(address) = error.refused_address() {
        tracing::warn!(%address, "importImage: refused an address that is not public");
    }
    let code = match error.code() {
        "invalid_url" | "scheme_not_allowed" | "address_not_public" => {
            ErrorCode::ImageAddressNotAllowed
        }
        _ => ErrorCode::ImageFetchFailed,
    };
    DomainError::new(code, error.to_string())
}

/// Limits and rules of uploadImage and importImage (the configuration's image settings).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(default)]
pub struct ImageSettings {
    /// Largest image file accepted, uploaded, in `bytes` or fetched.
    #[serde(deserialize_with = "settings::count::<_, _, 1024, 1_073_741_824>")]
    pub max_upload_bytes: usize,
    /// Largest image in pixels (width x height), checked from its header before decoding.
    #[serde(
        rename = "max_image_pixels",
        deserialize_with = "settings::count::<_, _, 1, 400_000_000>"
    )]
    pub max_pixels: u64,
    /// Largest width or height in pixels.
    #[serde(
        rename = "max_image_side",
        deserialize_with = "settings::count::<_, _, 1, 65_535>"
    )]
    pub max_side: u32,
    /// JPEGs estimated below this quality are accepted with a warning.
    #[serde(deserialize_with = "settings::count::<_, _, 1, 100>")]
    pub min_jpeg_quality: u8,
    /// Image requests (large bodies) handled at once; more wait, then get `server_busy`.
    #[serde(deserialize_with = "settings::count::<_, _, 1, 256>")]
    pub concurrent_uploads: usize,
    /// Time limit of checking an image and making its renditions in the engine.
    #[serde(
        rename = "image_timeout_ms",
        deserialize_with = "settings::millis::<_, 100, 600_000>"
    )]
    pub ingest_timeout: Duration,
    /// Time limit of fetching an `imageUrl`, redirects included.
    #[serde(
        rename = "import_timeout_ms",
        deserialize_with = "settings::millis::<_, 100, 600_000>"
    )]
    pub import_timeout: Duration,
    /// Hosts importImage may fetch from even though they resolve to non-public addresses.
    #[serde(deserialize_with = "settings::hosts")]
    pub import_allow_hosts: Vec<String>,
    /// How long an image nothing refers to is kept after its last upload.
    #[serde(
        rename = "image_retention_hours",
        deserialize_with = "settings::hours::<_, 1, 100_000>"
    )]
    pub retention: Duration,
    /// Fixed addresses for host names (like curl's --resolve), still checked unless allowed.
    #[serde(deserialize_with = "settings::host_addresses")]
    pub import_resolve: Vec<(String, IpAddr)>,
    /// Press-file preflight: an image printed at fewer dots per inch is a warning.
    #[serde(deserialize_with = "settings::count::<_, _, 1, 2400>")]
    pub press_warn_dpi: u32,
    /// Press-file preflight: an image printed at fewer dots per inch blocks the page (at
    /// most `press_warn_dpi`).
    #[serde(deserialize_with = "settings::count::<_, _, 0, 2400>")]
    pub press_block_dpi: u32,
    /// An ICC output profile (a file) of the printing condition press files are made for,
    /// instead of the built-in FOGRA39; read and checked at start-up.
    pub press_profile: Option<std::path::PathBuf>,
    /// That condition's name as press files give it (`OutputConditionIdentifier`).
    pub press_condition: Option<String>,
    /// The `press_profile` file's bytes, as start-up read and checked them.
    #[serde(skip)]
    pub press_profile_bytes: Option<std::sync::Arc<[u8]>>,
    /// The most ink (C + M + Y + K, percent) a press file prints any colour with.
    #[serde(deserialize_with = "settings::count::<_, _, 200, 400>")]
    pub press_max_ink: u32,
    /// The inks (`C,M,Y,K` percent) a large area of pure black is printed with, or `off`
    /// for black ink alone.
    #[serde(deserialize_with = "settings::some_inks")]
    pub press_rich_black: Option<[f64; 4]>,
}

impl ImageSettings {
    /// The resolutions preflight warns and blocks at. The pack warnings judge pictures by the
    /// same, so what a press file would block cannot be ordered.
    pub fn preflight_limits(&self) -> PreflightLimits {
        PreflightLimits {
            warn_dpi: f64::from(self.press_warn_dpi),
            block_dpi: f64::from(self.press_block_dpi),
        }
    }

    /// How press files ink their colours.
    pub fn ink_settings(&self) -> InkSettings {
        InkSettings {
            max_ink: f64::from(self.press_max_ink),
            rich_black: self.press_rich_black,
        }
    }
}

impl Default for ImageSettings {
    fn default() -> Self {
        ImageSettings {
            max_upload_bytes: 50 * 1000 * 1000,
            // As pict-rs (40 MP) and imgproxy's default order: a photo from any camera, not a
            // decompression bomb.
            max_pixels: 40_000_000,
            max_side: 20_000,
            min_jpeg_quality: 75,
            concurrent_uploads: 4,
            ingest_timeout: Duration::from_secs(60),
            import_timeout: Duration::from_secs(20),
            import_allow_hosts: Vec::new(),
            import_resolve: Vec::new(),
            retention: Duration::from_secs(7 * 24 * 60 * 60),
            press_warn_dpi: 300,
            press_block_dpi: 150,
            press_profile: None,
            press_condition: None,
            press_profile_bytes: None,
            press_max_ink: InkSettings::default().max_ink as u32,
            press_rich_black: InkSettings::default().rich_black,
        }
    }
}
