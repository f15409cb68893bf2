//! `spawn_app()` and typed request helpers, zero2prod style: every test gets the real server
//! on port 0 with a fresh store (a temp directory, or a fresh Redis key prefix).

use std::process::{Command, Output};

use presspack::app::{Application, open_store};
use presspack::config::{BlobStoreKind, Config};
use presspack::domain::customers::EmailAddress;
use presspack::domain::ids::{OrderNumber, PackId};
use presspack::domain::keys::{self, ApiKey, NewKey, Permission};
use presspack::domain::packs::{PACKS, StoredPack};
use presspack::infra::clock::Clock;
use presspack::infra::store::SharedStore;
use serde_json::{Value, json};
use strum::IntoEnumIterator;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    Embedded,
    Redis,
    /// A Redis Cluster named by PRESSPACK_TEST_REDIS_CLUSTER (`tests/redis-cluster.sh`).
    RedisCluster,
}

impl StoreKind {
    /// For file names (screenshots).
    pub fn name(self) -> &'static str {
        match self {
            StoreKind::Embedded => "embedded",
            StoreKind::Redis => "redis",
            StoreKind::RedisCluster => "redis-cluster",
        }
    }

    /// Whether several host processes can share it (the embedded store is one process's).
    pub fn is_shared(self) -> bool {
        self != StoreKind::Embedded
    }
}

/// Redis for the tests: PRESSPACK_TEST_REDIS_URL, else the local default.
pub fn redis_url() -> String {
    std::env::var("PRESSPACK_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// The seed nodes of the tests' Redis Cluster, comma-separated: every master, so that the
/// tests can clean up after themselves node by node.
pub fn redis_cluster_urls() -> String {
    std::env::var("PRESSPACK_TEST_REDIS_CLUSTER").expect(
        "PRESSPACK_TEST_REDIS_CLUSTER names no Redis Cluster: start one with \
         `tests/redis-cluster.sh start DIR` and set the variable to the URLs it prints",
    )
}

/// Runs each named `async fn(StoreKind)` once per store: `<name>::embedded`, `<name>::redis`
/// and `<name>::redis_cluster` (ignored unless asked for, as it needs a cluster; `.ci/run`
/// starts one and runs them).
#[macro_export]
macro_rules! every_store {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            $crate::store_test!($name, embedded, Embedded);
            $crate::store_test!($name, redis, Redis);
            $crate::store_test!($name, redis_cluster, RedisCluster);
        }
    )*};
}

/// Like [`every_store!`] for tests of several hosts on one store: Redis and Redis Cluster.
#[macro_export]
macro_rules! shared_stores {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            $crate::store_test!($name, redis, Redis);
            $crate::store_test!($name, redis_cluster, RedisCluster);
        }
    )*};
}

/// One test of `every_store!` or `shared_stores!`.
#[macro_export]
macro_rules! store_test {
    ($name:ident, redis_cluster, $kind:ident) => {
        #[tokio::test]
        #[ignore = "needs a Redis Cluster in PRESSPACK_TEST_REDIS_CLUSTER (tests/redis-cluster.sh)"]
        async fn redis_cluster() {
            super::$name($crate::helpers::StoreKind::RedisCluster).await
        }
    };
    ($name:ident, $test:ident, $kind:ident) => {
        #[tokio::test]
        async fn $test() {
            super::$name($crate::helpers::StoreKind::$kind).await
        }
    };
}

/// An unsigned text.measure call: what the rate-limit tests send when any call will do.
pub const MEASURE_CALL: [(&str, &str); 5] = [
    ("method", "svc.text.measure"),
    ("text", "Ann"),
    (
        "font",
        r#"{"fontFamily": "helvetica", "bold": false, "italic": false}"#,
    ),
    ("fontSize", "10"),
    ("fontSizeUnits", "pt"),
];

/// An API key's consumer key and secret, for signing.
#[derive(Debug, Clone)]
pub struct Credentials {
    pub key: String,
    pub secret: String,
}

impl From<&ApiKey> for Credentials {
    fn from(key: &ApiKey) -> Self {
        Credentials {
            key: key.consumer_key.clone(),
            secret: key.secret.clone(),
        }
    }
}

