//! A compatibility suite shaped like the real MOO pack-API clients (the Ruby gem and the PHP
//! library, unmodified but for base URL and method prefix): each step is what those clients
//! send, signed by requests-oauthlib (an OAuth client this project did not write), and each
//! answer is read the way they read it, field names and JSON types included.
//!
//! Where the spec is silent, the clients' behaviour is followed: `imageBasketItem` is read as
//! the basket item itself and copied into the pack as received; createPack names its
//! product through `physicalSpec.productType` and `pack.productCode` only; renderSide is
//! asked for at `maxSide` 1500 (the PHP client's default).

use base64::Engine as _;
use serde_json::{Value, json};

use crate::every_store;
use crate::helpers::{StoreKind, TestApp, python_call, python_calls, spawn_app};
use crate::images::fixture;

every_store!(
    a_moo_client_session_works_end_to_end,
    the_product_comes_from_whichever_parameter_names_it,
    refused_and_cautioned_uploads_keep_their_shape,
);

/// A field's JSON type, for the assertions below.
#[track_caller]
fn assert_types(value: &Value, fields: &[(&str, &str)]) {
    for (name, expected) in fields {
        let field = &value[*name];
        let actual = match field {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        let matches = actual == *expected || (*expected == "number" && actual == "integer");
        assert!(
            matches,
            "{name}: expected {expected}, got {field} in {value}"
        );
    }
}

/// The rendition of `kind` of a basket item as a client reads it.
fn rendition<'i>(item: &'i Value, kind: &str) -> &'i Value {
    item["imageItems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == kind)
        .unwrap_or_else(|| panic!("no {kind} rendition in {item}"))
}

/// Reads `imageBasketItem` as both clients do: as the item itself.
fn read_basket_item(envelope: &Value) -> Value {
    let item = envelope["imageBasketItem"].clone();
    assert_types(
        &item,
        &[
            ("resourceUri", "string"),
            ("cacheId", "string"),
            ("type", "string"),
            ("removable", "boolean"),
            ("croppable", "boolean"),
            ("shouldEnhance", "boolean"),
            ("copyrightOwner", "string"),
            ("name", "string"),
            ("source", "string"),
            ("imageItems", "array"),
            ("items", "array"),
        ],
    );
    assert!(
        item["resourceUri"]
            .as_str()
            .unwrap()
            .starts_with("store://")
    );
    for rendition in item["imageItems"].as_array().unwrap() {
        assert_types(
            rendition,
            &[
                ("type", "string"),
                ("resourceUri", "string"),
                ("width", "integer"),
                ("height", "integer"),
                ("rotation", "integer"),
            ],
        );
    }
    // The spec's `items` array holds the same item.
    let listed = &item["items"][0];
    for field in ["resourceUri", "cacheId", "imageItems", "shouldEnhance"] {
        assert_eq!(listed[field], item[field], "{field}");
    }
    assert_types(envelope, &[("warnings", "array")]);
    item
}

/// An image side whose picture covers the card, its box worked out from the print
/// rendition's aspect ratio as the clients do.
fn image_side(item: &Value) -> Value {
    let print = rendition(item, "print");
    let ratio = print["width"].as_f64().unwrap() / print["height"].as_f64().unwrap();
    let (card_w, card_h) = (88.0, 59.0);
    let (width, height) = if ratio > card_w / card_h {
        (card_h * ratio, card_h)
    } else {
        (card_w, card_w / ratio)
    };
    json!({"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape",
        "data": [{"type": "imageData", "linkId": "variable_image_front",
            "resourceUri": item["resourceUri"],
            "imageBox": {"center": {"x": card_w / 2.0, "y": card_h / 2.0},
                         "width": width, "height": height, "angle": 0}}]})
}

fn details_side(name: &str) -> Value {
    json!({"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape",
        "data": [
            {"type": "textData", "linkId": "back_line_1", "text": name},
            {"type": "textData", "linkId": "back_line_2", "text": "Printer"}]})
}

/// A pack envelope as the clients read it.
#[track_caller]
fn read_pack_envelope(envelope: &Value) {
    assert_types(
        envelope,
        &[
            ("packId", "string"),
            ("pack", "object"),
            ("warnings", "array"),
            ("dropIns", "object"),
        ],
    );
    assert_types(
        &envelope["pack"],
        &[
            ("numCards", "integer"),
            ("productCode", "string"),
            ("productVersion", "integer"),
            ("sides", "array"),
            ("imageBasket", "object"),
        ],
    );
}

/// The width and height of a PNG.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    (width, height)
}

/// Uploads a file as the clients do: unsigned multipart with `method` as a part.
async fn upload(app: &TestApp, name: &str) -> Value {
    let reply = app
        .upload_response(name, fixture(name), &[("imageType", "photo")])
        .await;
    assert_eq!(reply.status, 200);
    reply.json()
}

