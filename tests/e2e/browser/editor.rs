//! The customer's editor in real headless Chromium, on a desktop (1280 px, a mouse) and on a
//! phone (390 x 844, touch): a partner's pack that cannot be ordered (it has no front) is
//! explained on the preview page with a button to the editor; there the customer adds the
//! front, puts the photo in its slot from the card, drags and zooms it (mouse and wheel, or a
//! finger and a pinch), undoes, edits a line on the card itself, shrinks an overflowing line
//! to fit, switches layout, saves and orders. Every page is screenshotted and checked for the
//! accessibility basics and for scrolling sideways (`browser::screenshot`).

use std::time::Duration;

use fantoccini::actions::{
    InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction, TouchActions, WheelAction,
    WheelActions,
};
use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use serde_json::{Value, json};

use crate::browser::{
    check_and_approve_proofs, click, fill, fill_delivery_address, order_number, path, screenshot,
    sign_up, text,
};
use crate::canvas::{
    choose_layout, click_button, designer_value, open_slot, press, preview_pixels, wait_for_renders,
};
use crate::chromium::{browser, phone};
use crate::customers::{add_to_cart, new_pack};
use crate::helpers::{StoreKind, spawn_app};

#[derive(Clone, Copy, PartialEq)]
enum Device {
    Desktop,
    Phone,
}

#[tokio::test]
async fn the_editor_journey_on_a_desktop() {
    editor_journey(Device::Desktop).await;
}

#[tokio::test]
async fn the_editor_journey_on_a_phone() {
    editor_journey(Device::Phone).await;
}