pub struct TestApp {
    pub address: String,
    /// Where `/metrics` is served, when the configuration gives it a listener of its own.
    pub metrics_address: Option<String>,
    pub client: reqwest::Client,
    pub config: Config,
    /// The store, as a second handle (the operator's view).
    pub store: SharedStore,
    /// A key with every permission; `get` and `post` sign with it.
    pub key: ApiKey,
    /// The running server's clock: a test moves it forward to see what time does.
    pub clock: Clock,
    _data_dir: tempfile::TempDir,
    server: Option<(oneshot::Sender<()>, JoinHandle<std::io::Result<()>>)>,
    /// Last: dropped after the server has been told to stop.
    _keys: RedisKeys,
}

pub fn test_config(kind: StoreKind, data_dir: &std::path::Path) -> Config {
    let mut config = Config::default();
    config.service.listen = "127.0.0.1:0".parse().unwrap();
    config.service.data_dir = data_dir.to_owned();
    // Compiled once per test run, loaded by every test server after that.
    config.service.engine_cache_dir =
        Some(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/test-engine-cache"));
    config.engine.instances = 1;
    // Storing the starters' 39 pictures would slow every test server; the tests of the
    // starter designs turn it on.
    config.service.starter_designs = false;
    match kind {
        StoreKind::Embedded => {}
        StoreKind::Redis => config.store.redis_url = Some(redis_url()),
        StoreKind::RedisCluster => {
            config.store.redis_url = Some(redis_cluster_urls());
            config.store.redis_cluster = true;
        }
    }
    if kind.is_shared() {
        config.store.redis_key_prefix = format!("presspack-test:{:016x}:", rand::random::<u64>());
    }
    config
}

/// A plain HTTP client for talking to the app.
pub fn http_client() -> reqwest::Client {
    presspack::infra::fetch::http_client_builder()
        .build()
        .unwrap()
}

pub async fn spawn_app(kind: StoreKind) -> TestApp {
    spawn_app_with(kind, |_| {}).await
}

/// Like [`spawn_app`], with a chance to change the configuration first.
pub async fn spawn_app_with(kind: StoreKind, adjust: impl FnOnce(&mut Config)) -> TestApp {
    let data_dir = tempfile::tempdir().unwrap();
    let mut config = test_config(kind, data_dir.path());
    adjust(&mut config);
    let store = open_store(&config).await.expect("store opens");
    let key = create_key(&store, &every_permission()).await;
    let mut app = TestApp {
        address: String::new(),
        metrics_address: None,
        client: http_client(),
        _keys: RedisKeys::of(&config),
        config,
        store,
        key,
        clock: Clock::default(),
        _data_dir: data_dir,
        server: None,
    };
    app.start().await;
    app
}

/// The `textData` of the details template's back lines, one line each, from the first.
pub fn back_lines(lines: &[&str]) -> Vec<Value> {
    lines
        .iter()
        .enumerate()
        .map(|(i, text)| {
            json!({"type": "textData", "linkId": format!("back_line_{}", i + 1), "text": text})
        })
        .collect()
}

/// Every permission a key can have.
pub fn every_permission() -> Vec<Permission> {
    Permission::iter().collect()
}

/// Creates an API key with `permissions` (the inherent ones are always there).
pub async fn create_key(store: &SharedStore, permissions: &[Permission]) -> ApiKey {
    let new = NewKey {
        name: "test partner".into(),
        grant: permissions
            .iter()
            .copied()
            .filter(|p| !p.is_inherent())
            .collect(),
        ..NewKey::default()
    };
    keys::create(store.as_ref(), new)
        .await
        .expect("key created")
}

/// A reply of the API: status, content type, headers and body.
#[derive(Debug)]
pub struct ApiResponse {
    pub status: u16,
    pub content_type: String,
    /// The body as text (lossy for binary bodies; see `bytes`).
    pub body: String,
    pub bytes: Vec<u8>,
    pub headers: reqwest::header::HeaderMap,
}

impl ApiResponse {
    pub async fn read(response: reqwest::Response) -> ApiResponse {
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.unwrap().to_vec();
        ApiResponse {
            status,
            content_type,
            body: String::from_utf8_lossy(&bytes).into_owned(),
            bytes,
            headers,
        }
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    /// Asserts success and returns the JSON body.
    #[track_caller]
    pub fn ok(&self) -> Value {
        assert_eq!(self.status, 200, "expected success, got {}", self.body);
        let json = self.json();
        assert!(
            json.get("exception").is_none(),
            "expected success, got {}",
            self.body
        );
        json
    }

    /// Asserts an error envelope with HTTP 500 and the given error name; returns the message.
    #[track_caller]
    pub fn error(&self, name: &str) -> String {
        assert_eq!(self.status, 500, "expected an error, got {}", self.body);
        self.exception(name)
    }

    /// Asserts an error envelope (any status) with the given name; returns the message.
    #[track_caller]
    pub fn exception(&self, name: &str) -> String {
        let json = self.json();
        let exception = &json["exception"];
        assert_eq!(exception["name"], name, "unexpected error: {}", self.body);
        assert!(
            exception["code"].is_u64(),
            "code must be an integer: {}",
            self.body
        );
        exception["message"].as_str().unwrap().to_owned()
    }
}

impl TestApp {
    async fn start(&mut self) {
        let app = Application::build(&self.config)
            .await
            .expect("server starts");
        self.address = format!("http://{}", app.local_addr());
        self.clock = app.clock();
        self.metrics_address = app.metrics_addr().map(|address| address.to_string());
        // Ready as a load balancer would wait for: the engine starts after the server listens.
        app.engine().started().await.expect("the engine starts");
        let (stop, stopped) = oneshot::channel::<()>();
        let handle = tokio::spawn(app.run_until(async {
            let _ = stopped.await;
        }));
        self.server = Some((stop, handle));
    }

    /// A second server on this one's store and configuration (Redis only; the embedded store
    /// is one process's): another host behind the same load balancer, with the same key.
    pub async fn second_host(&self) -> TestApp {
        assert!(
            self.config.store.redis_url.is_some(),
            "hosts share only Redis"
        );
        let data_dir = tempfile::tempdir().unwrap();
        let mut config = self.config.clone();
        data_dir.path().clone_into(&mut config.service.data_dir);
        let store = open_store(&config).await.expect("store opens");
        let mut app = TestApp {
            address: String::new(),
            metrics_address: None,
            client: http_client(),
            _keys: RedisKeys::of(&config),
            config,
            store,
            key: self.key.clone(),
            clock: Clock::default(),
            _data_dir: data_dir,
            server: None,
        };
        app.start().await;
        app
    }

    /// Stops the server (finishing requests in flight) and starts a new one on the same store.
    pub async fn restart(&mut self) {
        self.stop().await;
        self.start().await;
    }

    /// Stops the server (finishing requests in flight), leaving the store to another process
    /// ([`TestApp::serve_process`]) until [`TestApp::start_again`].
    pub async fn stop(&mut self) {
        let (stop, handle) = self.server.take().expect("server running");
        stop.send(()).unwrap();
        handle.await.unwrap().unwrap();
    }

    /// Starts the server again after [`TestApp::stop`].
    pub async fn start_again(&mut self) {
        self.start().await;
    }

    /// `presspack serve` as a process of its own on this app's store (stopped first, for the
    /// embedded store): the process, to kill, and the address it listens on.
    pub fn serve_process(&self) -> (std::process::Child, String) {
        let engine_cache =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/test-engine-cache");
        let command = self.cli_command(
            &["serve"],
            &[
                ("PRESSPACK_LISTEN", "127.0.0.1:0"),
                ("PRESSPACK_ENGINE_CACHE_DIR", engine_cache.to_str().unwrap()),
                ("PRESSPACK_ENGINE_INSTANCES", "1"),
            ],
        );
        crate::cli::started(command)
    }

    pub fn endpoint(&self) -> String {
        format!("{}/api/service/", self.address)
    }

    /// The endpoint as clients see it, which signatures cover: under the public base URL.
    pub fn public_endpoint(&self) -> String {
        match &self.config.service.base_url {
            Some(base) => format!("{base}/api/service/"),
            None => self.endpoint(),
        }
    }

    /// The `Authorization` header for a call with `params` (query and form body together),
    /// made by oauth1-request, an OAuth client library this project did not write.
    pub fn authorization(
        &self,
        http_method: &str,
        params: &[(&str, &str)],
        signer: &Credentials,
    ) -> String {
        let list = oauth1_request::ParameterList::new(params.to_vec());
        let credentials =
            oauth1_request::Credentials::new(signer.key.as_str(), signer.secret.as_str());
        oauth1_request::Builder::<_, _>::new(credentials, oauth1_request::HMAC_SHA1).authorize(
            http_method,
            self.public_endpoint(),
            &list,
        )
    }

    /// Sends `query` in the query string and `form` form-encoded in the body (POST) or also
    /// in the query (GET), signed by `signer` if given.
    pub async fn send(
        &self,
        http_method: reqwest::Method,
        query: &[(&str, &str)],
        form: &[(&str, &str)],
        signer: Option<&Credentials>,
    ) -> ApiResponse {
        let is_get = http_method == reqwest::Method::GET;
        let mut request = self
            .client
            .request(http_method.clone(), self.endpoint())
            .query(query);
        request = if is_get {
            request.query(form)
        } else {
            request.form(form)
        };
        if let Some(signer) = signer {
            let all: Vec<(&str, &str)> = query.iter().chain(form).copied().collect();
            request = request.header(
                "authorization",
                self.authorization(http_method.as_str(), &all, signer),
            );
        }
        ApiResponse::read(request.send().await.unwrap()).await
    }

    pub fn credentials(&self) -> Credentials {
        Credentials::from(&self.key)
    }

    /// A signed GET with the parameters in the query string.
    pub async fn get(&self, params: &[(&str, &str)]) -> ApiResponse {
        self.send(reqwest::Method::GET, params, &[], Some(&self.credentials()))
            .await
    }

    /// A signed POST with the parameters form-encoded in the body.
    pub async fn post(&self, params: &[(&str, &str)]) -> ApiResponse {
        self.send(
            reqwest::Method::POST,
            &[],
            params,
            Some(&self.credentials()),
        )
        .await
    }

    /// A POST with the parameters as multipart text parts, signed by the header alone
    /// (multipart bodies are not part of an OAuth signature).
    pub async fn post_multipart(&self, params: &[(&str, &str)]) -> ApiResponse {
        let form = params
            .iter()
            .fold(reqwest::multipart::Form::new(), |form, (k, v)| {
                form.text(k.to_string(), v.to_string())
            });
        let response = self
            .client
            .post(self.endpoint())
            .header(
                "authorization",
                self.authorization("POST", &[], &self.credentials()),
            )
            .multipart(form)
            .send()
            .await
            .unwrap();
        ApiResponse::read(response).await
    }

    /// createPack for `product` with `extra` parameters; asserts success.
    pub async fn create_pack(&self, product: &str, extra: &[(&str, &str)]) -> Value {
        self.create_pack_response(product, extra).await.ok()
    }

    /// createPack for `product` with `extra` parameters, signed; the reply as it came.
    pub async fn create_pack_response(&self, product: &str, extra: &[(&str, &str)]) -> ApiResponse {
        let mut params = vec![("method", "svc.pack.createPack"), ("product", product)];
        params.extend_from_slice(extra);
        self.post(&params).await
    }

    /// The pack record `pack_id` as the store holds it (it must exist).
    pub async fn stored_pack(&self, pack_id: &str) -> StoredPack {
        let (record, _) = presspack::infra::store::load(self.store.as_ref(), PACKS, pack_id)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("no pack {pack_id} stored"));
        StoredPack {
            id: PackId::parse(pack_id).expect("a pack id"),
            record,
        }
    }

    pub async fn get_pack(&self, pack_id: &str) -> ApiResponse {
        self.get(&[("method", "svc.pack.getPack"), ("packId", pack_id)])
            .await
    }

    /// The text of `/metrics` on the public port.
    /// One unlabelled value of `/metrics`.
    pub async fn metric(&self, name: &str) -> u64 {
        let metrics = self.metrics().await;
        metrics
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} in {metrics}"))
            .parse()
            .unwrap()
    }

    /// The status `/readyz` answers.
    pub async fn readiness(&self) -> u16 {
        self.client
            .get(format!("{}/readyz", self.address))
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }

    pub async fn metrics(&self) -> String {
        self.client
            .get(format!("{}/metrics", self.address))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// Changes order `number` as stored, behind the service's back (as a damaged store or
    /// an operator's mistake would). An order that still reads as one takes its place in the
    /// index of placed orders by its `placedAt` (as if placed then).
    pub async fn change_stored_order(&self, number: &str, change: impl FnOnce(&mut Value)) {
        use presspack::domain::orders::{self, record::ORDERS};
        let stored = self.store.get(ORDERS, number).await.unwrap().unwrap();
        let mut order: Value = serde_json::from_slice(&stored.value).unwrap();
        change(&mut order);
        let value = serde_json::to_vec(&order).unwrap();
        let replaced = self.store.replace(ORDERS, number, &value, stored.revision);
        assert!(replaced.await.unwrap());
        if let Ok(order) = serde_json::from_value::<orders::Order>(order) {
            orders::index(self.store.as_ref(), &order, None)
                .await
                .unwrap();
        }
    }

    /// Waits (up to a minute) until the press-file job of order `number` is over: its files
    /// are made or have failed, and it no longer touches the order (it indexes the order as
    /// it runs, so a test that changes the index waits for it first).
    pub async fn press_job_finished(&self, number: &str) {
        use presspack::domain::orders::press_files::PRESS_JOBS;
        for _ in 0..600 {
            if self.store.get(PRESS_JOBS, number).await.unwrap().is_none() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("the press-file job of order {number} did not finish in a minute");
    }

    /// Runs the `presspack` binary with this app's store configuration.
    pub fn cli(&self, args: &[&str]) -> Output {
        self.cli_with(args, &[])
    }

    /// [`TestApp::cli`] with more settings (`PRESSPACK_*` variables).
    pub fn cli_with(&self, args: &[&str], settings: &[(&str, &str)]) -> Output {
        self.cli_command(args, settings)
            .output()
            .expect("presspack binary runs")
    }

    /// [`TestApp::cli`] with `input` on its standard input (a password).
    pub fn cli_input(&self, args: &[&str], input: &str) -> Output {
        use std::io::Write;
        let mut child = self
            .cli_command(args, &[])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("presspack binary runs");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    fn cli_command(&self, args: &[&str], settings: &[(&str, &str)]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_presspack"));
        command
            .args(args)
            .env("PRESSPACK_DATA_DIR", &self.config.service.data_dir);
        for (name, _) in std::env::vars() {
            if name.starts_with("PRESSPACK_") && name != "PRESSPACK_DATA_DIR" {
                command.env_remove(name);
            }
        }
        if let Some(url) = &self.config.store.redis_url {
            command
                .env("PRESSPACK_REDIS_URL", url)
                .env(
                    "PRESSPACK_REDIS_KEY_PREFIX",
                    &self.config.store.redis_key_prefix,
                )
                .env(
                    "PRESSPACK_REDIS_CLUSTER",
                    self.config.store.redis_cluster.to_string(),
                );
        }
        if let Some(BlobStoreKind::S3(location)) = &self.config.store.blob_store {
            let s3 = &self.config.s3;
            command
                .env(
                    "PRESSPACK_BLOB_STORE",
                    format!("s3://{}/{}", location.bucket, location.prefix),
                )
                .env("PRESSPACK_S3_REGION", &s3.s3_region)
                .env("PRESSPACK_S3_PATH_STYLE", s3.s3_path_style.to_string())
                .env(
                    "PRESSPACK_S3_TIMEOUT_MS",
                    s3.timeout.as_millis().to_string(),
                );
            for (name, value) in [
                ("PRESSPACK_S3_ENDPOINT", &s3.s3_endpoint),
                ("PRESSPACK_S3_ACCESS_KEY_ID", &s3.s3_access_key_id),
                ("PRESSPACK_S3_SECRET_ACCESS_KEY", &s3.s3_secret_access_key),
            ] {
                if let Some(value) = value {
                    command.env(name, value);
                }
            }
        }
        command.envs(settings.iter().copied());
        command
    }
}

/// An order of customer `customer_id` numbered `number`, as stored, with no lines: what a
/// checkout that crashed before its commit leaves behind.
pub fn uncommitted_order(customer_id: &str, number: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "number": number, "customerId": customer_id, "customerEmail": "ann@example.com",
        "lines": [], "currency": "GBP", "total": 0,
        "delivery": {"name": "Ann", "line1": "1 Print Street", "line2": "", "city": "London",
                     "postcode": "E1 6AN", "country": "United Kingdom"},
        "payment": {"provider": "invoice", "state": "awaiting_invoice_payment"},
        "placedAt": 1
    }))
    .unwrap()
}