async fn a_moo_client_session_works_end_to_end(kind: StoreKind) {
    let app = spawn_app(kind).await;

    // Upload an opaque PNG; import another by bytes.
    let uploaded = read_basket_item(&upload(&app, "png-rgb.png").await);
    assert!(rendition(&uploaded, "print")["width"].as_u64().unwrap() > 0);
    let bytes = base64::engine::general_purpose::STANDARD.encode(fixture("photo-coffee.jpg"));
    let imported = python_call(
        &app,
        "post-header",
        &[("method", "svc.image.importImage"), ("bytes", &bytes)],
    )
    .await
    .ok();
    let imported = read_basket_item(&imported);
    assert_eq!(imported["source"], "import");

    // A pack using the uploaded image, its basket holding the item exactly as received,
    // created with physicalSpec and pack and no product.
    let pack = json!({"productCode": "businesscard", "numCards": 50, "productVersion": 1,
        "sides": [image_side(&uploaded), details_side("Ann Example")],
        "imageBasket": {"items": [uploaded], "type": null, "name": null, "immutable": false}});
    let spec = json!({"productType": "businesscard", "paperClass": "classic",
        "finishingOption": "square_corners", "packSize": 50, "paperLaminate": "nolam"});
    let created = python_call(
        &app,
        "post-header",
        &[
            ("method", "svc.pack.createPack"),
            ("physicalSpec", &spec.to_string()),
            ("pack", &pack.to_string()),
            ("includePhysicalSpec", "true"),
        ],
    )
    .await
    .ok();
    read_pack_envelope(&created);
    assert_eq!(created["warnings"], json!([]), "{created}");
    assert_eq!(created["pack"]["imageBasket"]["items"][0], uploaded);
    assert_types(
        &created["physicalSpec"],
        &[("packSize", "integer"), ("productType", "string")],
    );
    let pack_id = created["packId"].as_str().unwrap().to_owned();

    // getPack, then updatePack with a text line changed.
    let got = python_call(
        &app,
        "get-header",
        &[("method", "svc.pack.getPack"), ("packId", &pack_id)],
    )
    .await
    .ok();
    read_pack_envelope(&got);
    assert_eq!(got["pack"], created["pack"]);
    let mut changed = got["pack"].clone();
    changed["sides"][1] = details_side("Grace Hopper");
    let updated = python_call(
        &app,
        "post-header",
        &[
            ("method", "svc.pack.updatePack"),
            ("packId", &pack_id),
            ("pack", &changed.to_string()),
        ],
    )
    .await
    .ok();
    read_pack_envelope(&updated);
    assert_eq!(
        updated["pack"]["sides"][1]["data"][0]["text"],
        "Grace Hopper"
    );
    assert_eq!(updated["pack"]["imageBasket"]["items"][0], uploaded);

    // updatePhysicalSpec.
    let spec = python_call(
        &app,
        "post-header",
        &[
            ("method", "svc.pack.updatePhysicalSpec"),
            ("packId", &pack_id),
            (
                "physicalSpec",
                r#"{"packSize": 200, "paperLaminate": "matte"}"#,
            ),
        ],
    )
    .await
    .ok();
    assert_types(
        &spec,
        &[
            ("packId", "string"),
            ("physicalSpec", "object"),
            ("dropIns", "object"),
        ],
    );
    assert_eq!(spec["physicalSpec"]["packSize"], 200);

    // renderSide of the image side at the PHP client's maxSide, and renderSideUrl.
    let render = [
        ("side", image_side(&uploaded).to_string()),
        ("imageBasket", json!({"items": [uploaded]}).to_string()),
        ("maxSide", "1500".to_owned()),
    ];
    let mut params: Vec<(&str, &str)> = vec![("method", "svc.pack.renderSide")];
    params.extend(render.iter().map(|(k, v)| (*k, v.as_str())));
    let png = python_call(&app, "post-header", &params).await;
    assert_eq!((png.status, png.content_type.as_str()), (200, "image/png"));
    let (width, height) = png_size(&png.body);
    assert_eq!(width.max(height), 1500);
    params[0] = ("method", "svc.pack.renderSideUrl");
    let url = python_call(&app, "post-header", &params).await;
    assert_eq!(url.status, 200);
    assert!(
        url.content_type.starts_with("text/plain"),
        "{}",
        url.content_type
    );
    let url = String::from_utf8(url.body).unwrap();
    let fetched = app.client.get(url.trim()).send().await.unwrap();
    assert_eq!(fetched.status(), 200);
    assert_eq!(png_size(&fetched.bytes().await.unwrap()), (width, height));

    // addToCart.
    let cart = python_call(
        &app,
        "post-header",
        &[
            ("method", "svc.pack.addToCart"),
            ("packId", &pack_id),
            ("quantity", "1"),
        ],
    )
    .await
    .ok();
    assert_types(&cart, &[("warnings", "array"), ("dropIns", "object")]);
    assert_types(
        &cart["dropIns"],
        &[("cart", "string"), ("checkout", "string")],
    );

    // getTemplate of every template code.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/templates");
    let mut codes: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            name.trim_end_matches(".xml").to_owned()
        })
        .collect();
    codes.sort();
    assert_eq!(codes.len(), 30);
    let calls: Vec<Vec<(&str, &str)>> = codes
        .iter()
        .map(|code| {
            vec![
                ("method", "svc.template.getTemplate"),
                ("templateCode", code),
            ]
        })
        .collect();
    let templates = python_calls(&app, "get-header", &calls).await;
    for (code, template) in codes.iter().zip(templates) {
        assert_eq!(template.status, 200, "{code}");
        let xml = String::from_utf8(template.body).unwrap();
        assert!(xml.starts_with("<?xml"), "{code}: {xml}");
        assert!(xml.contains(&format!("<Code>{code}</Code>")), "{code}");
    }

    // text.measure in millimetres and in points: the same size, the same answer in mm.
    let measure = |size: &'static str, units: &'static str| {
        let app = &app;
        async move {
            python_call(
                app,
                "get-header",
                &[
                    ("method", "svc.text.measure"),
                    ("text", "Ann Example, Printer"),
                    (
                        "font",
                        r#"{"fontFamily": "helvetica", "bold": false, "italic": false}"#,
                    ),
                    ("fontSize", size),
                    ("fontSizeUnits", units),
                ],
            )
            .await
            .ok()
        }
    };
    let in_mm = measure("3.5278", "mm").await;
    let in_pt = measure("10", "pt").await;
    for answer in [&in_mm, &in_pt] {
        assert_types(
            answer,
            &[
                ("textWidth", "number"),
                ("textHeight", "number"),
                ("numberOfLines", "integer"),
            ],
        );
    }
    let (a, b) = (
        in_mm["textWidth"].as_f64().unwrap(),
        in_pt["textWidth"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 0.01, "{a} mm against {b} mm");
}

