//! The whole customer journey in real headless Chromium (driven over WebDriver by
//! chromedriver): a partner creates a pack with a tracking id over the API, the customer
//! opens `finish`, signs up, takes ownership, chooses options, adds to cart, checks out and
//! sees the confirmation page, whose script calls the partner's callback URL while the host
//! sends the signed webhook. A screenshot of every page is kept in
//! `target/browser-screenshots/`.

use fantoccini::{Client, Locator};
use presspack::domain::keys;
use serde_json::json;

use crate::chromium::{browser, screenshot_dir};
use crate::every_store;
use crate::helpers::{StoreKind, spawn_app_with};
use crate::shop::Receiver;

mod account;
mod console;
mod editor;
mod guest;

every_store!(the_customer_journey_in_a_real_browser);

/// What an accessibility check of the page finds missing: a form control without a label, an
/// image without alternative text, a button without a name, a page without a language or a
/// main heading; and a page wider than the window (it would scroll sideways).
const ACCESSIBILITY_PROBLEMS: &str = r#"
    const problems = [];
    for (const el of document.querySelectorAll("input:not([type=hidden]), select, textarea")) {
        if (el.labels.length === 0 && !el.getAttribute("aria-label")) problems.push("unlabelled " + el.outerHTML);
    }
    // An empty alt marks a picture that only repeats the text of the button or link it is in.
    for (const img of document.images) {
        if (!img.alt && !(img.getAttribute("alt") === "" && img.closest("button, a")?.textContent.trim())) problems.push("no alt: " + img.outerHTML);
    }
    for (const b of document.querySelectorAll("button, a")) {
        if (!(b.textContent.trim() || b.getAttribute("aria-label"))) problems.push("no name: " + b.outerHTML);
    }
    if (!document.documentElement.lang) problems.push("no lang");
    if (document.querySelectorAll("h1").length !== 1) problems.push("not one h1");
    // The page's own width (a phone's 390 px): a phone's browser widens its window to what
    // overflows, so window.innerWidth would hide the very overflow looked for.
    const width = document.documentElement.getBoundingClientRect().width;
    if (document.documentElement.scrollWidth > Math.ceil(width)) {
        const wide = [...document.querySelectorAll("body *")]
            .filter(e => e.getBoundingClientRect().right > width + 0.5)
            .slice(0, 3).map(e => e.outerHTML.slice(0, 120));
        problems.push(`scrolls sideways: ${document.documentElement.scrollWidth} px wide in ${width}: ${wide}`);
    }
    return problems;
"#;

/// Checks the page's accessibility basics and keeps a screenshot of it.
pub async fn screenshot(browser: &Client, name: &str) {
    let problems = browser
        .execute(ACCESSIBILITY_PROBLEMS, vec![])
        .await
        .unwrap();
    assert_eq!(problems, json!([]), "{name}");
    let png = browser.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"));
    std::fs::write(screenshot_dir().join(format!("{name}.png")), png).unwrap();
}

pub async fn fill(browser: &Client, css: &str, text: &str) {
    let input = browser.find(Locator::Css(css)).await.unwrap();
    input.clear().await.unwrap();
    input.send_keys(text).await.unwrap();
}

/// Fills in the sign-up form of the page shown (a new address each time) and sends it.
pub async fn sign_up(browser: &Client) {
    fill(browser, "#signup-name", "Ann Example").await;
    fill(
        browser,
        "#signup-email",
        &format!("ann.{:x}@example.com", rand::random::<u32>()),
    )
    .await;
    fill(browser, "#signup-password", "correct horse battery").await;
    click(browser, "form[action='/account/signup'] button").await;
}

/// Fills in the checkout page's delivery address.
pub async fn fill_delivery_address(browser: &Client) {
    for (id, value) in [
        ("name", "Ann Example"),
        ("line1", "1 Print Street"),
        ("city", "London"),
        ("postcode", "E1 6AN"),
        ("country", "United Kingdom"),
    ] {
        fill(browser, &format!("#{id}"), value).await;
    }
}

