//! Configuration: built-in defaults, then an optional TOML file, then `PRESSPACK_*`
//! environment variables (the environment wins). Every bad setting stops start-up with a
//! message naming the setting and where it came from.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

pub use crate::domain::images::service::ImageSettings;
pub use crate::http::client::{TrustedProxies, UnsignedLimits};
pub use crate::http::serve::ServerLimits;

#[derive(Debug, Clone)]
pub struct Config {
    /// Address the HTTP server binds to.
    pub listen: SocketAddr,
    /// Public base URL (scheme, host, optional path, no trailing slash). `None`: derived from
    /// the bound address, which suits local use only.
    pub base_url: Option<String>,
    /// Where the embedded store keeps its files.
    pub data_dir: PathBuf,
    /// When set, Redis holds all state instead of the embedded store. With `redis_cluster`,
    /// one or more comma-separated seed nodes of the cluster.
    pub redis_url: Option<String>,
    /// Whether `redis_url` names a Redis Cluster.
    pub redis_cluster: bool,
    /// Prefix of every Redis key, so several deployments can share a server.
    pub redis_key_prefix: String,
    /// Largest request body accepted.
    pub max_body_bytes: usize,
    /// How far an OAuth timestamp may be from the server's clock (replay window).
    pub oauth_timestamp_window: Duration,
    /// Extra font families (a `catalogue.json` and font files), beside the built-in ones.
    pub fonts_dir: Option<PathBuf>,
    /// Extra templates (`<code>.xml` files), beside the built-in ones.
    pub templates_dir: Option<PathBuf>,
    /// wasm engine instances (renders and measurements run in parallel up to this many).
    pub engine_instances: usize,
    /// Memory limit of one engine instance.
    pub engine_memory_bytes: usize,
    /// Time limit of one engine call.
    pub engine_timeout: Duration,
    /// Engine calls that may wait for a free instance; more are refused (`server_busy`).
    pub engine_waiting_calls: usize,
    /// Where the compiled engine is cached between starts (default `<data_dir>/engine-cache`).
    pub engine_cache_dir: Option<PathBuf>,
    pub images: ImageSettings,
    /// The price list (JSON); `None`: the built-in one.
    pub prices_file: Option<PathBuf>,
    /// Hosts order-confirmation webhooks may be sent to although they resolve to non-public
    /// addresses.
    pub webhook_allow_hosts: Vec<String>,
    /// Delays before each retry of a failed webhook.
    pub webhook_retry_delays: Vec<Duration>,
    /// How `presspack serve` writes its log lines.
    pub log_format: LogFormat,
    /// Calls one API key may make per minute (over every host on Redis); 0: no limit.
    pub rate_limit_per_minute: u64,
    /// Time limits of connections: headers, body pace, shutdown drain.
    pub server: ServerLimits,
    /// Where `/metrics` is served instead of the public listener; `None`: on the public one.
    pub metrics_listen: Option<SocketAddr>,
    /// Proxies (addresses or networks) whose `X-Forwarded-For` names the client.
    pub trusted_proxies: TrustedProxies,
    /// Limits on calls without an API key, per client address.
    pub unsigned_limits: UnsignedLimits,
}

/// Log lines for people (`text`) or for log collectors (`json`, one object per line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            base_url: None,
            data_dir: PathBuf::from("presspack-data"),
            redis_url: None,
            redis_cluster: false,
            redis_key_prefix: "presspack:".to_owned(),
            max_body_bytes: 2 * 1024 * 1024,
            oauth_timestamp_window: Duration::from_secs(300),
            fonts_dir: None,
            templates_dir: None,
            engine_instances: std::thread::available_parallelism().map_or(2, |n| n.get()),
            // Enough to decode the largest image accepted (100 MP, 3 bytes a pixel) and make
            // its renditions; memory is only taken as calls need it.
            engine_memory_bytes: 1024 * 1024 * 1024,
            engine_timeout: Duration::from_secs(10),
            engine_waiting_calls: 64,
            engine_cache_dir: None,
            images: ImageSettings::default(),
            prices_file: None,
            webhook_allow_hosts: Vec::new(),
            webhook_retry_delays: crate::domain::webhooks::DEFAULT_RETRY_DELAYS.to_vec(),
            log_format: LogFormat::Text,
            rate_limit_per_minute: 1200,
            server: ServerLimits::default(),
            metrics_listen: None,
            trusted_proxies: TrustedProxies::default(),
            unsigned_limits: UnsignedLimits::default(),
        }
    }
}

