//! Readers of configuration values, for the `deserialize_with` of each subsystem's settings.
//!
//! Every subsystem declares its settings as a serde struct (the section) next to the code that
//! uses it; `crate::config` extracts each section from one layered source (built-in defaults,
//! then the TOML file, then `PRESSPACK_*` variables). A value may arrive typed from the file or
//! as an environment variable's text, so every reader accepts both. A refusal says what was
//! expected; the loader adds the setting's name, where it came from and the value.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use serde::de::{self, Deserializer, Visitor};

/// A scalar setting as text: environment variables are always text, the file has types.
pub fn text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    struct Text;
    impl Visitor<'_> for Text {
        type Value = String;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a number, true or false, or a string")
        }
        fn visit_str<E: de::Error>(self, value: &str) -> Result<String, E> {
            Ok(value.to_owned())
        }
        fn visit_u64<E: de::Error>(self, value: u64) -> Result<String, E> {
            Ok(value.to_string())
        }
        fn visit_i64<E: de::Error>(self, value: i64) -> Result<String, E> {
            Ok(value.to_string())
        }
        fn visit_f64<E: de::Error>(self, value: f64) -> Result<String, E> {
            Ok(value.to_string())
        }
        fn visit_bool<E: de::Error>(self, value: bool) -> Result<String, E> {
            Ok(value.to_string())
        }
    }
    deserializer.deserialize_any(Text)
}

/// Text, or `None` when it is empty (an unset variable can only be written empty).
pub fn some_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let value = text(deserializer)?;
    Ok(Some(value.trim().to_owned()).filter(|value| !value.is_empty()))
}

/// A whole number from `min` to `max`, described as `what` ("a number of bytes").
fn whole<'de, D: Deserializer<'de>>(
    deserializer: D,
    min: u64,
    max: u64,
    what: &str,
) -> Result<u64, D::Error> {
    let value = text(deserializer)?;
    value
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| de::Error::custom(format!("expected {what} from {min} to {max}")))
}

/// A count of things (bytes, pixels, calls, instances) from `MIN` to `MAX`.
pub fn count<'de, D, T, const MIN: u64, const MAX: u64>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<u64>,
{
    let n = whole(deserializer, MIN, MAX, "a whole number")?;
    T::try_from(n).map_err(|_| de::Error::custom(format!("{n} is too large for this machine")))
}

/// A [`count`], or `None` when empty.
pub fn some_count<'de, D, T, const MIN: u64, const MAX: u64>(
    deserializer: D,
) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<u64>,
{
    match some_text(deserializer)? {
        None => Ok(None),
        Some(value) => {
            count::<_, T, MIN, MAX>(de::value::StrDeserializer::<D::Error>::new(&value)).map(Some)
        }
    }
}

/// Milliseconds from `MIN` to `MAX`.
pub fn millis<'de, D: Deserializer<'de>, const MIN: u64, const MAX: u64>(
    deserializer: D,
) -> Result<Duration, D::Error> {
    whole(deserializer, MIN, MAX, "a number of milliseconds").map(Duration::from_millis)
}

/// Seconds from `MIN` to `MAX`.
pub fn seconds<'de, D: Deserializer<'de>, const MIN: u64, const MAX: u64>(
    deserializer: D,
) -> Result<Duration, D::Error> {
    whole(deserializer, MIN, MAX, "a number of seconds").map(Duration::from_secs)
}

/// Hours from `MIN` to `MAX`.
pub fn hours<'de, D: Deserializer<'de>, const MIN: u64, const MAX: u64>(
    deserializer: D,
) -> Result<Duration, D::Error> {
    whole(deserializer, MIN, MAX, "a number of hours").map(|h| Duration::from_secs(h * 60 * 60))
}

/// MiB from `MIN` to `MAX`, as bytes.
pub fn mebibytes<'de, D: Deserializer<'de>, const MIN: u64, const MAX: u64>(
    deserializer: D,
) -> Result<usize, D::Error> {
    let mib = whole(deserializer, MIN, MAX, "a number of MiB")?;
    usize::try_from(mib * 1024 * 1024)
        .map_err(|_| de::Error::custom(format!("{mib} MiB is too large for this machine")))
}

/// `true` or `false` (an environment variable's text too).
pub fn flag<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    match text(deserializer)?.as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(de::Error::custom("expected true or false")),
    }
}

