//! Configuration: built-in defaults, then an optional TOML file, then `PRESSPACK_*`
//! environment variables (the environment wins). Every bad setting stops start-up with a
//! message naming the setting and where it came from.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

#[derive(Debug, Clone)]
pub struct Config {
    /// Address the HTTP server binds to.
    pub listen: SocketAddr,
    /// Public base URL (scheme, host, optional path, no trailing slash). `None`: derived from
    /// the bound address, which suits local use only.
    pub base_url: Option<String>,
    /// Where the embedded store keeps its files.
    pub data_dir: PathBuf,
    /// When set, Redis holds all state instead of the embedded store.
    pub redis_url: Option<String>,
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
    /// Where the compiled engine is cached between starts (default `<data_dir>/engine-cache`).
    pub engine_cache_dir: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            base_url: None,
            data_dir: PathBuf::from("presspack-data"),
            redis_url: None,
            redis_key_prefix: "presspack:".to_owned(),
            max_body_bytes: 2 * 1024 * 1024,
            oauth_timestamp_window: Duration::from_secs(300),
            fonts_dir: None,
            templates_dir: None,
            engine_instances: std::thread::available_parallelism().map_or(2, |n| n.get()),
            engine_memory_bytes: 512 * 1024 * 1024,
            engine_timeout: Duration::from_secs(10),
            engine_cache_dir: None,
        }
    }
}

/// The config file's keys: the environment variables' names without `PRESSPACK_`, lower-case.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    listen: Option<String>,
    base_url: Option<String>,
    data_dir: Option<String>,
    redis_url: Option<String>,
    redis_key_prefix: Option<String>,
    max_body_bytes: Option<u64>,
    oauth_window_seconds: Option<u64>,
    fonts_dir: Option<String>,
    templates_dir: Option<String>,
    engine_instances: Option<u64>,
    engine_memory_mb: Option<u64>,
    engine_timeout_ms: Option<u64>,
    engine_cache_dir: Option<String>,
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
        if let Some(s) = setting("redis_url", file_values.redis_url) {
            let scheme = s.value.split("://").next().unwrap_or_default();
            if !matches!(scheme, "redis" | "rediss" | "unix" | "redis+unix")
                || !s.value.contains("://")
            {
                // The value may hold a password: name the setting, not the value.
                return Err(ConfigError(format!(
                    "{}: expected a redis:// or rediss:// URL",
                    s.source
                )));
            }
            config.redis_url = Some(s.value);
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
        let err = load(None, &[("PRESSPACK_REDIS_URL", "http://:pw@host")]).unwrap_err();
        assert!(!err.to_string().contains("pw"), "{err}");
    }
}
