//! The image store's operations: `svc.image.uploadImage` and `svc.image.importImage`.

pub mod fetch;
