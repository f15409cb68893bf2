//! Pack warnings (PV001-PV003, PV010, PV011, PVD001, PVI001-PVI004) and their effect on
//! drop-ins.

use serde_json::{Value, json};

use crate::customers::{add_to_cart, add_to_cart_refused, local};
use crate::every_store;
use crate::helpers::{StoreKind, TestApp, back_lines, spawn_app};
use crate::shop::Shopper;

every_store!(
    each_structural_warning_is_reported_with_its_element,
    template_text_and_resolution_warnings_are_reported,
    warnings_hide_the_finish_drop_in_until_fixed,
    what_preflight_blocks_no_channel_orders,
    the_press_limits_of_the_day_judge_packs_already_in_carts,
    thai_lao_khmer_and_myanmar_lines_have_faces,
);

/// A pack (its JSON) whose one photo prints at 172 dpi: a warning under the default press
/// limits, a block once the operator asks for 200 dpi.
pub(crate) async fn photo_at_172_dpi(app: &TestApp) -> String {
    // 1200 x 800 pixels over 177 x 118 mm (the 88 x 59 mm slot zoomed in twice): 172 dpi.
    let photo = app.upload_fixture("png-rgb.png", &[]).await;
    let zoomed = json!({"center": {"x": 44, "y": 29.5}, "width": 177, "height": 118, "angle": 0});
    let placed = json!([{"type": "imageData", "linkId": "variable_image_front",
        "resourceUri": photo["resourceUri"], "imageBox": zoomed}]);
    json!({"sides": [image_side(placed)], "imageBasket": {"items": [photo]}}).to_string()
}

fn image_side(data: Value) -> Value {
    json!({"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape", "data": data})
}

fn image_box() -> Value {
    json!({"center": {"x": 44, "y": 29.5}, "width": 88, "height": 59, "angle": 0})
}

async fn each_structural_warning_is_reported_with_its_element(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let element = "pack.sides.image.1.variable_image_front";
    let cases = [
        (
            json!({"numCards": 10, "sides": [image_side(json!([]))]}),
            "PV001",
            "pack.numCards",
        ),
        (
            json!({"cards": [{"cardNum": 1, "cardSides": []}], "sides": [image_side(json!([]))]}),
            "PV002",
            "pack.cards",
        ),
        (
            json!({"sides": [image_side(json!([])), image_side(json!([]))]}),
            "PV003",
            "pack.sides.image.1",
        ),
        (
            json!({"sides": [{"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape"}]}),
            "PVD001",
            "pack.sides",
        ),
        (
            json!({"sides": [image_side(json!([{"type": "imageData", "linkId": "variable_image_front",
            "resourceUri": "store://missing", "imageBox": image_box()}]))]}),
            "PVI001",
            element,
        ),
        (
            json!({"sides": [image_side(json!([{"type": "imageData", "linkId": "variable_image_front",
            "imageBox": image_box()}]))]}),
            "PVI002",
            element,
        ),
    ];
    for (pack, code, element) in cases {
        let body = app
            .create_pack("businesscard", &[("pack", &pack.to_string())])
            .await;
        let warnings = body["warnings"].as_array().unwrap();
        assert_eq!(warnings.len(), 1, "{code}: {warnings:?}");
        assert_eq!(warnings[0]["code"], code);
        assert_eq!(warnings[0]["element"], element, "{code}");
        assert!(!warnings[0]["message"].as_str().unwrap().is_empty());
    }
    // An image in the basket with its box: no warning.
    let pack = json!({
        "sides": [image_side(json!([{"type": "imageData", "linkId": "variable_image_front",
            "resourceUri": "store://abc", "imageBox": image_box()}]))],
        "imageBasket": {"items": [{"resourceUri": "store://abc", "imageItems": [
            {"type": "print", "resourceUri": "store://abc/print", "width": 1200, "height": 800, "rotation": 0}]}]}
    });
    let body = app
        .create_pack("businesscard", &[("pack", &pack.to_string())])
        .await;
    assert_eq!(body["warnings"], json!([]));
}

/// A basket holding image `store://abc` with a print rendition of `width` x `height` pixels.
fn basket(width: u32, height: u32) -> Value {
    json!({"items": [{"resourceUri": "store://abc", "imageItems": [
        {"type": "print", "resourceUri": "store://abc/print", "width": width, "height": height, "rotation": 0}]}]})
}

