//! uploadImage and importImage over HTTP: every kind of file of `tests/e2e/images/`, the
//! envelope, warnings and refusals, renditions, content addressing, the limits, imports from
//! `bytes` and from public addresses only, and the uploaded image in a render.

use std::path::Path;

use base64::Engine as _;
use serde_json::{Value, json};

use crate::every_store;
use crate::helpers::{StoreKind, TestApp, spawn_app, spawn_app_with};

every_store!(
    every_kind_of_file_gets_the_answer_the_rules_give,
    the_envelope_has_the_wire_format_fields,
    the_same_file_is_stored_once,
    image_type_decides_enhancement,
    the_limits_are_distinct_errors,
    the_engine_memory_bounds_the_images_read,
    import_takes_base64_bytes,
    import_fetches_from_allowed_hosts_and_follows_redirects,
    import_reaches_only_public_addresses,
    imports_from_addresses_wait_for_an_upload_permit,
    an_uploaded_image_renders_the_right_way_up,
    enhancement_changes_the_render,
);

pub fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/e2e/images")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

impl TestApp {
    /// uploadImage: an unsigned multipart POST with the file as `imageFile`; asserts an
    /// answer that is not an error and returns it.
    pub async fn upload(&self, file_name: &str, bytes: Vec<u8>, extra: &[(&str, &str)]) -> Value {
        self.upload_response(file_name, bytes, extra).await.ok()
    }

    /// uploadImage as [`TestApp::upload`] sends it; the reply as it came.
    pub async fn upload_response(
        &self,
        file_name: &str,
        bytes: Vec<u8>,
        extra: &[(&str, &str)],
    ) -> crate::helpers::ApiResponse {
        let mut form = reqwest::multipart::Form::new()
            .text("method", "svc.image.uploadImage")
            .part(
                "imageFile",
                reqwest::multipart::Part::bytes(bytes).file_name(file_name.to_owned()),
            );
        for (name, value) in extra {
            form = form.text(name.to_string(), value.to_string());
        }
        let response = self
            .client
            .post(self.endpoint())
            .multipart(form)
            .send()
            .await
            .unwrap();
        crate::helpers::ApiResponse::read(response).await
    }

    /// Where the pages serve a basket item's print rendition.
    pub fn print_url(&self, item: &Value) -> String {
        format!(
            "{}/images/{}/print",
            self.address,
            item["cacheId"].as_str().unwrap()
        )
    }

    /// Uploads a fixture; asserts it was accepted and returns its basket item.
    pub async fn upload_fixture(&self, name: &str, extra: &[(&str, &str)]) -> Value {
        self.upload_accepted(name, fixture(name), extra).await
    }

    /// Uploads a file; asserts it was accepted and returns its basket item.
    pub async fn upload_accepted(
        &self,
        name: &str,
        bytes: Vec<u8>,
        extra: &[(&str, &str)],
    ) -> Value {
        let envelope = self.upload(name, bytes, extra).await;
        assert!(
            envelope["uploadImageError"].is_null(),
            "{name} refused: {envelope}"
        );
        envelope["imageBasketItem"]["items"][0].clone()
    }
}