fn parse_address<E: de::Error>(value: &str, example: &str) -> Result<SocketAddr, E> {
    value
        .trim()
        .parse()
        .map_err(|_| E::custom(format!("expected an address and port such as {example}")))
}

/// An address and port to listen on.
pub fn address<'de, D: Deserializer<'de>>(deserializer: D) -> Result<SocketAddr, D::Error> {
    parse_address(&text(deserializer)?, "127.0.0.1:8080")
}

/// An optional second listener's address and port (unset: none).
pub fn some_address<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<SocketAddr>, D::Error> {
    parse_address(&text(deserializer)?, "127.0.0.1:9090").map(Some)
}

fn parse_path<E: de::Error>(value: String) -> Result<PathBuf, E> {
    if value.is_empty() {
        return Err(E::custom("must not be empty"));
    }
    Ok(PathBuf::from(value))
}

/// A file or directory path, not empty.
pub fn path<'de, D: Deserializer<'de>>(deserializer: D) -> Result<PathBuf, D::Error> {
    parse_path(text(deserializer)?)
}

/// An optional file or directory path (unset: none; set: not empty).
pub fn some_path<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<PathBuf>, D::Error> {
    parse_path(text(deserializer)?).map(Some)
}

/// Comma-separated entries, blanks skipped, each read by `entry`.
pub fn list<'de, D: Deserializer<'de>, T>(
    deserializer: D,
    entry: impl Fn(&str) -> Option<T>,
    expected: &str,
) -> Result<Vec<T>, D::Error> {
    text(deserializer)?
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| entry(item).ok_or_else(|| de::Error::custom(format!("expected {expected}"))))
        .collect()
}

/// Four comma-separated inks in percent (`C,M,Y,K`, each 0 to 100), or `off`: none.
pub fn some_inks<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<[f64; 4]>, D::Error> {
    const EXPECTED: &str = "four comma-separated inks in percent (C,M,Y,K, each 0 to 100), or off";
    let value = text(deserializer)?;
    if value.trim().eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    let inks: Vec<f64> = value
        .split(',')
        .map(|ink| {
            ink.trim()
                .parse::<f64>()
                .ok()
                .filter(|ink| (0.0..=100.0).contains(ink))
        })
        .collect::<Option<_>>()
        .ok_or_else(|| de::Error::custom(format!("expected {EXPECTED}")))?;
    <[f64; 4]>::try_from(inks)
        .map(Some)
        .map_err(|_| de::Error::custom(format!("expected {EXPECTED}")))
}

/// Comma-separated host names, compared in lower case.
pub fn hosts<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    list(
        deserializer,
        |host| Some(host.to_ascii_lowercase()),
        "comma-separated host names",
    )
}

/// Comma-separated web origins, `https://host[:port]` (or `http://`): scheme and host in
/// lower case, no path.
pub fn origins<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    list(
        deserializer,
        |origin| {
            let url = url::Url::parse(origin).ok()?;
            let origin = url.origin();
            let plain = matches!(url.scheme(), "https" | "http")
                && url.path() == "/"
                && url.query().is_none()
                && url.fragment().is_none()
                && url.username().is_empty();
            plain.then(|| origin.ascii_serialization())
        },
        "comma-separated origins such as https://shop.example",
    )
}

/// Comma-separated `host=address` entries (like curl's `--resolve`).
pub fn host_addresses<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<(String, IpAddr)>, D::Error> {
    list(
        deserializer,
        |entry| {
            let (host, address) = entry.split_once('=')?;
            Some((
                host.trim().to_ascii_lowercase(),
                address.trim().parse().ok()?,
            ))
        },
        "comma-separated host=address entries",
    )
}

/// Up to 50 comma-separated delays in milliseconds, each at most a week.
pub fn retry_delays<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Duration>, D::Error> {
    const EXPECTED: &str = "up to 50 comma-separated delays in milliseconds, each at most a week";
    let delays = list(
        deserializer,
        |delay| {
            let ms = delay.parse::<u64>().ok()?;
            (ms <= 7 * 24 * 60 * 60 * 1000).then(|| Duration::from_millis(ms))
        },
        EXPECTED,
    )?;
    if delays.len() > 50 {
        return Err(de::Error::custom(format!("expected {EXPECTED}")));
    }
    Ok(delays)
}
