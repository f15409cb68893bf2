//! createPack, getPack, updatePack: envelopes, parameters, limits and errors.

use serde_json::{Value, json};

use crate::every_store;
use crate::helpers::{StoreKind, spawn_app};

every_store!(
    a_new_pack_without_data_is_a_sensible_empty_pack_of_its_product,
    pack_ids_are_unguessable_and_unique,
    drop_ins_are_urls_under_the_base_url_with_a_secret_token,
    client_pack_data_is_kept_with_unknown_properties_and_normalised_colours,
    product_errors,
    tracking_id_is_at_most_255_characters,
    start_again_url_must_be_an_absolute_http_url,
    invalid_pack_data_names_the_value,
    get_pack_returns_what_create_stored,
    a_missing_pack_is_an_error_for_every_pack_operation,
    update_pack_replaces_the_data,
    update_pack_errors,
    a_pack_survives_a_restart,
    returned_text_data_carry_their_resolved_style_and_what_was_sent_stays,
);

async fn a_new_pack_without_data_is_a_sensible_empty_pack_of_its_product(kind: StoreKind) {
    let app = spawn_app(kind).await;
    for (product, cards, sides) in [
        ("businesscard", 50, 2),
        ("minicard", 100, 2),
        ("postcard", 20, 2),
        ("sticker", 90, 1),
    ] {
        let body = app.create_pack(product, &[]).await;
        let pack = &body["pack"];
        assert_eq!(pack["productCode"], product);
        assert_eq!(pack["numCards"], cards);
        assert_eq!(pack["productVersion"], 1);
        assert_eq!(pack["sides"].as_array().unwrap().len(), sides);
        assert_eq!(pack["sides"][0]["type"], "image");
        assert_eq!(pack["imageBasket"]["items"], json!([]));
        assert_eq!(body["warnings"], json!([]), "{product}");
        assert!(
            body.get("physicalSpec").is_none(),
            "only with includePhysicalSpec"
        );
        assert!(
            pack.get("packId").is_none(),
            "the id is never inside the pack"
        );
    }
}

async fn pack_ids_are_unguessable_and_unique(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let mut ids = std::collections::HashSet::new();
    for _ in 0..20 {
        let id = app.create_pack("minicard", &[]).await["packId"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_eq!(id.len(), 32, "128 bits as hex: {id}");
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
        assert!(ids.insert(id));
    }
}

async fn drop_ins_are_urls_under_the_base_url_with_a_secret_token(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let body = app.create_pack("businesscard", &[]).await;
    let id = body["packId"].as_str().unwrap();
    let drop_ins = body["dropIns"].as_object().unwrap();
    let mut names: Vec<&str> = drop_ins.keys().map(String::as_str).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "crop",
            "details",
            "edit",
            "finish",
            "imageChooser",
            "preview"
        ]
    );
    for (name, url) in drop_ins {
        let url = url.as_str().unwrap();
        let prefix = format!("{}/dropins/{id}/{name}?token=", app.address);
        assert!(url.starts_with(&prefix), "{url}");
        assert_eq!(url.len() - prefix.len(), 32, "a 128-bit token: {url}");
    }
    // The configured public base URL is used, not the listening address.
    let behind_proxy = crate::helpers::spawn_app_with(kind, |config| {
        config.service.base_url = Some("https://print.example.com/presspack".into());
    })
    .await;
    let body = behind_proxy.create_pack("businesscard", &[]).await;
    let edit = body["dropIns"]["edit"].as_str().unwrap();
    assert!(
        edit.starts_with("https://print.example.com/presspack/dropins/"),
        "{edit}"
    );
}

