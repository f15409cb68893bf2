//! Templates, renderSide, renderSideUrl, getRenderedSide and text.measure over HTTP, with the
//! engine running under wasmtime in the server.

use presspack::http::rpc::render::RENDERED_SIDES;
use std::path::Path;

use presspack_engine::model::Template;
use presspack_engine::render::{Engine, MeasureRequest};
use presspack_engine::text::{FontBook, FontCatalogue, builtin_face_bytes};
use serde_json::{Value, json};
use std::sync::Arc;

use crate::every_store;
use crate::helpers::{StoreKind, TestApp, spawn_app, spawn_app_with};
use crate::scenes::check_reference_in;

every_store!(
    every_template_is_served_as_xml_that_round_trips,
    templates_need_no_signature_and_unknown_codes_are_errors,
    every_template_renders_like_its_reference,
    render_parameters_are_checked,
    images_come_from_the_smallest_rendition_that_is_large_enough,
    render_side_url_serves_the_png_without_a_key,
    text_measure_answers_as_the_engine_measures,
    text_measure_parameters_are_checked,
    an_engine_failure_fails_one_request_only,
);

const PHOTO: &[u8] = include_bytes!("../../engine/tests/scenes/images/photo.jpg");

fn reference_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/e2e/reference")
}

fn template_codes() -> Vec<String> {
    let mut codes: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/templates"))
            .unwrap()
            .map(|e| {
                e.unwrap()
                    .path()
                    .file_stem()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
    codes.sort();
    codes
}

/// Uploads the photo and returns its basket item cut down to the print rendition, which for
/// an upright JPEG is the file itself: the references were drawn from exactly those pixels.
async fn store_photo(app: &TestApp) -> Value {
    let mut item = app.upload_accepted("photo.jpg", PHOTO.to_vec(), &[]).await;
    let print = item["imageItems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "print")
        .unwrap()
        .clone();
    assert_eq!(
        (print["width"].as_u64(), print["height"].as_u64()),
        (Some(900), Some(600))
    );
    item["imageItems"] = json!([print]);
    item
}

async fn template(app: &TestApp, code: &str) -> Template {
    let response = app
        .send(
            reqwest::Method::GET,
            &[
                ("method", "svc.template.getTemplate"),
                ("templateCode", code),
            ],
            &[],
            None,
        )
        .await;
    assert_eq!(response.status, 200, "{}", response.body);
    Template::parse(&response.body).unwrap()
}

async fn every_template_is_served_as_xml_that_round_trips(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let codes = template_codes();
    assert_eq!(
        codes.len(),
        30,
        "every template code of wire-formats section 8"
    );
    for code in &codes {
        let response = app
            .get(&[
                ("method", "svc.template.getTemplate"),
                ("templateCode", code),
            ])
            .await;
        assert_eq!(response.status, 200, "{code}: {}", response.body);
        assert_eq!(response.content_type, "application/xml");
        assert!(
            response.body.starts_with("<?xml"),
            "no blank line before the declaration"
        );
        // A strict XML parser accepts it...
        let document = roxmltree::Document::parse(&response.body)
            .unwrap_or_else(|e| panic!("{code}: not well-formed XML: {e}"));
        let root = document.root_element();
        assert_eq!(root.tag_name().name(), "Template");
        assert_eq!(
            root.tag_name().namespace(),
            Some("http://www.moo.com/xsd/template-1.0")
        );
        let children: Vec<&str> = root
            .children()
            .filter(|n| n.is_element())
            .map(|n| n.tag_name().name())
            .collect();
        assert_eq!(children, ["Code", "Version", "Settings", "Items"], "{code}");
        // ...and the engine reads it back to the template the file holds, less the names for
        // people (`<Label>`, Presspack's addition), which a MOO client does not know.
        let file = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../assets/templates/{code}.xml")),
        )
        .unwrap();
        assert!(file.contains("<Label>"), "{code}");
        assert!(!response.body.contains("<Label>"), "{code}");
        let served = Template::parse(&response.body).unwrap();
        let mut unlabelled = Template::parse(&file).unwrap();
        unlabelled.label = None;
        unlabelled
            .items
            .iter_mut()
            .for_each(|item| item.label = None);
        assert_eq!(served, unlabelled);
        assert_eq!(&served.code, code);
        assert!(
            served.items.iter().any(|i| i.link_id == "background_box"),
            "{code}"
        );
    }
}

async fn templates_need_no_signature_and_unknown_codes_are_errors(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let unsigned = app
        .send(
            reqwest::Method::GET,
            &[
                ("method", "svc.template.getTemplate"),
                ("templateCode", "minicard_full_text_landscape"),
                ("responseContentType", "text/xml; charset=utf-8"),
            ],
            &[],
            None,
        )
        .await;
    assert_eq!(unsigned.status, 200, "{}", unsigned.body);
    assert_eq!(unsigned.content_type, "text/xml; charset=utf-8");
    let message = app
        .get(&[
            ("method", "svc.template.getTemplate"),
            ("templateCode", "nope"),
        ])
        .await
        .error("unknown_template");
    assert!(message.contains("nope"), "{message}");
    app.get(&[("method", "svc.template.getTemplate")])
        .await
        .error("missing_parameter");
}

/// Representative data for a template: every text line in a different family and style
/// with RGB and CMYK colours, the image slightly turned, a CMYK background.
fn representative_side(template: &Template, index: usize, image_uri: &str) -> Value {
    let families = ["Helvetica", "Georgia", "Courier"];
    let mut data = vec![json!({"type": "boxData", "linkId": "background_box",
        "colour": {"type": "CMYK", "c": 4, "m": 0, "y": 8, "k": 0}})];
    for (n, item) in template.items.iter().enumerate() {
        let link = item.link_id.as_str();
        if let Some(line) = link.strip_prefix("back_line_") {
            let colour = if n % 2 == 0 {
                json!({"type": "RGB", "r": 20, "g": 40, "b": 160})
            } else {
                json!({"type": "CMYK", "c": 0, "m": 80, "y": 60, "k": 20})
            };
            data.push(json!({"type": "textData", "linkId": link,
                "text": format!("{} line {} Ågüé", families[n % 3], line),
                "font": {"fontFamily": families[n % 3], "bold": n % 2 == 0, "italic": n % 4 >= 2},
                "colour": colour}));
        } else if link.starts_with("variable_image") {
            let area = item.clipping_box;
            data.push(
                json!({"type": "imageData", "linkId": link, "resourceUri": image_uri,
                "imageBox": {"center": {"x": area.center.x, "y": area.center.y},
                    "width": area.width.max(area.height * 1.5) * 1.1,
                    "height": area.width.max(area.height * 1.5) * 1.1 / 1.5,
                    "angle": 5}}),
            );
        }
    }
    json!({"type": if template.code.contains("details") || template.code.contains("text") || index % 7 == 3 { "details" } else { "image" },
        "sideNum": 1, "templateCode": template.code, "data": data})
}

async fn every_template_renders_like_its_reference(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let photo = store_photo(&app).await;
    let image_uri = photo["resourceUri"].as_str().unwrap().to_owned();
    let basket = json!({"items": [photo]}).to_string();
    let box_types = ["bleed", "print", "cut", "safe"];
    let mut failures = Vec::new();
    for (index, code) in template_codes().iter().enumerate() {
        let template = template(&app, code).await;
        let side = representative_side(&template, index, &image_uri).to_string();
        let box_type = box_types[index % 4];
        let mut params = vec![
            ("method", "svc.pack.renderSide"),
            ("side", side.as_str()),
            ("imageBasket", basket.as_str()),
            ("boxType", box_type),
            ("maxSide", "400"),
        ];
        // Some renders are partial, some carry a watermark overlay.
        let overlay = json!([{"type": "details", "sideNum": 9, "templateCode": "businesscard_full_text_landscape",
            "data": [{"type": "textData", "linkId": "back_line_6", "text": "PROOF — NOT FOR PRINT",
                "pointSize": 6.0, "colour": {"type": "RGB", "r": 220, "g": 0, "b": 0}}]}])
        .to_string();
        if index % 5 == 1 {
            params.push(("partial", "true"));
        }
        if index % 5 == 2 {
            params.push(("overlays", overlay.as_str()));
            params.push(("partial", "false"));
        }
        let response = app.post(&params).await;
        assert_eq!(response.status, 200, "{code}: {}", response.body);
        assert_eq!(response.content_type, "image/png");
        let (width, height) = png_size(&response.bytes);
        assert_eq!(width.max(height), 400, "{code}");
        if let Err(why) = check_reference_in(&reference_dir(), code, &response.bytes) {
            failures.push(why);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    (
        u32::from_be_bytes(png[16..20].try_into().unwrap()),
        u32::from_be_bytes(png[20..24].try_into().unwrap()),
    )
}

fn text_side(text: &str) -> String {
    json!({"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape",
        "data": [{"type": "textData", "linkId": "back_line_1", "text": text}]})
    .to_string()
}

async fn render_parameters_are_checked(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let side = text_side("Hello");
    let render = |extra: Vec<(&'static str, String)>| {
        let side = side.clone();
        let app = &app;
        async move {
            let mut params: Vec<(&str, String)> = vec![
                ("method", "svc.pack.renderSide".into()),
                ("side", side),
                ("imageBasket", r#"{"items": []}"#.into()),
            ];
            params.extend(extra);
            let params: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
            app.post(&params).await
        }
    };
    // Defaults: print box (the whole 88 x 59 card), 1024 px.
    let response = render(vec![]).await;
    assert_eq!(png_size(&response.bytes), (1024, 686));
    let response = render(vec![("boxType", "safe".into()), ("maxSide", "160".into())]).await;
    assert_eq!(png_size(&response.bytes), (160, 102), "80 x 51 mm");
    for (name, value, error) in [
        ("maxSide", "15", "invalid_parameter"),
        ("maxSide", "4097", "invalid_parameter"),
        ("maxSide", "big", "invalid_parameter"),
        ("boxType", "trim", "invalid_parameter"),
        ("partial", "maybe", "invalid_parameter"),
        ("side", "{", "malformed_json"),
        (
            "side",
            r#"{"type": "image", "sideNum": 1, "templateCode": "nope", "data": []}"#,
            "unknown_template",
        ),
        (
            "side",
            r#"{"type": "image", "sideNum": 1, "templateCode": "businesscard_full_text_landscape", "data": [{"type": "imageData", "linkId": "back_line_1"}]}"#,
            "invalid_side",
        ),
        (
            "side",
            r#"{"type": "image", "sideNum": 1, "templateCode": "businesscard_full_text_landscape", "data": [{"type": "textData", "linkId": "back_line_1", "text": "x", "font": {"fontFamily": "wingdings", "bold": false, "italic": false}}]}"#,
            "unknown_font",
        ),
    ] {
        let message = render(vec![(name, value.into())]).await.error(error);
        assert!(
            message.contains(name) || error != "invalid_parameter",
            "{message}"
        );
    }
    app.post(&[("method", "svc.pack.renderSide"), ("side", &side)])
        .await
        .error("missing_parameter");
    // An image the side uses must be in the basket...
    let with_image = json!({"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape",
        "data": [{"type": "imageData", "linkId": "variable_image_front", "resourceUri": "store://photo1",
            "imageBox": {"center": {"x": 44, "y": 29.5}, "width": 88, "height": 59, "angle": 0}}]})
    .to_string();
    let message = app
        .post(&[
            ("method", "svc.pack.renderSide"),
            ("side", &with_image),
            ("imageBasket", r#"{"items": []}"#),
        ])
        .await
        .error("missing_image");
    assert!(message.contains("store://photo1"), "{message}");
    // ...and in the image store.
    let basket = json!({"items": [{"resourceUri": "store://photo1", "imageItems": [
        {"type": "print", "resourceUri": "store://photo1/print", "width": 900, "height": 600}]}]})
    .to_string();
    let message = app
        .post(&[
            ("method", "svc.pack.renderSide"),
            ("side", &with_image),
            ("imageBasket", &basket),
        ])
        .await
        .error("missing_image");
    assert!(message.contains("store://photo1"), "{message}");
    // The permission is needed.
    let key =
        crate::helpers::create_key(&app.store, &[presspack::domain::keys::Permission::Create])
            .await;
    let response = app
        .send(
            reqwest::Method::POST,
            &[],
            &[
                ("method", "svc.pack.renderSide"),
                ("side", &side),
                ("imageBasket", r#"{"items": []}"#),
            ],
            Some(&(&key).into()),
        )
        .await;
    assert!(response.error("permission_denied").contains("render_side"));
}

async fn images_come_from_the_smallest_rendition_that_is_large_enough(kind: StoreKind) {
    let app = spawn_app(kind).await;
    // The small preview (300 x 200) is in the store; the print rendition the basket names
    // is not.
    let uri = store_photo(&app).await["resourceUri"]
        .as_str()
        .unwrap()
        .to_owned();
    let missing_print = format!("{uri}/no-such-rendition");
    let basket = json!({"items": [{"resourceUri": uri, "imageItems": [
        {"type": "print", "resourceUri": missing_print, "width": 2400, "height": 1600},
        {"type": "preview", "resourceUri": format!("{uri}/small-preview"), "width": 300, "height": 200}]}]})
    .to_string();
    let side =
        json!({"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape",
        "data": [{"type": "imageData", "linkId": "variable_image_front", "resourceUri": uri,
            "imageBox": {"center": {"x": 44, "y": 29.5}, "width": 88, "height": 59, "angle": 0}}]})
        .to_string();
    let render = |max_side: &'static str| {
        let (side, basket, app) = (side.clone(), basket.clone(), &app);
        async move {
            app.post(&[
                ("method", "svc.pack.renderSide"),
                ("side", &side),
                ("imageBasket", &basket),
                ("maxSide", max_side),
            ])
            .await
        }
    };
    // 256 px wide needs no more than the 300 px preview...
    let small = render("256").await;
    assert_eq!(small.content_type, "image/png", "{}", small.body);
    // ...1024 px needs the print rendition, which is missing.
    let message = render("1024").await.error("missing_image");
    assert!(message.contains(&missing_print), "{message}");
}

async fn render_side_url_serves_the_png_without_a_key(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let side = text_side("Keep me");
    let params = [
        ("side", side.as_str()),
        ("imageBasket", r#"{"items": []}"#),
        ("maxSide", "300"),
    ];
    let url_response = app
        .post(&[&[("method", "svc.pack.renderSideUrl")][..], &params[..]].concat())
        .await;
    assert_eq!(url_response.status, 200, "{}", url_response.body);
    assert_eq!(url_response.content_type, "text/plain");
    let url = url_response.body.clone();
    let prefix = format!(
        "{}?method=svc.pack.getRenderedSide&id=",
        app.public_endpoint()
    );
    assert!(url.starts_with(&prefix), "{url} should start with {prefix}");
    let id = &url[prefix.len()..];
    assert_eq!(id.len(), 32, "128 random bits");
    // Anyone with the URL can fetch it, unsigned.
    let fetched = app
        .client
        .get(url.replace(&app.public_endpoint(), &app.endpoint()))
        .send()
        .await
        .unwrap();
    assert_eq!(fetched.status(), 200);
    assert_eq!(fetched.headers()["content-type"], "image/png");
    let cache = fetched.headers()["cache-control"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(cache.contains("max-age=10800"), "{cache}");
    let png = fetched.bytes().await.unwrap();
    let direct = app
        .post(&[&[("method", "svc.pack.renderSide")][..], &params[..]].concat())
        .await;
    assert_eq!(png.as_ref(), direct.bytes.as_slice(), "the same render");
    // Another id is not found.
    let response = app
        .send(
            reqwest::Method::GET,
            &[
                ("method", "svc.pack.getRenderedSide"),
                ("id", &"0".repeat(32)),
            ],
            &[],
            None,
        )
        .await;
    assert!(
        response
            .error("rendered_side_not_found")
            .contains("3 hours")
    );
    // Expiry is the store's: a blob past its time is gone (the render's is 3 hours).
    app.store
        .put_blob(
            RENDERED_SIDES,
            "short",
            b"png",
            Some(std::time::Duration::from_millis(50)),
        )
        .await
        .unwrap();
    assert!(
        app.store
            .get_blob(RENDERED_SIDES, "short")
            .await
            .unwrap()
            .is_some()
    );
    tokio::time::sleep(std::time::Duration::from_millis(120)).await;
    assert!(
        app.store
            .get_blob(RENDERED_SIDES, "short")
            .await
            .unwrap()
            .is_none()
    );
}

async fn text_measure_answers_as_the_engine_measures(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let font = r#"{"fontFamily": "Georgia", "bold": true, "italic": false}"#;
    let measure = |params: Vec<(&'static str, &'static str)>| {
        let app = &app;
        async move {
            let mut all = vec![("method", "svc.text.measure"), ("font", font)];
            all.extend(params);
            // No key is needed.
            app.send(reqwest::Method::GET, &all, &[], None).await.ok()
        }
    };
    let text = "Sphinx of black quartz, judge my vow";
    let mm = measure(vec![
        ("text", text),
        ("fontSize", "3.5278"),
        ("fontSizeUnits", "mm"),
    ])
    .await;
    let pt = measure(vec![
        ("text", text),
        ("fontSize", "10"),
        ("fontSizeUnits", "pt"),
    ])
    .await;
    let native = Engine::new(FontBook::builtin())
        .measure(&MeasureRequest {
            text: text.into(),
            font_family: "georgia".into(),
            bold: true,
            italic: false,
            size: 3.5278,
            wrapping_width: None,
            leading: None,
        })
        .unwrap();
    assert!((mm["textWidth"].as_f64().unwrap() - native.text_width).abs() < 1e-9);
    assert_eq!(mm["numberOfLines"], 1);
    assert_eq!(mm["fontSubstituted"], false);
    // 10 pt is 3.5278 mm (to 4 places).
    let ratio = pt["textWidth"].as_f64().unwrap() / mm["textWidth"].as_f64().unwrap();
    assert!((ratio - 1.0).abs() < 1e-4, "{ratio}");
    let wrapped = measure(vec![
        ("text", text),
        ("fontSize", "3.5278"),
        ("fontSizeUnits", "mm"),
        ("wrappingWidth", "30"),
        ("leading", "1.5"),
    ])
    .await;
    let lines = wrapped["numberOfLines"].as_u64().unwrap();
    assert!(lines >= 3, "{wrapped}");
    assert!(wrapped["textWidth"].as_f64().unwrap() <= 30.0);
    let single_height = mm["textHeight"].as_f64().unwrap();
    let height = wrapped["textHeight"].as_f64().unwrap();
    assert!(
        (height - lines as f64 * single_height * 1.5).abs() < 1e-9,
        "lines x line height x leading"
    );
    let skull = measure(vec![
        ("text", "Ahoy \u{2620}"),
        ("fontSize", "4"),
        ("fontSizeUnits", "mm"),
    ])
    .await;
    assert_eq!(skull["fontSubstituted"], true);
}

/// The server's engine (the wasm module under wasmtime) breaks a wrapped Thai line between
/// words, as the native engine with the word lists does, and not as it would without them.
#[tokio::test]
async fn the_server_wraps_thai_between_words() {
    let app = spawn_app(StoreKind::Embedded).await;
    let text = "นามบัตรของคุณพร้อมพิมพ์แล้วกรุณาตรวจสอบชื่อและเบอร์โทรศัพท์";
    let request = MeasureRequest {
        text: text.into(),
        font_family: "sans".into(),
        bold: false,
        italic: false,
        size: 3.5278,
        wrapping_width: Some(15.0),
        leading: Some(1.2),
    };
    let served = app
        .send(
            reqwest::Method::GET,
            &[
                ("method", "svc.text.measure"),
                (
                    "font",
                    r#"{"fontFamily": "sans", "bold": false, "italic": false}"#,
                ),
                ("text", text),
                ("fontSize", "3.5278"),
                ("fontSizeUnits", "mm"),
                ("wrappingWidth", "15"),
                ("leading", "1.2"),
            ],
            &[],
            None,
        )
        .await
        .ok();
    let native = Engine::new(FontBook::builtin()).measure(&request).unwrap();
    let mut catalogue = FontCatalogue::builtin();
    catalogue.word_break.clear();
    let faces = builtin_face_bytes()
        .iter()
        .map(|(name, bytes)| ((*name).to_owned(), Arc::clone(bytes)));
    let without_words = Engine::new(FontBook::new(&catalogue, faces).unwrap())
        .measure(&request)
        .unwrap();
    assert!(served["numberOfLines"].as_u64().unwrap() > 1, "{served}");
    assert_eq!(served["numberOfLines"], native.number_of_lines);
    assert!((served["textWidth"].as_f64().unwrap() - native.text_width).abs() < 1e-9);
    // Lines cut between any two letters hold more: words end short of the line.
    assert!(
        without_words.number_of_lines < native.number_of_lines,
        "{without_words:?}"
    );
}

async fn text_measure_parameters_are_checked(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let font = r#"{"fontFamily": "helvetica", "bold": false, "italic": false}"#;
    let base = [
        ("method", "svc.text.measure"),
        ("text", "Hi"),
        ("fontSize", "10"),
        ("fontSizeUnits", "pt"),
        ("font", font),
    ];
    let call = |extra: &[(&'static str, &'static str)], drop: &str| {
        let mut params: Vec<(&str, &str)> =
            base.iter().copied().filter(|(k, _)| *k != drop).collect();
        params.extend_from_slice(extra);
        let app = &app;
        async move { app.send(reqwest::Method::GET, &params, &[], None).await }
    };
    assert!(
        call(&[("wrappingWidth", "20")], "")
            .await
            .error("missing_parameter")
            .contains("leading")
    );
    assert!(
        call(&[("leading", "1.2")], "")
            .await
            .error("invalid_parameter")
            .contains("leading")
    );
    assert!(
        call(&[], "fontSizeUnits")
            .await
            .error("missing_parameter")
            .contains("fontSizeUnits")
    );
    assert!(
        call(&[("fontSizeUnits", "px")], "fontSizeUnits")
            .await
            .error("invalid_parameter")
            .contains("fontSizeUnits")
    );
    assert!(
        call(&[("fontSize", "-3")], "fontSize")
            .await
            .error("invalid_parameter")
            .contains("fontSize")
    );
    assert!(
        call(
            &[(
                "font",
                r#"{"fontFamily": "wingdings", "bold": false, "italic": false}"#
            )],
            "font"
        )
        .await
        .error("unknown_font")
        .contains("helvetica")
    );
    assert!(
        call(&[("font", r#"{"bold": false}"#)], "font")
            .await
            .error("invalid_parameter")
            .contains("font.fontFamily")
    );
    call(&[], "text").await.error("missing_parameter");
    let long = "x".repeat(10_001);
    let params: Vec<(&str, &str)> = base
        .iter()
        .copied()
        .filter(|(k, _)| *k != "text")
        .chain([("text", long.as_str())])
        .collect();
    app.post(&params).await.error("invalid_parameter");
}

async fn an_engine_failure_fails_one_request_only(kind: StoreKind) {
    // Little engine memory: the fonts' and 24 MiB, which a 512 px render fits in and a
    // 4096 px one (a 45 MB canvas) exhausts.
    let fonts = presspack::infra::fonts::Fonts::load(None)
        .unwrap()
        .guest_bytes();
    let memory = fonts + 24 * 1024 * 1024;
    let app = spawn_app_with(kind, |config| config.engine.memory_bytes = memory).await;
    let side = text_side("Big");
    let render = |max_side: &'static str| {
        let (side, app) = (side.clone(), &app);
        async move {
            app.post(&[
                ("method", "svc.pack.renderSide"),
                ("side", &side),
                ("imageBasket", r#"{"items": []}"#),
                ("maxSide", max_side),
            ])
            .await
        }
    };
    // An input that made the engine fail will again: the answer says so, and keeps the
    // engine's internals to the log.
    let message = render("4096").await.error("engine_failure");
    assert!(message.contains("not supported"), "{message}");
    assert!(!message.contains("wasm"), "{message}");
    assert_eq!(render("512").await.content_type, "image/png");
    let measured = app
        .send(
            reqwest::Method::GET,
            &[
                ("method", "svc.text.measure"),
                ("text", "ok"),
                ("fontSize", "3"),
                ("fontSizeUnits", "mm"),
                (
                    "font",
                    r#"{"fontFamily": "sans", "bold": false, "italic": false}"#,
                ),
            ],
            &[],
            None,
        )
        .await;
    measured.ok();
}
