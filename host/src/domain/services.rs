//! The handles every domain operation may use.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

use presspack_engine::model::Catalogue;

use crate::domain::brand::Brand;
use crate::domain::customers::PasswordHashing;
use crate::domain::images::service::ImageService;
use crate::domain::orders::invoice_settings::InvoiceSettings;
use crate::domain::orders::record::PaymentProvider;
use crate::domain::prices::PriceList;
use crate::infra::clock::Clock;
use crate::infra::engine::EngineClient;
use crate::infra::mail::Mailer;
use crate::infra::secrets::SecretKey;
use crate::infra::shares::Shares;
use crate::infra::store::{SharedBlobs, SharedStore};
use crate::infra::templates::Templates;

/// What the domain's operations work with: the records and files, the engine, the built-in
/// data, and the services that hold settings (images, prices, payment).
pub struct Services {
    pub store: SharedStore,
    /// Image files and renditions.
    pub blobs: SharedBlobs,
    pub catalogue: &'static Catalogue,
    /// The engine's wasm module under wasmtime: every render and measurement.
    pub engine: EngineClient,
    pub templates: Arc<Templates>,
    pub images: ImageService,
    pub prices: PriceList,
    pub payment: Box<dyn PaymentProvider>,
    pub passwords: PasswordHashing,
    /// The deployment's MAC key (CSRF tokens, device cookies, image ids).
    pub secret_key: SecretKey,
    /// Public base URL without a trailing slash; addresses given out start with it.
    pub base_url: String,
    /// How long the press-file addresses of an order's webhooks work.
    pub press_file_link: Duration,
    pub wake: Wakers,
    /// The SMTP server for e-mail to customers, if one is configured.
    pub mailer: Mailer,
    /// The shop's name, colour, logo and footer: the brand of its pages and e-mail.
    pub brand: Arc<Brand>,
    /// The shop's address, VAT and invoice numbers, as its invoices print them.
    pub invoicing: InvoiceSettings,
    /// One maker of each ordered proof at a time in this process (by proof id): the requests
    /// that arrive meanwhile wait for it and read what it stored.
    pub proof_makers: Shares,
    /// The time, as this server reads it (tests move it forward).
    pub clock: Clock,
}

/// Wakes this process's background workers when work is queued (other processes find it
/// when they next look).
#[derive(Default)]
pub struct Wakers {
    pub webhooks: Arc<Notify>,
    pub press_files: Arc<Notify>,
    pub mail: Arc<Notify>,
}
