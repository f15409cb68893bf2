//! What operators watch and rely on: `/healthz`, `/readyz`, `/metrics`, the request id of
//! every response, per-key rate limits, and what a person finds at the server's root.

use crate::every_store;
use crate::helpers::{ApiResponse, StoreKind, create_key, spawn_app, spawn_app_with};

every_store!(
    probes_answer_and_metrics_count_requests,
    request_ids_are_kept_or_made,
    each_key_has_its_own_rate_limit,
);

/// `/` says what runs here and links the canvas, the API reference and the probes; the
/// icon and the reference are served.
#[tokio::test]
async fn the_root_links_the_canvas_the_reference_and_the_probes() {
    let app = spawn_app(StoreKind::Embedded).await;
    let get = |path: &str| app.client.get(format!("{}{path}", app.address)).send();
    let home = get("/").await.unwrap();
    assert_eq!(home.status(), 200);
    let home = home.text().await.unwrap();
    for link in [
        "href=\"/web-demo/\"",
        "href=\"/docs/api\"",
        "href=\"/docs/api.md\"",
        "href=\"/healthz\"",
        "href=\"/readyz\"",
        "rel=\"icon\" href=\"/favicon.svg\"",
    ] {
        assert!(home.contains(link), "{link}: {home}");
    }
    assert!(
        home.contains(&format!("{}/api/service/", app.address)),
        "{home}"
    );

    let icon = get("/favicon.ico").await.unwrap();
    assert_eq!(icon.url().path(), "/favicon.svg");
    assert_eq!(icon.headers()["content-type"], "image/svg+xml");
    assert!(icon.text().await.unwrap().starts_with("<svg"));

    let reference = get("/docs/api.md").await.unwrap();
    assert_eq!(reference.status(), 200);
    assert_eq!(
        reference.headers()["content-type"],
        "text/plain; charset=utf-8"
    );
    assert_eq!(
        reference.headers()["content-security-policy"],
        "default-src 'none'"
    );
    assert!(
        reference
            .text()
            .await
            .unwrap()
            .contains("svc.pack.createPack")
    );
    // ...and as a page of the site, whose links within it each land on a heading.
    let page = get("/docs/api").await.unwrap();
    assert_eq!(page.status(), 200);
    let kind = page.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(kind.starts_with("text/html"), "{kind}");
    let page = page.text().await.unwrap();
    assert!(page.contains("<h3 id=\"svcpackaddtocart\">"), "{page}");
    assert!(page.contains("<table>"));
    let quoted = |marker: &str| -> Vec<String> {
        page.match_indices(marker)
            .map(|(at, _)| {
                let rest = &page[at + marker.len()..];
                rest[..rest.find('"').unwrap()].to_owned()
            })
            .collect()
    };
    assert!(
        quoted("href=\"#").len() > 20,
        "the reference links within itself"
    );
    let ids: std::collections::HashSet<String> = quoted(" id=\"").into_iter().collect();
    let broken: Vec<String> = quoted("href=\"#")
        .into_iter()
        .filter(|target| !ids.contains(target))
        .collect();
    assert!(broken.is_empty(), "links to no heading: {broken:?}");
}