/// Comma-separated host names, lower-case.
fn host_list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(|host| host.trim().to_ascii_lowercase())
        .filter(|host| !host.is_empty())
        .collect()
}

/// The config file's keys: the environment variables' names without `PRESSPACK_`, lower-case.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    listen: Option<String>,
    base_url: Option<String>,
    data_dir: Option<String>,
    redis_url: Option<String>,
    redis_cluster: Option<bool>,
    redis_key_prefix: Option<String>,
    max_body_bytes: Option<u64>,
    oauth_window_seconds: Option<u64>,
    fonts_dir: Option<String>,
    templates_dir: Option<String>,
    engine_instances: Option<u64>,
    engine_memory_mb: Option<u64>,
    engine_timeout_ms: Option<u64>,
    engine_waiting_calls: Option<u64>,
    engine_cache_dir: Option<String>,
    max_upload_bytes: Option<u64>,
    max_image_pixels: Option<u64>,
    max_image_side: Option<u64>,
    min_jpeg_quality: Option<u64>,
    concurrent_uploads: Option<u64>,
    import_timeout_ms: Option<u64>,
    image_timeout_ms: Option<u64>,
    /// Comma-separated host names.
    import_allow_hosts: Option<String>,
    /// Comma-separated `host=address` entries.
    import_resolve: Option<String>,
    prices_file: Option<String>,
    /// Comma-separated host names.
    webhook_allow_hosts: Option<String>,
    /// Comma-separated milliseconds.
    webhook_retry_delays_ms: Option<String>,
    log_format: Option<String>,
    rate_limit_per_minute: Option<u64>,
    header_timeout_ms: Option<u64>,
    min_body_bytes_per_second: Option<u64>,
    shutdown_drain_ms: Option<u64>,
    metrics_listen: Option<String>,
    /// Comma-separated addresses or networks.
    trusted_proxies: Option<String>,
    unsigned_rate_limit_per_minute: Option<u64>,
    unsigned_upload_bytes_per_hour: Option<u64>,
    image_retention_hours: Option<u64>,
}

#[derive(Debug, thiserror::Error)]
#[error("configuration: {0}")]
pub struct ConfigError(pub String);

/// One setting's value and where it came from, for error messages.
struct Setting {
    value: String,
    source: String,
}

impl Setting {
    fn invalid(&self, problem: &str) -> ConfigError {
        ConfigError(format!("{} = {:?}: {problem}", self.source, self.value))
    }
}