async fn the_product_comes_from_whichever_parameter_names_it(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let create = |params: Vec<(&'static str, &'static str)>| {
        let app = &app;
        async move {
            let mut all = vec![("method", "svc.pack.createPack")];
            all.extend(params);
            python_call(app, "post-header", &all).await
        }
    };
    let from_spec = create(vec![("physicalSpec", r#"{"productType": "minicard"}"#)])
        .await
        .ok();
    assert_eq!(from_spec["pack"]["productCode"], "minicard");
    let from_pack = create(vec![("pack", r#"{"productCode": "postcard"}"#)])
        .await
        .ok();
    assert_eq!(from_pack["pack"]["productCode"], "postcard");
    let all_three = create(vec![
        ("product", "sticker"),
        ("physicalSpec", r#"{"productType": "sticker"}"#),
        ("pack", r#"{"productCode": "sticker"}"#),
    ])
    .await
    .ok();
    assert_eq!(all_three["pack"]["productCode"], "sticker");
    // None names a product.
    let none = create(vec![("pack", "{}")]).await.json();
    assert_eq!(none["exception"]["name"], "missing_parameter");
    assert!(
        none["exception"]["message"]
            .as_str()
            .unwrap()
            .starts_with("product:")
    );
    // Two disagree: both are named.
    let disagree = create(vec![
        ("physicalSpec", r#"{"productType": "minicard"}"#),
        ("pack", r#"{"productCode": "postcard"}"#),
    ])
    .await
    .json();
    assert_eq!(disagree["exception"]["name"], "conflicting_parameters");
    let message = disagree["exception"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("physicalSpec.productType, pack.productCode:"),
        "{message}"
    );
    // Error bodies have exactly the three fields clients read.
    let mut fields: Vec<&String> = disagree["exception"].as_object().unwrap().keys().collect();
    fields.sort();
    assert_eq!(fields, ["code", "message", "name"]);
    assert_types(&disagree["exception"], &[("code", "integer")]);
    // createTrialPartnerPack takes its product the same way.
    let trial = python_call(
        &app,
        "post-header",
        &[
            ("method", "svc.pack.createTrialPartnerPack"),
            ("physicalSpec", r#"{"productType": "businesscard"}"#),
            ("trialPartner", "x"),
        ],
    )
    .await
    .json();
    // The test key has no trial-partner id: the product was read, and the partner checked.
    assert_eq!(
        trial["exception"]["name"], "trial_partner_mismatch",
        "{trial}"
    );
}

async fn refused_and_cautioned_uploads_keep_their_shape(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let refused = upload(&app, "png-rgba-transparent.png").await;
    assert_eq!(refused["imageBasketItem"], Value::Null);
    assert_types(
        &refused,
        &[("uploadImageError", "object"), ("warnings", "array")],
    );
    assert_types(
        &refused["uploadImageError"],
        &[
            ("code", "string"),
            ("message", "string"),
            ("reason", "string"),
        ],
    );
    let cautioned = upload(&app, "jpeg-q30.jpg").await;
    assert_eq!(cautioned["uploadImageError"], Value::Null);
    read_basket_item(&cautioned);
    let warning = &cautioned["warnings"][0];
    assert_types(
        warning,
        &[
            ("code", "string"),
            ("message", "string"),
            ("reason", "string"),
        ],
    );
    assert_eq!(warning["code"], "jpeg_low_quality");
}
