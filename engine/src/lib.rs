//! Presspack's engine: the print-pack model shared by the host and the browser, and the
//! pipeline that turns a template and a side into pixels and measurements:
//! parse ([`model`]) -> lay out ([`layout`], with [`text`]) -> draw ([`raster`]), or write a
//! press file ([`press`]: preflight and PDF/X-4 from the same scene), or an order's
//! [`paperwork`] (job ticket, invoice) with the press file's PDF writer.
//! [`render`] is the typed entry point; [`images`] says which stored renditions a render
//! draws; [`wire`] is the format that carries the same calls as bytes for the wasm builds and
//! [`dispatch`] runs them (`guest` for wasmtime, `web` for browsers); [`package`] is the file
//! layout of the npm package.
//!
//! The crate is pure: no I/O, no threads, no clock. Everything it needs arrives as values, so
//! the same code runs natively, in the browser and under the host's wasm runtime, and gives
//! the same bytes everywhere.

pub mod dispatch;
pub mod failure;
pub mod images;
pub mod ingest;
pub mod layout;
pub mod model;
pub mod package;
pub mod paperwork;
pub mod press;
pub mod qr;
pub mod raster;
pub mod render;
pub mod text;
pub mod wire;

#[cfg(feature = "guest")]
pub mod guest;

#[cfg(feature = "web")]
pub mod web;