/// Checks the checkout page's proofs as a customer sees them (`sides` pictures, each loaded,
/// with the cut and safe lines drawn over exactly the picture, the safe line inside the cut
/// line) and that the order cannot be sent until every proof is approved; then ticks them.
/// The screenshot `name` shows the first proof.
pub async fn check_and_approve_proofs(browser: &Client, sides: usize, name: &str) {
    const PROOFS: &str = r#"
        const pictures = [...document.querySelectorAll('section.proof .printed')].map(p => {
            const img = p.querySelector('img').getBoundingClientRect();
            const svg = p.querySelector('svg.guides').getBoundingClientRect();
            const cut = p.querySelector('rect.cut').getBoundingClientRect();
            const safe = p.querySelector('rect.safe').getBoundingClientRect();
            const inside = (a, b) => a.left >= b.left && a.right <= b.right && a.top >= b.top && a.bottom <= b.bottom;
            return {
                loaded: p.querySelector('img').complete && p.querySelector('img').naturalWidth > 0,
                covered: Math.abs(img.left - svg.left) < 1 && Math.abs(img.width - svg.width) < 1
                    && Math.abs(img.top - svg.top) < 1 && Math.abs(img.height - svg.height) < 1,
                nested: inside(safe, cut) && inside(cut, img) && cut.width < img.width,
            };
        });
        return { pictures, sendable: document.getElementById('checkout-form').checkValidity() };
    "#;
    let mut seen = json!(null);
    for _ in 0..100 {
        seen = browser.execute(PROOFS, vec![]).await.unwrap();
        if seen["pictures"]
            .as_array()
            .is_some_and(|p| p.len() == sides && p.iter().all(|p| p["loaded"] == true))
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let pictures = seen["pictures"].as_array().expect("proofs");
    assert_eq!(pictures.len(), sides, "{seen}");
    for picture in pictures {
        assert_eq!(
            picture,
            &json!({"loaded": true, "covered": true, "nested": true}),
            "{seen}"
        );
    }
    assert_eq!(
        seen["sendable"], false,
        "an order without approved proofs: {seen}"
    );
    browser
        .execute(
            "document.querySelector('section.proof').scrollIntoView()",
            vec![],
        )
        .await
        .unwrap();
    screenshot(browser, name).await;
    let boxes = browser
        .find_all(Locator::Css("section.proof input[type=checkbox]"))
        .await
        .unwrap();
    assert!(!boxes.is_empty());
    for approval in boxes {
        approval.click().await.unwrap();
    }
    let sendable = browser
        .execute(
            "return document.getElementById('checkout-form').checkValidity()",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(sendable, true);
}

/// Clicks what `css` finds, a control within the page (no page load follows).
pub async fn click_in_page(browser: &Client, css: &str) {
    browser
        .find(Locator::Css(css))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// Clicks what `css` finds and waits until the browser has left the page and loaded the next
/// one (a form post and its redirect may end on the same URL, so the old document going
/// stale is the sign, not the URL).
pub async fn click(browser: &Client, css: &str) {
    let old_page = browser.find(Locator::Css("html")).await.unwrap();
    click_in_page(browser, css).await;
    for _ in 0..600 {
        if old_page.tag_name().await.is_err() {
            let state = browser
                .execute("return document.readyState", vec![])
                .await
                .unwrap();
            if state == "complete" {
                return;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("clicking {css} did not load a page within 30 s");
}

pub async fn path(browser: &Client) -> String {
    browser.current_url().await.unwrap().path().to_owned()
}

/// The text of the element `css` finds.
pub async fn element_text(browser: &Client, css: &str) -> String {
    let element = browser.find(Locator::Css(css)).await.unwrap();
    element.text().await.unwrap()
}

/// The order number the confirmation page shows.
pub async fn order_number(browser: &Client) -> String {
    element_text(browser, ".order-number").await
}

/// Where the link reading `text` leads (an absolute URL).
pub async fn link_target(browser: &Client, text: &str) -> Option<String> {
    let link = browser.find(Locator::LinkText(text)).await.unwrap();
    link.prop("href").await.unwrap()
}

/// The text of the page's main content.
pub async fn text(browser: &Client) -> String {
    browser
        .find(Locator::Css("main"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

async fn the_customer_journey_in_a_real_browser(kind: StoreKind) {
    let receiver = Receiver::start(0).await;
    let app = spawn_app_with(kind, |config| {
        config.webhooks.allow_hosts = vec!["127.0.0.1".into()];
    })
    .await;
    let key = keys::set_callback(
        app.store.as_ref(),
        &app.key.consumer_key,
        Some(format!("{}/order-confirmed", receiver.url)),
    )
    .await
    .unwrap();
    let store = kind.name();

    // The partner makes a pack with a tracking id: a green front, text on the back.
    let pack = json!({"sides": [
        {"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape",
         "data": [{"type": "boxData", "linkId": "background_box",
                   "colour": {"type": "RGB", "r": 15, "g": 107, "b": 92}}]},
        {"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape",
         "data": [{"type": "textData", "linkId": "back_line_1", "text": "Ann Example"},
                  {"type": "textData", "linkId": "back_line_2", "text": "Letterpress & Design"},
                  {"type": "textData", "linkId": "back_line_4", "text": "ann@example.com"}]}
    ]});
    let created = app
        .create_pack(
            "businesscard",
            &[
                ("trackingId", "shop-order-1001"),
                ("friendlyName", "Ann's launch cards"),
                ("pack", &pack.to_string()),
            ],
        )
        .await;
    assert_eq!(created["warnings"], json!([]), "{created}");
    let pack_id = created["packId"].as_str().unwrap().to_owned();
    let finish = created["dropIns"]["finish"].as_str().unwrap().to_owned();
    let (browser, _driver) = browser().await;

    // The customer opens finish and signs up from it.
    browser.goto(&finish).await.unwrap();
    assert!(
        text(&browser)
            .await
            .contains("Sign in or create an account")
    );
    screenshot(&browser, &format!("{store}-1-drop-in-sign-up")).await;
    sign_up(&browser).await;

    // Back on the drop-in, signed in: following the link took nothing; a button does.
    assert!(text(&browser).await.contains("Continue with this pack"));
    app.get_pack(&pack_id).await.ok();
    screenshot(&browser, &format!("{store}-1b-continue")).await;
    click(&browser, "form[action^='/dropins/'] button").await;

    // Back on finish, as the owner: the API key has lost the pack.
    assert!(path(&browser).await.ends_with("/finish"));
    assert!(text(&browser).await.contains("Choose your paper"));
    app.get_pack(&pack_id).await.error("pack_owned_by_customer");
    // The previews are the engine's renders.
    let loaded: bool = browser
        .execute(
            "return [...document.images].every(i => i.complete && i.naturalWidth > 0)",
            vec![],
        )
        .await
        .unwrap()
        .as_bool()
        .unwrap();
    assert!(loaded, "every side preview loaded");
    // The running price follows the options (the built-in list: classic 50 cards, £14.99).
    let running_price = || element_text(&browser, "#running-price");
    assert_eq!(
        running_price().await,
        "£14.99 for 1 pack of 50 cards (£14.99 a pack)"
    );
    // And the design is one click away.
    let edit = created["dropIns"]["edit"].as_str().unwrap();
    let back = link_target(&browser, "Change the design").await;
    assert_eq!(back.as_deref(), Some(edit));
    browser
        .find(Locator::Css("#paperClass"))
        .await
        .unwrap()
        .select_by_value("green")
        .await
        .unwrap();
    browser
        .find(Locator::Css("#finishingOption"))
        .await
        .unwrap()
        .select_by_value("rounded_corners")
        .await
        .unwrap();
    browser
        .find(Locator::Css("#packSize"))
        .await
        .unwrap()
        .select_by_value("200")
        .await
        .unwrap();
    fill(&browser, "#quantity", "2").await;
    assert_eq!(
        running_price().await,
        "£89.98 for 2 packs of 200 cards (£44.99 a pack)"
    );
    screenshot(&browser, &format!("{store}-2-finish")).await;
    click(&browser, "form[action$='/finish'] button").await;

    // The cart: name, options, price, total.
    assert_eq!(path(&browser).await, "/cart");
    let cart = text(&browser).await;
    assert!(cart.contains("Ann's launch cards"), "{cart}");
    assert!(cart.contains("Green paper, rounded corners"), "{cart}");
    assert!(cart.contains("£89.98"), "{cart}");
    let back = link_target(&browser, "Change the design").await;
    assert_eq!(back.as_deref(), Some(edit));
    screenshot(&browser, &format!("{store}-3-cart")).await;
    click(&browser, "a[href='/checkout']").await;

    // Checkout: the proof of every side, approved, and a delivery address.
    fill_delivery_address(&browser).await;
    check_and_approve_proofs(&browser, 2, &format!("{store}-4a-proof")).await;
    screenshot(&browser, &format!("{store}-4-checkout")).await;
    click(&browser, "form[action='/checkout'] button").await;

    // The confirmation, and both callbacks with the tracking id and order number.
    assert!(path(&browser).await.ends_with("/confirmation"));
    let number = order_number(&browser).await;
    assert!(number.starts_with("PP-"));
    let calls = receiver.wait_for("/order-confirmed", 2, 60).await;
    let from_browser: Vec<_> = calls
        .iter()
        .filter(|c| c.header("webhook-id").is_empty())
        .collect();
    let webhooks: Vec<_> = calls
        .iter()
        .filter(|c| !c.header("webhook-id").is_empty())
        .collect();
    assert_eq!(from_browser.len(), 1, "{calls:?}");
    assert_eq!(
        from_browser[0].form("trackingId").as_deref(),
        Some("shop-order-1001")
    );
    assert_eq!(
        from_browser[0].form("orderNumber").as_deref(),
        Some(number.as_str())
    );
    assert_eq!(webhooks.len(), 1, "{calls:?}");
    let webhook = webhooks[0];
    let timestamp: i64 = webhook.header("webhook-timestamp").parse().unwrap();
    let expected = presspack::domain::webhooks::signature(
        key.webhook_secret.as_deref().unwrap(),
        webhook.header("webhook-id"),
        timestamp,
        &webhook.body,
    )
    .unwrap();
    assert_eq!(webhook.header("webhook-signature"), expected);
    assert_eq!(webhook.json()["data"]["trackingId"], "shop-order-1001");
    assert_eq!(webhook.json()["data"]["orderNumber"], number.as_str());
    screenshot(&browser, &format!("{store}-5-confirmation")).await;

    // The proof: the confirmation page's link, fetched with the browser's session (the
    // page's own policy lets no script fetch, so the test does what a click's download does).
    let href = browser
        .find(Locator::Css("a.proof-link"))
        .await
        .unwrap()
        .attr("href")
        .await
        .unwrap()
        .expect("the proof link has an address");
    let cookies: Vec<String> = browser
        .get_all_cookies()
        .await
        .unwrap()
        .iter()
        .map(|cookie| format!("{}={}", cookie.name(), cookie.value()))
        .collect();
    let reply = app
        .client
        .get(format!("{}{href}", app.address))
        .header("cookie", cookies.join("; "))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.headers()["content-type"], "application/pdf");
    let pdf = reply.bytes().await.unwrap().to_vec();
    assert!(pdf.starts_with(b"%PDF-1.6"));
    let proof_text = crate::press::pdf_text(&pdf);
    assert!(proof_text.contains("Ann Example"), "{proof_text}");

    // The order history names the pack.
    browser
        .goto(&format!("{}/orders", app.address))
        .await
        .unwrap();
    let history = text(&browser).await;
    assert!(
        history.contains(&number) && history.contains("Ann's launch cards"),
        "{history}"
    );
    screenshot(&browser, &format!("{store}-6-orders")).await;
    browser.close().await.unwrap();
}

/// From the trust review (issue 20), high: `responseContentType=text/html` made the API
/// answer a page running the caller's script on the shop's origin. In Chromium: nothing of it
/// runs.
#[tokio::test]
async fn a_reply_never_runs_a_script_in_chromium() {
    let app = spawn_app_with(StoreKind::Embedded, |_| {}).await;
    let (browser, _driver) = browser().await;
    let script = "<img src=x onerror=\"document.title='pwned'\">";
    let svg = "<svg xmlns='http://www.w3.org/2000/svg' onload=\"document.title='pwned'\"/>";
    for (content_type, method) in [
        ("text/html", script),
        ("application/xhtml+xml", script),
        ("image/svg+xml", svg),
        ("text/plain", script),
        ("text/xml", svg),
    ] {
        let url = reqwest::Url::parse_with_params(
            &app.endpoint(),
            &[("responseContentType", content_type), ("method", method)],
        )
        .unwrap();
        browser.goto(url.as_str()).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let title = browser.title().await.unwrap();
        assert_ne!(title, "pwned", "{content_type}");
        let text: String = browser
            .execute(
                "return document.body ? document.body.innerText : ''",
                vec![],
            )
            .await
            .unwrap()
            .as_str()
            .unwrap_or_default()
            .to_owned();
        // The JSON error, shown as text (or, for XML, the parser's complaint about it).
        assert!(
            text.contains("exception") || text.contains("error on line 1"),
            "{content_type}: {text}"
        );
    }
}
