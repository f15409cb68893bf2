//! The blob stores: one suite run on the data directory, on Redis and on S3-compatible object
//! storage (a real S3 server, `tests/s3-server.sh`: ignored unless PRESSPACK_TEST_S3 names
//! one, as `.ci/run` does); a service whose records are embedded and whose blobs are on S3
//! uploads, renders and serves images from a bounded read cache; and an object store that
//! cannot be reached fails an upload with "try again" within its time limit, and `/readyz`
//! says so.

use std::time::{Duration, Instant};

use bytes::Bytes;

use presspack::config::{BlobStoreKind, S3Location, S3Settings};
use presspack::infra::store::{BlobStore, DirectoryBlobs, RedisStore, S3Blobs, blob_id};

use crate::helpers::{RedisKeys, StoreKind, redis_url, spawn_app_with, test_config};

/// The tests' S3 server: PRESSPACK_TEST_S3 = `endpoint,access key,secret,bucket`, as
/// `tests/s3-server.sh start DIR` prints it; a fresh prefix per call, so tests share the
/// bucket without meeting.
pub fn test_s3() -> (S3Location, S3Settings) {
    let named = std::env::var("PRESSPACK_TEST_S3").expect(
        "PRESSPACK_TEST_S3 names no S3 server: start one with `tests/s3-server.sh start DIR` \
         and set the variable to what it prints",
    );
    s3_named(&named)
}

/// The location (a fresh prefix) and settings of the S3 server `named` as
/// `tests/s3-server.sh start` prints it.
fn s3_named(named: &str) -> (S3Location, S3Settings) {
    let parts: Vec<&str> = named.trim().split(',').collect();
    let [endpoint, key, secret, bucket] = parts[..] else {
        panic!("an S3 server is named as endpoint,access key,secret,bucket: {named}");
    };
    let location = S3Location::parse(&format!(
        "s3://{bucket}/presspack-test-{:016x}",
        rand::random::<u64>()
    ))
    .unwrap();
    let settings = S3Settings {
        s3_endpoint: Some(endpoint.to_owned()),
        s3_access_key_id: Some(key.to_owned()),
        s3_secret_access_key: Some(secret.to_owned()),
        s3_path_style: true,
        timeout: Duration::from_secs(10),
        ..S3Settings::default()
    };
    (location, settings)
}

/// Puts, gets and deletes as every blob store must: content-addressed ids, a repeated put
/// is the same blob, bad ids name nothing, a large blob (in parts on S3) comes back whole.
async fn blob_suite(blobs: &dyn BlobStore) {
    let owner = format!("image:{:016x}", rand::random::<u64>());
    let small = Bytes::from_static(b"a small blob");
    let id = blobs.put(&owner, small.clone()).await.unwrap();
    assert_eq!(id, blob_id(&owner, &small));
    assert_eq!(blobs.get(&id).await.unwrap(), Some(small.clone()));
    // A retried upload writes the same key with the same bytes.
    assert_eq!(blobs.put(&owner, small.clone()).await.unwrap(), id);
    // Another owner's same bytes are another blob.
    let other = blobs.put("image:another", small.clone()).await.unwrap();
    assert_ne!(other, id);

    // 20 MiB of varied bytes: three parts of a multipart upload on S3.
    let large: Bytes = (0..20 * 1024 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let large_id = blobs.put(&owner, large.clone()).await.unwrap();
    let back = blobs.get(&large_id).await.unwrap().expect("the large blob");
    assert!(back == large, "the large blob came back changed");
    assert!(blobs.stored_bytes().await.unwrap() >= (large.len() + small.len()) as u64);

    // Every blob is listed once, in order, page by page.
    let mut listed = Vec::new();
    loop {
        let page = blobs
            .list_page(listed.last().map(String::as_str), 1)
            .await
            .unwrap();
        assert!(page.len() <= 1);
        let Some(id) = page.into_iter().next() else {
            break;
        };
        listed.push(id);
    }
    let mut expected = vec![id.clone(), other.clone(), large_id.clone()];
    expected.sort();
    assert_eq!(listed, expected);
    assert_eq!(blobs.list_page(None, 10).await.unwrap(), expected);

    for unknown in [
        "0".repeat(64),
        "../../etc/passwd".into(),
        "ABCDEF".repeat(10) + "ABCD",
        String::new(),
    ] {
        assert_eq!(blobs.get(&unknown).await.unwrap(), None, "{unknown}");
        assert_eq!(blobs.delete(&unknown).await.unwrap(), 0, "{unknown}");
    }
    assert_eq!(blobs.delete(&id).await.unwrap(), small.len() as u64);
    assert_eq!(blobs.delete(&id).await.unwrap(), 0);
    assert_eq!(blobs.get(&id).await.unwrap(), None);
    assert_eq!(blobs.get(&other).await.unwrap(), Some(small));
    assert_eq!(blobs.delete(&large_id).await.unwrap(), large.len() as u64);
    blobs.delete(&other).await.unwrap();
}

#[tokio::test]
async fn the_blob_suite_on_the_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    blob_suite(&DirectoryBlobs::open(dir.path()).unwrap()).await;
}

