//! The wall clock, read in one place: records keep times as seconds or milliseconds since
//! 1970 (UTC).
//!
//! A server reads the time through its one [`Clock`] (`Services::clock`), which tests move
//! forward to see what time does (a guest's hold running out, a link expiring) without
//! waiting, and without touching the other servers a test process runs. The stores keep
//! their own expiry times on the system clock: Redis uses its server's.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A moment for people, to the minute: "2026-11-27 09:41 UTC".
pub fn when(seconds: u64) -> String {
    match time::OffsetDateTime::from_unix_timestamp(i64::try_from(seconds).unwrap_or(0)) {
        Ok(t) => format!(
            "{}-{:02}-{:02} {:02}:{:02} UTC",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute()
        ),
        Err(_) => seconds.to_string(),
    }
}

/// The system clock, plus however far a test has moved it forward.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    ahead_millis: Arc<AtomicI64>,
}

impl Clock {
    /// Now, in milliseconds since 1970.
    pub fn unix_millis(&self) -> i64 {
        system_millis().saturating_add(self.ahead_millis.load(Ordering::Relaxed))
    }

    /// Now, in whole seconds since 1970.
    pub fn unix_seconds(&self) -> u64 {
        u64::try_from(self.unix_millis() / 1000).unwrap_or(0)
    }

    /// Moves this clock (and every copy of it) forward by `by`: for tests.
    pub fn advance(&self, by: Duration) {
        let by = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        self.ahead_millis.fetch_add(by, Ordering::Relaxed);
    }
}

/// The system clock in milliseconds since 1970: the stores' own expiry times.
pub fn system_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The system clock in whole seconds since 1970.
pub fn system_seconds() -> u64 {
    u64::try_from(system_millis() / 1000).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_moved_forward_moves_every_copy_and_no_other_clock() {
        let clock = Clock::default();
        let copy = clock.clone();
        let other = Clock::default();
        let before = clock.unix_seconds();
        clock.advance(Duration::from_secs(3600));
        assert!(copy.unix_seconds() >= before + 3600);
        assert!(other.unix_seconds() < before + 60);
        assert_eq!(copy.unix_millis() / 1000, copy.unix_seconds() as i64);
    }
}