/// Deletes a test's Redis keys when dropped, leaving Redis as the test found it.
pub struct RedisKeys {
    /// Comma-separated; on a cluster every master (keys are read node by node).
    urls: Option<String>,
    prefix: String,
}

impl RedisKeys {
    pub fn of(config: &Config) -> RedisKeys {
        RedisKeys {
            urls: config.store.redis_url.clone(),
            prefix: config.store.redis_key_prefix.clone(),
        }
    }
}

impl Drop for RedisKeys {
    fn drop(&mut self) {
        let Some(urls) = &self.urls else {
            return;
        };
        let pattern = format!("{}*", self.prefix);
        for url in urls.split(',') {
            let Ok(mut conn) = redis::Client::open(url).and_then(|c| c.get_connection()) else {
                continue;
            };
            let keys: Vec<String> = redis::cmd("KEYS")
                .arg(&pattern)
                .query(&mut conn)
                .unwrap_or_default();
            // One key a command: a cluster refuses a command whose keys lie in several slots.
            let mut pipeline = redis::pipe();
            for key in keys {
                pipeline.cmd("UNLINK").arg(key).ignore();
            }
            let _: Result<(), _> = pipeline.query(&mut conn);
        }
    }
}

/// A reply to a call made by requests-oauthlib (`tests/e2e/oauth_client.py`).
pub struct PythonReply {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

impl PythonReply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// Asserts HTTP 200 without an exception; the JSON body.
    #[track_caller]
    pub fn ok(&self) -> Value {
        let json = self.json();
        assert!(
            self.status == 200 && json.get("exception").is_none(),
            "expected success, got {} {json}",
            self.status
        );
        json
    }
}

