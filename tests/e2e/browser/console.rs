//! The console journey in real headless Chromium: an operator signs in (sent there from the
//! order's address), finds the order in the list, sees its pack's sides, starts production
//! and marks it shipped; the customer gets the shipping notice by e-mail and the partner the
//! signed `order.shipped` webhook; the invoice is marked paid. Then triage: a reprint whose
//! press file blocks heads the list and starts only with the operator's tick; a note on it;
//! the order still waiting is put on hold, then started as a batch from the list; their press
//! files come as one ZIP and the list as CSV (the page's links, followed with the browser's
//! session), their packing slips print one to a page, an order's job ticket and invoice come
//! from its page; and both ship from an uploaded list.
//! New artwork: an operator asks for it on a held order, the customer signs in from the
//! e-mailed link, opens the editor, comes back to the proof and approves it; the order is
//! placed again, the partner hears `order.artwork_replaced`, and the customer downloads the
//! invoice from the order's page.

use fantoccini::{Client, Locator};

use super::{click, click_in_page, element_text, fill, path, screenshot, text};
use crate::chromium::browser;
use crate::console::{OPERATOR_PASSWORD, add_operator, photo_pack};
use crate::customers::new_pack;
use crate::every_store;
use crate::helpers::{StoreKind, TestApp, spawn_app_with};
use crate::mail::{SmtpServer, mail_to};
use crate::shop::{Receiver, Shopper};

every_store!(
    the_console_journey_in_a_real_browser,
    a_customer_gives_new_artwork_in_a_real_browser,
);

/// The download the link `selector` of the page offers, fetched with the browser's cookies
/// (the console's CSP lets no script fetch): status, type and body.
async fn follow_download(browser: &Client, selector: &str) -> (u16, String, Vec<u8>) {
    let link = browser.find(Locator::Css(selector)).await.unwrap();
    assert!(
        link.attr("download").await.unwrap().is_some(),
        "{selector} downloads"
    );
    let href = link.prop("href").await.unwrap().unwrap();
    let session: Vec<String> = (browser.get_all_cookies().await.unwrap().iter())
        .map(|cookie| format!("{}={}", cookie.name(), cookie.value()))
        .collect();
    let response = reqwest::Client::new()
        .get(href)
        .header("cookie", session.join("; "))
        .send()
        .await
        .unwrap();
    let kind = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    (
        response.status().as_u16(),
        kind,
        response.bytes().await.unwrap().to_vec(),
    )
}