#[tokio::test]
async fn the_blob_suite_on_redis() {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Redis, dir.path());
    let _cleaned_up = RedisKeys::of(&config);
    let redis = RedisStore::connect(&redis_url(), &config.store.redis_key_prefix, false)
        .await
        .unwrap();
    blob_suite(&redis).await;
}

#[tokio::test]
#[ignore = "needs an S3 server in PRESSPACK_TEST_S3 (tests/s3-server.sh)"]
async fn the_blob_suite_on_object_storage() {
    let (location, settings) = test_s3();
    blob_suite(&S3Blobs::open(&location, &settings).await.unwrap()).await;
}

/// Records in the embedded store, blobs on S3: an upload lands in the bucket, a render draws
/// it, and `/images/...` serves it as before.
#[tokio::test]
#[ignore = "needs an S3 server in PRESSPACK_TEST_S3 (tests/s3-server.sh)"]
async fn a_service_with_blobs_on_object_storage_uploads_renders_and_serves_images() {
    let (location, settings) = test_s3();
    let app = spawn_app_with(StoreKind::Embedded, |config| {
        config.store.blob_store = Some(BlobStoreKind::S3(location.clone()));
        config.s3 = settings.clone();
    })
    .await;
    let photo = app.upload_fixture("jpeg-q95.jpg", &[]).await;
    let uri = photo["resourceUri"].as_str().unwrap();
    let print = photo["imageItems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == "print")
        .unwrap()["resourceUri"]
        .as_str()
        .unwrap()
        .to_owned();
    // The bytes are in the bucket, not in the data directory.
    assert!(!app.config.service.data_dir.join("blobs").exists());
    let side = serde_json::json!({"type": "image", "sideNum": 1,
        "templateCode": "businesscard_full_image_landscape",
        "data": [{"type": "imageData", "linkId": "variable_image_front", "resourceUri": uri,
                  "imageBox": {"center": {"x": 44, "y": 29}, "width": 96, "height": 64, "angle": 0}}]});
    let basket = serde_json::json!({"items": [photo]});
    let rendered = app
        .post(&[
            ("method", "svc.pack.renderSide"),
            ("side", &side.to_string()),
            ("imageBasket", &basket.to_string()),
            ("maxSide", "300"),
        ])
        .await;
    assert_eq!(rendered.content_type, "image/png", "{}", rendered.body);
    let (id, rendition) = print
        .strip_prefix("store://")
        .unwrap()
        .split_once('/')
        .unwrap();
    let served = app
        .client
        .get(format!("{}/images/{id}/{rendition}", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    assert!(served.bytes().await.unwrap().starts_with(&[0xff, 0xd8]));
    // Read from this host's memory, not the network: the cache's counts say so.
    assert!(app.metric("presspack_blob_cache_hits").await >= 1);
    assert!(app.metric("presspack_blob_cache_bytes").await > 0);
    assert_eq!(app.readiness().await, 200);
}

/// A client that shows redirects instead of following them.
pub fn not_following() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// With `s3_redirect_seconds`, `/images/...` answers with a redirect to a signed URL on the
/// object store, which serves the same bytes with the type the host would send; the URL
/// expires, a changed one is refused, and the pages allow images from the store's origin.
#[tokio::test]
#[ignore = "needs an S3 server in PRESSPACK_TEST_S3 (tests/s3-server.sh)"]
async fn images_on_object_storage_are_served_by_signed_redirects_when_asked() {
    let (location, settings) = test_s3();
    let endpoint = settings.s3_endpoint.clone().unwrap();
    let app = spawn_app_with(StoreKind::Embedded, |config| {
        config.store.blob_store = Some(BlobStoreKind::S3(location.clone()));
        config.s3 = S3Settings {
            redirect: Duration::from_secs(120),
            ..settings.clone()
        };
    })
    .await;
    let photo = app.upload_fixture("jpeg-q95.jpg", &[]).await;
    let client = not_following();
    let redirect = client.get(app.print_url(&photo)).send().await.unwrap();
    assert_eq!(redirect.status(), 307);
    assert_eq!(redirect.headers()["cache-control"], "no-store");
    let signed = redirect.headers()["location"].to_str().unwrap().to_owned();
    assert!(signed.starts_with(&endpoint), "{signed}");
    for part in [
        "X-Amz-Signature=",
        "X-Amz-Expires=120",
        "response-content-type=image%2Fjpeg",
    ] {
        assert!(signed.contains(part), "{part} in {signed}");
    }
    // The object store serves it: the uploaded file's bytes (the print rendition of a
    // browser-ready JPEG is the file itself).
    let fetched = client.get(&signed).send().await.unwrap();
    assert_eq!(fetched.status(), 200, "{signed}");
    assert_eq!(fetched.headers()["content-type"], "image/jpeg");
    assert_eq!(
        fetched.bytes().await.unwrap(),
        crate::images::fixture("jpeg-q95.jpg")
    );
    // No signed URL for an image there is not: its address answers 404 as before.
    let unknown = client
        .get(format!("{}/images/{}/print", app.address, "0".repeat(32)))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    // The signature covers the response headers: a URL asking for another type is refused.
    let retyped = signed.replace(
        "response-content-type=image%2Fjpeg",
        "response-content-type=text%2Fhtml",
    );
    let refused = client.get(&retyped).send().await.unwrap();
    assert_eq!(refused.status(), 403, "{retyped}");
    // Pages may show images from the store (and the editor may fetch them).
    let origin = url::Url::parse(&endpoint)
        .unwrap()
        .origin()
        .ascii_serialization();
    let editor = client
        .get(format!("{}/web-demo/", app.address))
        .send()
        .await
        .unwrap();
    let policy = editor.headers()["content-security-policy"]
        .to_str()
        .unwrap();
    assert!(
        policy.contains(&format!("img-src 'self' {origin};")),
        "{policy}"
    );
    assert!(
        policy.contains(&format!("connect-src 'self' {origin};")),
        "{policy}"
    );
}

/// An object store that does not answer: the upload fails as "try again" within the time
/// limit (here 1 s, retries included), not after a hung request.
#[tokio::test]
async fn unreachable_object_storage_fails_an_upload_with_try_again_in_bounded_time() {
    // A port nothing listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let app = spawn_app_with(StoreKind::Embedded, |config| {
        config.store.blob_store = Some(BlobStoreKind::S3(
            S3Location::parse("s3://presspack-absent").unwrap(),
        ));
        config.s3 = S3Settings {
            s3_endpoint: Some(format!("http://127.0.0.1:{port}")),
            s3_access_key_id: Some("key".into()),
            s3_secret_access_key: Some("secret".into()),
            s3_path_style: true,
            timeout: Duration::from_secs(1),
            ..S3Settings::default()
        };
    })
    .await;
    let started = Instant::now();
    let refused = app
        .upload_response("photo.jpg", crate::images::fixture("jpeg-q95.jpg"), &[])
        .await;
    let took = started.elapsed();
    let message = refused.exception("store_unavailable");
    assert!(message.contains("try again"), "{message}");
    assert!(took < Duration::from_secs(15), "{took:?}");
    // The readiness probe says which store is down.
    let ready = app
        .client
        .get(format!("{}/readyz", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(ready.status(), 503);
    let said = ready.text().await.unwrap();
    assert!(said.contains("blob store"), "{said}");
}

/// Retention on object storage: the sweep (`presspack images sweep`, here from the CLI with
/// the same settings) deletes an unused upload's objects from the bucket and keeps a used
/// one's.
#[tokio::test]
#[ignore = "needs an S3 server in PRESSPACK_TEST_S3 (tests/s3-server.sh)"]
async fn unused_uploads_are_swept_from_object_storage() {
    let (location, settings) = test_s3();
    let app = spawn_app_with(StoreKind::Embedded, |config| {
        config.store.blob_store = Some(BlobStoreKind::S3(location.clone()));
        config.s3 = settings.clone();
        config.images.retention = Duration::from_millis(1);
    })
    .await;
    let unused = app.upload_fixture("photo-astronaut.jpg", &[]).await;
    let used = app.upload_fixture("photo-camera.jpg", &[]).await;
    let pack = serde_json::json!({"sides": [{"type": "image", "sideNum": 1,
        "templateCode": "businesscard_full_image_landscape",
        "data": [{"type": "imageData", "linkId": "variable_image_front",
                  "resourceUri": used["resourceUri"],
                  "imageBox": {"center": {"x": 44, "y": 29.5}, "width": 88, "height": 59, "angle": 0}}]}],
        "imageBasket": {"items": [used]}});
    app.create_pack("businesscard", &[("pack", &pack.to_string())])
        .await;
    let image = |item: &serde_json::Value| app.print_url(item);
    // What the bucket holds under the test's prefix (a fresh handle: a sum is kept a minute).
    let in_bucket = || async {
        S3Blobs::open(&location, &settings)
            .await
            .unwrap()
            .stored_bytes()
            .await
            .unwrap()
    };
    let before = in_bucket().await;
    assert_eq!(
        app.client
            .get(image(&unused))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    tokio::time::sleep(Duration::from_millis(20)).await;
    let output = app.cli(&["images", "sweep"]);
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{printed} {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(printed.starts_with("deleted 1 unused images"), "{printed}");
    // Its objects are gone from the bucket; the used image's stay.
    let after = in_bucket().await;
    assert!(after < before && after > 0, "{before} -> {after} bytes");
    let gone = app.client.get(image(&unused)).send().await.unwrap();
    assert_eq!(gone.status(), 404);
    let kept = app.client.get(image(&used)).send().await.unwrap();
    assert_eq!(kept.status(), 200);
}

/// An S3 server of this test's own (`tests/s3-server.sh`, the server PRESSPACK_S3_SERVER
/// names), in a directory of its own, so that it can be killed and started again.
struct OwnS3 {
    dir: tempfile::TempDir,
}

impl OwnS3 {
    fn script(&self, command: &str) -> String {
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/s3-server.sh");
        let output = std::process::Command::new(&script)
            .arg(command)
            .arg(self.dir.path())
            .output()
            .unwrap();
        let printed = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "{} {command}: {printed} {}",
            script.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        printed
    }

    /// Starts it; its location and settings.
    fn start() -> (OwnS3, S3Location, S3Settings) {
        let s3 = OwnS3 {
            dir: tempfile::tempdir().unwrap(),
        };
        let (location, settings) = s3_named(&s3.script("start"));
        (s3, location, settings)
    }

    fn kill(&self) {
        self.script("kill");
    }

    fn resume(&self) {
        self.script("start");
    }
}

impl Drop for OwnS3 {
    fn drop(&mut self) {
        self.script("stop");
    }
}

/// The object store stops mid-run: uploads fail with "try again" within the time limit,
/// `/readyz` says so, what was acknowledged before is still served once it is back, and
/// service resumes without restarting the host.
#[tokio::test]
#[ignore = "needs the S3 server binary (tests/s3-server.sh install)"]
async fn an_object_storage_outage_fails_fast_loses_nothing_and_heals_without_a_restart() {
    let (s3, location, settings) = OwnS3::start();
    let app = spawn_app_with(StoreKind::Embedded, |config| {
        config.store.blob_store = Some(BlobStoreKind::S3(location));
        config.s3 = S3Settings {
            timeout: Duration::from_secs(2),
            // No cache: every read goes to the object store, as a cold host's would.
            cache_bytes: 0,
            ..settings
        };
    })
    .await;
    let before = app.upload_fixture("photo-astronaut.jpg", &[]).await;
    let image = |item: &serde_json::Value| app.print_url(item);
    let served = app.client.get(image(&before)).send().await.unwrap();
    assert_eq!(served.status(), 200);
    let acknowledged = served.bytes().await.unwrap();
    assert_eq!(app.readiness().await, 200);

    s3.kill();
    let started = Instant::now();
    let refused = app
        .upload_response(
            "camera.jpg",
            crate::images::fixture("photo-camera.jpg"),
            &[],
        )
        .await;
    assert!(refused.exception("store_unavailable").contains("try again"));
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(app.readiness().await, 503);

    s3.resume();
    assert_eq!(app.readiness().await, 200);
    let again = app.client.get(image(&before)).send().await.unwrap();
    assert_eq!(again.status(), 200);
    assert_eq!(again.bytes().await.unwrap(), acknowledged);
    let after = app.upload_fixture("photo-camera.jpg", &[]).await;
    let served = app.client.get(image(&after)).send().await.unwrap();
    assert_eq!(served.status(), 200);
}

/// The blobs under a data directory, by id.
fn directory_blobs(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut blobs = std::collections::BTreeMap::new();
    for sub in std::fs::read_dir(dir).unwrap() {
        for file in std::fs::read_dir(sub.unwrap().path()).unwrap() {
            let file = file.unwrap();
            let name = file.file_name().into_string().unwrap();
            if !name.starts_with('.') {
                blobs.insert(name, std::fs::read(file.path()).unwrap());
            }
        }
    }
    blobs
}

/// `presspack blobs migrate`: every blob copied and verified; run again, nothing is copied
/// twice; a destination holding other bytes under an id stops it naming the blob.
#[tokio::test]
async fn blobs_migrate_copies_every_blob_resumes_and_refuses_different_bytes() {
    let app = spawn_app_with(StoreKind::Embedded, |_| {}).await;
    app.upload_fixture("photo-astronaut.jpg", &[]).await;
    app.upload_fixture("photo-camera.jpg", &[]).await;
    let source = app.config.service.data_dir.join("blobs");
    let destination = tempfile::tempdir().unwrap();
    let from = format!("dir:{}", source.display());
    let to = format!("dir:{}", destination.path().display());
    let migrate = || {
        let output = app.cli(&["blobs", "migrate", "--from", &from, "--to", &to]);
        let printed = String::from_utf8_lossy(&output.stdout).into_owned();
        let errors = String::from_utf8_lossy(&output.stderr).into_owned();
        (output.status.success(), printed, errors)
    };
    let originals = directory_blobs(&source);
    assert!(originals.len() >= 4, "two images and their renditions");
    let (ok, printed, errors) = migrate();
    assert!(ok, "{printed} {errors}");
    assert!(
        printed.starts_with(&format!("copied {} blobs", originals.len())),
        "{printed}"
    );
    assert_eq!(directory_blobs(destination.path()), originals);
    let (ok, printed, _) = migrate();
    assert!(ok);
    assert!(
        printed.starts_with(&format!(
            "copied 0 blobs (0 bytes), {} already there",
            originals.len()
        )),
        "{printed}"
    );
    // A destination whose blob holds other bytes: refused, naming it.
    let (id, _) = originals.iter().next().unwrap();
    std::fs::write(destination.path().join(&id[..2]).join(id), b"other bytes").unwrap();
    let (ok, _, errors) = migrate();
    assert!(!ok);
    assert!(
        errors.contains(id) && errors.contains("other bytes"),
        "{errors}"
    );
}

/// The move the command is for: a deployment's directory of blobs to object storage, every
/// blob listed there with the same bytes.
#[tokio::test]
#[ignore = "needs an S3 server in PRESSPACK_TEST_S3 (tests/s3-server.sh)"]
async fn blobs_migrate_moves_a_directory_to_object_storage() {
    let (location, settings) = test_s3();
    let app = spawn_app_with(StoreKind::Embedded, |_| {}).await;
    app.upload_fixture("photo-astronaut.jpg", &[]).await;
    let source = app.config.service.data_dir.join("blobs");
    let originals = directory_blobs(&source);
    let to = format!("s3://{}/{}", location.bucket, location.prefix);
    let env = [
        (
            "PRESSPACK_S3_ENDPOINT",
            settings.s3_endpoint.clone().unwrap(),
        ),
        (
            "PRESSPACK_S3_ACCESS_KEY_ID",
            settings.s3_access_key_id.clone().unwrap(),
        ),
        (
            "PRESSPACK_S3_SECRET_ACCESS_KEY",
            settings.s3_secret_access_key.clone().unwrap(),
        ),
        ("PRESSPACK_S3_PATH_STYLE", "true".to_owned()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let output = app.cli_with(
        &[
            "blobs",
            "migrate",
            "--from",
            &format!("dir:{}", source.display()),
            "--to",
            &to,
        ],
        &env,
    );
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{printed} {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        printed.starts_with(&format!("copied {} blobs", originals.len())),
        "{printed}"
    );
    let bucket = S3Blobs::open(&location, &settings).await.unwrap();
    let listed = bucket.list_page(None, 1000).await.unwrap();
    assert_eq!(listed, originals.keys().cloned().collect::<Vec<_>>());
    for (id, bytes) in &originals {
        assert_eq!(
            bucket.get(id).await.unwrap().as_deref(),
            Some(&bytes[..]),
            "{id}"
        );
    }
}

/// Malformed blob settings stop the server naming the setting; the S3 secret never shows in
/// the message; `blobs migrate` refuses a store it cannot name.
#[tokio::test]
async fn malformed_blob_settings_are_refused_naming_them() {
    use presspack::config::Config;
    for (name, value, expected) in [
        (
            "PRESSPACK_BLOB_STORE",
            "s3://Bucket_Name",
            "expected directory, redis or s3://",
        ),
        (
            "PRESSPACK_BLOB_STORE",
            "ftp://files",
            "expected directory, redis or s3://",
        ),
        (
            "PRESSPACK_BLOB_STORE",
            "redis",
            "blobs in Redis need redis_url",
        ),
        ("PRESSPACK_S3_TIMEOUT_MS", "5", "PRESSPACK_S3_TIMEOUT_MS"),
        // Past S3's week, a signed URL would be refused by the store at every use.
        (
            "PRESSPACK_S3_REDIRECT_SECONDS",
            "604801",
            "PRESSPACK_S3_REDIRECT_SECONDS",
        ),
    ] {
        let refused = Config::load(None, |asked| (asked == name).then(|| value.to_owned()))
            .expect_err(value)
            .to_string();
        assert!(refused.contains(expected), "{name}={value}: {refused}");
    }
    let read = Config::load(None, |asked| {
        (asked == "PRESSPACK_S3_SECRET_ACCESS_KEY").then(|| "very-secret-value".to_owned())
    })
    .unwrap();
    assert!(!format!("{read:?}").contains("very-secret-value"));

    let app = spawn_app_with(StoreKind::Embedded, |_| {}).await;
    let output = app.cli(&[
        "blobs",
        "migrate",
        "--from",
        "somewhere",
        "--to",
        "dir:/tmp/x",
    ]);
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("expected dir:PATH, redis or s3://bucket/prefix"),
        "{said}"
    );
}