/// Makes one signed call with requests-oauthlib, an OAuth client this project did not write,
/// as MOO's own clients sign: `mode` is `get-header`, `post-header`, `post-body`, `get-query`
/// or `post-header-sha256`.
pub async fn python_call(app: &TestApp, mode: &str, params: &[(&str, &str)]) -> PythonReply {
    python_calls(app, mode, &[params.to_vec()])
        .await
        .pop()
        .expect("one reply")
}

/// [`python_call`] for several calls in turn, from one Python process.
pub async fn python_calls(
    app: &TestApp,
    mode: &str,
    calls: &[Vec<(&str, &str)>],
) -> Vec<PythonReply> {
    use tokio::io::AsyncWriteExt;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/e2e/oauth_client.py");
    let calls: Vec<serde_json::Map<String, Value>> = calls
        .iter()
        .map(|params| {
            params
                .iter()
                .map(|(k, v)| (k.to_string(), Value::from(*v)))
                .collect()
        })
        .collect();
    // tokio's Command: the server runs on this test's runtime and must keep serving.
    let mut child = tokio::process::Command::new("python3")
        .arg(script)
        .args([
            app.public_endpoint(),
            app.key.consumer_key.clone(),
            app.key.secret.clone(),
            mode.to_owned(),
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(&serde_json::to_vec(&calls).unwrap())
        .await
        .unwrap();
    drop(stdin);
    let output = child.wait_with_output().await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the requests-oauthlib client failed (pip install -r tests/requirements.txt): {stderr}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    lines
        .chunks(3)
        .map(|reply| PythonReply {
            status: reply[0].trim().parse().unwrap(),
            content_type: reply.get(1).copied().unwrap_or_default().to_owned(),
            body: base64::Engine::decode(
                &base64::engine::general_purpose::STANDARD,
                reply.get(2).copied().unwrap_or_default().trim(),
            )
            .unwrap(),
        })
        .collect()
}

/// `raw` as the domain's e-mail address (it must be one).
pub fn email_address(raw: &str) -> EmailAddress {
    EmailAddress::parse(raw).unwrap_or_else(|e| panic!("{raw:?}: {e}"))
}

/// `raw` as the domain's order number (it must be one).
pub fn order_number(raw: &str) -> OrderNumber {
    OrderNumber::parse(raw).unwrap_or_else(|| panic!("{raw:?} is not an order number"))
}
