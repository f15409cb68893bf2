//! Presspack's host: the Print Product Pack API over HTTP, its storage, and the operator CLI.
//!
//! Layers, each using only those below it (checked by `host/tests/layers.rs`):
//! - [`app`], [`cli`] and [`config`]: start-up, the routes and the command line; they see
//!   everything.
//! - [`http`]: the RPC endpoint, the customer pages and what serves them.
//! - [`domain`]: packs, images, customers, carts, orders and their rules, with one error type.
//! - [`infra`]: the store, the engine's sandbox, fonts and templates, outbound fetches.

pub mod app;
pub mod cli;
pub mod config;
pub mod domain;
pub mod http;
pub mod infra;