async fn client_pack_data_is_kept_with_unknown_properties_and_normalised_colours(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let pack = json!({
        "sides": [{
            "type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape",
            "clientSideNote": "kept",
            "data": [
                {"type": "textData", "linkId": "back_line_1", "text": "Ada Lovelace",
                 "pointSize": 3.5278, "alignment": "left",
                 "font": {"fontFamily": "helvetica", "bold": true, "italic": false},
                 "colour": {"type": "cmyk", "c": 0, "m": 0, "y": 0, "k": 100}},
                {"type": "boxData", "linkId": "background_box", "colour": {"type": "rgb", "r": 255, "g": 255, "b": 255}}
            ]
        }, {"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape"}],
        "extras": [{"key": "customer", "value": "42"}],
        "myTopLevel": {"nested": [1, 2, 3]}
    });
    let body = app
        .create_pack("businesscard", &[("pack", &pack.to_string())])
        .await;
    let stored = &body["pack"];
    assert_eq!(stored["myTopLevel"], json!({"nested": [1, 2, 3]}));
    assert_eq!(stored["sides"][0]["clientSideNote"], "kept");
    let text = &stored["sides"][0]["data"][0];
    assert_eq!(text["text"], "Ada Lovelace");
    assert_eq!(text["pointSize"], 3.5278);
    assert_eq!(
        text["colour"],
        json!({"type": "CMYK", "c": 0.0, "m": 0.0, "y": 0.0, "k": 100.0})
    );
    assert_eq!(stored["sides"][0]["data"][1]["colour"]["type"], "RGB");
    assert_eq!(
        stored["extras"],
        json!([{"key": "customer", "value": "42"}])
    );
    assert_eq!(
        stored["numCards"], 50,
        "absent numCards takes the product's"
    );
    assert_eq!(
        stored["sides"][1]["data"],
        json!([]),
        "absent arrays are empty"
    );
}

