//! Fetching an image for importImage from a public address only (being written).