async fn template_text_and_resolution_warnings_are_reported(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let placed = json!([{"type": "imageData", "linkId": "variable_image_front",
        "resourceUri": "store://abc", "imageBox": image_box()}]);
    let cases = [
        (
            json!({"sides": [{"type": "image", "sideNum": 1, "templateCode": "minicard_full_image_landscape"}]}),
            "PV010",
            "pack.sides.image.1",
            "not a businesscard template",
        ),
        (
            json!({"sides": [image_side(json!([{"type": "textData", "linkId": "nope", "text": "x"}]))]}),
            "PV011",
            "pack.sides.image.1.nope",
            "not an item",
        ),
        // 400 px down 59 mm is 172 dpi (the lesser of the two axes); 200 px is 86 dpi.
        (
            json!({"sides": [image_side(placed.clone())], "imageBasket": basket(600, 400)}),
            "PVI003",
            "pack.sides.image.1.variable_image_front",
            "172 dpi",
        ),
        (
            json!({"sides": [image_side(placed)], "imageBasket": basket(300, 200)}),
            "PVI004",
            "pack.sides.image.1.variable_image_front",
            "86 dpi",
        ),
        (
            json!({"sides": [image_side(json!([])), details_side(json!([{"type": "textData",
                "linkId": "back_line_2", "text": "A line far too long to fit on a business card's narrow text line, however small and narrow the font it is set in"}]))]}),
            "PVT001",
            "pack.sides.details.1.back_line_2",
            "mm too wide",
        ),
        (
            json!({"sides": [image_side(json!([])), details_side(json!([{"type": "textData",
                "linkId": "back_line_2", "text": "Ahoy \u{2620}", "font": {"fontFamily": "Georgia", "bold": false, "italic": false}}]))]}),
            "PVT002",
            "pack.sides.details.1.back_line_2",
            "fallback font",
        ),
    ];
    for (pack, code, element, says) in cases {
        let body = app
            .create_pack("businesscard", &[("pack", &pack.to_string())])
            .await;
        let warnings = body["warnings"].as_array().unwrap();
        assert_eq!(warnings.len(), 1, "{code}: {warnings:?}");
        assert_eq!(warnings[0]["code"], code);
        assert_eq!(warnings[0]["element"], element, "{code}");
        let message = warnings[0]["message"].as_str().unwrap();
        assert!(message.contains(says), "{code}: {message}");
        // PVI004 is a picture the press would refuse (below 150 dpi): it blocks ordering.
        assert_eq!(
            body["dropIns"]["finish"].is_string(),
            code != "PVI004",
            "{code}: {body}"
        );
        let id = body["packId"].as_str().unwrap();
        assert_eq!(app.get_pack(id).await.ok()["warnings"][0]["code"], code);
    }
    // A datum the template item cannot take is an error, not a warning.
    let wrong = json!({"sides": [image_side(json!([])), details_side(json!([{"type": "imageData",
        "linkId": "back_line_2"}]))]});
    let message = app
        .create_pack_response("businesscard", &[("pack", &wrong.to_string())])
        .await
        .error("invalid_pack");
    assert!(
        message.contains("pack.sides[1]") && message.contains("back_line_2"),
        "{message}"
    );
}

fn details_side(data: Value) -> Value {
    json!({"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape", "data": data})
}

async fn warnings_hide_the_finish_drop_in_until_fixed(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let bad = json!({"numCards": 7, "sides": [image_side(json!([]))]});
    let body = app
        .create_pack("businesscard", &[("pack", &bad.to_string())])
        .await;
    let id = body["packId"].as_str().unwrap();
    let drop_ins = body["dropIns"].as_object().unwrap();
    assert!(!drop_ins.contains_key("finish"), "{drop_ins:?}");
    for name in ["edit", "preview", "crop", "details", "imageChooser"] {
        assert!(drop_ins.contains_key(name), "{name} allows any warning");
    }
    assert_eq!(app.get_pack(id).await.ok()["warnings"][0]["code"], "PV001");
    let good = json!({"sides": [image_side(json!([]))]});
    let body = app
        .post(&[
            ("method", "svc.pack.updatePack"),
            ("packId", id),
            ("pack", &good.to_string()),
        ])
        .await
        .ok();
    assert_eq!(body["warnings"], json!([]));
    assert!(body["dropIns"]["finish"].is_string());
}