impl Config {
    /// Loads the configuration from `file` (if any) and the environment `env`.
    pub fn load(
        file: Option<&Path>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let file_values = match file {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    ConfigError(format!("cannot read config file {}: {e}", path.display()))
                })?;
                toml::from_str::<ConfigFile>(&text)
                    .map_err(|e| ConfigError(format!("config file {}: {e}", path.display())))?
            }
            None => ConfigFile::default(),
        };
        let file_name = file.map(|p| p.display().to_string()).unwrap_or_default();
        let setting = |key: &str, from_file: Option<String>| -> Option<Setting> {
            let var = format!("PRESSPACK_{}", key.to_ascii_uppercase());
            match env(&var) {
                Some(value) => Some(Setting { value, source: var }),
                None => from_file.map(|value| Setting {
                    value,
                    source: format!("{key} in {file_name}"),
                }),
            }
        };

        let mut config = Config::default();
        if let Some(s) = setting("listen", file_values.listen) {
            config.listen = s
                .value
                .parse()
                .map_err(|_| s.invalid("expected an address and port such as 127.0.0.1:8080"))?;
        }
        if let Some(s) = setting("base_url", file_values.base_url) {
            config.base_url = Some(parse_base_url(&s)?);
        }
        if let Some(s) = setting("data_dir", file_values.data_dir) {
            if s.value.is_empty() {
                return Err(s.invalid("must not be empty"));
            }
            config.data_dir = PathBuf::from(s.value);
        }
        if let Some(s) = setting(
            "redis_cluster",
            file_values.redis_cluster.map(|b| b.to_string()),
        ) {
            config.redis_cluster = match s.value.as_str() {
                "true" => true,
                "false" => false,
                _ => return Err(s.invalid("expected true or false")),
            };
        }
        if let Some(s) = setting("redis_url", file_values.redis_url) {
            let urls: Vec<&str> = s.value.split(',').map(str::trim).collect();
            let is_redis_url = |url: &&str| {
                let scheme = url.split("://").next().unwrap_or_default();
                matches!(scheme, "redis" | "rediss" | "unix" | "redis+unix") && url.contains("://")
            };
            // The value may hold a password: name the setting, not the value.
            if !urls.iter().all(is_redis_url) {
                return Err(ConfigError(format!(
                    "{}: expected a redis:// or rediss:// URL",
                    s.source
                )));
            }
            if urls.len() > 1 && !config.redis_cluster {
                return Err(ConfigError(format!(
                    "{}: several URLs name the nodes of a Redis Cluster; set redis_cluster = true \
                     (PRESSPACK_REDIS_CLUSTER=true) or give one URL",
                    s.source
                )));
            }
            config.redis_url = Some(urls.join(","));
        }
        if let Some(s) = setting("redis_key_prefix", file_values.redis_key_prefix) {
            if s.value.len() > 64 || s.value.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(s.invalid("expected at most 64 characters without spaces"));
            }
            config.redis_key_prefix = s.value;
        }
        if let Some(s) = setting(
            "max_body_bytes",
            file_values.max_body_bytes.map(|n| n.to_string()),
        ) {
            config.max_body_bytes = s
                .value
                .parse()
                .ok()
                .filter(|n| (1024..=256 * 1024 * 1024).contains(n))
                .ok_or_else(|| s.invalid("expected a number of bytes from 1024 to 268435456"))?;
        }
        if let Some(s) = setting(
            "oauth_window_seconds",
            file_values.oauth_window_seconds.map(|n| n.to_string()),
        ) {
            config.oauth_timestamp_window = s
                .value
                .parse()
                .ok()
                .filter(|n| (10..=3600).contains(n))
                .map(Duration::from_secs)
                .ok_or_else(|| s.invalid("expected a number of seconds from 10 to 3600"))?;
        }
        let directory = |s: Setting| -> Result<PathBuf, ConfigError> {
            let path = PathBuf::from(&s.value);
            if s.value.is_empty() {
                return Err(s.invalid("must not be empty"));
            }
            Ok(path)
        };
        if let Some(s) = setting("fonts_dir", file_values.fonts_dir) {
            config.fonts_dir = Some(directory(s)?);
        }
        if let Some(s) = setting("templates_dir", file_values.templates_dir) {
            config.templates_dir = Some(directory(s)?);
        }
        if let Some(s) = setting("engine_cache_dir", file_values.engine_cache_dir) {
            config.engine_cache_dir = Some(directory(s)?);
        }
        if let Some(s) = setting("prices_file", file_values.prices_file) {
            config.prices_file = Some(directory(s)?);
        }
        if let Some(s) = setting("log_format", file_values.log_format) {
            config.log_format = match s.value.as_str() {
                "text" => LogFormat::Text,
                "json" => LogFormat::Json,
                _ => return Err(s.invalid("expected text or json")),
            };
        }
        if let Some(s) = setting("webhook_allow_hosts", file_values.webhook_allow_hosts) {
            config.webhook_allow_hosts = host_list(&s.value);
        }
        if let Some(s) = setting(
            "webhook_retry_delays_ms",
            file_values.webhook_retry_delays_ms,
        ) {
            config.webhook_retry_delays = s
                .value
                .split(',')
                .map(|delay| {
                    delay
                        .trim()
                        .parse::<u64>()
                        .ok()
                        .filter(|ms| *ms <= 7 * 24 * 60 * 60 * 1000)
                        .map(Duration::from_millis)
                })
                .collect::<Option<Vec<_>>>()
                .filter(|delays| delays.len() <= 50)
                .ok_or_else(|| {
                    s.invalid("expected up to 50 comma-separated delays in milliseconds, each at most a week")
                })?;
        }
        let number = |s: Setting, range: std::ops::RangeInclusive<u64>, what: &str| {
            s.value
                .parse::<u64>()
                .ok()
                .filter(|n| range.contains(n))
                .ok_or_else(|| {
                    s.invalid(&format!(
                        "expected {what} from {} to {}",
                        range.start(),
                        range.end()
                    ))
                })
        };
        if let Some(s) = setting(
            "rate_limit_per_minute",
            file_values.rate_limit_per_minute.map(|n| n.to_string()),
        ) {
            config.rate_limit_per_minute = number(
                s,
                0..=1_000_000,
                "a number of calls per minute (0: no limit)",
            )?;
        }
        if let Some(s) = setting(
            "header_timeout_ms",
            file_values.header_timeout_ms.map(|n| n.to_string()),
        ) {
            config.server.header_timeout =
                Duration::from_millis(number(s, 100..=600_000, "a number of milliseconds")?);
        }
        if let Some(s) = setting(
            "min_body_bytes_per_second",
            file_values.min_body_bytes_per_second.map(|n| n.to_string()),
        ) {
            config.server.min_body_rate =
                number(s, 0..=1024 * 1024 * 1024, "a number of bytes a second")?;
        }
        if let Some(s) = setting(
            "shutdown_drain_ms",
            file_values.shutdown_drain_ms.map(|n| n.to_string()),
        ) {
            config.server.drain_timeout =
                Duration::from_millis(number(s, 0..=3_600_000, "a number of milliseconds")?);
        }
        if let Some(s) = setting("metrics_listen", file_values.metrics_listen) {
            config.metrics_listen =
                Some(s.value.parse().map_err(|_| {
                    s.invalid("expected an address and port such as 127.0.0.1:9090")
                })?);
        }
        if let Some(s) = setting("trusted_proxies", file_values.trusted_proxies) {
            config.trusted_proxies = TrustedProxies(
                s.value
                    .split(',')
                    .filter(|entry| !entry.trim().is_empty())
                    .map(|entry| {
                        crate::http::client::Network::parse(entry).ok_or_else(|| {
                            s.invalid(
                                "expected comma-separated addresses or networks such as 10.0.0.0/8",
                            )
                        })
                    })
                    .collect::<Result<_, _>>()?,
            );
        }
        if let Some(s) = setting(
            "unsigned_rate_limit_per_minute",
            file_values
                .unsigned_rate_limit_per_minute
                .map(|n| n.to_string()),
        ) {
            config.unsigned_limits.calls_per_minute = number(
                s,
                0..=1_000_000,
                "a number of calls per minute (0: no limit)",
            )?;
        }
        if let Some(s) = setting(
            "unsigned_upload_bytes_per_hour",
            file_values
                .unsigned_upload_bytes_per_hour
                .map(|n| n.to_string()),
        ) {
            config.unsigned_limits.upload_bytes_per_hour = number(
                s,
                0..=1_000_000_000_000,
                "a number of bytes per hour (0: no limit)",
            )?;
        }
        if let Some(s) = setting(
            "image_retention_hours",
            file_values.image_retention_hours.map(|n| n.to_string()),
        ) {
            config.images.retention =
                Duration::from_secs(number(s, 1..=100_000, "a number of hours")? * 60 * 60);
        }
        if let Some(s) = setting(
            "engine_waiting_calls",
            file_values.engine_waiting_calls.map(|n| n.to_string()),
        ) {
            config.engine_waiting_calls = number(s, 0..=10_000, "a number of calls")? as usize;
        }
        if let Some(s) = setting(
            "engine_instances",
            file_values.engine_instances.map(|n| n.to_string()),
        ) {
            config.engine_instances = number(s, 1..=256, "a number of instances")? as usize;
        }
        if let Some(s) = setting(
            "engine_memory_mb",
            file_values.engine_memory_mb.map(|n| n.to_string()),
        ) {
            config.engine_memory_bytes =
                number(s, 64..=4096, "a number of MiB")? as usize * 1024 * 1024;
        }
        if let Some(s) = setting(
            "engine_timeout_ms",
            file_values.engine_timeout_ms.map(|n| n.to_string()),
        ) {
            config.engine_timeout =
                Duration::from_millis(number(s, 10..=600_000, "a number of milliseconds")?);
        }
        let images = &mut config.images;
        let as_text = |n: Option<u64>| n.map(|n| n.to_string());
        if let Some(s) = setting("max_upload_bytes", as_text(file_values.max_upload_bytes)) {
            images.max_upload_bytes =
                number(s, 1024..=1024 * 1024 * 1024, "a number of bytes")? as usize;
        }
        if let Some(s) = setting("max_image_pixels", as_text(file_values.max_image_pixels)) {
            images.max_pixels = number(s, 1..=400_000_000, "a number of pixels")?;
        }
        if let Some(s) = setting("max_image_side", as_text(file_values.max_image_side)) {
            images.max_side = number(s, 1..=65_535, "a number of pixels")? as u32;
        }
        if let Some(s) = setting("min_jpeg_quality", as_text(file_values.min_jpeg_quality)) {
            images.min_jpeg_quality = number(s, 1..=100, "a JPEG quality")? as u8;
        }
        if let Some(s) = setting(
            "concurrent_uploads",
            as_text(file_values.concurrent_uploads),
        ) {
            images.concurrent_uploads = number(s, 1..=256, "a number of requests")? as usize;
        }
        if let Some(s) = setting("import_timeout_ms", as_text(file_values.import_timeout_ms)) {
            images.import_timeout =
                Duration::from_millis(number(s, 100..=600_000, "a number of milliseconds")?);
        }
        if let Some(s) = setting("image_timeout_ms", as_text(file_values.image_timeout_ms)) {
            images.ingest_timeout =
                Duration::from_millis(number(s, 100..=600_000, "a number of milliseconds")?);
        }
        if let Some(s) = setting("import_allow_hosts", file_values.import_allow_hosts) {
            images.import_allow_hosts = host_list(&s.value);
        }
        if let Some(s) = setting("import_resolve", file_values.import_resolve) {
            images.import_resolve =
                s.value
                    .split(',')
                    .filter(|entry| !entry.trim().is_empty())
                    .map(|entry| {
                        let (host, address) = entry.split_once('=').unwrap_or((entry, ""));
                        let address = address.trim().parse::<IpAddr>().map_err(|_| {
                            s.invalid("expected comma-separated host=address entries")
                        })?;
                        Ok((host.trim().to_ascii_lowercase(), address))
                    })
                    .collect::<Result<_, ConfigError>>()?;
        }
        Ok(config)
    }

    /// Loads from the process environment and the file it names, if any.
    pub fn from_env(file: Option<&Path>) -> Result<Config, ConfigError> {
        let named = std::env::var_os("PRESSPACK_CONFIG").map(PathBuf::from);
        Config::load(file.or(named.as_deref()), |name| std::env::var(name).ok())
    }
}

