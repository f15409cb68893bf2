//! The process's own use of the machine, read from `/proc` (Linux), for the `process_*`
//! metrics every Prometheus client library exports under the same names.

/// One reading; `None` where `/proc` is not there or says something unexpected.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProcessStats {
    /// User and system CPU time.
    pub cpu_seconds: f64,
    pub resident_bytes: u64,
    pub virtual_bytes: u64,
    pub threads: u64,
    pub open_fds: u64,
    pub max_fds: u64,
    /// When the process started, in seconds since 1970.
    pub start_time_seconds: f64,
}

/// `/proc` counts CPU time and start time in USER_HZ ticks, which Linux fixes at 100 a second
/// for this interface.
const TICKS_PER_SECOND: f64 = 100.0;

pub fn read() -> Option<ProcessStats> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: split after it, so
    // the first field left is field 3.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib = |name: &str| {
        let line = status.lines().find_map(|line| line.strip_prefix(name))?;
        let value = line.trim_start_matches(':').split_whitespace().next()?;
        value.parse::<u64>().ok().map(|kib| kib * 1024)
    };
    let boot_time = std::fs::read_to_string("/proc/stat")
        .ok()?
        .lines()
        .find_map(|line| line.strip_prefix("btime "))?
        .trim()
        .parse::<u64>()
        .ok()?;
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let max_fds = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))?
        .split_whitespace()
        .nth(3)?
        .parse()
        .ok()?;
    Some(ProcessStats {
        cpu_seconds: (field(14)? + field(15)?) as f64 / TICKS_PER_SECOND,
        resident_bytes: kib("VmRSS")?,
        virtual_bytes: kib("VmSize")?,
        threads: field(20)?,
        open_fds: std::fs::read_dir("/proc/self/fd").ok()?.count() as u64,
        max_fds,
        start_time_seconds: boot_time as f64 + field(22)? as f64 / TICKS_PER_SECOND,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_read() {
        let before = read().expect("/proc is there");
        // Spend some CPU and hold a file open: both readings must see it.
        let file = std::fs::File::open("/proc/self/stat").unwrap();
        let spin = std::time::Instant::now();
        let mut x = 0u64;
        while spin.elapsed() < std::time::Duration::from_millis(50) {
            x = x.wrapping_mul(31).wrapping_add(1);
        }
        std::hint::black_box(x);
        let after = read().unwrap();
        assert!(
            after.cpu_seconds > before.cpu_seconds,
            "{before:?} {after:?}"
        );
        assert!(
            after.open_fds >= 1 && after.open_fds <= after.max_fds,
            "{after:?}"
        );
        assert!(after.resident_bytes > 1 << 20 && after.virtual_bytes >= after.resident_bytes);
        assert!(after.threads >= 1);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        assert!(after.start_time_seconds <= now + 1.0, "{after:?}");
        assert!(
            after.start_time_seconds > now - 24.0 * 60.0 * 60.0,
            "{after:?}"
        );
        drop(file);
    }
}