/// Each thing preflight blocks a press file for, and the pack that has it.
async fn packs_preflight_blocks(app: &TestApp) -> Vec<(&'static str, Value)> {
    // 200 x 150 pixels covering the 88 x 59 mm front: 58 dpi.
    let small = app.upload_fixture("jpeg-small.jpg", &[]).await;
    let covering = json!({"center": {"x": 44, "y": 29.5}, "width": 88, "height": 66, "angle": 0});
    let placed = json!([{"type": "imageData", "linkId": "variable_image_front",
        "resourceUri": small["resourceUri"], "imageBox": covering}]);
    // The same picture in a basket that claims ten times its pixels: the store knows better.
    let mut boasting = small.clone();
    for rendition in boasting["imageItems"].as_array_mut().unwrap() {
        for side in ["width", "height"] {
            rendition[side] = json!(rendition[side].as_u64().unwrap() * 10);
        }
    }
    // Egyptian hieroglyphs: no font of the shop has them.
    let hieroglyph =
        json!([{"type": "textData", "linkId": "back_line_2", "text": "Ann \u{13000}"}]);
    vec![
        (
            "PVI004",
            json!({"sides": [image_side(placed.clone())], "imageBasket": {"items": [small]}}),
        ),
        (
            "PVI004",
            json!({"sides": [image_side(placed)], "imageBasket": {"items": [boasting]}}),
        ),
        (
            "PVT003",
            json!({"sides": [image_side(json!([])), details_side(hieroglyph)]}),
        ),
    ]
}

