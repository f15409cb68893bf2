//! The design canvas in real headless Chromium: the `edit` drop-in for an owned pack and the
//! standalone demo. The preview is drawn by the wasm engine in the page; a test compares its
//! pixels with the server's renderSide of the same side, types, drags the picture, undoes,
//! saves and reads the saved pack back.

use std::time::Duration;

use fantoccini::actions::{
    InputSource, KeyAction, KeyActions, MOUSE_BUTTON_LEFT, MouseActions, PointerAction,
};
use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::browser::{click, click_in_page, element_text, fill, screenshot, sign_up, text};
use crate::chromium::browser;
use crate::every_store;
use crate::helpers::{StoreKind, TestApp, back_lines, spawn_app, spawn_app_with};

every_store!(the_edit_drop_in_designs_and_saves_a_pack);

/// Waits until the canvas has drawn at least `renders` previews; its state as JSON.
pub async fn wait_for_renders(browser: &Client, renders: u64) -> Value {
    for _ in 0..600 {
        let state = browser
            .execute(
                "const d = document.getElementById('designer');
                 const c = document.querySelector('.designer-preview');
                 return {ready: d.dataset.ready === 'true', renders: Number(d.dataset.renders ?? 0),
                         status: document.querySelector('.designer-status, [role=alert]')?.textContent ?? '',
                         maxSide: Number(c?.dataset.maxSide ?? 0)};",
                vec![],
            )
            .await
            .unwrap();
        if state["ready"] == true && state["renders"].as_u64().unwrap() >= renders {
            return state;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let page = browser.source().await.unwrap_or_default();
    panic!("the canvas did not draw {renders} previews within 30 s: {page}");
}

/// Opens an `edit` drop-in as a newly signed-up customer who takes the pack over, and waits
/// for the canvas's first preview; the preview's `maxSide`. (Without an account the link
/// opens the guest's editor: the customer signs up first, returning to it.)
async fn open_edit_as_new_owner(browser: &Client, edit: &str) -> u64 {
    let url = url::Url::parse(edit).unwrap();
    let back = format!("{}?{}", url.path(), url.query().unwrap());
    let next: String = form_urlencoded::byte_serialize(back.as_bytes()).collect();
    let origin = url.origin().ascii_serialization();
    browser
        .goto(&format!("{origin}/account/signup?next={next}"))
        .await
        .unwrap();
    sign_up(browser).await;
    click(browser, "form[action^='/dropins/'] button").await;
    let state = wait_for_renders(browser, 1).await;
    state["maxSide"].as_u64().unwrap()
}

/// Opens the standalone canvas and waits for its first preview; the preview's `maxSide`.
async fn open_demo(app: &TestApp, browser: &Client) -> u64 {
    browser
        .goto(&format!("{}/web-demo/", app.address))
        .await
        .unwrap();
    let state = wait_for_renders(browser, 1).await;
    state["maxSide"].as_u64().unwrap()
}

/// The SHA-256 of the preview canvas's RGBA pixels, with its size.
pub async fn preview_pixels(browser: &Client) -> (String, u32, u32) {
    let value = browser
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const c = document.querySelector('.designer-preview');
             const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
             crypto.subtle.digest('SHA-256', data).then(d => done({
               sha: [...new Uint8Array(d)].map(b => b.toString(16).padStart(2, '0')).join(''),
               width: c.width, height: c.height}));",
            vec![],
        )
        .await
        .unwrap();
    (
        value["sha"].as_str().unwrap().to_owned(),
        value["width"].as_u64().unwrap() as u32,
        value["height"].as_u64().unwrap() as u32,
    )
}

/// The server's renderSide of the side the canvas shows, at the canvas's size: the SHA-256 of
/// its RGBA pixels and its size.
async fn server_pixels(app: &TestApp, browser: &Client, max_side: u64) -> (String, u32, u32) {
    let png = server_render(app, browser, "bleed", max_side).await;
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
    // An opaque render is RGB: compared as RGBA, as the canvas holds it.
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().unwrap();
    let mut rgba = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut rgba).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    (
        hex::encode(Sha256::digest(&rgba[..info.buffer_size()])),
        info.width,
        info.height,
    )
}

/// The server's renderSide (PNG) of the side the canvas shows: its `box_type` area at
/// `max_side` pixels.
async fn server_render(app: &TestApp, browser: &Client, box_type: &str, max_side: u64) -> Vec<u8> {
    let shown = browser
        .execute(
            "const d = window.presspackDesigner;
             return {side: JSON.stringify(d.side), basket: JSON.stringify(d.pack.imageBasket)};",
            vec![],
        )
        .await
        .unwrap();
    let response = app
        .post(&[
            ("method", "svc.pack.renderSide"),
            ("side", shown["side"].as_str().unwrap()),
            ("imageBasket", shown["basket"].as_str().unwrap()),
            ("boxType", box_type),
            ("maxSide", &max_side.to_string()),
        ])
        .await;
    assert_eq!(response.content_type, "image/png", "{}", response.body);
    response.bytes
}

/// The side thumbnails once each is drawn: per thumbnail a digest of its pixels and how
/// many are inked (opaque and not near white).
async fn side_thumbnails(browser: &Client) -> Vec<(u64, u64)> {
    const THUMBNAILS: &str = "
        return [...document.querySelectorAll('.designer-sides canvas[data-side]')].map(c => {
          const d = c.getContext('2d').getImageData(0, 0, c.width || 1, c.height || 1).data;
          let digest = 0, inked = 0;
          for (let i = 0; i < d.length; i += 4) {
            digest = (digest * 31 + d[i] + 7 * d[i + 1] + 13 * d[i + 2] + 17 * d[i + 3]) >>> 0;
            if (d[i + 3] > 0 && Math.min(d[i], d[i + 1], d[i + 2]) < 200) inked++;
          }
          return [digest, inked];
        });";
    let mut thumbnails = Vec::new();
    for _ in 0..200 {
        thumbnails =
            serde_json::from_value(browser.execute(THUMBNAILS, vec![]).await.unwrap()).unwrap();
        if !thumbnails.is_empty() && thumbnails.iter().all(|&(_, inked)| inked > 0) {
            return thumbnails;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the side thumbnails were not drawn: {thumbnails:?}");
}

pub async fn designer_value(browser: &Client, expression: &str) -> Value {
    browser
        .execute(
            &format!("const d = window.presspackDesigner; return {expression};"),
            vec![],
        )
        .await
        .unwrap()
}

/// Drags from the point (fx, fy) of the preview (fractions of its size) by (dx, dy) CSS pixels.
async fn drag(browser: &Client, fx: f64, fy: f64, dx: f64, dy: f64) {
    let rect = browser
        .execute(
            "const r = document.querySelector('.designer-preview').getBoundingClientRect();
             return {x: r.left, y: r.top, w: r.width, h: r.height};",
            vec![],
        )
        .await
        .unwrap();
    let number = |name: &str| rect[name].as_f64().unwrap();
    let (x, y) = (
        number("x") + number("w") * fx,
        number("y") + number("h") * fy,
    );
    let mouse = MouseActions::new("mouse".into())
        .then(PointerAction::MoveTo {
            duration: None,
            x: x.round(),
            y: y.round(),
        })
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_LEFT,
        })
        .then(PointerAction::MoveBy {
            duration: Some(Duration::from_millis(300)),
            x: dx,
            y: dy,
        })
        .then(PointerAction::Up {
            button: MOUSE_BUTTON_LEFT,
        });
    browser.perform_actions(mouse).await.unwrap();
}

