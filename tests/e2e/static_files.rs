//! The pages' and the canvas's static files: brotli or gzip as the browser accepts, the same
//! bytes once inflated, a strong ETag per encoding and `304 Not Modified` for a browser that
//! has the file, revalidated on each use; the editor's files by content-hashed names that
//! browsers keep for a year.

use crate::helpers::{StoreKind, TestApp, spawn_app};

struct Fetched {
    status: u16,
    encoding: String,
    etag: String,
    cache_control: String,
    body: Vec<u8>,
}

async fn fetch(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> Fetched {
    let mut request = crate::helpers::http_client().get(format!("{}{path}", app.address));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    };
    Fetched {
        status: response.status().as_u16(),
        encoding: header("content-encoding"),
        etag: header("etag"),
        cache_control: header("cache-control"),
        body: response.bytes().await.unwrap().to_vec(),
    }
}

fn inflate(encoding: &str, body: &[u8]) -> Vec<u8> {
    match encoding {
        "br" => {
            let mut out = Vec::new();
            brotli::BrotliDecompress(&mut &body[..], &mut out).unwrap();
            out
        }
        "gzip" => presspack::infra::compress::gunzip(body),
        "" => body.to_vec(),
        other => panic!("unexpected encoding {other}"),
    }
}

#[tokio::test]
async fn static_files_are_compressed_tagged_and_revalidated() {
    let app = spawn_app(StoreKind::Embedded).await;
    let font = {
        let catalogue = fetch(&app, "/web-demo/engine/assets.js", &[]).await;
        let text = String::from_utf8(catalogue.body).unwrap();
        let end = text.find(".ttf").expect("assets.js names the fonts") + ".ttf".len();
        let start = text[..end].rfind("fonts/").unwrap();
        format!("/web-demo/engine/{}", &text[start..end])
    };
    for path in [
        "/web-demo/engine/presspack_engine_bg.wasm",
        "/web-demo/engine/index.js",
        "/web-demo/canvas.js",
        "/static/shop.css",
        font.as_str(),
    ] {
        let plain = fetch(&app, path, &[("accept-encoding", "identity")]).await;
        assert_eq!((plain.status, plain.encoding.as_str()), (200, ""), "{path}");
        assert_eq!(plain.cache_control, "public, no-cache", "{path}");
        let mut tags = vec![plain.etag.clone()];
        for (accepted, expected) in [("gzip, deflate, br", "br"), ("gzip", "gzip")] {
            let packed = fetch(&app, path, &[("accept-encoding", accepted)]).await;
            assert_eq!(packed.encoding, expected, "{path}");
            assert!(packed.body.len() < plain.body.len(), "{path}");
            assert_eq!(
                inflate(&packed.encoding, &packed.body),
                plain.body,
                "{path}"
            );
            tags.push(packed.etag.clone());
            // A browser that has it gets 304, however it names the tag.
            for named in [
                packed.etag.clone(),
                format!("W/{}", packed.etag),
                "*".into(),
            ] {
                let again = fetch(
                    &app,
                    path,
                    &[("accept-encoding", accepted), ("if-none-match", &named)],
                )
                .await;
                assert_eq!((again.status, again.body.len()), (304, 0), "{path} {named}");
                assert_eq!(again.etag, packed.etag);
            }
        }
        // A tag per encoding, each strong.
        tags.sort();
        tags.dedup();
        assert_eq!(tags.len(), 3, "{path}: {tags:?}");
        assert!(tags.iter().all(|t| t.starts_with('"')), "{tags:?}");
        let other = fetch(&app, path, &[("if-none-match", "\"0123\"")]).await;
        assert_eq!(other.status, 200);
    }
    // Qualities decide, a refusal by name holds against `*`, and a repeated header is one list.
    let wasm = "/web-demo/engine/presspack_engine_bg.wasm";
    for (accepted, expected) in [
        ("br;q=0.5, gzip", "gzip"),
        ("gzip;q=0, br;q=0", ""),
        ("gzip;q=0, *", "br"),
        ("br;q=0, *", "gzip"),
        ("identity", ""),
    ] {
        let got = fetch(&app, wasm, &[("accept-encoding", accepted)]).await;
        assert_eq!(got.encoding, expected, "{accepted}");
    }
    let repeated = fetch(
        &app,
        wasm,
        &[("accept-encoding", "deflate"), ("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(repeated.encoding, "gzip");
    // A small file goes as it is.
    let small = fetch(
        &app,
        "/static/brand.css",
        &[("accept-encoding", "br, gzip")],
    )
    .await;
    assert_eq!((small.status, small.encoding.as_str()), (200, ""));
    assert_eq!(
        fetch(&app, "/web-demo/engine/fonts/nothing.ttf", &[])
            .await
            .status,
        404
    );
}

/// The text between `start` and the next `end` in `text`.
fn between<'t>(text: &'t str, start: &str, end: &str) -> &'t str {
    let from = text.find(start).unwrap_or_else(|| panic!("no {start}")) + start.len();
    &text[from..from + text[from..].find(end).unwrap()]
}

#[tokio::test]
async fn the_editors_files_go_by_content_hashed_names_kept_for_a_year() {
    use base64::Engine as _;
    use sha2::Digest as _;
    let app = spawn_app(StoreKind::Embedded).await;
    let page = crate::helpers::http_client()
        .get(format!("{}/web-demo/", app.address))
        .send()
        .await
        .unwrap();
    let policy = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    let html = page.text().await.unwrap();
    let map_text = between(&html, "<script type=\"importmap\">", "</script>");
    // The policy allows exactly this inline script, by its hash.
    let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(map_text));
    assert!(policy.contains(&format!("'sha256-{hash}'")), "{policy}");
    let map: serde_json::Value = serde_json::from_str(map_text).unwrap();
    let imports = map["imports"].as_object().unwrap();
    assert_eq!(
        imports["@presspack/engine"],
        imports["/web-demo/engine/index.js"]
    );
    assert!(
        imports.contains_key("/web-demo/editor/designer.js"),
        "{map}"
    );
    let mut urls: Vec<String> = imports
        .values()
        .map(|url| url.as_str().unwrap().to_owned())
        .collect();
    urls.push(between(&html, "<script type=\"module\" src=\"", "\"").to_owned());
    urls.push(between(&html, "data-stylesheet=\"", "\"").to_owned());
    // assets.js names the wasm, the fonts and the templates by versioned names too.
    let assets_url = imports["/web-demo/engine/assets.js"].as_str().unwrap();
    let assets = String::from_utf8(fetch(&app, assets_url, &[]).await.body).unwrap();
    for (before, folder) in [
        ("wasmUrl = new URL(\"./", ""),
        ("\"dejavu:sans\": new URL(\"./", ""),
        ("new URL(\"./templates/", "templates/"),
    ] {
        urls.push(format!(
            "/web-demo/engine/{folder}{}",
            between(&assets, before, "\"")
        ));
    }
    for url in &urls {
        let (path, version) = url.split_once("?v=").unwrap_or_else(|| panic!("{url}"));
        assert_eq!(version.len(), 32, "{url}");
        let kept = fetch(&app, url, &[("accept-encoding", "identity")]).await;
        assert_eq!(kept.status, 200, "{url}");
        assert_eq!(
            kept.cache_control, "public, max-age=31536000, immutable",
            "{url}"
        );
        // The version is the content's: the identity ETag's base.
        assert_eq!(kept.etag, format!("\"{version}\""), "{url}");
        // The plain name, or another version, is revalidated on each use.
        for other in [path.to_owned(), format!("{path}?v=0123")] {
            let plain = fetch(&app, &other, &[("accept-encoding", "identity")]).await;
            assert_eq!(plain.cache_control, "public, no-cache", "{other}");
            assert_eq!(plain.body, kept.body, "{other}");
        }
    }
    assert!(urls.len() >= 14, "{urls:?}");
}
