//! The wall clock, read in one place: records keep times as seconds or milliseconds since
//! 1970 (UTC).

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, in milliseconds since 1970.
pub fn unix_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Now, in whole seconds since 1970.
pub fn unix_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