async fn the_edit_drop_in_designs_and_saves_a_pack(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let photo = app.upload_fixture("jpeg-q95.jpg", &[]).await;
    let uri = photo["resourceUri"].as_str().unwrap();
    let print = &photo["imageItems"][0];
    let aspect = print["height"].as_f64().unwrap() / print["width"].as_f64().unwrap();
    // The picture is larger than its box (x 0..32 mm, y 0..59 mm), so it can be moved.
    let pack = json!({"sides": [
        {"type": "image", "sideNum": 1, "templateCode": "businesscard_left_image_landscape",
         "data": [
            {"type": "imageData", "linkId": "variable_image_back", "resourceUri": uri,
             "imageBox": {"center": {"x": 16, "y": 29.5}, "width": 80.0 / aspect,
                          "height": 80, "angle": 0}},
            {"type": "textData", "linkId": "back_line_1", "text": "Ann Example"}]},
        {"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape",
         "data": [{"type": "textData", "linkId": "back_line_1", "text": "On the back"}]}
    ], "imageBasket": {"items": [photo]}});
    let created = app
        .create_pack("businesscard", &[("pack", &pack.to_string())])
        .await;
    let pack_id = created["packId"].as_str().unwrap().to_owned();
    let edit = created["dropIns"]["edit"].as_str().unwrap().to_owned();
    let store = kind.name();
    let (browser, _driver) = browser().await;

    // Sign up from the drop-in; the canvas opens for the new owner.
    let max_side = open_edit_as_new_owner(&browser, &edit).await;
    assert!(max_side >= 16, "{max_side}");

    // One engine: the browser's preview is the server's renderSide of the same side.
    let before = preview_pixels(&browser).await;
    assert_eq!(before, server_pixels(&app, &browser, max_side).await);
    screenshot(&browser, &format!("canvas-{store}-1-opened")).await;

    // Each side has its thumbnail, drawn and its own, although all are drawn into one pixel
    // array one after the other.
    let thumbnails = side_thumbnails(&browser).await;
    assert_eq!(thumbnails.len(), 2, "{thumbnails:?}");
    assert_ne!(
        thumbnails[0], thumbnails[1],
        "the two sides' thumbnails are alike"
    );

    // Typing redraws the preview in the page.
    let renders = designer_value(&browser, "Number(d.root.dataset.renders)")
        .await
        .as_u64()
        .unwrap();
    fill(&browser, "#f-back_line_1-text", "Grace Hopper").await;
    wait_for_renders(&browser, renders + 1).await;
    let typed = preview_pixels(&browser).await;
    assert_ne!(typed.0, before.0, "the preview changed");
    assert_eq!(typed, server_pixels(&app, &browser, max_side).await);
    let text = "d.side.data.find(x => x.linkId === 'back_line_1').text";
    assert_eq!(designer_value(&browser, text).await, "Grace Hopper");

    // Dragging the picture moves its image box (right and down), and the preview.
    let centre = "d.side.data.find(x => x.linkId === 'variable_image_back').imageBox.center";
    let start = designer_value(&browser, centre).await;
    drag(&browser, 0.15, 0.5, 40.0, 25.0).await;
    let moved = designer_value(&browser, centre).await;
    assert!(
        moved["x"].as_f64() > start["x"].as_f64() && moved["y"].as_f64() > start["y"].as_f64(),
        "{start} -> {moved}"
    );
    let dragged = preview_pixels(&browser).await;
    assert_ne!(dragged.0, typed.0);
    assert_eq!(dragged, server_pixels(&app, &browser, max_side).await);

    // Undo puts the picture back, redo moves it again (Ctrl+Z, Ctrl+Shift+Z).
    press(&browser, &[Key::Control], 'z').await;
    assert_eq!(designer_value(&browser, centre).await, start);
    press(&browser, &[Key::Control, Key::Shift], 'z').await;
    assert_eq!(designer_value(&browser, centre).await, moved);

    // The keyboard moves the selected picture too.
    click_button(&browser, "Move with the keyboard").await;
    press(&browser, &[], char::from(Key::Left)).await;
    let nudged = designer_value(&browser, centre).await;
    assert!(
        nudged["x"].as_f64() < moved["x"].as_f64(),
        "{moved} -> {nudged}"
    );
    screenshot(&browser, &format!("canvas-{store}-2-edited")).await;

    // Beside the Save button: what is on the card is not saved yet, and then it is.
    let save_state = || async {
        designer_value(
            &browser,
            "(() => {
               const button = d.saveButton.getBoundingClientRect();
               const state = d.saveState.getBoundingClientRect();
               return {text: d.saveState.textContent,
                       gap: state.left - button.right,
                       rise: Math.abs((state.top + state.bottom) - (button.top + button.bottom)) / 2};
             })()",
        )
        .await
    };
    let unsaved = save_state().await;
    assert_eq!(unsaved["text"], "Not saved yet", "{unsaved}");
    // Save, and the owner's design (and the store) have the changes.
    browser
        .find(Locator::XPath("//button[text()='Save']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    for _ in 0..200 {
        let status = designer_value(&browser, "d.status.textContent").await;
        if status.as_str().unwrap().starts_with("Saved") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let shown = save_state().await;
    assert_eq!(shown["text"], "All changes saved", "{shown}");
    let (gap, rise) = (
        shown["gap"].as_f64().unwrap(),
        shown["rise"].as_f64().unwrap(),
    );
    assert!((0.0..40.0).contains(&gap) && rise < 20.0, "{shown}");
    let saved = browser
        .execute_async(
            &format!(
                "const done = arguments[arguments.length - 1];
                 fetch('/packs/{pack_id}/design').then(r => r.json()).then(done);"
            ),
            vec![],
        )
        .await
        .unwrap();
    let front = &saved["pack"]["sides"][0]["data"];
    let data = front.as_array().unwrap();
    let line = data.iter().find(|d| d["linkId"] == "back_line_1").unwrap();
    assert_eq!(line["text"], "Grace Hopper", "{saved}");
    let image = data
        .iter()
        .find(|d| d["linkId"] == "variable_image_back")
        .unwrap();
    assert_eq!(image["imageBox"]["center"], nudged, "{saved}");
    let stored = app.stored_pack(&pack_id).await;
    assert!(stored.record.pack.get().contains("Grace Hopper"));
    // The key that made the pack cannot read it any more; the customer owns it.
    app.get_pack(&pack_id).await.error("pack_owned_by_customer");

    // Saving needs the page's CSRF token.
    let refused = browser
        .execute_async(
            &format!(
                "const done = arguments[arguments.length - 1];
                 fetch('/packs/{pack_id}/design', {{method: 'POST', body: '{{}}',
                   headers: {{'content-type': 'application/json'}}}}).then(r => done(r.status));"
            ),
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(refused, 403);
}

/// Text in every script the fonts cover, right to left and mixed lines included: the page's
/// engine (loading the faces as the text needs them) draws the same pixels as the server's
/// renderSide.
#[tokio::test]
async fn every_script_previews_as_the_server_draws_it() {
    let app = spawn_app(StoreKind::Embedded).await;
    let lines = [
        "مرحبا بالعالم پچژگ",
        "שלום עולם כרטיס ביקור",
        "Tel +44 20 7946 0018 שלום",
        "नमस्ते दुनिया क्षत्रिय कि",
        "আমার সোনার বাংলা",
        "வணக்கம் உலகம்",
        "สวัสดีชาวโลก น้ำใจ",
        "你好世界 繁體中文",
        "こんにちは世界 カタカナ",
        "안녕하세요 세계",
        "Emoji ☺ 🎉 👍",
    ];
    let pack = json!({"sides": [{"type": "image", "sideNum": 1,
        "templateCode": "businesscard_full_text_landscape", "data": back_lines(&lines)}]});
    let created = app
        .create_pack("businesscard", &[("pack", &pack.to_string())])
        .await;
    let edit = created["dropIns"]["edit"].as_str().unwrap().to_owned();
    let (browser, _driver) = browser().await;
    let max_side = open_edit_as_new_owner(&browser, &edit).await;
    let preview = preview_pixels(&browser).await;
    assert_eq!(preview, server_pixels(&app, &browser, max_side).await);
    screenshot(&browser, "canvas-every-script").await;
}

/// What the press would block, the editor blocks, judged by the server's own limits (here a
/// stricter 200 dpi), in the server's words and with a fix that works: a photo zoomed in to
/// 172 dpi is told to zoom out, and the Zoom out button leaves it at 344 dpi, unblocked; the
/// saved pack is then orderable.
#[tokio::test]
async fn the_editor_blocks_what_preflight_blocks_with_a_fix_that_works() {
    let app = spawn_app_with(StoreKind::Embedded, |config| {
        config.images.press_block_dpi = 200;
    })
    .await;
    // 1200 x 800 pixels just covering the 88 x 59 mm slot are 344 dpi; zoomed in twice, 172.
    let photo = app.upload_fixture("png-rgb.png", &[]).await;
    let zoomed = json!({"center": {"x": 44, "y": 29.5}, "width": 177, "height": 118, "angle": 0});
    let pack = json!({"sides": [{"type": "image", "sideNum": 1,
        "templateCode": "businesscard_full_image_landscape",
        "data": [{"type": "imageData", "linkId": "variable_image_front",
                  "resourceUri": photo["resourceUri"], "imageBox": zoomed}]}],
        "imageBasket": {"items": [photo]}});
    let created = app
        .create_pack("businesscard", &[("pack", &pack.to_string())])
        .await;
    assert_eq!(created["warnings"][0]["code"], "PVI004", "{created}");
    let edit = created["dropIns"]["edit"].as_str().unwrap().to_owned();
    let pack_id = created["packId"].as_str().unwrap().to_owned();
    let (browser, _driver) = browser().await;
    open_edit_as_new_owner(&browser, &edit).await;
    // The finish page (a link a partner may have kept) refuses in the same words, with no
    // order form, and its button leads back to the editor.
    browser
        .goto(&edit.replace("/edit?", "/finish?"))
        .await
        .unwrap();
    let finish = text(&browser).await;
    assert!(
        finish.contains("Needed before ordering:") && finish.contains("prints at only 172 dpi"),
        "{finish}"
    );
    assert!(
        browser
            .find(Locator::Css("[name='paperClass']"))
            .await
            .is_err(),
        "an order form for a pack that cannot be ordered"
    );
    screenshot(&browser, "finish-blocked-picture").await;
    click(&browser, "a.button[href*='/edit?']").await;
    wait_for_renders(&browser, 1).await;
    let blocking = designer_value(
        &browser,
        "[...d.warnings.querySelectorAll('li.blocks')].map(li => [li.dataset.code, li.textContent])",
    )
    .await;
    let blocking = blocking.as_array().unwrap();
    assert_eq!(blocking.len(), 1, "{blocking:?}");
    assert_eq!(blocking[0][0], "PVI004");
    let said = blocking[0][1].as_str().unwrap();
    assert!(
        said.starts_with(
            "Needed before ordering: The picture in “Photo” on the front prints \
             at only 172 dpi"
        ) && said.contains("Zoom out or use a larger picture."),
        "{said}"
    );
    screenshot(&browser, "canvas-blocked-picture").await;
    click_button(&browser, "Zoom out").await;
    let mut checks = Value::Null;
    for _ in 0..200 {
        checks = designer_value(&browser, "d.checks.textContent").await;
        if !checks.as_str().unwrap().contains("dpi") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!checks.as_str().unwrap().contains("dpi"), "{checks}");
    let placed = designer_value(&browser, "d.side.data[0].imageBox").await;
    assert_eq!(placed["width"].as_f64().unwrap().round(), 89.0, "{placed}");
    click_button(&browser, "Save").await;
    for _ in 0..200 {
        let status = designer_value(&browser, "d.status.textContent").await;
        if status.as_str().unwrap().starts_with("Saved") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let stored = app.stored_pack(&pack_id).await;
    assert!(stored.record.is_orderable(), "{:?}", stored.record.warnings);

    // Put in the cart, then zoomed in again (saved as the editor saves, from the editor's
    // page): the cart and the checkout refuse it in Chromium, in the same words, the cart
    // with the way back.
    browser
        .goto(&edit.replace("/edit?", "/finish?"))
        .await
        .unwrap();
    click(&browser, "form[action$='/finish'] button").await;
    assert_eq!(crate::browser::path(&browser).await, "/cart");
    browser.goto(&edit).await.unwrap();
    wait_for_renders(&browser, 1).await;
    let saved = browser
        .execute_async(
            "const [id, pack, done] = arguments;
             fetch(`/packs/${id}/design`, {method: 'POST', body: JSON.stringify(pack),
               headers: {'content-type': 'application/json',
                 'x-csrf-token': window.presspackDesigner.csrf}})
               .then((response) => done(response.status), (error) => done(String(error)));",
            vec![json!(pack_id), pack],
        )
        .await
        .unwrap();
    assert_eq!(saved, 200);
    browser
        .goto(&format!("{}/cart", app.address))
        .await
        .unwrap();
    let in_cart = text(&browser).await;
    assert!(
        in_cart.contains(
            "Cannot be ordered yet: The picture in “Photo” on the front prints at only 172 dpi"
        ),
        "{in_cart}"
    );
    assert!(
        crate::browser::link_target(&browser, "Change the design")
            .await
            .is_some_and(|to| to.contains(&format!("/dropins/{pack_id}/edit?"))),
        "the cart line leads back to the editor"
    );
    screenshot(&browser, "cart-blocked-picture").await;
    // The checkout shows the proof with what to fix, not a box to approve it, and refuses
    // the order when it is sent all the same.
    click(&browser, "a[href='/checkout']").await;
    let proof = element_text(&browser, "section.proof").await;
    assert!(
        proof.contains(
            "Cannot be ordered yet: The picture in “Photo” on the front prints at only 172 dpi"
        ),
        "{proof}"
    );
    assert!(
        browser
            .find(Locator::Css("section.proof input[type='checkbox']"))
            .await
            .is_err(),
        "a proof that cannot print is offered for approval"
    );
    screenshot(&browser, "checkout-blocked-picture").await;
    crate::browser::fill_delivery_address(&browser).await;
    click(&browser, "form[action='/checkout'] button").await;
    let refused = text(&browser).await;
    assert!(
        refused.contains(
            "cannot be ordered yet: The picture in “Photo” on the front prints at only 172 dpi"
        ),
        "{refused}"
    );
    assert_ne!(crate::browser::path(&browser).await, "/confirmation");
    screenshot(&browser, "checkout-refused-picture").await;
}

#[tokio::test]
async fn the_standalone_demo_previews_a_sample_pack() {
    let app = spawn_app(StoreKind::Embedded).await;
    let (browser, _driver) = browser().await;
    let max_side = open_demo(&app, &browser).await;
    let before = preview_pixels(&browser).await;
    assert_eq!(before, server_pixels(&app, &browser, max_side).await);

    // The empty picture space is listed as preflight lists it, with a placeholder over the
    // card (not in the preview, whose pixels are the server's), and its fix opens the slot.
    let empty_slot = "(() => {
        const placeholder = document.querySelector(
          \".designer-slot[data-slot='variable_image_back'] .designer-placeholder\");
        return {shown: placeholder.getBoundingClientRect().height > 0,
                text: placeholder.textContent, checks: d.checks.textContent};
      })()";
    let empty = designer_value(&browser, empty_slot).await;
    assert_eq!(empty["shown"], true, "{empty}");
    assert_eq!(empty["text"], "Add a photo", "{empty}");
    let listed = "The picture space “Photo” on the front is empty";
    assert!(
        empty["checks"].as_str().unwrap().contains(listed),
        "{empty}"
    );
    click_button(&browser, "Add a photo").await;
    let editing = designer_value(&browser, "d.stage.editing").await;
    assert_eq!(editing, "variable_image_back");
    click_button(&browser, "Done").await;

    // A picture uploaded from the page (uploadImage, no key) fills the front's image box.
    upload_photo(&browser).await;
    let pictured = preview_pixels(&browser).await;
    assert_ne!(pictured.0, before.0);
    assert_eq!(pictured, server_pixels(&app, &browser, max_side).await);
    let filled = designer_value(&browser, empty_slot).await;
    assert_eq!(filled["shown"], false, "{filled}");
    assert!(
        !filled["checks"].as_str().unwrap().contains(listed),
        "{filled}"
    );

    // A line too long for its box is a live warning.
    fill(&browser, "#f-back_line_2-text", &"Wide ".repeat(30)).await;
    let warnings = browser
        .find(Locator::Css(".designer-warnings"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        warnings.contains("The text in “Job title” on the front does not fit its space"),
        "{warnings}"
    );

    // The font picker groups the families a customer may choose by kind, under the names
    // people know them by (no fallback face among them); one chosen there is drawn as the
    // server draws it.
    let groups = browser
        .execute(
            "return [...document.querySelectorAll('#f-back_line_2-font optgroup')]
               .map(g => [g.label, [...g.children].map(o => o.textContent)]);",
            vec![],
        )
        .await
        .unwrap();
    let groups: Vec<(String, Vec<String>)> = serde_json::from_value(groups).unwrap();
    let kinds: Vec<&str> = groups.iter().map(|(kind, _)| kind.as_str()).collect();
    for kind in ["Sans serif", "Serif", "Slab serif", "Script", "Monospaced"] {
        assert!(kinds.contains(&kind), "{groups:?}");
    }
    let script = &groups.iter().find(|(kind, _)| kind == "Script").unwrap().1;
    assert!(script.contains(&"Lobster Two".to_owned()), "{groups:?}");
    let names: Vec<&String> = groups.iter().flat_map(|(_, names)| names).collect();
    assert!(names.len() >= 30, "{groups:?}");
    assert!(names.contains(&&"Liberation Sans".to_owned()), "{groups:?}");
    assert!(
        !names
            .iter()
            .any(|n| n.contains("Noto") || n.contains("Droid")),
        "{groups:?}"
    );
    // Each name is drawn in its own face, which comes when the picker is first reached for.
    let faces = browser
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const d = window.presspackDesigner;
             const picker = document.getElementById('f-back_line_2-font');
             const before = [...document.fonts].filter(f => f.family.includes('picker-')).length;
             picker.focus();
             d.resources.familyFaces(d.families).then(() => {
               const option = picker.querySelector('option[value=\"playfair display\"]');
               const width = (family) => {
                 const context = document.createElement('canvas').getContext('2d');
                 context.font = `32px \"${family}\", monospace`;
                 return context.measureText('Hamburgefonstiv').width;
               };
               done({before, families: d.families.length,
                     loaded: [...document.fonts].filter(f =>
                       f.family.includes('picker-') && f.status === 'loaded').length,
                     style: getComputedStyle(option).fontFamily,
                     playfair: width('picker-playfair-display'),
                     mono: width('picker-jetbrains-mono')});
             });",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        faces["before"], 0,
        "no picker face before the picker is used: {faces}"
    );
    assert_eq!(faces["loaded"], faces["families"], "{faces}");
    assert!(
        faces["style"]
            .as_str()
            .unwrap()
            .contains("picker-playfair-display"),
        "{faces}"
    );
    assert_ne!(faces["playfair"], faces["mono"], "{faces}");
    // A headless browser draws no pop-up list: shown as an open list box for the screenshot.
    browser
        .execute(
            "const picker = document.getElementById('f-back_line_2-font');
             picker.size = 14; picker.scrollIntoView();",
            vec![],
        )
        .await
        .unwrap();
    screenshot(&browser, "canvas-font-picker").await;
    browser
        .execute(
            "document.getElementById('f-back_line_2-font').size = 0;",
            vec![],
        )
        .await
        .unwrap();
    let renders = designer_value(&browser, "Number(d.root.dataset.renders)")
        .await
        .as_u64()
        .unwrap();
    browser
        .find(Locator::Css("#f-back_line_2-font"))
        .await
        .unwrap()
        .select_by_value("playfair display")
        .await
        .unwrap();
    wait_for_renders(&browser, renders + 1).await;
    let chosen = designer_value(
        &browser,
        "d.side.data.find(x => x.linkId === 'back_line_2').font.fontFamily",
    )
    .await;
    assert_eq!(chosen, "playfair display");
    let playfair = preview_pixels(&browser).await;
    assert_ne!(playfair.0, pictured.0);
    assert_eq!(playfair, server_pixels(&app, &browser, max_side).await);

    // The back side, a new layout, guides off: each a different preview.
    click_button(&browser, "Back").await;
    let back = preview_pixels(&browser).await;
    assert_ne!(back.0, before.0);
    choose_layout(&browser, "businesscard_full_text_portrait").await;
    let portrait = preview_pixels(&browser).await;
    assert!(portrait.2 > portrait.1, "portrait: {portrait:?}");
    let code = designer_value(&browser, "d.side.templateCode").await;
    assert_eq!(code, "businesscard_full_text_portrait");
    screenshot(&browser, "canvas-demo").await;

    // Save keeps the demo's design as the visitor's own pack (a guest's: no account here),
    // and the editor goes on at the pack's edit drop-in with everything designed.
    assert_eq!(
        designer_value(&browser, "d.saveButton.disabled").await,
        false
    );
    click_button(&browser, "Save").await;
    let mut path = String::new();
    for _ in 0..300 {
        path = crate::browser::path(&browser).await;
        if path.ends_with("/edit") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        path.starts_with("/dropins/") && path.ends_with("/edit"),
        "{path}"
    );
    wait_for_renders(&browser, 1).await;
    let pack = designer_value(&browser, "JSON.stringify(d.pack)").await;
    let pack = pack.as_str().unwrap();
    assert!(
        pack.contains("Ada Lovelace") && pack.contains("businesscard_full_text_portrait"),
        "{pack}"
    );
    let pack_id = path.split('/').nth(2).unwrap();
    let stored = app.stored_pack(pack_id).await;
    assert!(stored.record.owner.unwrap().starts_with("guest:"));
    assert_eq!(
        stored.record.created_by,
        presspack::domain::packs::SHOP_CREATOR
    );
    screenshot(&browser, "canvas-demo-kept").await;
}

/// "Shrink to fit" on the card's own editor: offered only while the text overflows, it makes
/// a line just fit, leaves a line that fits alone, and never goes below 6 pt (a line too
/// long even for that keeps its size, and the customer is told to shorten it).
#[tokio::test]
async fn shrink_to_fit_is_offered_for_an_overflow_and_keeps_the_text_readable() {
    let app = spawn_app(StoreKind::Embedded).await;
    let (browser, _driver) = browser().await;
    open_demo(&app, &browser).await;
    open_slot(&browser, "back_line_2").await;
    // The button, whether it shows, the line's size in points, the undo steps and the status.
    let state = || async {
        designer_value(
            &browser,
            "(() => {
               const shrink = [...document.querySelectorAll('.designer-inplace button')]
                 .find(b => b.textContent === 'Shrink to fit');
               const datum = d.side.data.find(x => x.linkId === 'back_line_2');
               const item = d.stage.outline.items.find(i => i.linkId === 'back_line_2');
               return {shown: shrink.getBoundingClientRect().height > 0,
                       points: (datum?.pointSize ?? item.text.pointSize) * 72 / 25.4,
                       steps: d.history.undoStack.length,
                       status: document.querySelector('.designer-status').textContent,
                       warnings: document.querySelector('.designer-warnings').textContent};
             })()",
        )
        .await
    };
    let press_shrink = || async {
        browser
            .execute(
                "[...document.querySelectorAll('.designer-inplace button')]
                   .find(b => b.textContent === 'Shrink to fit').click();",
                vec![],
            )
            .await
            .unwrap();
        state().await
    };
    let typed = |text: &'static str| {
        let browser = &browser;
        async move {
            let renders = designer_value(browser, "Number(d.root.dataset.renders)").await;
            fill(browser, "#inplace-back_line_2-text", text).await;
            wait_for_renders(browser, renders.as_u64().unwrap() + 1).await;
        }
    };

    let fitting = state().await;
    assert_eq!(fitting["shown"], false, "{fitting}");
    let size = fitting["points"].as_f64().unwrap();
    // Pressed anyway (a script, a stale page): the line keeps its size, with nothing to undo.
    let pressed = press_shrink().await;
    assert_eq!(pressed["points"], fitting["points"], "{pressed}");
    assert_eq!(pressed["steps"], fitting["steps"], "{pressed}");
    assert!(
        pressed["status"]
            .as_str()
            .unwrap()
            .ends_with("already fits."),
        "{pressed}"
    );

    typed("Managing Director, Northern Region and Islands").await;
    let overflowing = state().await;
    assert_eq!(overflowing["shown"], true, "{overflowing}");
    assert!(
        overflowing["warnings"]
            .as_str()
            .unwrap()
            .contains("does not fit its space"),
        "{overflowing}"
    );
    let shrunk = press_shrink().await;
    let points = shrunk["points"].as_f64().unwrap();
    assert!((6.0..size).contains(&points), "{shrunk}");
    let told: f64 = shrunk["status"]
        .as_str()
        .unwrap()
        .strip_prefix("Job title is now ")
        .and_then(|rest| rest.strip_suffix(" pt and fits."))
        .and_then(|size| size.parse().ok())
        .unwrap_or_else(|| panic!("{shrunk}"));
    assert!((told - points).abs() < 0.01, "{shrunk}");
    assert!(
        !shrunk["warnings"]
            .as_str()
            .unwrap()
            .contains("does not fit its space"),
        "{shrunk}"
    );
    // Half a point larger overflows: it is the largest size that fits.
    let larger = designer_value(
        &browser,
        &format!(
            "(() => {{
               const datum = d.side.data.find(x => x.linkId === 'back_line_2');
               datum.pointSize = {} * 25.4 / 72;
               const overflows = d.engine.report(d.side).overflows.some(o => o.linkId === 'back_line_2');
               datum.pointSize = {told} * 25.4 / 72;
               return overflows;
             }})()",
            told + 0.5
        ),
    )
    .await;
    assert_eq!(larger, true);
    let shown = state().await;
    assert_eq!(shown["shown"], false, "{shown}");
    screenshot(&browser, "canvas-shrink-to-fit").await;

    // Far too long: not shrunk into unreadable type.
    typed(
        "Managing Director of Sales, Marketing, Customer Relations and Partnerships, Europe, \
         the Middle East, Africa and Asia Pacific",
    )
    .await;
    let before = state().await;
    assert_eq!(before["shown"], true, "{before}");
    let refused = press_shrink().await;
    assert_eq!(refused["points"], before["points"], "{refused}");
    assert_eq!(refused["steps"], before["steps"], "{refused}");
    assert!(
        refused["status"]
            .as_str()
            .unwrap()
            .contains("does not fit even at 6 pt"),
        "{refused}"
    );
}

