//! Transport rules (spec "Transport rules", wire-formats section 1).

use crate::every_store;
use crate::helpers::{StoreKind, spawn_app};

every_store!(
    an_unknown_or_missing_method_is_named,
    errors_as_ok_returns_errors_with_status_200,
    response_content_type_sets_the_header_of_every_reply,
    every_operation_works_by_get_post_and_multipart,
    body_parameters_win_over_query_parameters,
    oversized_and_unsupported_bodies_are_refused,
    booleans_accept_true_false_1_0_and_nothing_else,
);

async fn an_unknown_or_missing_method_is_named(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let message = app
        .get(&[("method", "svc.pack.explode")])
        .await
        .error("unknown_method");
    assert!(message.contains("svc.pack.explode"), "{message}");
    assert!(
        message.contains("svc.pack.createPack"),
        "lists the operations: {message}"
    );
    // MOO's prefix is not ours: clients change it to svc.
    app.get(&[("method", "moo.pack.getPack")])
        .await
        .error("unknown_method");
    let message = app
        .get(&[("product", "businesscard")])
        .await
        .error("missing_parameter");
    assert!(message.starts_with("method:"), "{message}");
}

async fn errors_as_ok_returns_errors_with_status_200(kind: StoreKind) {
    let app = spawn_app(kind).await;
    for value in ["true", "1"] {
        let response = app
            .get(&[
                ("method", "svc.pack.getPack"),
                ("packId", "0123"),
                ("errorsAsOK", value),
            ])
            .await;
        assert_eq!(response.status, 200);
        response.exception("pack_not_found");
    }
    let response = app
        .get(&[
            ("method", "svc.pack.getPack"),
            ("packId", "0123"),
            ("errorsAsOK", "false"),
        ])
        .await;
    response.error("pack_not_found");
    // errorsAsOK in the query applies even when the body cannot be read.
    let response = app
        .client
        .post(format!("{}?errorsAsOK=true", app.endpoint()))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

async fn response_content_type_sets_the_header_of_every_reply(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let created = app
        .create_pack_response(
            "minicard",
            &[("responseContentType", "text/plain; charset=utf-8")],
        )
        .await;
    assert_eq!(created.content_type, "text/plain; charset=utf-8");
    created.ok();
    let failed = app
        .get(&[
            ("method", "svc.pack.getPack"),
            ("packId", "x"),
            ("responseContentType", "text/plain"),
        ])
        .await;
    assert_eq!(failed.content_type, "text/plain");
    failed.error("pack_not_found");
    let default = app
        .get(&[("method", "svc.pack.getPack"), ("packId", "x")])
        .await;
    assert_eq!(default.content_type, "application/json");
    // A value that is not a media type, would inject a header, or would make a browser run
    // the reply (as a page or a script) is refused.
    for bad in [
        "not a type",
        "text/plain\r\nSet-Cookie: a=b",
        "text/",
        "text/html",
        "TEXT/HTML; charset=utf-8",
        "application/xhtml+xml",
        "image/svg+xml",
        "text/javascript",
        "application/javascript",
        "multipart/x-mixed-replace; boundary=x",
        "application/pdf",
    ] {
        let response = app
            .get(&[
                ("method", "svc.pack.createPack"),
                ("product", "minicard"),
                ("responseContentType", bad),
            ])
            .await;
        assert_eq!(response.content_type, "application/json");
        let message = response.error("invalid_parameter");
        assert!(message.starts_with("responseContentType:"), "{message}");
    }
}

async fn every_operation_works_by_get_post_and_multipart(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let by_get = app
        .get(&[("method", "svc.pack.createPack"), ("product", "postcard")])
        .await
        .ok();
    let id = by_get["packId"].as_str().unwrap();
    let by_post = app
        .post(&[("method", "svc.pack.getPack"), ("packId", id)])
        .await
        .ok();
    assert_eq!(by_post["pack"], by_get["pack"]);
    // A multipart body is for the unsigned uploadImage: its parts are not signed, so a signed
    // call cannot send one (tests/e2e/attacks.rs has the replay this stops).
    let message = app
        .post_multipart(&[("method", "svc.pack.getPhysicalSpec"), ("packId", id)])
        .await
        .error("unsupported_content_type");
    assert!(message.contains("multipart"), "{message}");
    // `method` in the query string, the rest in the body.
    let split = app
        .send(
            reqwest::Method::POST,
            &[("method", "svc.pack.getPack")],
            &[("packId", id)],
            Some(&app.credentials()),
        )
        .await
        .ok();
    assert_eq!(split["packId"], id);
    // Without the trailing slash too (unsigned: the error shows it reached the endpoint).
    let response = app
        .client
        .get(format!(
            "{}/api/service?method=svc.pack.getPack&packId={id}",
            app.address
        ))
        .send()
        .await
        .unwrap();
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["exception"]["name"], "missing_signature");
}

async fn body_parameters_win_over_query_parameters(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let body = app
        .send(
            reqwest::Method::POST,
            &[("method", "svc.pack.createPack"), ("product", "postcard")],
            &[("product", "minicard")],
            Some(&app.credentials()),
        )
        .await
        .ok();
    assert_eq!(body["pack"]["productCode"], "minicard");
}

async fn oversized_and_unsupported_bodies_are_refused(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let huge = "x".repeat(app.config.edge.max_body_bytes + 1);
    let message = app
        .create_pack_response("minicard", &[("friendlyName", &huge)])
        .await
        .error("request_too_large");
    assert!(message.contains("bytes"), "{message}");
    let response = app
        .client
        .post(app.endpoint())
        .header("content-type", "application/json")
        .body(r#"{"method":"svc.pack.createPack"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 500);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["exception"]["name"], "unsupported_content_type");
    // Too many parameters.
    let many: Vec<(String, String)> = (0..300).map(|i| (format!("p{i}"), "v".into())).collect();
    let response = app
        .client
        .post(app.endpoint())
        .form(&many)
        .send()
        .await
        .unwrap();
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["exception"]["name"], "request_too_large");
}

async fn booleans_accept_true_false_1_0_and_nothing_else(kind: StoreKind) {
    let app = spawn_app(kind).await;
    for (value, present) in [("true", true), ("1", true), ("false", false), ("0", false)] {
        let body = app
            .create_pack("minicard", &[("includePhysicalSpec", value)])
            .await;
        assert_eq!(
            body.get("physicalSpec").is_some(),
            present,
            "includePhysicalSpec={value}"
        );
    }
    let message = app
        .create_pack_response("minicard", &[("includePhysicalSpec", "yes")])
        .await
        .error("invalid_parameter");
    assert!(message.starts_with("includePhysicalSpec:"), "{message}");
}
