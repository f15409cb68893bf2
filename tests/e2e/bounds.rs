//! Every input has a bound, and going past one is a clear error naming the parameter, at the
//! API's edge: parameters and multipart parts per request, sides, cards, data items and text
//! per pack, and overlays per render. (Body size: `transport`; image sizes: `images`; the
//! engine's waiting room: `infra::engine::pool`'s unit tests; rate limits: `operations`; JSON depth:
//! `packs`.)

use serde_json::json;

use crate::helpers::{StoreKind, spawn_app};

#[tokio::test]
async fn too_many_parameters_or_parts_are_refused() {
    let app = spawn_app(StoreKind::Embedded).await;
    let names: Vec<String> = (0..300).map(|i| format!("p{i}")).collect();
    let mut params: Vec<(&str, &str)> =
        vec![("method", "svc.pack.createPack"), ("product", "minicard")];
    params.extend(names.iter().map(|name| (name.as_str(), "x")));
    let message = app.post(&params).await.error("request_too_large");
    assert!(message.contains("more than 256 parameters"), "{message}");
    let message = app.post_multipart(&params).await.error("request_too_large");
    assert!(message.contains("more than 256 parameters"), "{message}");
    // At the bound it is an ordinary call (unknown parameters are ignored).
    params.truncate(250);
    app.post(&params).await.ok();
}

/// Low: every distinct `store://` address anywhere in a pack (unknown properties are kept)
/// cost a store read when the pack was saved, so a 2 MB pack cost some 45,000 reads.
#[tokio::test]
async fn a_pack_names_a_bounded_number_of_stored_images() {
    let app = spawn_app(StoreKind::Embedded).await;
    let addresses: Vec<String> = (0..257u32).map(|i| format!("store://{i:032x}")).collect();
    let pack = json!({"sides": [], "seenElsewhere": addresses});
    let message = app
        .create_pack_response("businesscard", &[("pack", &pack.to_string())])
        .await
        .error("invalid_pack");
    assert!(
        message.contains("pack: names 257 stored images") && message.contains("at most 256"),
        "{message}"
    );
    let pack = json!({"sides": [], "seenElsewhere": addresses[..256]});
    app.create_pack_response("businesscard", &[("pack", &pack.to_string())])
        .await
        .ok();
}

#[tokio::test]
async fn packs_have_bounded_lists_and_texts() {
    let app = &spawn_app(StoreKind::Embedded).await;
    let create = |pack: serde_json::Value| async move {
        app.create_pack_response("businesscard", &[("pack", &pack.to_string())])
            .await
    };
    let side = json!({"type": "details", "sideNum": 1,
                      "templateCode": "businesscard_full_text_landscape", "data": []});
    let message = create(json!({"sides": vec![side.clone(); 257]}))
        .await
        .error("invalid_pack");
    assert!(
        message.contains("pack.sides: at most 256 entries, got 257"),
        "{message}"
    );

    let line =
        |n: usize, text: &str| json!({"type": "textData", "linkId": format!("l{n}"), "text": text});
    let mut crowded = side.clone();
    crowded["data"] = (0..257).map(|n| line(n, "a")).collect();
    let message = create(json!({"sides": [crowded]}))
        .await
        .error("invalid_pack");
    assert!(
        message.contains("pack.sides[0]: side has 257 data, more than 256"),
        "{message}"
    );

    let mut long = side.clone();
    long["data"] =
        json!([{"type": "textData", "linkId": "back_line_1", "text": "a".repeat(10_001)}]);
    let message = create(json!({"sides": [long]})).await.error("invalid_pack");
    assert!(
        message.contains("back_line_1") || message.contains("data[0]"),
        "{message}"
    );
    assert!(message.contains("10000"), "{message}");
}

#[tokio::test]
async fn a_render_takes_at_most_eight_overlays() {
    let app = spawn_app(StoreKind::Embedded).await;
    let side = json!({"type": "details", "sideNum": 1,
                      "templateCode": "businesscard_full_text_landscape", "data": []});
    let render = |overlays: usize| {
        let overlays = json!(vec![side.clone(); overlays]).to_string();
        let side = side.to_string();
        let app = &app;
        async move {
            app.post(&[
                ("method", "svc.pack.renderSide"),
                ("side", &side),
                ("overlays", &overlays),
                ("imageBasket", r#"{"items": []}"#),
                ("maxSide", "64"),
            ])
            .await
        }
    };
    let message = render(9).await.error("invalid_parameter");
    assert!(message.starts_with("overlays: at most 8"), "{message}");
    assert_eq!(render(8).await.status, 200);
}
