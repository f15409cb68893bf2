//! Design codes: registered with the operator CLI (while the server runs on the same store),
//! used by createPack's designCode; and the starter designs a server registers on its first
//! start (issue 58).

use std::collections::BTreeMap;
use std::time::Duration;

use presspack::domain::designs;
use serde_json::json;

use crate::customers::{local, new_pack};
use crate::every_store;
use crate::guests::{load_design, named, save};
use crate::helpers::{StoreKind, TestApp, spawn_app, spawn_app_with};
use crate::shop::Shopper;

every_store!(
    create_pack_starts_from_a_registered_design,
    design_code_errors,
    the_cli_manages_design_codes,
    starter_designs_are_registered_once,
    a_save_records_only_a_design_of_the_pack_s_product,
);

/// How many starter designs the project ships.
const STARTERS: usize = 30;

/// A server that registers the starter designs, once they are all registered.
pub async fn spawn_app_with_starters(kind: StoreKind) -> TestApp {
    let app = spawn_app_with(kind, |config| config.service.starter_designs = true).await;
    // Their pictures are stored in the background after the start: well under a minute.
    for _ in 0..1200 {
        if designs::list(app.store.as_ref()).await.unwrap().len() >= STARTERS {
            return app;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the starter designs were not registered within two minutes");
}

fn register(
    app: &TestApp,
    code: &str,
    product: &str,
    pack: &serde_json::Value,
    spec: Option<&str>,
) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let pack_file = dir.path().join("pack.json");
    std::fs::write(&pack_file, pack.to_string()).unwrap();
    let pack_arg = pack_file.to_str().unwrap().to_owned();
    let mut args = vec![
        "designs",
        "add",
        "--code",
        code,
        "--product",
        product,
        "--pack",
        &pack_arg,
    ];
    let spec_file = dir.path().join("spec.json");
    let spec_arg = spec_file.to_str().unwrap().to_owned();
    if let Some(spec) = spec {
        std::fs::write(&spec_file, spec).unwrap();
        args.extend(["--physical-spec", &spec_arg]);
    }
    app.cli(&args)
}

fn design_pack() -> serde_json::Value {
    json!({"sides": [
        {"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape"},
        {"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape",
         "data": [{"type": "textData", "linkId": "back_line_1", "text": "Your name here"}]}]})
}

async fn create_pack_starts_from_a_registered_design(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let output = register(
        &app,
        "spring-2026",
        "businesscard",
        &design_pack(),
        Some(r#"{"paperClass":"green"}"#),
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let body = app
        .create_pack(
            "businesscard",
            &[
                ("designCode", "spring-2026"),
                ("includePhysicalSpec", "true"),
            ],
        )
        .await;
    assert_eq!(
        body["pack"]["sides"][1]["data"][0]["text"],
        "Your name here"
    );
    assert_eq!(body["physicalSpec"]["paperClass"], "green");
    // A physicalSpec parameter refines the design's.
    let body = app
        .create_pack(
            "businesscard",
            &[
                ("designCode", "spring-2026"),
                ("physicalSpec", r#"{"packSize":200}"#),
                ("includePhysicalSpec", "true"),
            ],
        )
        .await;
    assert_eq!(body["physicalSpec"]["paperClass"], "green");
    assert_eq!(body["physicalSpec"]["packSize"], 200);
}

async fn design_code_errors(kind: StoreKind) {
    let app = spawn_app(kind).await;
    assert!(
        register(&app, "cards", "businesscard", &design_pack(), None)
            .status
            .success()
    );
    let create = |extra: &'static [(&'static str, &'static str)]| {
        let app = &app;
        async move {
            let mut params = vec![("method", "svc.pack.createPack")];
            params.extend_from_slice(extra);
            app.post(&params).await
        }
    };
    let message = create(&[("product", "businesscard"), ("designCode", "nope")])
        .await
        .error("unknown_design_code");
    assert!(message.starts_with("designCode:"), "{message}");
    let message = create(&[("product", "minicard"), ("designCode", "cards")])
        .await
        .error("conflicting_parameters");
    assert!(message.contains("businesscard"), "{message}");
    let message = create(&[
        ("product", "businesscard"),
        ("designCode", "cards"),
        ("pack", "{}"),
    ])
    .await
    .error("conflicting_parameters");
    assert!(message.starts_with("pack, designCode:"), "{message}");
}

async fn the_cli_manages_design_codes(kind: StoreKind) {
    let app = spawn_app(kind).await;
    assert!(
        register(&app, "b", "minicard", &json!({}), None)
            .status
            .success()
    );
    assert!(
        register(&app, "a", "postcard", &json!({}), None)
            .status
            .success()
    );
    let taken = register(&app, "a", "postcard", &json!({}), None);
    assert!(!taken.status.success());
    assert!(String::from_utf8_lossy(&taken.stderr).contains("exists already"));
    let bad = register(&app, "c", "postcard", &json!({"sides": 3}), None);
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("pack.sides: expected an array"),
        "{bad:?}"
    );
    let bad = register(&app, "bad code!", "postcard", &json!({}), None);
    assert!(!bad.status.success());
    // A label is what customers see: bounded, no control characters.
    let pack_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(pack_file.path(), "{}").unwrap();
    let pack_arg = pack_file.path().to_str().unwrap();
    let labelled = |label: &str| {
        let args = [
            "designs",
            "add",
            "--code",
            "l",
            "--product",
            "minicard",
            "--pack",
            pack_arg,
            "--label",
            label,
        ];
        app.cli(&args)
    };
    for bad_label in ["Line\nbreak", &"x".repeat(61), " "] {
        let refused = labelled(bad_label);
        assert!(!refused.status.success(), "{bad_label:?}");
        assert!(
            String::from_utf8_lossy(&refused.stderr).contains("label"),
            "{refused:?}"
        );
    }
    assert!(labelled("Spring flowers").status.success());
    let show = app.cli(&["designs", "show", "l"]);
    let shown: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    assert_eq!(shown["label"], "Spring flowers");
    assert!(app.cli(&["designs", "remove", "l"]).status.success());
    let list = app.cli(&["designs", "list"]);
    assert_eq!(String::from_utf8_lossy(&list.stdout), "a\nb\n");
    let show = app.cli(&["designs", "show", "b"]);
    let design: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    assert_eq!(design["product"], "minicard");
    assert_eq!(design["pack"]["numCards"], 100);
    assert!(app.cli(&["designs", "remove", "b"]).status.success());
    assert!(!app.cli(&["designs", "remove", "b"]).status.success());
    app.create_pack_response("minicard", &[("designCode", "b")])
        .await
        .error("unknown_design_code");
}

/// The editor offers the pack's product's designs and opens on them until the pack is saved
/// from one; a save names its design in `?design=`, which must be a design of the pack's
/// product: another product's, an unknown or an over-long code is refused and recorded nowhere.
async fn a_save_records_only_a_design_of_the_pack_s_product(kind: StoreKind) {
    let app = spawn_app(kind).await;
    for (code, product) in [("cards", "businesscard"), ("posts", "postcard")] {
        let output = register(&app, code, product, &design_pack(), None);
        assert!(output.status.success(), "{output:?}");
    }
    let (pack, drop_ins) = new_pack(&app, &[]).await;
    let guest = Shopper::new(&app);
    let page = guest.get(&local(&drop_ins["edit"])).await;
    let (status, design) = load_design(&guest, &page).await;
    assert_eq!(status, 200, "{design}");
    assert_eq!(design["chooseDesign"], true);
    let offered: Vec<&str> = design["designs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["cards"]);
    let save_url = design["saveUrl"].as_str().unwrap();
    let recorded = async || app.stored_pack(&pack).await.record.design_code;
    for refused in ["posts", "nope", &"x".repeat(65), ""] {
        let url = format!("{save_url}&design={refused}");
        assert_eq!(
            save(&guest, &page, &url, &named("Ada")).await,
            400,
            "{refused}"
        );
    }
    assert_eq!(recorded().await, None);
    let url = format!("{save_url}&design=cards");
    assert_eq!(save(&guest, &page, &url, &named("Ada")).await, 200);
    assert_eq!(recorded().await.as_deref(), Some("cards"));
    let (_, design) = load_design(&guest, &page).await;
    assert_eq!(design["chooseDesign"], false);
}

async fn starter_designs_are_registered_once(kind: StoreKind) {
    let mut app = spawn_app_with_starters(kind).await;
    let store = app.store.as_ref();
    let mut per_product = BTreeMap::<String, usize>::new();
    for code in designs::list(store).await.unwrap() {
        let design = designs::find(store, &code).await.unwrap().unwrap();
        assert!(design.label.is_some(), "{code} has no label");
        *per_product.entry(design.product).or_default() += 1;
    }
    let count = |product: &str| per_product.get(product).copied().unwrap_or(0);
    assert!(count("businesscard") >= 12, "{per_product:?}");
    for product in ["minicard", "postcard", "sticker"] {
        assert!(count(product) >= 6, "{per_product:?}");
    }
    // A starter the operator removes stays removed: a restart registers only what was never
    // registered (stopping waits for the server's registration to finish).
    assert!(
        app.cli(&["designs", "remove", "sunrise-card"])
            .status
            .success()
    );
    app.restart().await;
    app.restart().await;
    let codes = designs::list(app.store.as_ref()).await.unwrap();
    assert_eq!(codes.len(), STARTERS - 1, "{codes:?}");
    assert!(!codes.iter().any(|code| code == "sunrise-card"));
}

/// Every starter design, as a partner's createPack starts from it, has nothing to check
/// (no overflowing text, no picture short of 300 dpi, no empty slot, no missing face) and
/// draws in colour. Each side is written to `target/starter-designs/` to look at.
#[tokio::test]
async fn the_starter_designs_print_clean() {
    let app = spawn_app_with_starters(StoreKind::Embedded).await;
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/starter-designs");
    std::fs::create_dir_all(&out).unwrap();
    let mut to_check = Vec::new();
    for code in designs::list(app.store.as_ref()).await.unwrap() {
        let design = designs::find(app.store.as_ref(), &code)
            .await
            .unwrap()
            .unwrap();
        let body = app
            .create_pack(&design.product, &[("designCode", &code)])
            .await;
        if body["warnings"] != json!([]) {
            to_check.push(format!("{code}: {}", body["warnings"]));
        }
        // The editor's chooser shows the server's drawing of its front.
        let thumbnail = app
            .client
            .get(format!("{}/designs/{code}/thumbnail.png", app.address))
            .send()
            .await
            .unwrap();
        assert_eq!(thumbnail.status(), 200, "{code}");
        let thumbnail = thumbnail.bytes().await.unwrap();
        let (width, height) = png_size(&thumbnail);
        assert_eq!(width.max(height), 256, "{code}");
        assert!(
            colours(&thumbnail) > 8,
            "{code}: the thumbnail has hardly any colours"
        );
        let pack = &body["pack"];
        for (index, side) in pack["sides"].as_array().unwrap().iter().enumerate() {
            let response = app
                .post(&[
                    ("method", "svc.pack.renderSide"),
                    ("side", &side.to_string()),
                    ("imageBasket", &pack["imageBasket"].to_string()),
                    ("boxType", "cut"),
                    ("maxSide", "600"),
                ])
                .await;
            assert_eq!(
                response.content_type, "image/png",
                "{code}: {}",
                response.body
            );
            std::fs::write(
                out.join(format!("{code}-{}.png", index + 1)),
                &response.bytes,
            )
            .unwrap();
            assert!(
                colours(&response.bytes) > 8,
                "{code} side {}: hardly any colours",
                index + 1
            );
        }
    }
    assert!(to_check.is_empty(), "{}", to_check.join("\n"));
    for missing in ["no-such-design", &"x".repeat(65), "not%20a%20code"] {
        let answer = app
            .client
            .get(format!("{}/designs/{missing}/thumbnail.png", app.address))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 404, "{missing}");
    }
}

fn png_size(png_bytes: &[u8]) -> (u32, u32) {
    png::Decoder::new(std::io::Cursor::new(png_bytes))
        .read_info()
        .unwrap()
        .info()
        .size()
}

/// How many distinct colours a PNG has (up to 1,000).
fn colours(png_bytes: &[u8]) -> usize {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().unwrap();
    let mut rgba = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut rgba).unwrap();
    let mut seen = std::collections::HashSet::new();
    for pixel in rgba[..info.buffer_size()].chunks_exact(4) {
        seen.insert([pixel[0], pixel[1], pixel[2]]);
        if seen.len() >= 1000 {
            break;
        }
    }
    seen.len()
}