/// Issue 58: the shop's palette sits beside the free colour picker. A swatch is kept as its
/// inks (CMYK), and the press file prints exactly them (qpdf's uncompressed content); a
/// colour from the free picker stays RGB; undo brings the swatch back.
#[tokio::test]
async fn a_palette_swatch_is_saved_and_printed_as_its_inks() {
    use presspack::domain::brand::Swatch;
    use presspack_engine::model::Colour;
    let app = spawn_app_with(StoreKind::Embedded, |config| {
        config.brand.palette = vec![
            Swatch {
                name: "Shop green".to_owned(),
                colour: Colour::Cmyk {
                    c: 90.0,
                    m: 0.0,
                    y: 70.0,
                    k: 20.0,
                },
            },
            Swatch {
                name: "Ink black".to_owned(),
                colour: Colour::Cmyk {
                    c: 0.0,
                    m: 0.0,
                    y: 0.0,
                    k: 100.0,
                },
            },
        ];
    })
    .await;
    let pack = json!({"sides": [{"type": "details", "sideNum": 1,
        "templateCode": "businesscard_full_text_landscape",
        "data": [{"type": "textData", "linkId": "back_line_1", "text": "Ann Example"}]}],
        "imageBasket": {"items": []}});
    let created = app
        .create_pack("businesscard", &[("pack", &pack.to_string())])
        .await;
    let pack_id = created["packId"].as_str().unwrap().to_owned();
    let (browser, _driver) = browser().await;
    open_edit_as_new_owner(&browser, created["dropIns"]["edit"].as_str().unwrap()).await;
    let field = ".designer-field[data-slot='back_line_1']";
    let shown = || async {
        browser
            .execute(
                &format!(
                    "const field = document.querySelector(\"{field}\");
                     const datum = window.presspackDesigner.side.data.find(x => x.linkId === 'back_line_1');
                     return {{swatches: [...field.querySelectorAll('.designer-swatch')].map(b =>
                               [b.getAttribute('aria-label'), b.title, getComputedStyle(b).backgroundColor,
                                b.getAttribute('aria-pressed')]),
                             picker: field.querySelector('input[type=color]').value,
                             colour: datum.colour ?? null}};"
                ),
                vec![],
            )
            .await
            .unwrap()
    };
    let before = shown().await;
    // The naive display of the inks (the editor's preview colour): 90/0/70/20 is (20, 204, 61).
    assert_eq!(
        before["swatches"],
        json!([
            [
                "Shop green",
                "Shop green (C 90 M 0 Y 70 K 20)",
                "rgb(20, 204, 61)",
                "false"
            ],
            [
                "Ink black",
                "Ink black (C 0 M 0 Y 0 K 100)",
                "rgb(0, 0, 0)",
                "false"
            ]
        ]),
        "{before}"
    );
    let renders = designer_value(&browser, "Number(d.root.dataset.renders)").await;
    click_in_page(
        &browser,
        &format!("{field} .designer-swatch[aria-label='Shop green']"),
    )
    .await;
    wait_for_renders(&browser, renders.as_u64().unwrap() + 1).await;
    // (compared as numbers: the page's JSON writes 90, the server's 90.0)
    let inks = |colour: &Value| -> Option<[f64; 4]> {
        (colour["type"] == "CMYK").then_some(())?;
        let ink = |name: &str| colour[name].as_f64();
        Some([ink("c")?, ink("m")?, ink("y")?, ink("k")?])
    };
    let green = Some([90.0, 0.0, 70.0, 20.0]);
    let chosen = shown().await;
    assert_eq!(inks(&chosen["colour"]), green, "{chosen}");
    assert_eq!(chosen["picker"], "#14cc3d", "{chosen}");
    assert_eq!(chosen["swatches"][0][3], "true", "{chosen}");
    screenshot(&browser, "canvas-palette").await;

    // The free picker: an RGB colour, no swatch pressed; undo brings the swatch back.
    browser
        .execute(
            &format!(
                "const picker = document.querySelector(\"{field} input[type=color]\");
                 picker.value = '#ff0000'; picker.dispatchEvent(new Event('input', {{bubbles: true}}));"
            ),
            vec![],
        )
        .await
        .unwrap();
    let picked = shown().await;
    assert_eq!(
        picked["colour"],
        json!({"type": "RGB", "r": 255, "g": 0, "b": 0}),
        "{picked}"
    );
    assert_eq!(picked["swatches"][0][3], "false", "{picked}");
    designer_value(&browser, "d.undo()").await;
    let undone = shown().await;
    assert_eq!(inks(&undone["colour"]), green, "{undone}");
    assert_eq!(undone["swatches"][0][3], "true", "{undone}");

    // Saved as the inks...
    browser
        .find(Locator::XPath("//button[text()='Save']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let mut stored = String::new();
    for _ in 0..200 {
        stored = app.stored_pack(&pack_id).await.record.pack.get().to_owned();
        if stored.contains("CMYK") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let stored: Value = serde_json::from_str(&stored).unwrap();
    let line = (stored["sides"][0]["data"].as_array().unwrap().iter())
        .find(|d| d["linkId"] == "back_line_1")
        .unwrap();
    assert_eq!(inks(&line["colour"]), green, "{stored}");
    // ...and printed as exactly them: the same pack's press file fills its text with
    // 0.9 0 0.7 0.2 in DeviceCMYK (qpdf writes the content streams uncompressed).
    let copy = app
        .create_pack("businesscard", &[("pack", &stored.to_string())])
        .await;
    let copy = copy["packId"].as_str().unwrap();
    let pdf = app
        .get(&[
            ("method", "svc.pack.renderPackPdf"),
            ("packId", copy),
            ("kind", "press"),
        ])
        .await;
    assert_eq!(pdf.status, 200, "{}", pdf.body);
    let content = crate::press::uncompressed(&pdf.bytes);
    assert!(
        content.contains("0.9 0 0.7 0.2 k"),
        "no swatch inks in the press file"
    );
}

/// Issue 58: a QR code of the customer's contact details, placed in a picture slot from the
/// card's editor, reads back (ZBar, an independent decoder) from the server's render of the
/// side at print resolution (300 dpi), as the vCard the details make. What a card's code
/// cannot carry (10,000 characters, a control character) is refused, naming the field.
#[tokio::test]
async fn a_qr_code_of_contact_details_reads_back_from_the_print() {
    let app = spawn_app(StoreKind::Embedded).await;
    let pack = json!({"sides": [{"type": "details", "sideNum": 1,
        "templateCode": "businesscard_left_image_landscape",
        "data": [{"type": "textData", "linkId": "back_line_1", "text": "Ann Example"}]}],
        "imageBasket": {"items": []}});
    let created = app
        .create_pack("businesscard", &[("pack", &pack.to_string())])
        .await;
    let (browser, _driver) = browser().await;
    // As a guest: the link opens the editor at once.
    browser
        .goto(created["dropIns"]["edit"].as_str().unwrap())
        .await
        .unwrap();
    wait_for_renders(&browser, 1).await;
    open_slot(&browser, "variable_image_back").await;
    let id = |what: &str| format!("#inplace-variable_image_back-qr-{what}");
    click_in_page(&browser, ".designer-inplace details.designer-qr summary").await;
    let status = || crate::browser::element_text(&browser, ".designer-inplace .designer-qr-status");
    let place = || click_in_page(&browser, ".designer-inplace .designer-qr button");
    let placed = || {
        designer_value(
            &browser,
            "d.datum(d.outline.items.find(i => i.linkId === 'variable_image_back')).resourceUri ?? null",
        )
    };

    // Refused, naming the field: a link of 10,000 characters, a control character.
    browser
        .execute(
            &format!(
                "document.querySelector('{}').value = 'https://' + 'a'.repeat(10000);",
                id("url")
            ),
            vec![],
        )
        .await
        .unwrap();
    place().await;
    assert!(
        status().await.starts_with("link: at most 2000 characters"),
        "{}",
        status().await
    );
    browser
        .find(Locator::Css(&id("kind")))
        .await
        .unwrap()
        .select_by_value("contact")
        .await
        .unwrap();
    browser
        .execute(
            &format!(
                "document.querySelector('{}').value = 'Ann\\u0007';",
                id("name")
            ),
            vec![],
        )
        .await
        .unwrap();
    place().await;
    assert!(
        status()
            .await
            .starts_with("name: character 4 is a control character"),
        "{}",
        status().await
    );
    assert_eq!(placed().await, Value::Null);
    // So much that its squares would print too small for a phone in this slot.
    fill(&browser, &id("name"), "Ann Example").await;
    browser
        .execute(
            &format!(
                "document.querySelector('{}').value = 'Print & Co '.repeat(18);",
                id("organisation")
            ),
            vec![],
        )
        .await
        .unwrap();
    place().await;
    assert!(
        status().await.contains("too small for phones to read"),
        "{}",
        status().await
    );
    assert_eq!(placed().await, Value::Null);
    fill(&browser, &id("organisation"), "").await;

    // The details, placed.
    fill(&browser, &id("name"), "Ann Example").await;
    fill(&browser, &id("phone"), "+44 20 7946 0018").await;
    fill(&browser, &id("email"), "ann@example.com").await;
    let renders = designer_value(&browser, "Number(d.root.dataset.renders)").await;
    place().await;
    for _ in 0..200 {
        if placed().await != Value::Null {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_ne!(placed().await, Value::Null, "{}", status().await);
    wait_for_renders(&browser, renders.as_u64().unwrap() + 1).await;
    screenshot(&browser, "canvas-qr-code").await;

    // The server's render at print resolution: 85 mm of card at 300 dpi.
    let render = server_render(&app, &browser, "cut", 1004).await;
    let file = tempfile::Builder::new().suffix(".png").tempfile().unwrap();
    std::fs::write(file.path(), &render).unwrap();
    let read = std::process::Command::new("zbarimg")
        .args(["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable"])
        .arg(file.path())
        .output()
        .expect("zbarimg (tests/run installs zbar-tools)");
    assert!(read.status.success(), "ZBar found no code: {read:?}");
    assert_eq!(
        String::from_utf8_lossy(&read.stdout).trim_end_matches('\n'),
        "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Ann Example;;;;\r\nFN:Ann Example\r\n\
         TEL:+44 20 7946 0018\r\nEMAIL:ann@example.com\r\nEND:VCARD"
    );
}

/// Uploads a 1200 x 800 photo from the page into the side's full-bleed image slot and waits
/// for the preview that shows it.
async fn upload_photo(browser: &Client) {
    let renders = designer_value(browser, "Number(d.root.dataset.renders)")
        .await
        .as_u64()
        .unwrap();
    let photo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/e2e/images/jpeg-q95.jpg")
        .canonicalize()
        .unwrap();
    browser
        .find(Locator::Css("#f-variable_image_back-upload"))
        .await
        .unwrap()
        .send_keys(photo.to_str().unwrap())
        .await
        .unwrap();
    let image = "d.side.data.find(x => x.linkId === 'variable_image_back')?.resourceUri ?? null";
    for _ in 0..600 {
        if designer_value(browser, image).await.is_string() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Placing it draws once the rendition has arrived.
    wait_for_renders(browser, renders + 1).await;
}

/// Clicks slot `link_id` on the card, as a customer opens its editor.
pub async fn open_slot(browser: &Client, link_id: &str) {
    click_in_page(browser, &format!(".designer-slot[data-slot='{link_id}']")).await;
}

/// Presses `key` with `modifiers` held, wherever the focus is.
pub async fn press(browser: &Client, modifiers: &[Key], key: char) {
    let mut keys = KeyActions::new("keyboard".into());
    for modifier in modifiers {
        keys = keys.then(KeyAction::Down {
            value: char::from(*modifier),
        });
    }
    keys = keys
        .then(KeyAction::Down { value: key })
        .then(KeyAction::Up { value: key });
    for modifier in modifiers.iter().rev() {
        keys = keys.then(KeyAction::Up {
            value: char::from(*modifier),
        });
    }
    browser.perform_actions(keys).await.unwrap();
}

/// Clicks the layout `code` in the editor's strip of layouts.
pub async fn choose_layout(browser: &Client, code: &str) {
    browser
        .find(Locator::Css(&format!(
            ".designer-layouts button[data-template='{code}']"
        )))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// Clicks the button whose text (its own and its children's) is `text`.
pub async fn click_button(browser: &Client, text: &str) {
    browser
        .find(Locator::XPath(&format!(
            "//button[normalize-space(.)='{text}']"
        )))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// The keystroke-to-preview benchmark (`bench/canvas.sh`; docs/benchmarks.md): types into a
/// line of the demo's business card in Chromium, first on the text alone and then with a
/// full-bleed photo behind it, and prints how long each keystroke took from its input event
/// to the updated preview on the canvas, beside the server's renderSide of the same side at
/// the same size over HTTP (what a preview per keystroke would cost without the engine in the
/// page). It asserts nothing about time.
#[tokio::test]
#[ignore = "a benchmark: run bench/canvas.sh"]
async fn canvas_keystroke_benchmark() {
    let app = spawn_app(StoreKind::Embedded).await;
    let (browser, _driver) = browser().await;
    let max_side = open_demo(&app, &browser).await;
    println!("businesscard side at maxSide {max_side}; frame budget 16 ms");
    let latin = "Analytical engines and difference engines ";
    type_and_time(&app, &browser, max_side, "text only", latin).await;
    type_and_time(
        &app,
        &browser,
        max_side,
        "text only, in Arabic",
        "محركات تحليلية ومحركات الفروق ",
    )
    .await;
    type_and_time(
        &app,
        &browser,
        max_side,
        "text only, in Chinese",
        "分析机和差分机的程序员 ",
    )
    .await;
    upload_photo(&browser).await;
    type_and_time(
        &app,
        &browser,
        max_side,
        "with a full-bleed 1200 x 800 photo",
        latin,
    )
    .await;
}

/// One run of the keystroke benchmark on the side as it is: 200 keystrokes of `typed` into
/// the second line, then 50 server renders of the result.
async fn type_and_time(app: &TestApp, browser: &Client, max_side: u64, case: &str, typed: &str) {
    const KEYSTROKES: usize = 200;
    let field = browser
        .find(Locator::Css("#f-back_line_2-text"))
        .await
        .unwrap();
    let text: Vec<char> = typed.chars().cycle().take(KEYSTROKES).collect();
    field.clear().await.unwrap();
    for chunk in text.chunks(20) {
        field
            .send_keys(&chunk.iter().collect::<String>())
            .await
            .unwrap();
    }
    let mut timings: Vec<f64> = serde_json::from_value(
        designer_value(browser, &format!("d.timings.slice(-{KEYSTROKES})")).await,
    )
    .unwrap();
    assert!(timings.len() >= KEYSTROKES / 2, "{}", timings.len());

    let side = designer_value(browser, "JSON.stringify(d.side)").await;
    let basket = designer_value(browser, "JSON.stringify(d.pack.imageBasket)").await;
    let mut server = Vec::new();
    for _ in 0..50 {
        let started = std::time::Instant::now();
        let response = app
            .post(&[
                ("method", "svc.pack.renderSide"),
                ("side", side.as_str().unwrap()),
                ("imageBasket", basket.as_str().unwrap()),
                ("boxType", "bleed"),
                ("maxSide", &max_side.to_string()),
            ])
            .await;
        assert_eq!(response.content_type, "image/png");
        server.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    let summary = |values: &mut Vec<f64>| {
        values.sort_by(f64::total_cmp);
        let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
        (at(0.5), at(0.95), at(0.99), at(1.0))
    };
    let (median, p95, p99, max) = summary(&mut timings);
    let (server_median, server_p95, _, _) = summary(&mut server);
    println!(
        "{case}: keystroke -> preview ({} keystrokes): median {median:.2} ms, p95 {p95:.2} ms, \
         p99 {p99:.2} ms ({:.2}x the frame budget), max {max:.2} ms",
        timings.len(),
        p99 / 16.0
    );
    println!(
        "{case}: server renderSide round trip, same side and size (50 calls): median \
         {server_median:.2} ms, p95 {server_p95:.2} ms; the in-page preview's median is {:.2}x of it",
        median / server_median
    );
}

/// What the page loaded, as the browser's resource timing counts it: for each file (the page
/// itself first) its URL, the bytes that came over the network (headers included; a few
/// hundred for a `304`), the body's bytes as sent (compressed) and as used.
const TRANSFERRED: &str = "
    const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
    return entries.map(e => [e.name, e.transferSize, e.encodedBodySize, e.decodedBodySize]);";

/// The page weight benchmark (bench/page-weight.sh): the bytes a first open of the standalone
/// canvas (a Latin card) downloads in a fresh browser; then what typing a line in Arabic,
/// Chinese and Devanagari on it adds (the faces those scripts need, fetched as the text needs
/// them); then what first using the font picker adds (a face per family, to draw its name
/// in); then a repeat open (the same address opened again); each by kind of file, with what
/// the files are uncompressed. It asserts nothing about size.
#[tokio::test]
#[ignore = "a benchmark: run bench/page-weight.sh"]
async fn canvas_page_weight_benchmark() {
    let app = spawn_app(StoreKind::Embedded).await;
    let (browser, _driver) = browser().await;
    let max_side = open_demo(&app, &browser).await;
    let first = loaded(&browser).await;
    print_weight("first open (a Latin card)", &first);
    let mut seen = first.len();
    for (script, text) in [
        ("Arabic", "مرحبا بالعالم"),
        ("Chinese", "你好世界 繁體中文"),
        ("Devanagari", "नमस्ते दुनिया"),
    ] {
        fill(&browser, "#f-back_line_2-text", text).await;
        // Drawn once the faces it needs have come: the preview is then the server's.
        let mut drawn = false;
        for _ in 0..300 {
            if preview_pixels(&browser).await == server_pixels(&app, &browser, max_side).await {
                drawn = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(drawn, "the {script} line was not drawn within 30 s");
        let now = loaded(&browser).await;
        print_weight(
            &format!("then a line in {script}: what it added"),
            &now[seen..],
        );
        seen = now.len();
    }
    // The font picker reached for: every family's regular face, to draw its name in.
    browser
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const d = window.presspackDesigner;
             document.getElementById('f-back_line_2-font').focus();
             d.resources.familyFaces(d.families).then(() => done(null));",
            vec![],
        )
        .await
        .unwrap();
    let now = loaded(&browser).await;
    print_weight("then the font picker: what it added", &now[seen..]);
    open_demo(&app, &browser).await;
    print_weight("repeat open", &loaded(&browser).await);

    // A customer's first open of a pack started from no design: the editor opens on the
    // designs, the thumbnails in view loaded.
    let app = crate::designs::spawn_app_with_starters(StoreKind::Embedded).await;
    let (browser, _driver) = crate::chromium::browser().await;
    let created = app.create_pack("businesscard", &[]).await;
    browser
        .goto(created["dropIns"]["edit"].as_str().unwrap())
        .await
        .unwrap();
    wait_for_renders(&browser, 1).await;
    let shown = "[...d.chooser.querySelectorAll('img')].filter(i => i.getBoundingClientRect().left < innerWidth).every(i => i.complete && i.naturalWidth > 0)";
    for _ in 0..300 {
        if designer_value(&browser, shown).await == true {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    print_weight(
        "first open of the edit drop-in, on the designs",
        &loaded(&browser).await,
    );
}

/// What the page has loaded so far, as [`TRANSFERRED`] lists it.
async fn loaded(browser: &Client) -> Vec<(String, u64, u64, u64)> {
    serde_json::from_value(browser.execute(TRANSFERRED, vec![]).await.unwrap()).unwrap()
}

/// Prints the files, bytes over the network and bytes uncompressed of `entries` by kind.
fn print_weight(heading: &str, entries: &[(String, u64, u64, u64)]) {
    let kind = |url: &str| {
        let path = url.split('?').next().unwrap_or(url);
        match path.rsplit('.').next().unwrap_or_default() {
            "wasm" => "wasm",
            "ttf" | "otf" => "fonts",
            "js" => "scripts",
            "css" => "styles",
            "xml" => "templates",
            _ => "page, data, images",
        }
    };
    let mut totals: std::collections::BTreeMap<&str, (usize, u64, u64)> = Default::default();
    for (url, transferred, _, decoded) in entries {
        let total = totals.entry(kind(url)).or_default();
        *total = (total.0 + 1, total.1 + transferred, total.2 + decoded);
    }
    println!("{heading}: files, bytes over the network, bytes uncompressed");
    for (kind, (files, transferred, decoded)) in &totals {
        println!("  {kind:<20} {files:>3} {transferred:>10} {decoded:>10}");
    }
    let (files, transferred, decoded) = totals.values().fold((0, 0, 0), |all, one| {
        (all.0 + one.0, all.1 + one.1, all.2 + one.2)
    });
    println!("  {:<20} {files:>3} {transferred:>10} {decoded:>10}", "all");
}
