//! Ingest: what an uploaded or imported image is, whether it is acceptable, and its renditions.

#[cfg(feature = "pdf")]
pub mod pdf;