fn parse_base_url(s: &Setting) -> Result<String, ConfigError> {
    let url =
        url::Url::parse(&s.value).map_err(|e| s.invalid(&format!("not an absolute URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(s.invalid("expected an http:// or https:// URL"));
    }
    if url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() {
        return Err(s.invalid("must not have a query, fragment or user name"));
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The README's configuration table is the one list of settings (`presspack --help`
    /// shows it): every setting the loader reads has its row.
    #[test]
    fn the_readme_lists_every_setting() {
        let readme = include_str!("../../README.md");
        let source = include_str!("config.rs");
        let keys: Vec<&str> = source
            .split("setting(")
            .skip(1)
            .filter_map(|rest| rest.trim_start().strip_prefix('"')?.split('"').next())
            .filter(|key| {
                !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
            })
            .collect();
        assert!(keys.len() > 30, "{keys:?}");
        for key in keys {
            let row = format!("| `PRESSPACK_{}` | `{key}` |", key.to_ascii_uppercase());
            assert!(
                readme.contains(&row),
                "README.md lacks the row starting {row}"
            );
        }
    }

    fn load(file: Option<&str>, env: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("presspack.toml");
        if let Some(text) = file {
            std::fs::write(&path, text).unwrap();
        }
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::load(file.map(|_| path.as_path()), |name| env.get(name).cloned())
    }

    #[test]
    fn environment_overrides_file_overrides_defaults() {
        let config = load(
            Some("listen = \"0.0.0.0:9000\"\nbase_url = \"https://print.example.com/\"\nredis_key_prefix = \"a:\""),
            &[("PRESSPACK_REDIS_KEY_PREFIX", "b:")],
        )
        .unwrap();
        assert_eq!(config.listen.port(), 9000);
        assert_eq!(
            config.base_url.as_deref(),
            Some("https://print.example.com")
        );
        assert_eq!(config.redis_key_prefix, "b:");
        assert_eq!(config.max_body_bytes, 2 * 1024 * 1024);
        assert!(config.redis_url.is_none());
        let config = load(
            Some("import_allow_hosts = \"Images.Example, cdn.example\""),
            &[("PRESSPACK_IMPORT_RESOLVE", "images.example=127.0.0.1")],
        )
        .unwrap();
        assert_eq!(
            config.images.import_allow_hosts,
            ["images.example", "cdn.example"]
        );
        assert_eq!(
            config.images.import_resolve,
            [("images.example".to_owned(), IpAddr::from([127, 0, 0, 1]))]
        );
        assert_eq!(config.images.max_upload_bytes, 50_000_000);
        assert_eq!(config.log_format, LogFormat::Text);
        let config = load(Some("log_format = \"json\""), &[]).unwrap();
        assert_eq!(config.log_format, LogFormat::Json);
    }

    #[test]
    fn bad_settings_are_named() {
        let err = load(None, &[("PRESSPACK_LISTEN", "localhost")]).unwrap_err();
        assert!(err.to_string().contains("PRESSPACK_LISTEN"), "{err}");
        let err = load(None, &[("PRESSPACK_BASE_URL", "ftp://x")]).unwrap_err();
        assert!(err.to_string().contains("PRESSPACK_BASE_URL"), "{err}");
        let err = load(Some("max_body_bytes = 5"), &[]).unwrap_err();
        assert!(err.to_string().contains("max_body_bytes in"), "{err}");
        let err = load(Some("lisen = \"x\""), &[]).unwrap_err();
        assert!(err.to_string().contains("unknown field"), "{err}");
        let err = load(None, &[("PRESSPACK_IMPORT_RESOLVE", "a.example")]).unwrap_err();
        assert!(
            err.to_string().contains("PRESSPACK_IMPORT_RESOLVE"),
            "{err}"
        );
        let err = load(Some("min_jpeg_quality = 0"), &[]).unwrap_err();
        assert!(err.to_string().contains("min_jpeg_quality in"), "{err}");
        let err = load(None, &[("PRESSPACK_LOG_FORMAT", "xml")]).unwrap_err();
        assert!(err.to_string().contains("PRESSPACK_LOG_FORMAT"), "{err}");
        let err = load(None, &[("PRESSPACK_REDIS_URL", "http://:pw@host")]).unwrap_err();
        assert!(!err.to_string().contains("pw"), "{err}");
    }

    #[test]
    fn a_cluster_takes_several_seed_urls() {
        let seeds = "redis://10.0.0.1:7000, redis://:pw@10.0.0.2:7000";
        let err = load(None, &[("PRESSPACK_REDIS_URL", seeds)]).unwrap_err();
        assert!(err.to_string().contains("PRESSPACK_REDIS_CLUSTER"), "{err}");
        assert!(!err.to_string().contains("pw"), "{err}");
        let config = load(
            Some("redis_cluster = true"),
            &[("PRESSPACK_REDIS_URL", seeds)],
        )
        .unwrap();
        assert!(config.redis_cluster);
        assert_eq!(
            config.redis_url.as_deref(),
            Some("redis://10.0.0.1:7000,redis://:pw@10.0.0.2:7000")
        );
        let err = load(None, &[("PRESSPACK_REDIS_CLUSTER", "yes")]).unwrap_err();
        assert!(err.to_string().contains("expected true or false"), "{err}");
        let err = load(
            None,
            &[
                ("PRESSPACK_REDIS_CLUSTER", "true"),
                ("PRESSPACK_REDIS_URL", "redis://a:1,http://b"),
            ],
        )
        .unwrap_err();
        assert!(err.to_string().contains("redis://"), "{err}");
    }
}
