//! Presspack's engine: the print-pack model shared by the host and the browser, and (in later
//! stages) the layout, rendering and text measurement built on it.
//!
//! The crate is pure: no I/O, no threads, no clock. Everything it needs arrives as values, so
//! the same code runs natively, in the browser and under the host's wasm runtime.

pub mod model;
pub mod text;
