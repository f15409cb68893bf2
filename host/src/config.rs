//! Configuration: built-in defaults, then an optional TOML file, then `PRESSPACK_*`
//! environment variables (the environment wins), layered by figment.
//!
//! Each subsystem declares its settings as a serde section beside the code that uses it
//! ([`ImageSettings`], [`EngineLimits`], [`EdgeSettings`], ...), with readers from
//! `infra::settings`; every section is extracted whole from the same layers, so a setting two
//! subsystems use (`image_timeout_ms`) is read by both and copied by neither. Names are flat, as
//! they always were: `max_upload_bytes` in the file is `PRESSPACK_MAX_UPLOAD_BYTES`. Every bad
//! setting stops start-up with a message naming the setting and where it came from.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use figment::value::{Dict, Map, Value};
use figment::{Figment, Metadata, Profile, Provider, Source};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

pub use crate::domain::brand::BrandSettings;
pub use crate::domain::images::service::ImageSettings;
pub use crate::domain::orders::invoice_settings::InvoiceSettings;
pub use crate::domain::webhooks::WebhookSettings;
pub use crate::http::client::{TrustedProxies, UnsignedLimits};
pub use crate::http::serve::ServerLimits;
pub use crate::http::state::EdgeSettings;
pub use crate::infra::engine::EngineLimits;
pub use crate::infra::mail::MailSettings;
use crate::infra::settings;
pub use crate::infra::store::{S3Location, S3Settings};
use presspack_engine::press::colour::PrintingCondition;

/// Every setting, by the section that reads it.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub service: ServiceSettings,
    pub store: StoreSettings,
    pub engine: EngineLimits,
    pub images: ImageSettings,
    pub webhooks: WebhookSettings,
    pub mail: MailSettings,
    pub edge: EdgeSettings,
    pub unsigned_limits: UnsignedLimits,
    pub server: ServerLimits,
    pub brand: BrandSettings,
    pub invoicing: InvoiceSettings,
    pub s3: S3Settings,
}

/// Where the service listens and what it is called, its files and its log.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ServiceSettings {
    /// Address the HTTP server binds to.
    #[serde(deserialize_with = "settings::address")]
    pub listen: SocketAddr,
    /// Public base URL (scheme, host, optional path, no trailing slash). `None`: derived from
    /// the bound address, which suits local use only.
    #[serde(deserialize_with = "base_url")]
    pub base_url: Option<String>,
    /// Where the embedded store keeps its files.
    #[serde(deserialize_with = "settings::path")]
    pub data_dir: PathBuf,
    /// Where `/metrics` is served instead of the public listener; `None`: on the public one.
    #[serde(deserialize_with = "settings::some_address")]
    pub metrics_listen: Option<SocketAddr>,
    /// How `presspack serve` writes its log lines.
    pub log_format: LogFormat,
    /// Extra font families (a `catalogue.json` and font files), beside the built-in ones.
    #[serde(deserialize_with = "settings::some_path")]
    pub fonts_dir: Option<PathBuf>,
    /// Extra templates (`<code>.xml` files), beside the built-in ones.
    #[serde(deserialize_with = "settings::some_path")]
    pub templates_dir: Option<PathBuf>,
    /// Where the compiled engine is cached between starts (default `<data_dir>/engine-cache`).
    #[serde(deserialize_with = "settings::some_path")]
    pub engine_cache_dir: Option<PathBuf>,
    /// The price list (JSON); `None`: the built-in one.
    #[serde(deserialize_with = "settings::some_path")]
    pub prices_file: Option<PathBuf>,
    /// Register the project's starter designs (30 of them, with their pictures) in the store
    /// on start, each once: the editor offers a product's designs as starting points.
    pub starter_designs: bool,
}

impl Default for ServiceSettings {
    fn default() -> Self {
        ServiceSettings {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            base_url: None,
            data_dir: PathBuf::from("presspack-data"),
            metrics_listen: None,
            log_format: LogFormat::Text,
            fonts_dir: None,
            templates_dir: None,
            engine_cache_dir: None,
            prices_file: None,
            starter_designs: true,
        }
    }
}