fn warning_codes(envelope: &Value) -> Vec<String> {
    envelope["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap().to_owned())
        .collect()
}

fn rendition(item: &Value, kind: &str) -> (u64, u64) {
    let rendition = item["imageItems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == kind)
        .unwrap_or_else(|| panic!("no {kind} rendition in {item}"));
    (
        rendition["width"].as_u64().unwrap(),
        rendition["height"].as_u64().unwrap(),
    )
}

async fn every_kind_of_file_gets_the_answer_the_rules_give(kind: StoreKind) {
    let app = spawn_app(kind).await;
    // (file, Ok(warning codes) or Err(refusal code))
    let table: &[(&str, Result<&[&str], &str>)] = &[
        ("png8-palette.png", Ok(&[])),
        ("png-rgb.png", Ok(&[])),
        ("png-rgba-opaque.png", Ok(&[])),
        ("png8-trns-unused.png", Ok(&[])),
        ("png-16bit.png", Ok(&[])),
        ("png-rgba-transparent.png", Err("transparent_png")),
        ("png8-trns-used.png", Err("transparent_png")),
        ("gif.gif", Ok(&["gif_poor_quality"])),
        ("jpeg-q95.jpg", Ok(&[])),
        ("jpeg-q30.jpg", Ok(&["jpeg_low_quality"])),
        ("jpeg-cmyk.jpg", Ok(&[])),
        ("jpeg-exif-rotated.jpg", Ok(&[])),
        ("jpeg-small.jpg", Ok(&["low_resolution"])),
        ("pdf-vector.pdf", Ok(&[])),
        ("pdf-transparent.pdf", Ok(&[])),
        ("pdf-broken.pdf", Err("unreadable_pdf")),
        ("truncated.png", Err("undecodable_image")),
        ("truncated.jpg", Err("undecodable_image")),
        ("bomb.png", Err("image_side_too_long")),
        ("bomb-under-side-limit.png", Err("image_too_many_pixels")),
        ("not-an-image.txt", Err("unsupported_image_type")),
        ("not-an-image.png", Err("unsupported_image_type")),
    ];
    let mut wrong = Vec::new();
    for (name, expected) in table {
        let envelope = app.upload(name, fixture(name), &[]).await;
        let outcome = match &envelope["uploadImageError"] {
            Value::Null => Ok(warning_codes(&envelope)),
            error => {
                assert!(envelope["imageBasketItem"].is_null(), "{envelope}");
                for field in ["message", "reason"] {
                    assert!(
                        error[field].as_str().is_some_and(|t| t.len() > 10),
                        "{name}: {error}"
                    );
                }
                Err(error["code"].as_str().unwrap().to_owned())
            }
        };
        let expected = expected
            .map(|codes| codes.iter().map(|c| c.to_string()).collect::<Vec<_>>())
            .map_err(str::to_owned);
        if outcome != expected {
            wrong.push(format!("{name}: expected {expected:?}, got {envelope}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));

    // The messages say what to do.
    let transparent = app
        .upload("t.png", fixture("png-rgba-transparent.png"), &[])
        .await;
    let reason = transparent["uploadImageError"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("PDF") && reason.contains("flatten"),
        "{reason}"
    );
    let low = app.upload("q.jpg", fixture("jpeg-q30.jpg"), &[]).await;
    let reason = low["warnings"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("about 30") && reason.contains("75"),
        "{reason}"
    );
    let small = app.upload("s.jpg", fixture("jpeg-small.jpg"), &[]).await;
    let reason = small["warnings"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("284 x 284") && reason.contains("200 x 150"),
        "{reason}"
    );
    let text = app.upload("x.png", fixture("not-an-image.png"), &[]).await;
    let message = text["uploadImageError"]["message"].as_str().unwrap();
    assert!(message.contains("PNG, JPEG, GIF or PDF"), "{message}");
}

async fn the_envelope_has_the_wire_format_fields(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let envelope = app
        .upload(
            "beach.jpg",
            fixture("jpeg-q95.jpg"),
            &[("name", "Beach"), ("source", "camera")],
        )
        .await;
    assert_eq!(envelope["uploadImageError"], Value::Null);
    assert_eq!(envelope["warnings"], json!([]));
    let item = &envelope["imageBasketItem"]["items"][0];
    let id = item["cacheId"].as_str().unwrap();
    assert_eq!(id.len(), 32);
    assert_eq!(item["resourceUri"], format!("store://{id}"));
    assert_eq!(item["name"], "Beach");
    assert_eq!(item["source"], "camera");
    for (field, value) in [
        ("removable", json!(true)),
        ("croppable", json!(true)),
        ("copyrightOwner", json!("")),
        ("type", json!("unknown")),
        ("shouldEnhance", json!(false)),
    ] {
        assert_eq!(item[field], value, "{field}");
    }
    let (print_w, print_h) = rendition(item, "print");
    assert!(print_w.max(print_h) >= 1200, "{item}");
    let longest = |(w, h): (u64, u64)| w.max(h);
    assert_eq!(longest(rendition(item, "preview")), 1024);
    assert_eq!(longest(rendition(item, "small-preview")), 300);
    assert_eq!(longest(rendition(item, "thumbnail")), 150);
    for r in item["imageItems"].as_array().unwrap() {
        assert_eq!(
            r["resourceUri"],
            format!("store://{id}/{}", r["type"].as_str().unwrap())
        );
        assert_eq!(r["rotation"], 0);
        // Aspect ratio kept within a pixel's rounding.
        let (w, h) = (r["width"].as_f64().unwrap(), r["height"].as_f64().unwrap());
        let ratio = print_w as f64 / print_h as f64;
        assert!((w / h - ratio).abs() < 2.0 / h.min(w), "{r}");
    }
    // A PDF keeps its page: 85 x 55 mm at 300 dpi.
    let pdf = app.upload_fixture("pdf-vector.pdf", &[]).await;
    let (w, h) = rendition(&pdf, "print");
    assert!(w.abs_diff(1004) <= 1 && h.abs_diff(650) <= 1, "{pdf}");
    assert_eq!(pdf["source"], "upload");
}

async fn the_same_file_is_stored_once(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let first = app
        .upload_fixture("png-rgb.png", &[("imageType", "photo")])
        .await;
    let blob_files = || {
        walk(&app.config.service.data_dir.join("blobs"))
            .into_iter()
            .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
            .count()
    };
    let stored = blob_files();
    let second = app
        .upload_fixture("png-rgb.png", &[("name", "again")])
        .await;
    assert_eq!(first["resourceUri"], second["resourceUri"]);
    assert_eq!(first["imageItems"], second["imageItems"]);
    // Each upload has its own type and name; the image is the same.
    assert_eq!(
        (first["type"].as_str(), second["type"].as_str()),
        (Some("photo"), Some("unknown"))
    );
    assert_eq!(second["name"], "again");
    assert_eq!(blob_files(), stored, "no new blobs");
    if kind == StoreKind::Embedded {
        // The original (also the print rendition) and three renditions.
        assert_eq!(stored, 4);
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flat_map(|e| {
            let path = e.unwrap().path();
            if path.is_dir() {
                walk(&path)
            } else {
                vec![path]
            }
        })
        .collect()
}

async fn image_type_decides_enhancement(kind: StoreKind) {
    let app = spawn_app(kind).await;
    for (file, image_type, expected_type, enhance) in [
        ("photo-chelsea.jpg", None, "unknown", false),
        ("photo-chelsea.jpg", Some("photo"), "photo", true),
        ("photo-chelsea.jpg", Some("unknown"), "unknown", false),
        ("photo-chelsea.jpg", Some("lineart"), "lineart", false),
        ("photo-chelsea.jpg", Some("detect"), "photo", true),
        ("lineart-chart.png", Some("detect"), "unknown", false),
        ("lineart-text.png", Some("detect"), "unknown", false),
    ] {
        let extra: Vec<(&str, &str)> = image_type.map(|t| ("imageType", t)).into_iter().collect();
        let item = app.upload_fixture(file, &extra).await;
        assert_eq!(item["type"], expected_type, "{file} {image_type:?}");
        assert_eq!(item["shouldEnhance"], enhance, "{file} {image_type:?}");
    }
    let response = app
        .send(
            reqwest::Method::POST,
            &[],
            &[("method", "svc.image.uploadImage"), ("imageType", "vector")],
            None,
        )
        .await;
    assert!(
        response
            .error("invalid_parameter")
            .starts_with("imageType:")
    );
    let response = app
        .send(
            reqwest::Method::POST,
            &[],
            &[("method", "svc.image.uploadImage")],
            None,
        )
        .await;
    assert!(response.error("missing_parameter").contains("imageFile"));
}

async fn the_limits_are_distinct_errors(kind: StoreKind) {
    let app = spawn_app_with(kind, |config| {
        config.images.max_upload_bytes = 40_000;
        config.images.max_pixels = 500_000;
        config.images.max_side = 1000;
    })
    .await;
    let big_file = fixture("png-rgb.png");
    assert!(big_file.len() > 40_000);
    let refusal = |envelope: Value| {
        envelope["uploadImageError"]["code"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        refusal(app.upload("big.png", big_file.clone(), &[]).await),
        "image_file_too_large"
    );
    // 1200 x 800: wider than 1000 px.
    assert_eq!(
        refusal(app.upload("wide.jpg", fixture("jpeg-q30.jpg"), &[]).await),
        "image_side_too_long"
    );
    // Under both side limits, over the pixel limit: the PDF page is drawn smaller instead.
    let pdf = app.upload_fixture("pdf-vector.pdf", &[]).await;
    let (w, h) = rendition(&pdf, "print");
    assert!(w * h <= 500_000 && w <= 1000, "{pdf}");
    // A body far beyond any image is cut off while it is read.
    let response = app
        .client
        .post(app.endpoint())
        .multipart(
            reqwest::multipart::Form::new()
                .text("method", "svc.image.uploadImage")
                .part(
                    "imageFile",
                    reqwest::multipart::Part::bytes(vec![0u8; 3_000_000]),
                ),
        )
        .send()
        .await
        .unwrap();
    let response = crate::helpers::ApiResponse::read(response).await;
    assert!(response.error("request_too_large").contains("bytes"));
    // Other operations keep the usual body limit.
    let long_text = "x".repeat(app.config.edge.max_body_bytes + 10);
    let response = app
        .send(
            reqwest::Method::POST,
            &[],
            &[("method", "svc.text.measure"), ("text", &long_text)],
            None,
        )
        .await;
    response.error("request_too_large");
}

async fn the_engine_memory_bounds_the_images_read(kind: StoreKind) {
    // The host leaves an image about (engine memory - 96 MiB - twice the file) to decode in.
    let app = spawn_app_with(kind, |config| {
        config.engine.memory_bytes = 97 << 20;
    })
    .await;
    // 400 x 328 at one bit: decoded as grey, then an RGB copy and the print rendition, about
    // 1.7 MB in all.
    let envelope = app
        .upload("horse.png", fixture("lineart-horse.png"), &[])
        .await;
    let error = &envelope["uploadImageError"];
    assert_eq!(error["code"], "image_too_large_to_decode", "{envelope}");
    assert!(
        error["message"].as_str().unwrap().contains("400 x 328"),
        "{error}"
    );
    // A small RGB JPEG fits.
    app.upload_fixture("jpeg-small.jpg", &[]).await;
}

async fn import_takes_base64_bytes(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let bytes = fixture("jpeg-q95.jpg");
    let encoded = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let response = app
        .post(&[
            ("method", "svc.image.importImage"),
            ("bytes", &encoded),
            // `bytes` wins over imageUrl.
            ("imageUrl", "http://10.0.0.1/never-fetched.png"),
            ("imageType", "photo"),
        ])
        .await
        .ok();
    let item = &response["imageBasketItem"]["items"][0];
    assert_eq!(item["type"], "photo");
    assert_eq!(item["source"], "import");
    // The same file uploaded is the same image.
    let uploaded = app.upload_fixture("jpeg-q95.jpg", &[]).await;
    assert_eq!(uploaded["resourceUri"], item["resourceUri"]);
    // Refusals and bad input are errors naming the parameter.
    let transparent =
        base64::engine::general_purpose::STANDARD.encode(fixture("png-rgba-transparent.png"));
    let message = app
        .post(&[("method", "svc.image.importImage"), ("bytes", &transparent)])
        .await
        .error("image_rejected");
    assert!(
        message.starts_with("bytes:") && message.contains("transparent"),
        "{message}"
    );
    let message = app
        .post(&[
            ("method", "svc.image.importImage"),
            ("bytes", "not base64!"),
        ])
        .await
        .error("invalid_parameter");
    assert!(message.starts_with("bytes:"), "{message}");
    let message = app
        .post(&[("method", "svc.image.importImage")])
        .await
        .error("missing_parameter");
    assert!(message.contains("imageUrl"), "{message}");
}

/// A local image server: `/photo.jpg`, redirects to it, and a redirect to a private address.
async fn image_server() -> u16 {
    use axum::response::{IntoResponse, Redirect};
    use axum::routing::get;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let router = axum::Router::new()
        .route(
            "/photo.jpg",
            get(|| async {
                ([("content-type", "image/jpeg")], fixture("jpeg-q95.jpg")).into_response()
            }),
        )
        .route("/hop1", get(|| async { Redirect::temporary("/hop2") }))
        .route("/hop2", get(|| async { Redirect::temporary("/hop3") }))
        .route("/hop3", get(|| async { Redirect::temporary("/photo.jpg") }))
        .route("/hop0", get(|| async { Redirect::temporary("/hop1") }))
        .route(
            "/to-private",
            get(|| async { Redirect::temporary("http://10.0.0.1/photo.jpg") }),
        )
        .route(
            "/to-loopback",
            get(move || async move {
                Redirect::temporary(&format!("http://127.0.0.1:{port}/photo.jpg"))
            }),
        );
    tokio::spawn(async move { axum::serve(listener, router).await });
    port
}

fn importing_app_config(config: &mut presspack::config::Config) {
    config.images.import_allow_hosts = vec!["images.example".into()];
    config.images.import_resolve = vec![
        ("images.example".into(), [127, 0, 0, 1].into()),
        ("evil.example".into(), [10, 0, 0, 1].into()),
    ];
    config.images.import_timeout = std::time::Duration::from_secs(5);
}

async fn import_fetches_from_allowed_hosts_and_follows_redirects(kind: StoreKind) {
    let app = spawn_app_with(kind, importing_app_config).await;
    let port = image_server().await;
    let import = |url: String| {
        let app = &app;
        async move {
            app.post(&[("method", "svc.image.importImage"), ("imageUrl", &url)])
                .await
        }
    };
    let direct = import(format!("http://images.example:{port}/photo.jpg"))
        .await
        .ok();
    let uploaded = app.upload_fixture("jpeg-q95.jpg", &[]).await;
    assert_eq!(
        direct["imageBasketItem"]["items"][0]["resourceUri"],
        uploaded["resourceUri"]
    );
    // Three redirects are followed; a fourth is one too many.
    import(format!("http://images.example:{port}/hop1"))
        .await
        .ok();
    let message = import(format!("http://images.example:{port}/hop0"))
        .await
        .error("image_fetch_failed");
    assert!(message.contains("redirect"), "{message}");
    let message = import(format!("http://images.example:{port}/missing.jpg"))
        .await
        .error("image_fetch_failed");
    assert!(message.contains("404"), "{message}");
}

/// Medium: an import from `imageUrl` took no upload permit, so one key's parallel imports
/// held any number of images of up to `max_upload_bytes` in memory at once.
async fn imports_from_addresses_wait_for_an_upload_permit(kind: StoreKind) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let app = spawn_app_with(kind, |config| {
        importing_app_config(config);
        config.images.concurrent_uploads = 1;
    })
    .await;
    // An image server that counts how many of its answers are being fetched at once.
    let (active, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let counters = (active.clone(), most.clone());
    let router = axum::Router::new().route(
        "/slow.jpg",
        axum::routing::get(move || {
            let (active, most) = counters.clone();
            async move {
                let now = active.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                active.fetch_sub(1, Ordering::SeqCst);
                ([("content-type", "image/jpeg")], fixture("jpeg-q95.jpg"))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let url = format!("http://images.example:{port}/slow.jpg");
    let params = [
        ("method", "svc.image.importImage"),
        ("imageUrl", url.as_str()),
    ];
    let imports = (0..3).map(|_| app.post(&params));
    for answer in futures_util::future::join_all(imports).await {
        answer.ok();
    }
    assert_eq!(
        most.load(Ordering::SeqCst),
        1,
        "one fetch at a time with one permit"
    );
}

async fn import_reaches_only_public_addresses(kind: StoreKind) {
    let app = spawn_app_with(kind, importing_app_config).await;
    let port = image_server().await;
    let forbidden = [
        format!("http://127.0.0.1:{port}/photo.jpg"),
        format!("http://localhost:{port}/photo.jpg"),
        format!("http://[::1]:{port}/photo.jpg"),
        "http://0.0.0.0/photo.jpg".into(),
        "http://10.1.2.3/photo.jpg".into(),
        "http://172.16.0.1/photo.jpg".into(),
        "http://192.168.0.1/photo.jpg".into(),
        "http://169.254.169.254/latest/meta-data/".into(),
        "http://[fe80::1]/photo.jpg".into(),
        "http://[fd00::1]/photo.jpg".into(),
        "http://224.0.0.1/photo.jpg".into(),
        "http://[::ffff:127.0.0.1]/photo.jpg".into(),
        "http://2130706433/photo.jpg".into(),
        "http://evil.example/photo.jpg".into(),
        "ftp://images.example/photo.jpg".into(),
        "file:///etc/passwd".into(),
        // Allowed host, redirected to addresses that are not.
        format!("http://images.example:{port}/to-private"),
        format!("http://images.example:{port}/to-loopback"),
    ];
    for url in &forbidden {
        let response = app
            .post(&[("method", "svc.image.importImage"), ("imageUrl", url)])
            .await;
        let message = response.error("image_address_not_allowed");
        assert!(message.contains("imageUrl"), "{url}: {message}");
    }
}

/// A portrait business card whose image fills the card.
fn full_image_side(item: &Value) -> String {
    json!({"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_portrait",
        "data": [{"type": "imageData", "linkId": "variable_image_front",
            "resourceUri": item["resourceUri"],
            "imageBox": {"center": {"x": 29.5, "y": 44}, "width": 59, "height": 88.5, "angle": 0}}]})
    .to_string()
}

fn pixel(png_bytes: &[u8], fx: f64, fy: f64) -> [u8; 3] {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    let channels = info.color_type.samples();
    let (x, y) = (
        (fx * f64::from(info.width)) as usize,
        (fy * f64::from(info.height)) as usize,
    );
    let at = (y * info.width as usize + x) * channels;
    [buffer[at], buffer[at + 1], buffer[at + 2]]
}

async fn an_uploaded_image_renders_the_right_way_up(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let item = app.upload_fixture("jpeg-exif-rotated.jpg", &[]).await;
    assert_eq!(rendition(&item, "print"), (800, 1200));
    let basket = json!({"items": [item]}).to_string();
    for max_side in ["200", "1024"] {
        let response = app
            .post(&[
                ("method", "svc.pack.renderSide"),
                ("side", &full_image_side(&item)),
                ("imageBasket", &basket),
                ("maxSide", max_side),
            ])
            .await;
        assert_eq!(response.content_type, "image/png", "{}", response.body);
        // The stored top-left red marker shows at the top right once turned (orientation 6),
        // and the stored top-right blue one at the bottom right.
        let [r, g, b] = pixel(&response.bytes, 0.93, 0.05);
        assert!(
            r > 180 && g < 80 && b < 80,
            "top right should be red: {r},{g},{b}"
        );
        let [r, g, b] = pixel(&response.bytes, 0.93, 0.95);
        assert!(
            b > 180 && r < 80 && g < 80,
            "bottom right should be blue: {r},{g},{b}"
        );
    }
}

async fn enhancement_changes_the_render(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let item = app
        .upload_fixture("photo-moon.jpg", &[("imageType", "photo")])
        .await;
    assert_eq!(item["shouldEnhance"], true);
    let render = |item: &Value, enhance: Option<bool>| {
        let mut side: Value = serde_json::from_str(&full_image_side(item)).unwrap();
        if let Some(enhance) = enhance {
            side["data"][0]["enhance"] = json!(enhance);
        }
        let basket = json!({"items": [item]}).to_string();
        let app = &app;
        async move {
            app.post(&[
                ("method", "svc.pack.renderSide"),
                ("side", &side.to_string()),
                ("imageBasket", &basket),
                ("maxSide", "300"),
            ])
            .await
            .bytes
        }
    };
    let by_default = render(&item, None).await;
    let off = render(&item, Some(false)).await;
    let on = render(&item, Some(true)).await;
    assert_eq!(
        by_default, on,
        "shouldEnhance applies when imageData does not say"
    );
    assert_ne!(on, off);
    let mut plain = item.clone();
    plain["shouldEnhance"] = json!(false);
    assert_eq!(render(&plain, None).await, off);
}