/// One verdict from the editor to the press: for each thing preflight blocks (its press
/// check says `block`), createPack offers no finish drop-in, addToCart refuses it naming the
/// warning, the finish drop-in explains it instead of taking an order, and a pack that
/// gained it after going into the cart is refused at checkout in the same words.
async fn what_preflight_blocks_no_channel_orders(kind: StoreKind) {
    let app = spawn_app(kind).await;
    for (code, pack) in packs_preflight_blocks(&app).await {
        let created = app
            .create_pack("businesscard", &[("pack", &pack.to_string())])
            .await;
        let id = created["packId"].as_str().unwrap();
        let codes: Vec<&str> = created["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|w| w["code"].as_str())
            .collect();
        assert!(codes.contains(&code), "{created}");
        let report = app
            .get(&[("method", "svc.pack.preflightPack"), ("packId", id)])
            .await
            .ok();
        assert_eq!(report["verdict"], "block", "{code}: {report}");
        assert!(
            created["dropIns"].get("finish").is_none(),
            "{code}: {created}"
        );
        let refused = add_to_cart_refused(&app, id).await;
        assert!(refused.contains(code), "{refused}");

        // The finish drop-in (the link a partner may have kept) explains, and takes no order.
        let shopper = Shopper::new(&app);
        shopper.sign_up(&format!("{}@example.com", &id[..12])).await;
        let token = local(&created["dropIns"]["edit"]);
        let token = token.split("token=").nth(1).unwrap();
        let finish = shopper
            .open_drop_in(&format!("/dropins/{id}/finish?token={token}"))
            .await;
        assert!(
            finish.body.contains("Needed before ordering:")
                && !finish.body.contains("name=\"paperClass\""),
            "{code}: {}",
            finish.body
        );
        let said = match code {
            "PVI004" => {
                "prints at only 58 dpi, too few pixels to print well. It is as small as its space allows"
            }
            _ => "has characters none of the shop",
        };
        assert!(finish.body.contains(said), "{code}: {}", finish.body);
    }

    // A pack ordered fine, then given a blocking problem in the editor, is refused at
    // checkout, saying why.
    let shopper = Shopper::new(&app);
    shopper.sign_up("checkout-blocked@example.com").await;
    let good = json!({"sides": [image_side(json!([]))]});
    let created = app
        .create_pack(
            "businesscard",
            &[("pack", &good.to_string()), ("friendlyName", "Team cards")],
        )
        .await;
    let id = created["packId"].as_str().unwrap();
    let cart = add_to_cart(&app, id, "1").await;
    let in_cart = shopper.open_drop_in(&local(&cart["dropIns"]["cart"])).await;
    assert_eq!(in_cart.path, "/cart", "{}", in_cart.body);
    // The editor saves with the page's CSRF token, as every form of the customer's has it.
    let csrf = in_cart
        .hidden("csrf")
        .expect("the cart's forms carry the CSRF token");
    let (_, blocked) = packs_preflight_blocks(&app).await.swap_remove(2);
    let saved = shopper
        .client
        .post(format!("{}/packs/{id}/design", app.address))
        .header("x-csrf-token", csrf)
        .json(&blocked)
        .send()
        .await
        .unwrap();
    assert!(
        saved.status().is_success(),
        "{}",
        saved.text().await.unwrap()
    );
    // The cart says so first, in the same words, with the way back to the editor.
    let in_cart = shopper.get("/cart").await;
    assert!(
        in_cart.body.contains("Cannot be ordered yet: ")
            && in_cart.body.contains("has characters none of the shop")
            && in_cart.body.contains(&format!("/dropins/{id}/edit?token=")),
        "{}",
        in_cart.body
    );
    let refused = shopper.check_out().await;
    assert!(!refused.path.ends_with("/confirmation"), "{}", refused.body);
    assert!(
        refused
            .body
            .contains("Team cards cannot be ordered yet: The text in")
            && refused.body.contains("has characters none of the shop"),
        "{}",
        refused.body
    );
}

/// An operator who asks for sharper pictures (a higher `press_block_dpi`) is obeyed for the
/// packs already written, in carts too: a picture that passed at 172 dpi with a warning is
/// then refused by getPack's verdict, addToCart, the cart and the checkout, in the same words;
/// back at the old limit the pack is orderable again.
async fn the_press_limits_of_the_day_judge_packs_already_in_carts(kind: StoreKind) {
    let mut app = spawn_app(kind).await;
    let pack = photo_at_172_dpi(&app).await;
    let params = [("pack", pack.as_str()), ("friendlyName", "Photo cards")];
    // One pack a customer has put in their cart, one still the partner's.
    let in_cart = app.create_pack("businesscard", &params).await;
    let partners = app.create_pack("businesscard", &params).await;
    assert_eq!(in_cart["warnings"][0]["code"], "PVI003", "{in_cart}");
    let (in_cart, partners) = (
        in_cart["packId"].as_str().unwrap(),
        partners["packId"].as_str().unwrap(),
    );
    let mut shopper = Shopper::new(&app);
    shopper.sign_up("sharper@example.com").await;
    let cart = add_to_cart(&app, in_cart, "1").await;
    let page = shopper.open_drop_in(&local(&cart["dropIns"]["cart"])).await;
    assert_eq!(page.path, "/cart", "{}", page.body);
    assert!(
        !page.body.contains("Cannot be ordered yet"),
        "{}",
        page.body
    );

    let codes = |pack: &Value| -> Vec<String> {
        let warnings = pack["warnings"].as_array().unwrap();
        let code = |w: &Value| w["code"].as_str().unwrap_or_default().to_owned();
        warnings.iter().map(code).collect()
    };
    app.config.images.press_block_dpi = 200;
    app.restart().await;
    shopper.address.clone_from(&app.address);
    assert_eq!(codes(&app.get_pack(partners).await.ok()), ["PVI004"]);
    let refused = add_to_cart_refused(&app, partners).await;
    assert!(
        refused.contains("PVI004") && refused.contains("200 dpi"),
        "{refused}"
    );
    let page = shopper.get("/cart").await;
    assert!(
        page.body.contains("Cannot be ordered yet: ")
            && page.body.contains("prints at only 172 dpi"),
        "{}",
        page.body
    );
    let checkout = shopper.check_out().await;
    assert!(
        !checkout.path.ends_with("/confirmation"),
        "{}",
        checkout.body
    );
    assert!(
        checkout
            .body
            .contains("Photo cards cannot be ordered yet: ")
            && checkout.body.contains("prints at only 172 dpi")
            && checkout
                .body
                .contains("A design marked below cannot be ordered yet"),
        "{}",
        checkout.body
    );

    app.config.images.press_block_dpi = 150;
    app.restart().await;
    shopper.address.clone_from(&app.address);
    assert_eq!(codes(&app.get_pack(partners).await.ok()), ["PVI003"]);
    add_to_cart(&app, partners, "1").await;
    let placed = shopper.check_out().await;
    assert!(placed.path.ends_with("/confirmation"), "{}", placed.body);
}

/// Lines of Thai, Lao, Khmer and Myanmar (the scripts whose words the word lists find) print
/// in a fallback face (PVT002) and none of their characters is missing (no PVT003, which
/// would block ordering).
async fn thai_lao_khmer_and_myanmar_lines_have_faces(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let lines = ["นามบัตรของคุณ", "ນະຄອນຫຼວງວຽງຈັນ", "ព្រះរាជាណាចក្រកម្ពុជា", "ရန်ကုန်မြို့"];
    let pack = json!({"sides": [image_side(json!([])), details_side(json!(back_lines(&lines)))]});
    let created = app
        .create_pack("businesscard", &[("pack", &pack.to_string())])
        .await;
    let warnings = created["warnings"].as_array().unwrap();
    let with_code = |code: &str| warnings.iter().filter(|w| w["code"] == code).count();
    assert_eq!(with_code("PVT002"), lines.len(), "{created}");
    assert_eq!(with_code("PVT003"), 0, "{created}");
    assert!(created["dropIns"]["finish"].is_string(), "{created}");
}