/// Where records and blobs are kept: the embedded store in the data directory unless a Redis
/// URL is given.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct StoreSettings {
    /// When set, Redis holds all state instead of the embedded store. With `redis_cluster`,
    /// one or more comma-separated seed nodes of the cluster.
    #[serde(deserialize_with = "redis_urls")]
    pub redis_url: Option<String>,
    /// Whether `redis_url` names a Redis Cluster.
    #[serde(deserialize_with = "settings::flag")]
    pub redis_cluster: bool,
    /// Prefix of every Redis key, so several deployments can share a server.
    #[serde(deserialize_with = "redis_key_prefix")]
    pub redis_key_prefix: String,
    /// Where image files and press files are kept; `None`: beside the records (the data
    /// directory's `blobs`, or Redis when the records are in Redis).
    #[serde(deserialize_with = "blob_store")]
    pub blob_store: Option<BlobStoreKind>,
}

/// Where blobs are kept, whatever holds the records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlobStoreKind {
    /// `directory`: the data directory's `blobs` (one machine).
    Directory,
    /// `redis`: the Redis of `redis_url` (small setups of several hosts).
    Redis,
    /// `s3://bucket/prefix`: S3-compatible object storage (see the `s3_*` settings).
    S3(S3Location),
}

fn blob_store<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<BlobStoreKind>, D::Error> {
    let text = settings::text(deserializer)?;
    match text.trim() {
        "" => Ok(None),
        "directory" => Ok(Some(BlobStoreKind::Directory)),
        "redis" => Ok(Some(BlobStoreKind::Redis)),
        url => S3Location::parse(url)
            .map(|l| Some(BlobStoreKind::S3(l)))
            .ok_or_else(|| {
                de::Error::custom(
                    "expected directory, redis or s3://bucket/prefix (a bucket of 3 to 63 \
                 lower-case letters, digits, dots and dashes)",
                )
            }),
    }
}

impl Default for StoreSettings {
    fn default() -> Self {
        StoreSettings {
            redis_url: None,
            redis_cluster: false,
            redis_key_prefix: "presspack:".to_owned(),
            blob_store: None,
        }
    }
}

/// Log lines for people (`text`) or for log collectors (`json`, one object per line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, thiserror::Error)]
#[error("configuration: {0}")]
pub struct ConfigError(pub String);

/// Settings whose values never appear in messages (a Redis URL may hold a password).
const SECRET_SETTINGS: [&str; 3] = ["redis_url", "smtp_password", "s3_secret_access_key"];

impl Config {
    /// Loads the configuration from `file` (if any) and the environment `env`.
    pub fn load(
        file: Option<&Path>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let names = setting_names();
        let mut figment = Figment::new();
        if let Some(path) = file {
            figment = figment.merge(Layer::file(path, &names)?);
        }
        let figment = figment.merge(Layer::environment(env, &names));
        let config = Config {
            service: section(&figment)?,
            store: section(&figment)?,
            engine: section(&figment)?,
            images: section(&figment)?,
            webhooks: section(&figment)?,
            mail: section(&figment)?,
            edge: section(&figment)?,
            unsigned_limits: section(&figment)?,
            server: section(&figment)?,
            brand: section(&figment)?,
            invoicing: section(&figment)?,
            s3: section(&figment)?,
        };
        if let Some(urls) = &config.store.redis_url
            && urls.contains(',')
            && !config.store.redis_cluster
        {
            return Err(ConfigError(format!(
                "{}: several URLs name the nodes of a Redis Cluster; set redis_cluster = true \
                 (PRESSPACK_REDIS_CLUSTER=true) or give one URL",
                origin(figment.find_metadata("redis_url"), "redis_url")
            )));
        }
        if config.store.blob_store == Some(BlobStoreKind::Redis) && config.store.redis_url.is_none()
        {
            return Err(ConfigError(format!(
                "{}: blobs in Redis need redis_url (PRESSPACK_REDIS_URL)",
                origin(figment.find_metadata("blob_store"), "blob_store")
            )));
        }
        if config.images.press_block_dpi > config.images.press_warn_dpi {
            return Err(ConfigError(format!(
                "{}: press_block_dpi ({}) is more than press_warn_dpi ({}); an image cannot \
                 block before it warns",
                origin(figment.find_metadata("press_block_dpi"), "press_block_dpi"),
                config.images.press_block_dpi,
                config.images.press_warn_dpi
            )));
        }
        config.images.ink_settings().checked().map_err(|error| {
            ConfigError(format!(
                "{}: {}",
                origin(figment.find_metadata(error.setting), error.setting),
                error.problem
            ))
        })?;
        let mut config = config;
        if let Some(path) = &config.images.press_profile {
            let setting = origin(figment.find_metadata("press_profile"), "press_profile");
            let bytes = std::fs::read(path)
                .map_err(|e| ConfigError(format!("{setting}: {}: {e}", path.display())))?;
            let name = config.images.press_condition.as_deref().unwrap_or("Custom");
            PrintingCondition::from_profile(name, &bytes).map_err(|problem| {
                ConfigError(format!(
                    "{setting}: {} is {problem}; press files need the ICC output profile of \
                     a CMYK printing condition",
                    path.display()
                ))
            })?;
            config.images.press_profile_bytes = Some(bytes.into());
        }
        Ok(config)
    }