async fn product_errors(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let message = app
        .create_pack_response("flyer", &[])
        .await
        .error("unknown_product");
    assert!(
        message.contains("flyer") && message.contains("businesscard, minicard, postcard, sticker"),
        "{message}"
    );
    let message = app
        .post(&[("method", "svc.pack.createPack")])
        .await
        .error("missing_parameter");
    assert!(message.starts_with("product:"), "{message}");
    // Two parameters naming different products: an error naming both.
    let message = app
        .create_pack_response("minicard", &[("pack", r#"{"productCode":"postcard"}"#)])
        .await
        .error("conflicting_parameters");
    assert!(
        message.starts_with("product, pack.productCode:"),
        "{message}"
    );
    assert!(
        message.contains("minicard") && message.contains("postcard"),
        "{message}"
    );
}

async fn tracking_id_is_at_most_255_characters(kind: StoreKind) {
    let app = spawn_app(kind).await;
    // Characters, not bytes: 255 two-byte characters are fine.
    let longest = "é".repeat(255);
    app.create_pack("minicard", &[("trackingId", &longest)])
        .await;
    let too_long = "a".repeat(256);
    let message = app
        .create_pack_response("minicard", &[("trackingId", &too_long)])
        .await
        .error("invalid_parameter");
    assert_eq!(message, "trackingId: must be at most 255 characters");
    let message = app
        .create_pack_response("minicard", &[("friendlyName", &too_long)])
        .await
        .error("invalid_parameter");
    assert!(message.starts_with("friendlyName:"), "{message}");
}

async fn start_again_url_must_be_an_absolute_http_url(kind: StoreKind) {
    let app = spawn_app(kind).await;
    app.create_pack(
        "minicard",
        &[("startAgainUrl", "https://shop.example.com/cards?start=1")],
    )
    .await;
    for bad in [
        "/relative/path",
        "ftp://example.com/x",
        "javascript:alert(1)",
        "http://",
    ] {
        let message = app
            .create_pack_response("minicard", &[("startAgainUrl", bad)])
            .await
            .error("invalid_parameter");
        assert!(message.starts_with("startAgainUrl:"), "{bad}: {message}");
    }
}

async fn invalid_pack_data_names_the_value(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let cases = [
        (
            r#"{"sides": [{"type": "image", "sideNum": "one", "templateCode": "t"}]}"#,
            "pack.sides[0].sideNum:",
        ),
        (
            r#"{"sides": [{"type": "image", "sideNum": 1, "templateCode": "t", "data": [{"type": "soundData", "linkId": "x"}]}]}"#,
            "pack.sides[0].data[0].type:",
        ),
        (
            r#"{"sides": [{"type": "image", "sideNum": 1, "templateCode": "t", "data": [{"type": "textData", "linkId": "x", "colour": {"type": "RGB", "r": 300, "g": 0, "b": 0}}]}]}"#,
            "pack.sides[0].data[0].colour.r:",
        ),
        (
            r#"{"sides": [{"type": "image", "sideNum": 1, "templateCode": "t", "data": [{"type": "textData", "linkId": "x", "alignment": "justify"}]}]}"#,
            "pack.sides[0].data[0].alignment:",
        ),
        (r#"{"numCards": -1}"#, "pack.numCards:"),
        (
            r#"{"imageBasket": {"items": [{"name": "no uri"}]}}"#,
            "pack.imageBasket.items[0].resourceUri:",
        ),
    ];
    for (pack, prefix) in cases {
        let message = app
            .create_pack_response("businesscard", &[("pack", pack)])
            .await
            .error("invalid_pack");
        assert!(message.starts_with(prefix), "{pack}: {message}");
    }
    let message = app
        .create_pack_response("businesscard", &[("pack", "{\"sides\": [")])
        .await
        .error("malformed_json");
    assert!(message.starts_with("pack: malformed JSON"), "{message}");
    // Deeply nested JSON is refused, not a stack overflow.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let message = app
        .create_pack_response("businesscard", &[("pack", &deep)])
        .await
        .error("malformed_json");
    assert!(message.contains("recursion limit"), "{message}");
}

async fn get_pack_returns_what_create_stored(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let pack = json!({"sides": [{"type": "image", "sideNum": 1, "templateCode": "minicard_full_image_landscape",
        "data": [{"type": "textData", "linkId": "x", "text": "ünïcødé ✓"}]}]});
    let created = app
        .create_pack(
            "minicard",
            &[("pack", &pack.to_string()), ("includePhysicalSpec", "true")],
        )
        .await;
    let id = created["packId"].as_str().unwrap();
    let got = app.get_pack(id).await.ok();
    assert_eq!(got["packId"], id);
    assert_eq!(got["pack"], created["pack"]);
    assert_eq!(got["dropIns"], created["dropIns"]);
    assert!(got.get("physicalSpec").is_none());
    let with_spec = app
        .get(&[
            ("method", "svc.pack.getPack"),
            ("packId", id),
            ("includePhysicalSpec", "true"),
        ])
        .await
        .ok();
    assert_eq!(with_spec["physicalSpec"], created["physicalSpec"]);
}

async fn a_missing_pack_is_an_error_for_every_pack_operation(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let unknown = "0123456789abcdef0123456789abcdef";
    for method in ["svc.pack.getPack", "svc.pack.getPhysicalSpec"] {
        for id in [unknown, "../../etc/passwd", "x"] {
            let message = app
                .get(&[("method", method), ("packId", id)])
                .await
                .error("pack_not_found");
            assert!(message.starts_with("packId:"), "{message}");
        }
        app.get(&[("method", method)])
            .await
            .error("missing_parameter");
    }
    app.post(&[
        ("method", "svc.pack.updatePack"),
        ("packId", unknown),
        ("pack", "{}"),
    ])
    .await
    .error("pack_not_found");
    app.post(&[
        ("method", "svc.pack.updatePhysicalSpec"),
        ("packId", unknown),
        ("physicalSpec", "{}"),
    ])
    .await
    .error("pack_not_found");
}

async fn update_pack_replaces_the_data(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let created = app
        .create_pack("postcard", &[("friendlyName", "Holiday")])
        .await;
    let id = created["packId"].as_str().unwrap();
    let new_pack = json!({"sides": [{"type": "image", "sideNum": 1, "templateCode": "postcard_full_image_landscape",
        "data": [{"type": "textData", "linkId": "greeting", "text": "Wish you were here"}]}]});
    let updated = app
        .post(&[
            ("method", "svc.pack.updatePack"),
            ("packId", id),
            ("pack", &new_pack.to_string()),
            ("friendlyName", "Summer"),
            ("includePhysicalSpec", "true"),
        ])
        .await
        .ok();
    assert_eq!(updated["packId"], id);
    assert_eq!(
        updated["pack"]["sides"].as_array().unwrap().len(),
        1,
        "replaced, not merged"
    );
    assert_eq!(
        updated["pack"]["sides"][0]["data"][0]["text"],
        "Wish you were here"
    );
    assert_eq!(updated["physicalSpec"]["productType"], "postcard");
    assert_eq!(
        updated["dropIns"], created["dropIns"],
        "drop-in URLs stay the same"
    );
    let got = app.get_pack(id).await.ok();
    assert_eq!(got["pack"], updated["pack"]);
}

async fn update_pack_errors(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let created = app.create_pack("postcard", &[]).await;
    let id = created["packId"].as_str().unwrap();
    let update = |pack: &'static str| {
        let app = &app;
        async move {
            app.post(&[
                ("method", "svc.pack.updatePack"),
                ("packId", id),
                ("pack", pack),
            ])
            .await
        }
    };
    update("").await.error("missing_parameter");
    update("{not json").await.error("malformed_json");
    let message = update(r#"{"sides": [{"type": "image"}]}"#)
        .await
        .error("invalid_pack");
    assert!(message.starts_with("pack.sides[0].sideNum:"), "{message}");
    let message = update(r#"{"productCode": "sticker"}"#)
        .await
        .error("invalid_pack");
    assert!(message.starts_with("pack.productCode:"), "{message}");
    // A failed update changes nothing.
    assert_eq!(app.get_pack(id).await.ok()["pack"], created["pack"]);
}

async fn a_pack_survives_a_restart(kind: StoreKind) {
    let mut app = spawn_app(kind).await;
    let pack = json!({"sides": [{"type": "image", "sideNum": 1, "templateCode": "sticker_image"}], "mine": true});
    let created = app
        .create_pack(
            "sticker",
            &[
                ("pack", &pack.to_string()),
                ("physicalSpec", r#"{"paperLaminate":"gloss"}"#),
            ],
        )
        .await;
    let id = created["packId"].as_str().unwrap();
    app.restart().await;
    let got: Value = app
        .get(&[
            ("method", "svc.pack.getPack"),
            ("packId", id),
            ("includePhysicalSpec", "true"),
        ])
        .await
        .ok();
    assert_eq!(got["pack"], created["pack"]);
    assert_eq!(got["physicalSpec"]["paperLaminate"], "gloss");
}

/// MOO returned each text datum with its resolved pointSize, font, colour and alignment, and
/// moo.rb cannot read a pack back without them (wire-formats section 9): filled from the
/// template where the client left them out; what the client sent comes back as sent.
async fn returned_text_data_carry_their_resolved_style_and_what_was_sent_stays(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let sent = json!({"type": "textData", "linkId": "back_line_2", "text": "Bo",
        "pointSize": 4.5, "font": {"fontFamily": "georgia", "bold": true, "italic": false},
        "colour": {"type": "CMYK", "c": 1.5, "m": 2.5, "y": 3.5, "k": 4.5}, "alignment": "right",
        "mine": {"kept": true}});
    let pack = json!({"sides": [{"type": "details", "sideNum": 1,
        "templateCode": "businesscard_full_text_landscape",
        "data": [{"type": "textData", "linkId": "back_line_1", "text": "Ann"}, sent]}]});
    let created = app
        .create_pack("businesscard", &[("pack", &pack.to_string())])
        .await;
    let id = created["packId"].as_str().unwrap();
    let updated = app
        .post(&[
            ("method", "svc.pack.updatePack"),
            ("packId", id),
            ("pack", &pack.to_string()),
        ])
        .await
        .ok();
    for body in [&created, &app.get_pack(id).await.ok(), &updated] {
        let data = &body["pack"]["sides"][0]["data"];
        let filled = &data[0];
        // The template's: Helvetica (not bold), a size in mm, RGB, an alignment.
        assert_eq!(filled["text"], "Ann");
        assert_eq!(filled["font"]["fontFamily"], "Helvetica", "{filled}");
        assert_eq!(filled["font"]["bold"], false);
        assert!(filled["pointSize"].as_f64().unwrap() > 1.0, "{filled}");
        assert_eq!(filled["colour"]["type"], "RGB", "{filled}");
        assert!(["left", "center", "right"].contains(&filled["alignment"].as_str().unwrap()));
        assert_eq!(data[1], sent, "sent fields come back as sent");
    }
}