/// Whether every side image of the page has loaded and has pixels.
async fn images_loaded(browser: &Client) -> bool {
    let script = "const images = [...document.querySelectorAll('img.thumb')];
                  return images.length > 0 && images.every(i => i.complete && i.naturalWidth > 0);";
    for _ in 0..300 {
        if browser.execute(script, vec![]).await.unwrap() == true {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    false
}

/// A shop that mails its customers and calls the partner's webhooks, with one order by a
/// customer whose address is confirmed, of a pack the partner tracks as `tracking_id`, and
/// the operator ann.ops.
struct Journey {
    smtp: SmtpServer,
    receiver: Receiver,
    app: TestApp,
    shopper: Shopper,
    email: String,
    pack: String,
    number: String,
}

impl Journey {
    async fn start(kind: StoreKind, tracking_id: &str) -> Journey {
        let smtp = SmtpServer::start();
        let receiver = Receiver::start(0).await;
        let app = spawn_app_with(kind, |config| {
            mail_to(config, smtp.port, 200);
            config.webhooks.allow_hosts = vec!["127.0.0.1".into()];
        })
        .await;
        receiver.take_callbacks_of(&app).await;
        let shopper = Shopper::new(&app);
        let email = format!("journey.{:x}@example.com", rand::random::<u64>());
        shopper.sign_up(&email).await;
        crate::mail::confirm_address(&app, &email).await;
        let (pack, _) = new_pack(&app, &[("trackingId", tracking_id)]).await;
        let number = shopper.order(&app, &[&pack]).await;
        add_operator(&app, "ann.ops");
        Journey {
            smtp,
            receiver,
            app,
            shopper,
            email,
            pack,
            number,
        }
    }
}

async fn the_console_journey_in_a_real_browser(kind: StoreKind) {
    let Journey {
        smtp,
        receiver,
        mut app,
        shopper,
        email,
        number,
        ..
    } = Journey::start(kind, "shop-9/ann").await;
    let store = kind.name();
    smtp.order_mail(1).await;

    let (browser, _driver) = browser().await;
    browser
        .goto(&format!("{}/admin/orders/{number}", app.address))
        .await
        .unwrap();
    assert_eq!(path(&browser).await, "/admin/signin");
    screenshot(&browser, &format!("console-sign-in-{store}")).await;
    fill(&browser, "#operator-name", "ann.ops").await;
    fill(&browser, "#operator-password", OPERATOR_PASSWORD).await;
    click(&browser, "form[action='/admin/signin'] button").await;
    assert_eq!(path(&browser).await, format!("/admin/orders/{number}"));
    assert!(images_loaded(&browser).await, "the pack's sides show");
    assert!(text(&browser).await.contains(&email));
    screenshot(&browser, &format!("console-order-{store}")).await;

    click(&browser, "#start-production").await;
    assert!(text(&browser).await.contains("In production"));
    fill(&browser, "#ship-carrier", "Royal Mail").await;
    fill(&browser, "#ship-tracking", "RM123456785GB").await;
    click(&browser, "#ship-order").await;
    let shown = text(&browser).await;
    assert!(
        shown.contains("Shipped with Royal Mail, tracking number RM123456785GB"),
        "{shown}"
    );
    assert!(shown.contains("shipped by admin:ann.ops"), "{shown}");
    // The order's mail: its confirmation (sent) and the shipping notice just queued.
    assert!(
        shown.contains("order confirmation") && shown.contains("shipping notice"),
        "{shown}"
    );
    screenshot(&browser, &format!("console-shipped-{store}")).await;
    // The invoice was paid by bank transfer.
    fill(&browser, "#paid-reference", "BANK 2026-12-05 #4711").await;
    click(&browser, "#mark-paid").await;
    let payment = element_text(&browser, "section.payment").await;
    assert!(
        payment.contains("paid by admin:ann.ops, reference BANK 2026-12-05 #4711"),
        "{payment}"
    );
    screenshot(&browser, &format!("console-paid-{store}")).await;

    // The list finds it by the customer's address, in any state (it is no longer work to do).
    browser
        .goto(&format!("{}/admin/orders", app.address))
        .await
        .unwrap();
    click_in_page(&browser, "#filter-state option[value='']").await;
    fill(&browser, "#filter-q", &email).await;
    click(&browser, "form.filters button").await;
    let listed = text(&browser).await;
    assert!(
        listed.contains(&number) && listed.contains("Shipped"),
        "{listed}"
    );
    screenshot(&browser, &format!("console-orders-{store}")).await;

    // The customer's shipping notice, and the partner's signed webhook.
    let notice = &smtp.order_mail(2).await[1];
    assert_eq!(
        notice.header("Subject"),
        format!("Your order {number} has shipped")
    );
    assert!(notice.text().contains("RM123456785GB"));
    let shipped = receiver
        .signed_webhooks(&app, 3)
        .await
        .into_iter()
        .find(|event| event["type"] == "order.shipped")
        .expect("an order.shipped webhook");
    let data = &shipped["data"];
    assert_eq!(data["orderNumber"], number.as_str());
    assert_eq!(data["trackingNumber"], "RM123456785GB");
    assert_eq!(data["trackingId"], "shop-9/ann");

    // Triage: under a stricter picture limit, a reprint's press file blocks. It heads the
    // list, and starts only once the operator ticks that they looked.
    let photo = photo_pack(&app, &[]).await;
    let with_photo = shopper.order(&app, &[&photo]).await;
    app.press_job_finished(&with_photo).await;
    app.config.images.press_block_dpi = 200;
    app.restart().await;
    browser
        .goto(&format!("{}/admin/orders/{with_photo}", app.address))
        .await
        .unwrap();
    click(&browser, "#reprint").await;
    let reprint = path(&browser).await.rsplit('/').next().unwrap().to_owned();
    app.press_job_finished(&reprint).await;
    browser
        .goto(&format!("{}/admin/orders", app.address))
        .await
        .unwrap();
    let blocked = element_text(&browser, "section.blocked").await;
    assert!(
        blocked.contains(&reprint) && blocked.contains("Blocked"),
        "{blocked}"
    );
    screenshot(&browser, &format!("console-triage-{store}")).await;
    browser
        .goto(&format!("{}/admin/orders/{reprint}", app.address))
        .await
        .unwrap();
    screenshot(&browser, &format!("console-over-block-{store}")).await;
    // The box is required: the browser does not send the form without it.
    click_in_page(&browser, "#start-production").await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(path(&browser).await, format!("/admin/orders/{reprint}"));
    assert!(!text(&browser).await.contains("In production"));
    click_in_page(&browser, "#over-block").await;
    click(&browser, "#start-production").await;
    let shown = text(&browser).await;
    assert!(
        shown.contains("in production by admin:ann.ops over a press file that blocks"),
        "{shown}"
    );

    // A note for the floor, on the order's page.
    fill(
        &browser,
        "#note-text",
        "Printed over the block: the customer agreed by phone.",
    )
    .await;
    click(&browser, "#add-note").await;
    let notes = element_text(&browser, "section.notes").await;
    assert!(
        notes.contains("Printed over the block: the customer agreed by phone.")
            && notes.contains("admin:ann.ops"),
        "{notes}"
    );

    // The order still waiting is held: the customer is asked something first.
    browser
        .goto(&format!("{}/admin/orders/{with_photo}", app.address))
        .await
        .unwrap();
    fill(
        &browser,
        "#hold-reason-input",
        "Asked the customer about the photo",
    )
    .await;
    click(&browser, "#hold-order").await;
    assert!(
        element_text(&browser, "#hold-reason")
            .await
            .contains("On hold: Asked the customer about the photo")
    );
    screenshot(&browser, &format!("console-hold-{store}")).await;

    // A batch: the held order is ticked in the list and started with the button.
    browser
        .goto(&format!("{}/admin/orders", app.address))
        .await
        .unwrap();
    click_in_page(&browser, &format!("input[name='order-{with_photo}']")).await;
    screenshot(&browser, &format!("console-batch-{store}")).await;
    click(&browser, "#start-ticked").await;
    let report = text(&browser).await;
    assert!(
        report.contains("1 of 1 started.") && report.contains(&with_photo),
        "{report}"
    );

    // The press files of the orders in production, and the list as CSV: the page's links,
    // followed with the browser's console session (the console's CSP lets no script fetch).
    browser
        .goto(&format!("{}/admin/orders?state=in_production", app.address))
        .await
        .unwrap();
    let follow = async |selector: &str| follow_download(&browser, selector).await;
    let (status, kind, zip) = follow("a.archive").await;
    assert_eq!((status, kind.as_str()), (200, "application/zip"));
    assert!(zip.starts_with(b"PK\x03\x04"));
    for number in [&reprint, &with_photo] {
        let name = format!("{number}-1-press.pdf");
        assert!(
            zip.windows(name.len()).any(|w| w == name.as_bytes()),
            "{name}"
        );
    }
    let (status, kind, csv) = follow("a.export").await;
    assert_eq!((status, kind.as_str()), (200, "text/csv; charset=utf-8"));
    assert!(csv.starts_with(b"\"order\""));
    // An order's job ticket and invoice, from its page: ZBar reads the ticket's barcode.
    browser
        .goto(&format!("{}/admin/orders/{with_photo}", app.address))
        .await
        .unwrap();
    let (status, kind, ticket) = follow("a.job-ticket").await;
    assert_eq!((status, kind.as_str()), (200, "application/pdf"));
    assert_eq!(crate::paperwork::code128_on(&ticket), [with_photo.as_str()]);
    let (status, _, invoice) = follow("a.invoice").await;
    assert_eq!(status, 200);
    let invoice = crate::press::pdf_text(&invoice);
    assert!(
        invoice.contains(&format!("Order: {with_photo}")),
        "{invoice}"
    );

    // Their packing slips, ticked in the list and printed by Chromium: one page each, read
    // back by poppler's pdftotext, with the address and no prices.
    browser
        .goto(&format!("{}/admin/orders?state=in_production", app.address))
        .await
        .unwrap();
    for number in [&reprint, &with_photo] {
        click_in_page(&browser, &format!("input[name='order-{number}']")).await;
    }
    click(&browser, "#slips-ticked").await;
    screenshot(&browser, &format!("console-packing-slips-{store}")).await;
    let printed = browser
        .print(
            fantoccini::wd::PrintConfiguration::builder()
                .build()
                .unwrap(),
        )
        .await
        .unwrap();
    let printed = crate::press::pdf_text(&printed);
    let pages: Vec<&str> = (printed.split('\u{c}'))
        .filter(|p| !p.trim().is_empty())
        .collect();
    assert_eq!(pages.len(), 2, "{printed}");
    for number in [&reprint, &with_photo] {
        let heading = format!("Packing slip · {number}");
        let on: Vec<&&str> = pages.iter().filter(|p| p.contains(&heading)).collect();
        assert_eq!(on.len(), 1, "{number} on one page: {printed}");
    }
    for page in &pages {
        assert!(page.contains("1 Print Street"), "{page}");
        assert!(!page.contains('£') && !page.contains("Orders"), "{page}");
    }

    // Both ship from the carrier's list, uploaded from a file.
    browser
        .goto(&format!("{}/admin/orders", app.address))
        .await
        .unwrap();
    let list = tempfile::Builder::new().suffix(".csv").tempfile().unwrap();
    std::fs::write(
        list.path(),
        format!("Order,Carrier,Tracking\n{reprint},DPD,DPD0001\n{with_photo},DPD,DPD0002\n"),
    )
    .unwrap();
    // (A file input takes the file's path as typed keys; it cannot be cleared first.)
    let file_input = browser.find(Locator::Css("#ship-list")).await.unwrap();
    file_input
        .send_keys(list.path().to_str().unwrap())
        .await
        .unwrap();
    screenshot(&browser, &format!("console-ship-list-{store}")).await;
    click(&browser, "#ship-listed").await;
    let report = text(&browser).await;
    assert!(report.contains("2 of 2 shipped."), "{report}");
    screenshot(&browser, &format!("console-shipped-list-{store}")).await;
}

async fn a_customer_gives_new_artwork_in_a_real_browser(kind: StoreKind) {
    let Journey {
        smtp,
        receiver,
        app,
        email,
        pack,
        number,
        ..
    } = Journey::start(kind, "shop-9/bea").await;
    let store = kind.name();
    app.press_job_finished(&number).await;

    // The operator holds the order and asks for new artwork.
    let (browser, _driver) = browser().await;
    browser
        .goto(&format!("{}/admin/orders/{number}", app.address))
        .await
        .unwrap();
    fill(&browser, "#operator-name", "ann.ops").await;
    fill(&browser, "#operator-password", OPERATOR_PASSWORD).await;
    click(&browser, "form[action='/admin/signin'] button").await;
    fill(
        &browser,
        "#hold-reason-input",
        "The logo is cut off at the edge",
    )
    .await;
    click(&browser, "#hold-order").await;
    click(&browser, "#ask-artwork").await;
    let history = text(&browser).await;
    assert!(
        history.contains("new artwork for pack 1 asked of the customer by admin:ann.ops"),
        "{history}"
    );
    screenshot(&browser, &format!("console-artwork-asked-{store}")).await;

    // The customer follows the e-mailed link, signs in, sees why and the proof.
    let mails = smtp
        .wait_for_matching_subject("New artwork for your order", 1)
        .await;
    let link = crate::paperwork::artwork_link(&mails[0]);
    browser
        .goto(&format!("{}{link}", app.address))
        .await
        .unwrap();
    fill(&browser, "#signin-email", &email).await;
    fill(&browser, "#signin-password", "correct horse battery").await;
    click(&browser, "form[action='/account/signin'] button").await;
    assert!(
        path(&browser)
            .await
            .starts_with(&format!("/artwork/{number}/0"))
    );
    assert!(
        element_text(&browser, "#artwork-reason")
            .await
            .contains("The logo is cut off at the edge")
    );
    screenshot(&browser, &format!("artwork-proof-{store}")).await;
    // To the editor and back to the proof.
    click(&browser, "#edit-artwork").await;
    assert!(path(&browser).await.ends_with("/edit"));
    click(&browser, "#finish-editing").await;
    assert!(
        path(&browser)
            .await
            .starts_with(&format!("/artwork/{number}/0"))
    );
    // The proof is approved only with its box ticked.
    click_in_page(&browser, "#approve-artwork").await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(path(&browser).await.starts_with("/artwork/"));
    click_in_page(&browser, "input[name^='approve-']").await;
    click(&browser, "#approve-artwork").await;
    assert_eq!(path(&browser).await, format!("/orders/{number}"));
    assert!(text(&browser).await.contains("Placed"));
    // The customer's invoice, from the order's page with the browser's session.
    let (status, kind, invoice) = follow_download(&browser, "a.invoice-link").await;
    assert_eq!((status, kind.as_str()), (200, "application/pdf"));
    let invoice = crate::press::pdf_text(&invoice);
    assert!(
        invoice.contains("Invoice INV-000001") && invoice.contains(&format!("Order: {number}")),
        "{invoice}"
    );

    // The partner hears of the new pack.
    let replaced = receiver
        .signed_webhooks(&app, 3)
        .await
        .into_iter()
        .find(|event| event["type"] == "order.artwork_replaced")
        .expect("an order.artwork_replaced webhook");
    let data = &replaced["data"];
    assert_eq!(data["orderNumber"], number.as_str());
    assert_eq!(data["artwork"]["line"], 0);
    assert_ne!(data["artwork"]["packId"], pack.as_str());
    assert_eq!(data["packId"], data["artwork"]["packId"]);
}