async fn probes_answer_and_metrics_count_requests(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let get = |path: &str| app.client.get(format!("{}{path}", app.address)).send();
    let health = get("/healthz").await.unwrap();
    assert_eq!(health.status(), 200);
    assert_eq!(health.text().await.unwrap(), "ok\n");
    let ready = get("/readyz").await.unwrap();
    assert_eq!(ready.status(), 200);
    assert_eq!(ready.text().await.unwrap(), "ready\n");

    app.create_pack("businesscard", &[]).await;
    app.create_pack("businesscard", &[]).await;
    // An upload puts its image on the sweep's schedule, due when its retention ends.
    let uploaded = app
        .upload("photo.jpg", crate::images::fixture("jpeg-small.jpg"), &[])
        .await;
    assert!(uploaded["imageBasketItem"].is_object(), "{uploaded}");
    app.post(&[("method", "svc.pack.nothing")])
        .await
        .error("unknown_method");
    assert_eq!(get("/account/signin").await.unwrap().status(), 200);

    let response = get("/metrics").await.unwrap();
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    let metrics = response.text().await.unwrap();
    let value = |series: &str| -> f64 {
        metrics
            .lines()
            .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
            .unwrap_or_else(|| panic!("no {series} in\n{metrics}"))
            .parse()
            .unwrap()
    };
    let created = r#"presspack_requests_total{endpoint="svc.pack.createPack",outcome="ok"}"#;
    assert_eq!(value(created), 2.0);
    let unknown = r#"presspack_requests_total{endpoint="unknown",outcome="unknown_method"}"#;
    assert_eq!(value(unknown), 1.0);
    // Pages count by route template and status class; paths with ids never become labels.
    let page = r#"presspack_requests_total{endpoint="/account/signin",outcome="2xx"}"#;
    assert_eq!(value(page), 1.0);
    let count = r#"presspack_request_duration_seconds_count{endpoint="svc.pack.createPack"}"#;
    assert_eq!(value(count), 2.0);
    let all =
        r#"presspack_request_duration_seconds_bucket{endpoint="svc.pack.createPack",le="+Inf"}"#;
    assert_eq!(value(all), 2.0);
    assert!(value("presspack_engine_instances") >= 1.0);
    assert_eq!(value("presspack_engine_instances_busy"), 0.0);
    assert!(value("presspack_store_errors_total") >= 0.0);
    // A client's mistake is answered with HTTP 500 (the spec's rule) but is no server fault.
    assert!(
        !metrics.contains("presspack_server_faults_total{"),
        "{metrics}"
    );
    let build = format!(
        "presspack_build_info{{version=\"{}\"}}",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(value(&build), 1.0);
    // The background queues, from the store's schedules: nothing is due yet.
    assert_eq!(value(r#"presspack_queue_items{queue="image"}"#), 1.0);
    assert_eq!(value(r#"presspack_queue_items{queue="webhook"}"#), 0.0);
    for queue in ["image", "webhook"] {
        let due = format!("presspack_queue_oldest_due_seconds{{queue=\"{queue}\"}}");
        assert_eq!(value(&due), 0.0);
    }
    // The process, as every Prometheus client library names it.
    assert!(value("process_cpu_seconds_total") > 0.0);
    assert!(value("process_resident_memory_bytes") > 1e6);
    assert!(value("process_open_fds") >= 1.0);
    assert!(value("process_start_time_seconds") > 1.7e9);
}

async fn request_ids_are_kept_or_made(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let id_of = |id: Option<&str>| {
        let mut request = app.client.get(format!("{}/healthz", app.address));
        if let Some(id) = id {
            request = request.header("x-request-id", id);
        }
        async move {
            let response = request.send().await.unwrap();
            response.headers()["x-request-id"]
                .to_str()
                .unwrap()
                .to_owned()
        }
    };
    assert_eq!(id_of(Some("proxy-7f3a.1")).await, "proxy-7f3a.1");
    let made = id_of(None).await;
    assert_eq!(made.len(), 24, "{made}");
    assert!(made.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_ne!(made, id_of(None).await, "each request gets its own");
    // An id that could forge log lines or is too long is replaced.
    let odd = id_of(Some("a b\"c")).await;
    assert_eq!(odd.len(), 24);
    assert_eq!(id_of(Some(&"x".repeat(65))).await.len(), 24);
}

fn header(response: &ApiResponse, name: &str) -> String {
    response
        .headers
        .get(name)
        .unwrap_or_else(|| panic!("no {name} header: {response:?}"))
        .to_str()
        .unwrap()
        .to_owned()
}

async fn each_key_has_its_own_rate_limit(kind: StoreKind) {
    let app = spawn_app_with(kind, |config| {
        config.edge.rate_limit_per_minute = 3;
        config.service.base_url = Some("http://presspack.test".into());
    })
    .await;
    let create = [
        ("method", "svc.pack.createPack"),
        ("product", "businesscard"),
    ];
    for remaining in ["2", "1", "0"] {
        let response = app.post(&create).await;
        response.ok();
        assert_eq!(header(&response, "ratelimit-limit"), "3");
        assert_eq!(header(&response, "ratelimit-remaining"), remaining);
        let reset: u64 = header(&response, "ratelimit-reset").parse().unwrap();
        assert!((1..=60).contains(&reset), "{reset}");
        assert!(response.headers.get("retry-after").is_none());
    }
    // The fourth call in the minute is refused, on any host of the deployment.
    let over = if kind.is_shared() {
        app.second_host().await.post(&create).await
    } else {
        app.post(&create).await
    };
    let message = over.error("rate_limited");
    assert!(
        message.contains("more than 3 calls in a minute"),
        "{message}"
    );
    assert_eq!(header(&over, "ratelimit-remaining"), "0");
    let retry: u64 = header(&over, "retry-after").parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");

    // Another key has its own window; unsigned calls have their address's.
    let other = create_key(&app.store, &crate::helpers::every_permission()).await;
    let theirs = app
        .send(
            reqwest::Method::POST,
            &[],
            &create,
            Some(&crate::helpers::Credentials::from(&other)),
        )
        .await;
    theirs.ok();
    assert_eq!(header(&theirs, "ratelimit-remaining"), "2");
    // Unsigned calls count against their address, not a key.
    let unsigned = app
        .send(
            reqwest::Method::POST,
            &[],
            &crate::helpers::MEASURE_CALL,
            None,
        )
        .await;
    unsigned.ok();
    assert_eq!(header(&unsigned, "ratelimit-limit"), "1200");
}