/// Waits until `expression` (JavaScript over `d`, the designer) is true.
async fn wait_until(browser: &Client, expression: &str) {
    for _ in 0..400 {
        if designer_value(browser, expression).await == true {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("not within 20 s: {expression}");
}

/// The centre of a slot's button on the card, in viewport pixels.
async fn slot_centre(browser: &Client, link_id: &str) -> (f64, f64) {
    let rect = designer_value(
        browser,
        &format!(
            "(() => {{ const r = document.querySelector(\".designer-slot[data-slot='{link_id}']\").getBoundingClientRect();
               return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        ),
    )
    .await;
    (rect[0].as_f64().unwrap(), rect[1].as_f64().unwrap())
}

/// Drags the photo in `link_id` by (dx, dy) CSS pixels: with the mouse, or a finger.
async fn drag_photo(browser: &Client, device: Device, link_id: &str, dx: f64, dy: f64) {
    let (x, y) = slot_centre(browser, link_id).await;
    let steps = [
        PointerAction::MoveTo {
            duration: None,
            x: x.round(),
            y: y.round(),
        },
        PointerAction::Down {
            button: MOUSE_BUTTON_LEFT,
        },
        PointerAction::MoveBy {
            duration: Some(Duration::from_millis(300)),
            x: dx,
            y: dy,
        },
        PointerAction::Up {
            button: MOUSE_BUTTON_LEFT,
        },
    ];
    match device {
        Device::Desktop => {
            let mouse = steps
                .into_iter()
                .fold(MouseActions::new("mouse".into()), |a, s| a.then(s));
            browser.perform_actions(mouse).await.unwrap();
        }
        Device::Phone => {
            let finger = steps
                .into_iter()
                .fold(TouchActions::new("finger".into()), |a, s| a.then(s));
            browser.perform_actions(finger).await.unwrap();
        }
    }
}

/// Zooms the photo in `link_id` in: the wheel on a desktop, two fingers spreading on a phone.
async fn zoom_photo(browser: &Client, device: Device, link_id: &str) {
    let (x, y) = slot_centre(browser, link_id).await;
    match device {
        Device::Desktop => {
            let wheel = WheelActions::new("wheel".into()).then(WheelAction::Scroll {
                duration: None,
                x: x as i64,
                y: y as i64,
                delta_x: 0,
                delta_y: -300,
            });
            browser.perform_actions(wheel).await.unwrap();
        }
        Device::Phone => {
            let finger = |name: &str, from: f64, by: f64| {
                TouchActions::new(name.into())
                    .then(PointerAction::MoveTo {
                        duration: None,
                        x: (x + from).round(),
                        y: y.round(),
                    })
                    .then(PointerAction::Down {
                        button: MOUSE_BUTTON_LEFT,
                    })
                    .then(PointerAction::MoveBy {
                        duration: Some(Duration::from_millis(400)),
                        x: by,
                        y: 0.0,
                    })
                    .then(PointerAction::Up {
                        button: MOUSE_BUTTON_LEFT,
                    })
            };
            let pinch = fantoccini::actions::Actions::from(finger("thumb", -15.0, -40.0))
                .and(finger("index", 15.0, 40.0));
            browser.perform_actions(pinch).await.unwrap();
        }
    }
}

async fn editor_journey(device: Device) {
    let app = spawn_app(StoreKind::Embedded).await;
    let size = if device == Device::Desktop {
        "desktop"
    } else {
        "phone"
    };
    let photo = app.upload_fixture("jpeg-q95.jpg", &[]).await;
    // The partner sent only a back: the pack has no front and cannot be ordered.
    let pack = json!({"sides": [
        {"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape",
         "data": [{"type": "textData", "linkId": "back_line_1", "text": "Ann Example"}]}
    ], "imageBasket": {"items": [photo]}});
    let created = app
        .create_pack("businesscard", &[("pack", &pack.to_string())])
        .await;
    let codes: Vec<&str> = created["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["code"].as_str())
        .collect();
    assert_eq!(codes, ["PVD001"], "{created}");
    let (browser, _driver) = match device {
        Device::Desktop => browser().await,
        Device::Phone => phone().await,
    };
    // The preview page says what is wrong in a customer's words, with a button to the fix.
    let preview = created["dropIns"]["preview"].as_str().unwrap();
    browser.goto(preview).await.unwrap();
    let viewport = designer_value(&browser, "window.innerWidth").await;
    let expected_width = if device == Device::Desktop { 1280 } else { 390 };
    assert_eq!(viewport, expected_width, "the {size} viewport");
    screenshot(&browser, &format!("editor-{size}-0-sign-in")).await;
    sign_up(&browser).await;
    click(&browser, "form[action^='/dropins/'] button").await;
    let explained = text(&browser).await;
    assert!(
        explained.contains("Needed before ordering: Your pack has no front design yet."),
        "{explained}"
    );
    assert!(!explained.contains("pack.sides"), "{explained}");
    screenshot(&browser, &format!("editor-{size}-1-preview")).await;
    click(&browser, "a.button[href*='/edit?token=']").await;
    let state = wait_for_renders(&browser, 1).await;
    let first_render = state["renders"].as_u64().unwrap();
    screenshot(&browser, &format!("editor-{size}-2-opened")).await;

    // The editor lists the same problem where it is seen without scrolling, with its fix.
    let checks_top = designer_value(&browser, "d.checks.getBoundingClientRect().top").await;
    assert!(checks_top.as_f64().unwrap() < 844.0, "{checks_top}");
    let checks = designer_value(&browser, "d.checks.textContent").await;
    assert!(
        checks
            .as_str()
            .unwrap()
            .contains("Your pack has no front design yet."),
        "{checks}"
    );
    click_button(&browser, "Add a front").await;
    assert_eq!(designer_value(&browser, "d.pack.sides.length").await, 2);
    assert_eq!(designer_value(&browser, "d.side.type").await, "image");
    wait_until(&browser, "!d.checks.textContent.includes('no front')").await;

    // The front's picture slot, clicked on the card, opens its editor: choose the photo.
    let slot = designer_value(
        &browser,
        "d.outline.items.find(i => i.kind === 'Image').linkId",
    )
    .await;
    let slot = slot.as_str().unwrap().to_owned();
    open_slot(&browser, &slot).await;
    browser
        .find(Locator::Css(&format!("#inplace-{slot}-image")))
        .await
        .unwrap()
        .select_by_index(1)
        .await
        .unwrap();
    let datum = format!("d.side.data.find(x => x.linkId === '{slot}')");
    wait_until(&browser, &format!("{datum}?.imageBox !== undefined")).await;
    let renders = designer_value(&browser, "Number(d.root.dataset.renders)")
        .await
        .as_u64()
        .unwrap();
    wait_for_renders(&browser, renders.max(first_render) + 1).await;
    let pictured = preview_pixels(&browser).await;
    click_button(&browser, "Done").await;

    // Zoom (wheel or pinch), then drag: the box grows, then moves; the preview follows.
    let width = format!("{datum}.imageBox.width");
    let placed_width = designer_value(&browser, &width).await.as_f64().unwrap();
    zoom_photo(&browser, device, &slot).await;
    let zoomed_width = designer_value(&browser, &width).await.as_f64().unwrap();
    assert!(
        zoomed_width > placed_width * 1.05,
        "{placed_width} -> {zoomed_width}"
    );
    let centre = format!("{datum}.imageBox.center");
    let before_drag = designer_value(&browser, &centre).await;
    drag_photo(&browser, device, &slot, 30.0, 12.0).await;
    let dragged = designer_value(&browser, &centre).await;
    assert!(
        dragged["x"].as_f64() > before_drag["x"].as_f64(),
        "{before_drag} -> {dragged}"
    );
    assert_ne!(preview_pixels(&browser).await.0, pictured.0);
    screenshot(&browser, &format!("editor-{size}-3-photo")).await;

    // Undo takes the drag back (the button, as a phone user would; Ctrl+Z on a desktop).
    match device {
        Device::Desktop => press(&browser, &[Key::Control], 'z').await,
        Device::Phone => click_button(&browser, "Undo").await,
    }
    assert_eq!(designer_value(&browser, &centre).await, before_drag);

    // The back: click the line on the card and type in place; the preview redraws.
    click_button(&browser, "Back").await;
    let before_typing = preview_pixels(&browser).await;
    open_slot(&browser, "back_line_2").await;
    let focused = designer_value(&browser, "document.activeElement.id").await;
    assert_eq!(focused, "inplace-back_line_2-text");
    fill(&browser, "#inplace-back_line_2-text", "Grace Hopper").await;
    wait_until(
        &browser,
        "d.side.data.find(x => x.linkId === 'back_line_2')?.text === 'Grace Hopper'",
    )
    .await;
    assert_ne!(preview_pixels(&browser).await.0, before_typing.0);
    // On a phone the line's editor is a sheet along the bottom of the screen, with the line
    // in sight above it.
    let placed = designer_value(
        &browser,
        "(() => {
           const sheet = d.stage.popover.getBoundingClientRect();
           const line = d.stage.slot('back_line_2').getBoundingClientRect();
           return {sheetLeft: sheet.left, sheetTop: sheet.top, sheetBottom: sheet.bottom,
                   sheetWidth: sheet.width, lineTop: line.top, lineBottom: line.bottom,
                   width: window.innerWidth, height: window.innerHeight};
         })()",
    )
    .await;
    let at = |name: &str| placed[name].as_f64().unwrap();
    assert!(at("lineTop") >= 0.0, "{placed}");
    if device == Device::Phone {
        assert!(at("sheetLeft").abs() < 1.0, "{placed}");
        assert!((at("sheetWidth") - at("width")).abs() < 1.0, "{placed}");
        assert!((at("sheetBottom") - at("height")).abs() < 1.0, "{placed}");
        assert!(at("lineBottom") <= at("sheetTop"), "{placed}");
        screenshot(&browser, "editor-phone-3b-line-sheet").await;
    } else {
        // Beside the line, below it.
        assert!(at("sheetTop") >= at("lineBottom"), "{placed}");
    }

    // Too long a line is outlined on the card; "Shrink to fit" makes it fit.
    fill(
        &browser,
        "#inplace-back_line_2-text",
        "Rear Admiral Grace Brewster Murray Hopper, computing pioneer",
    )
    .await;
    wait_until(
        &browser,
        "document.querySelector(\".designer-slot[data-slot='back_line_2']\").classList.contains('overflow')",
    )
    .await;
    // The slot's warning, in words, stands beside it in its editor.
    let notes = designer_value(&browser, "d.stage.notes.textContent").await;
    assert!(
        notes
            .as_str()
            .unwrap()
            .contains("The text in “Job title” on the back does not fit its space."),
        "{notes}"
    );
    screenshot(&browser, &format!("editor-{size}-4-overflow")).await;
    click_button(&browser, "Shrink to fit").await;
    wait_until(
        &browser,
        "!document.querySelector(\".designer-slot[data-slot='back_line_2']\").classList.contains('overflow')",
    )
    .await;
    let shrunk = designer_value(
        &browser,
        "d.side.data.find(x => x.linkId === 'back_line_2').pointSize",
    )
    .await;
    assert!(shrunk.as_f64().unwrap() >= 6.0 * 25.4 / 72.0, "{shrunk}");

    // Esc leaves the line's editor and the focus goes back to its slot; Tab walks the slots.
    press(&browser, &[], char::from(Key::Escape)).await;
    let focused = designer_value(&browser, "document.activeElement.dataset.slot ?? null").await;
    assert_eq!(focused, "back_line_2");
    press(&browser, &[], char::from(Key::Tab)).await;
    let next = designer_value(&browser, "document.activeElement.dataset.slot ?? null").await;
    assert!(next.is_string() && next != "back_line_2", "{next}");
    // The focus is visible: a 3 px outline on the focused slot.
    let outline = designer_value(
        &browser,
        "(() => { const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth]; })()",
    )
    .await;
    assert_eq!(outline, json!(["solid", "3px"]));
    // ... and Enter opens the focused slot's editor: editing needs no pointer.
    press(&browser, &[], char::from(Key::Enter)).await;
    let focused = designer_value(&browser, "document.activeElement.id").await;
    assert_eq!(focused, format!("inplace-{}-text", next.as_str().unwrap()));
    press(&browser, &[], char::from(Key::Escape)).await;

    // Another layout from the strip: the back's lines carry over.
    choose_layout(&browser, "businesscard_full_text_portrait").await;
    assert_eq!(
        designer_value(&browser, "d.side.templateCode").await,
        "businesscard_full_text_portrait"
    );
    let carried = designer_value(
        &browser,
        "d.outline.items.some(i => i.linkId === 'back_line_1') && d.side.data.find(x => x.linkId === 'back_line_1').text",
    )
    .await;
    assert_eq!(carried, "Ann Example");
    screenshot(&browser, &format!("editor-{size}-5-layout")).await;

    // A photo zoomed in past what the press prints (the phone's pinch goes that far) is
    // refused before ordering, from any side, with a fix that works: Zoom out.
    let blocking = "[...d.warnings.querySelectorAll('li.blocks')].map(li => li.dataset.code)";
    let blocked = designer_value(&browser, blocking).await;
    if blocked
        .as_array()
        .unwrap()
        .iter()
        .any(|code| code == "PVI004")
    {
        click_button(&browser, "Zoom out").await;
        wait_until(
            &browser,
            "d.warnings.querySelectorAll('li.blocks').length === 0",
        )
        .await;
    }
    assert_eq!(designer_value(&browser, blocking).await, json!([]));

    // Save, and order: the pack is orderable now.
    click_button(&browser, "Save").await;
    wait_until(&browser, "d.status.textContent.startsWith('Saved')").await;
    let saved: Value = designer_value(&browser, "d.saved").await;
    assert!(
        saved
            .as_str()
            .unwrap()
            .contains("Grace Brewster Murray Hopper")
    );
    click(&browser, "a[href*='/finish?token=']").await;
    assert!(text(&browser).await.contains("Choose your paper"));
    screenshot(&browser, &format!("editor-{size}-6-finish")).await;
    click(&browser, "form[action$='/finish'] button").await;
    screenshot(&browser, &format!("editor-{size}-7-cart")).await;
    // A second pack with a long name, from a partner's cart drop-in: a cart of two lines
    // still fits the screen (the screenshot's check), its forms wrapping on a phone.
    let long_name = "Ann Example's cards for the spring craft fair in Brighton";
    let (second, _) = new_pack(&app, &[("friendlyName", long_name)]).await;
    let added = add_to_cart(&app, &second, "3").await;
    browser
        .goto(added["dropIns"]["cart"].as_str().unwrap())
        .await
        .unwrap();
    click(&browser, "form[action^='/dropins/'] button").await;
    assert_eq!(path(&browser).await, "/cart");
    let lines = browser.find_all(Locator::Css("li.line")).await.unwrap();
    assert_eq!(lines.len(), 2);
    screenshot(&browser, &format!("editor-{size}-7b-cart-two-lines")).await;
    click(&browser, "a[href='/checkout']").await;
    fill_delivery_address(&browser).await;
    check_and_approve_proofs(&browser, 4, &format!("editor-{size}-7c-proof")).await;
    screenshot(&browser, &format!("editor-{size}-8-checkout")).await;
    click(&browser, "form[action='/checkout'] button").await;
    let number = order_number(&browser).await;
    assert!(number.starts_with("PP-"), "{number}");
    screenshot(&browser, &format!("editor-{size}-9-confirmation")).await;
    // The customer's orders and the order itself.
    browser
        .goto(&format!("{}/orders", app.address))
        .await
        .unwrap();
    assert!(text(&browser).await.contains(&number));
    screenshot(&browser, &format!("editor-{size}-10-orders")).await;
    click(&browser, &format!("a[href='/orders/{number}']")).await;
    assert!(text(&browser).await.contains(long_name));
    screenshot(&browser, &format!("editor-{size}-11-order")).await;
}
