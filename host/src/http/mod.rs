//! The HTTP edge: the RPC endpoint, the customer pages, the shop's console, and the server that
//! carries them.
//! Domain errors become API replies and pages here, and only here.

pub mod admin;
pub mod auth;
mod blobs;
pub mod client;
pub mod metrics;
pub mod observe;
pub mod pages;
pub mod router;
pub mod rpc;
pub mod serve;
pub mod state;

pub use blobs::blob_response;