    /// Loads from the process environment and the file it names, if any.
    pub fn from_env(file: Option<&Path>) -> Result<Config, ConfigError> {
        let named = std::env::var_os("PRESSPACK_CONFIG").map(PathBuf::from);
        Config::load(file.or(named.as_deref()), |name| std::env::var(name).ok())
    }
}

/// Every setting's name (the file's key; `PRESSPACK_` and its upper case is the variable).
pub fn setting_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = [
        field_names::<ServiceSettings>(),
        field_names::<StoreSettings>(),
        field_names::<EngineLimits>(),
        field_names::<ImageSettings>(),
        field_names::<WebhookSettings>(),
        field_names::<MailSettings>(),
        field_names::<EdgeSettings>(),
        field_names::<UnsignedLimits>(),
        field_names::<ServerLimits>(),
        field_names::<BrandSettings>(),
        field_names::<InvoiceSettings>(),
        field_names::<S3Settings>(),
    ]
    .concat();
    names.sort_unstable();
    names.dedup();
    names
}

/// One section, extracted from every layer; a refusal names the setting and its origin.
fn section<T: for<'de> Deserialize<'de>>(figment: &Figment) -> Result<T, ConfigError> {
    figment.extract().map_err(|error| {
        let key = error.path.join(".");
        let origin = origin(error.metadata.as_ref(), &key);
        let value = figment
            .find_value(&key)
            .ok()
            .filter(|_| !SECRET_SETTINGS.contains(&key.as_str()));
        ConfigError(match value {
            Some(Value::String(_, text)) => format!("{origin} = {text:?}: {}", error.kind),
            Some(value) => format!("{origin} = {}: {}", shown(&value), error.kind),
            None => format!("{origin}: {}", error.kind),
        })
    })
}

