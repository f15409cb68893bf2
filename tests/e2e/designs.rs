//! Design codes: registered with the operator CLI (while the server runs on the same store),
//! used by createPack's designCode.

use serde_json::json;

use crate::every_store;
use crate::helpers::{StoreKind, TestApp, spawn_app};

every_store!(
    create_pack_starts_from_a_registered_design,
    design_code_errors,
    the_cli_manages_design_codes,
);

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
