//! The engine's wasm builds, made by this crate's build script from `engine/`, gzipped.

/// The plain module (features `guest,pdf`) the host runs under wasmtime, gzipped.
pub const GUEST_WASM_GZIP: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/presspack_engine.wasm.gz"));

/// The browser build's wasm (feature `web`, through wasm-bindgen), gzipped.
pub const WEB_WASM_GZIP: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/web/presspack_engine_bg.wasm.gz"));

/// The browser build's wasm-bindgen glue (`presspack_engine.js`).
pub const WEB_GLUE: &str = include_str!(concat!(env!("OUT_DIR"), "/web/presspack_engine.js"));