/// A file's number or flag as written there.
fn shown(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Where a value came from: `PRESSPACK_LISTEN`, or `listen in /etc/presspack.toml`.
fn origin(metadata: Option<&Metadata>, key: &str) -> String {
    match metadata {
        Some(Metadata {
            source: Some(Source::File(path)),
            ..
        }) => format!("{key} in {}", path.display()),
        Some(metadata) => metadata.interpolate(&Profile::Default, &[key]),
        None => key.to_owned(),
    }
}

/// One layer of settings: the file's or the environment's.
struct Layer {
    metadata: Metadata,
    values: Dict,
}

impl Layer {
    /// The TOML file's settings; a key that names no setting is refused.
    fn file(path: &Path, names: &[&str]) -> Result<Layer, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError(format!("cannot read config file {}: {e}", path.display())))?;
        let table: toml::Table = toml::from_str(&text)
            .map_err(|e| ConfigError(format!("config file {}: {e}", path.display())))?;
        if let Some(unknown) = table.keys().find(|key| !names.contains(&key.as_str())) {
            return Err(ConfigError(format!(
                "{unknown} in {}: unknown setting (presspack serve --help lists them)",
                path.display()
            )));
        }
        let values = match Value::serialize(table) {
            Ok(Value::Dict(_, values)) => values,
            _ => Dict::new(),
        };
        Ok(Layer {
            metadata: Metadata::named("config file").source(Source::File(path.to_owned())),
            values,
        })
    }

    /// The `PRESSPACK_*` variables that name settings, as text.
    fn environment(env: impl Fn(&str) -> Option<String>, names: &[&str]) -> Layer {
        let variable = |name: &str| format!("PRESSPACK_{}", name.to_ascii_uppercase());
        let values = names
            .iter()
            .filter_map(|name| Some((name.to_string(), Value::from(env(&variable(name))?))))
            .collect();
        Layer {
            metadata: Metadata::named("environment variable")
                .interpolater(move |_: &Profile, keys: &[&str]| variable(&keys.join("_"))),
            values,
        }
    }
}

impl Provider for Layer {
    fn metadata(&self) -> Metadata {
        self.metadata.clone()
    }

    fn data(&self) -> Result<Map<Profile, Dict>, figment::Error> {
        Ok(Profile::Default.collect(self.values.clone()))
    }
}

