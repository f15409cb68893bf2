//! PDF pages as images (being written).
