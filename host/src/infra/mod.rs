//! What the domain runs on: the store, the engine's sandbox, the built-in fonts and
//! templates, the deployment's secret key and outbound fetches. Nothing here knows a pack
//! from a customer beyond the record kinds it stores.

pub mod clock;
pub mod compress;
pub mod engine;
pub mod fetch;
pub mod fonts;
pub mod mail;
pub mod process;
pub mod queue;
pub mod secrets;
pub mod settings;
pub mod shares;
pub mod store;
pub mod templates;
pub mod zip;