/// The field names serde's derive gives a struct's deserializer: a section's setting names.
fn field_names<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    struct Names(&'static [&'static str]);
    impl<'de> Deserializer<'de> for &mut Names {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("only the names are read"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            self.0 = fields;
            Err(de::Error::custom("only the names are read"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let mut names = Names(&[]);
    let _ = T::deserialize(&mut names);
    names.0
}

/// An http(s) URL without query, fragment or user, kept without its trailing slash.
fn base_url<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let text = settings::text(deserializer)?;
    let url = url::Url::parse(&text)
        .map_err(|e| de::Error::custom(format!("not an absolute URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(de::Error::custom("expected an http:// or https:// URL"));
    }
    if url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() {
        return Err(de::Error::custom(
            "must not have a query, fragment or user name",
        ));
    }
    Ok(Some(url.as_str().trim_end_matches('/').to_owned()))
}

/// One Redis URL, or a cluster's comma-separated seed URLs.
fn redis_urls<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let text = settings::text(deserializer)?;
    let urls: Vec<&str> = text.split(',').map(str::trim).collect();
    let is_redis_url = |url: &&str| {
        let scheme = url.split("://").next().unwrap_or_default();
        matches!(scheme, "redis" | "rediss" | "unix" | "redis+unix") && url.contains("://")
    };
    if !urls.iter().all(is_redis_url) {
        return Err(de::Error::custom("expected a redis:// or rediss:// URL"));
    }
    Ok(Some(urls.join(",")))
}

/// At most 64 characters without spaces.
fn redis_key_prefix<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = settings::text(deserializer)?;
    if text.len() > 64 || text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(de::Error::custom(
            "expected at most 64 characters without spaces",
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::net::IpAddr;
    use std::time::Duration;

    /// The README's configuration table is the one list of settings (`presspack serve --help`
    /// shows it): every setting the loader reads has its row.
    #[test]
    fn the_readme_lists_every_setting() {
        let readme = include_str!("../../README.md");
        let names = setting_names();
        assert!(names.len() > 30, "{names:?}");
        for name in names {
            let row = format!("| `PRESSPACK_{}` | `{name}` |", name.to_ascii_uppercase());
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
        assert_eq!(config.service.listen.port(), 9000);
        assert_eq!(
            config.service.base_url.as_deref(),
            Some("https://print.example.com")
        );
        assert_eq!(config.store.redis_key_prefix, "b:");
        assert_eq!(config.edge.max_body_bytes, 2 * 1024 * 1024);
        assert!(config.store.redis_url.is_none());
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
        assert_eq!(config.service.log_format, LogFormat::Text);
        let config = load(Some("log_format = \"json\""), &[]).unwrap();
        assert_eq!(config.service.log_format, LogFormat::Json);
    }

    #[test]
    fn a_setting_two_sections_use_is_read_by_both() {
        let config = load(
            Some("image_timeout_ms = 1500\nengine_instances = 3"),
            &[("PRESSPACK_ENGINE_MEMORY_MB", "128")],
        )
        .unwrap();
        assert_eq!(config.images.ingest_timeout, Duration::from_millis(1500));
        assert_eq!(config.engine.ingest_timeout, Duration::from_millis(1500));
        assert_eq!(config.engine.instances, 3);
        assert_eq!(config.engine.memory_bytes, 128 << 20);
        let config = load(
            Some("engine_instances = 3"),
            &[("PRESSPACK_ENGINE_INSTANCES", "5")],
        )
        .unwrap();
        assert_eq!(config.engine.instances, 5);
    }

    #[test]
    fn bad_settings_are_named() {
        let err = load(None, &[("PRESSPACK_LISTEN", "localhost")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "configuration: PRESSPACK_LISTEN = \"localhost\": expected an address and port \
             such as 127.0.0.1:8080"
        );
        let err = load(Some("max_body_bytes = 5"), &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("max_body_bytes in "), "{err}");
        assert!(
            err.contains("presspack.toml = 5: expected a whole number from 1024 to 268435456"),
            "{err}"
        );
        let err = load(None, &[("PRESSPACK_BASE_URL", "ftp://x")]).unwrap_err();
        assert!(err.to_string().contains("PRESSPACK_BASE_URL"), "{err}");
        let err = load(Some("lisen = \"x\""), &[]).unwrap_err();
        assert!(
            err.to_string().contains("lisen in") && err.to_string().contains("unknown setting"),
            "{err}"
        );
        let err = load(None, &[("PRESSPACK_IMPORT_RESOLVE", "a.example")]).unwrap_err();
        assert!(
            err.to_string().contains("PRESSPACK_IMPORT_RESOLVE"),
            "{err}"
        );
        // A press profile that is not a CMYK printer's stops start-up, naming the setting.
        let profiles = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/icc");
        let err = load(None, &[("PRESSPACK_PRESS_PROFILE", profiles)]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("configuration: PRESSPACK_PRESS_PROFILE"),
            "{err}"
        );
        let readme = format!("{profiles}/README.md");
        let err = load(None, &[("PRESSPACK_PRESS_PROFILE", &readme)])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("PRESSPACK_PRESS_PROFILE") && err.contains("is not an ICC profile"),
            "{err}"
        );
        let fogra = format!("{profiles}/FOGRA39-presspack.icc");
        let config = load(
            None,
            &[
                ("PRESSPACK_PRESS_PROFILE", &fogra),
                ("PRESSPACK_PRESS_CONDITION", "Our press"),
            ],
        )
        .unwrap();
        assert_eq!(
            config.images.press_profile_bytes.as_deref(),
            Some(presspack_assets::PRESS_PROFILE)
        );
        let err = load(Some("press_block_dpi = 400"), &[]).unwrap_err();
        assert!(
            err.to_string()
                .contains("press_block_dpi (400) is more than press_warn_dpi (300)"),
            "{err}"
        );
        let err = load(Some("press_max_ink = 220"), &[])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("press_rich_black") && err.contains("more than press_max_ink (220%)"),
            "{err}"
        );
        let err = load(None, &[("PRESSPACK_PRESS_RICH_BLACK", "60,40,40")]).unwrap_err();
        assert!(err.to_string().contains("C,M,Y,K"), "{err}");
        let config = load(
            None,
            &[
                ("PRESSPACK_PRESS_MAX_INK", "220"),
                ("PRESSPACK_PRESS_RICH_BLACK", "off"),
            ],
        )
        .unwrap();
        assert_eq!(config.images.ink_settings().rich_black, None);
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
        assert!(config.store.redis_cluster);
        assert_eq!(
            config.store.redis_url.as_deref(),
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
