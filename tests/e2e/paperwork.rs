//! The paperwork the engine prints for an order, read back by independent tools: the job
//! ticket (its Code 128 barcode read by ZBar from poppler's rendering, its text by
//! `pdftotext`, its thumbnails by `pdfimages`) and the invoice (numbers from one gap-free
//! sequence, VAT as configured, downloadable only by its customer and the console); and new
//! artwork asked of a customer for a held order, given through the one link that works.

use std::process::Command;

use futures_util::future::join_all;
use presspack::domain::ids::OrderNumber;
use presspack::domain::orders::invoices::{self, INVOICES, SEQUENCE};
use serde_json::Value;

use crate::console::{bytes, customer_with_order, signed_in_operator};
use crate::customers::new_pack;
use crate::every_store;
use crate::helpers::{StoreKind, TestApp, spawn_app, spawn_app_with};
use crate::mail::{SmtpServer, confirm_address, mail_to};
use crate::press::pdf_text;
use crate::shop::Shopper;

every_store!(
    a_job_ticket_carries_the_order_number_as_code_128_and_every_side,
    invoices_are_numbered_without_gaps_and_show_the_shops_vat,
    new_artwork_replaces_a_held_pack_through_one_link_once,
);

/// The order as `orders show` prints it.
fn order_json(app: &TestApp, number: &str) -> Value {
    let shown = app.cli(&["orders", "show", number]);
    assert!(shown.status.success(), "{shown:?}");
    serde_json::from_slice(&shown.stdout).unwrap()
}

/// Every Code 128 symbol ZBar reads on the PDF's pages, rendered by poppler at 300 dpi.
pub(crate) fn code128_on(pdf: &[u8]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("ticket.pdf");
    std::fs::write(&input, pdf).unwrap();
    let rendered = Command::new("pdftoppm")
        .args(["-r", "300", "-gray", "-png"])
        .arg(&input)
        .arg(dir.path().join("page"))
        .status()
        .expect("pdftoppm (tests/run installs poppler-utils)");
    assert!(rendered.success());
    let mut pages: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "png"))
        .collect();
    pages.sort();
    let read = Command::new("zbarimg")
        .args(["--quiet", "--raw", "-Sdisable", "-Scode128.enable"])
        .args(&pages)
        .output()
        .expect("zbarimg (tests/run installs zbar-tools)");
    String::from_utf8_lossy(&read.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// How many images `pdfimages -list` finds.
fn image_count(pdf: &[u8]) -> usize {
    let file = tempfile::Builder::new().suffix(".pdf").tempfile().unwrap();
    std::fs::write(file.path(), pdf).unwrap();
    let listed = Command::new("pdfimages")
        .arg("-list")
        .arg(file.path())
        .output()
        .unwrap();
    String::from_utf8_lossy(&listed.stdout)
        .lines()
        .skip(2)
        .count()
}

/// Posts the list's batch form with `fields` as `operator`: the status, type and body.
async fn batch(
    operator: &Shopper,
    app: &TestApp,
    fields: &[(&str, &str)],
) -> (u16, String, Vec<u8>) {
    let list = operator.get("/admin/orders").await;
    let csrf = list.hidden("csrf").unwrap();
    let mut all = vec![("csrf", csrf.as_str())];
    all.extend_from_slice(fields);
    let response = operator
        .client
        .post(format!("{}/admin/orders/batch", app.address))
        .form(&all)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let kind = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, kind, response.bytes().await.unwrap().to_vec())
}

async fn a_job_ticket_carries_the_order_number_as_code_128_and_every_side(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let operator = signed_in_operator(&app).await;
    let (buyer, _, first) = customer_with_order(&app).await;
    let (_, _, second) = customer_with_order(&app).await;
    app.press_job_finished(&first).await;
    let order = order_json(&app, &first);
    let sides = order["lines"][0]["pack"]["sides"].as_array().unwrap().len();
    assert!(sides >= 1);

    let page = operator.get(&format!("/admin/orders/{first}")).await;
    assert!(
        page.body
            .contains(&format!("href=\"/admin/orders/{first}/job-ticket\""))
    );
    let (status, ticket) = bytes(
        &operator,
        &app,
        &format!("/admin/orders/{first}/job-ticket"),
    )
    .await;
    assert_eq!(status, 200);
    assert!(ticket.starts_with(b"%PDF-"));
    // ZBar reads the order number from poppler's rendering of the printed bars.
    assert_eq!(code128_on(&ticket), vec![first.clone()]);
    let text = pdf_text(&ticket);
    let verdict = order["pressFiles"][0]["pressFile"]["report"]["verdict"]
        .as_str()
        .unwrap()
        .to_owned();
    let verdict = if verdict == "warn" {
        "warning"
    } else {
        &verdict
    };
    for wanted in [
        format!("Job ticket {first}"),
        format!("Press check: {verdict}"),
        order["lines"][0]["product"].as_str().unwrap().to_owned(),
        "Laminate".to_owned(),
        "Side 1:".to_owned(),
        "Ship to".to_owned(),
    ] {
        assert!(text.contains(&wanted), "{wanted:?} in {text}");
    }
    // A thumbnail of every side.
    assert_eq!(image_count(&ticket), sides);
    // Taking paperwork is on the order's record, and its history.
    let taken = &order_json(&app, &first)["paperwork"];
    assert_eq!(taken.as_array().unwrap().len(), 1, "{taken}");
    assert_eq!(taken[0]["what"], "job_ticket");
    assert!(taken[0]["by"].as_str().unwrap().starts_with("admin:"));
    let page = operator.get(&format!("/admin/orders/{first}")).await;
    assert!(
        page.body.contains(": job ticket printed by admin:"),
        "{}",
        page.body
    );

    // The ticked orders' tickets: one PDF, each order's barcode on its own page.
    let (tick_a, tick_b) = (format!("order-{first}"), format!("order-{second}"));
    let (status, kind, both) = batch(
        &operator,
        &app,
        &[("action", "tickets"), (&tick_a, "yes"), (&tick_b, "yes")],
    )
    .await;
    assert_eq!((status, kind.as_str()), (200, "application/pdf"));
    for number in [&first, &second] {
        let taken = &order_json(&app, number)["paperwork"];
        assert_eq!(
            taken.as_array().unwrap().last().unwrap()["what"],
            "job_ticket"
        );
    }
    // Packing slips and archives are recorded too.
    let (status, _, _) = batch(&operator, &app, &[("action", "slips"), (&tick_a, "yes")]).await;
    assert_eq!(status, 200);
    let (status, _, _) = batch(&operator, &app, &[("action", "archive"), (&tick_a, "yes")]).await;
    assert_eq!(status, 200);
    let taken: Vec<Value> = order_json(&app, &first)["paperwork"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["what"].clone())
        .collect();
    assert_eq!(
        taken,
        ["job_ticket", "job_ticket", "packing_slip", "press_files"]
    );
    let mut read = code128_on(&both);
    read.sort();
    let mut numbers = vec![first.clone(), second.clone()];
    numbers.sort();
    assert_eq!(read, numbers);
    // Bounded before any work.
    let many: Vec<String> = (0..26)
        .map(|_| format!("order-{}", OrderNumber::random()))
        .collect();
    let mut fields: Vec<(&str, &str)> = many.iter().map(|t| (t.as_str(), "yes")).collect();
    fields.push(("action", "tickets"));
    let (status, _, body) = batch(&operator, &app, &fields).await;
    assert_eq!(status, 400);
    assert!(String::from_utf8_lossy(&body).contains("at most 25 orders"));

    // Without e-mail, no new artwork can be asked for: nothing else gives the link.
    let page = operator.get(&format!("/admin/orders/{second}")).await;
    let held = operator
        .post(
            &page,
            &format!("/admin/orders/{second}/move"),
            &[("move", "hold"), ("reason", "Check the spelling")],
        )
        .await;
    let asked = operator
        .post(
            &held,
            &format!("/admin/orders/{second}/artwork"),
            &[("pack", "1")],
        )
        .await;
    assert_eq!(asked.status, 409);
    assert!(asked.body.contains("sends no e-mail"), "{}", asked.body);

    // The customer gets no ticket: the console is for operators.
    let (status, answer) = bytes(&buyer, &app, &format!("/admin/orders/{first}/job-ticket")).await;
    assert!(!answer.starts_with(b"%PDF-"), "{status}");
}

/// The VAT a gross amount (pence) holds at 20%: gross less the net, gross × 5/6 rounded
/// half up to the penny.
fn vat_at_20_percent(gross: u64) -> u64 {
    gross - (gross * 10 + 6) / 12
}

fn pounds(pence: u64) -> String {
    format!("£{}.{:02}", pence / 100, pence % 100)
}

async fn invoices_are_numbered_without_gaps_and_show_the_shops_vat(kind: StoreKind) {
    let app = spawn_app_with(kind, |config| {
        config.invoicing.shop_address = vec!["1 Print Street".into(), "London N1 1AA".into()];
        config.invoicing.vat_number = Some("GB 123 4567 89".into());
        config.invoicing.vat_rate = 2_000;
        config.invoicing.invoice_prefix = "PS-".into();
    })
    .await;
    let operator = signed_in_operator(&app).await;
    let (buyer, email, first) = customer_with_order(&app).await;
    let (_, _, second) = customer_with_order(&app).await;

    // Numbered as placed: the first order has number 1, the second 2.
    let (status, invoice) = bytes(&buyer, &app, &format!("/orders/{first}/invoice")).await;
    assert_eq!(status, 200);
    let text = pdf_text(&invoice);
    let total = order_json(&app, &first)["total"].as_u64().unwrap();
    for wanted in [
        "Invoice PS-000001".to_owned(),
        "1 Print Street".to_owned(),
        "VAT number: GB 123 4567 89".to_owned(),
        format!("Order: {first}"),
        email.clone(),
        "VAT 20%".to_owned(),
        pounds(vat_at_20_percent(total)),
        pounds(total - vat_at_20_percent(total)),
        format!(
            "Please pay {} within 14 days, quoting PS-000001.",
            pounds(total)
        ),
    ] {
        assert!(text.contains(&wanted), "{wanted:?} in {text}");
    }
    let page = buyer.get(&format!("/orders/{first}")).await;
    assert!(
        page.body
            .contains(&format!("href=\"/orders/{first}/invoice\""))
    );
    // The console's copy is the same invoice; another customer gets none.
    let (status, copy) = bytes(&operator, &app, &format!("/admin/orders/{second}/invoice")).await;
    assert_eq!(status, 200);
    assert!(pdf_text(&copy).contains("Invoice PS-000002"));
    let (status, _) = bytes(&buyer, &app, &format!("/orders/{second}/invoice")).await;
    assert_eq!(status, 404);

    // Paid: the invoice says so.
    let paid = app.cli(&["orders", "paid", &first, "--reference", "BANK-77"]);
    assert!(paid.status.success(), "{paid:?}");
    let (_, again) = bytes(&buyer, &app, &format!("/orders/{first}/invoice")).await;
    let again = pdf_text(&again);
    assert!(
        again.contains("Invoice PS-000001") && again.contains("Paid on"),
        "{again}"
    );

    // Forty orders numbered at once on this store: each gets one number, none is skipped,
    // none given twice, and asking again gives the same.
    let store = app.store.as_ref();
    let numbers: Vec<OrderNumber> = (0..40).map(|_| OrderNumber::random()).collect();
    let given = join_all(numbers.iter().map(|n| invoices::number_of(store, n, 1))).await;
    let mut given: Vec<u64> = given.into_iter().map(|g| g.unwrap().number).collect();
    given.sort_unstable();
    assert_eq!(given, (3..43).collect::<Vec<u64>>());
    let asked_again = invoices::number_of(store, &numbers[0], 1).await.unwrap();
    assert!((3..43).contains(&asked_again.number));

    // A crash between taking a number and writing it to its order: the next order to be
    // numbered writes it first, so the sequence has no gap.
    let cut_short = OrderNumber::random();
    let sequence = serde_json::json!({"last": 43, "order": cut_short, "issuedAt": 1});
    let stored = store.get(SEQUENCE, "shop").await.unwrap().unwrap();
    let written = store
        .replace(
            SEQUENCE,
            "shop",
            sequence.to_string().as_bytes(),
            stored.revision,
        )
        .await
        .unwrap();
    assert!(written);
    let next = invoices::number_of(store, &OrderNumber::random(), 1)
        .await
        .unwrap();
    assert_eq!(next.number, 44);
    let recovered = store.get(INVOICES, &cut_short).await.unwrap().unwrap();
    let recovered: Value = serde_json::from_slice(&recovered.value).unwrap();
    assert_eq!(recovered["number"], 43);
}

/// The link of the request for new artwork in its e-mail.
pub(crate) fn artwork_link(mail: &crate::mail::Mail) -> String {
    // (Quoted-printable: the `=` before the token is sent as `=3D`.)
    let text = mail.text().replace("=3D", "=");
    let start = text.find("/artwork/").expect("the message has the link");
    let link = text[start..]
        .split(|c: char| c.is_whitespace() || c == '"' || c == '<')
        .next()
        .unwrap()
        .to_owned();
    assert_eq!(link.split_once("?token=").unwrap().1.len(), 64, "{link}");
    link
}

async fn new_artwork_replaces_a_held_pack_through_one_link_once(kind: StoreKind) {
    let smtp = SmtpServer::start();
    let app = spawn_app_with(kind, |config| mail_to(config, smtp.port, 200)).await;
    let operator = signed_in_operator(&app).await;
    let buyer = Shopper::new(&app);
    let email = format!("artwork.{:x}@example.com", rand::random::<u64>());
    buyer.sign_up(&email).await;
    confirm_address(&app, &email).await;
    let (pack, _) = new_pack(&app, &[]).await;
    let number = buyer.order(&app, &[&pack]).await;
    app.press_job_finished(&number).await;
    let made_before = order_json(&app, &number)["pressFiles"][0]["pressFile"].clone();
    let order_page = format!("/admin/orders/{number}");

    // Asked for only while the order is on hold.
    let page = operator.get(&order_page).await;
    let refused = operator
        .post(&page, &format!("{order_page}/artwork"), &[("pack", "1")])
        .await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert!(
        refused.body.contains("only while an order is on hold"),
        "{}",
        refused.body
    );
    let held = operator
        .post(
            &page,
            &format!("{order_page}/move"),
            &[("move", "hold"), ("reason", "The photo is blurred")],
        )
        .await;
    assert!(held.body.contains("id=\"artwork-form\""), "{}", held.body);
    let asked = operator
        .post(&held, &format!("{order_page}/artwork"), &[("pack", "1")])
        .await;
    assert_eq!(asked.path, order_page);
    assert!(
        asked
            .body
            .contains("new artwork for pack 1 asked of the customer by admin:")
    );

    let mails = smtp
        .wait_for_matching_subject("New artwork for your order", 1)
        .await;
    let link = artwork_link(&mails[0]);
    assert!(mails[0].text().contains("The photo is blurred"));

    // Nobody else opens it: another customer, a visitor, a guessed token.
    let stranger = Shopper::new(&app);
    stranger
        .sign_up(&format!("other.{:x}@example.com", rand::random::<u64>()))
        .await;
    assert_eq!(stranger.get(&link).await.status, 404);
    let visitor = Shopper::new(&app);
    assert!(visitor.get(&link).await.body.contains("Sign in"));
    let guessed = format!("{}{}", &link[..link.len() - 64], "0".repeat(64));
    assert_eq!(buyer.get(&guessed).await.status, 404);
    // Only for that pack: the token names no other line.
    let other_line = link.replacen(
        &format!("/artwork/{number}/0"),
        &format!("/artwork/{number}/1"),
        1,
    );
    assert_eq!(buyer.get(&other_line).await.status, 404);

    // The customer sees why and the proof of the copy, and approves it.
    let proof = buyer.get(&link).await;
    assert_eq!(proof.status, 200, "{}", proof.body);
    assert!(proof.body.contains("The photo is blurred"));
    let approvals = proof.approvals();
    assert_eq!(approvals.len(), 1, "{}", proof.body);
    let (field, design) = &approvals[0];
    let copy = field.strip_prefix("approve-").unwrap().to_owned();
    assert_ne!(copy, pack, "the customer edits a copy");
    let token = proof.hidden("token").unwrap();
    let action = link.split('?').next().unwrap().to_owned();
    // Two approvals at once: one replaces the pack, the other is refused.
    let fields = [("token", token.as_str()), (field.as_str(), design.as_str())];
    let answers = join_all([
        buyer.post(&proof, &action, &fields),
        buyer.post(&proof, &action, &fields),
    ])
    .await;
    let replaced = answers
        .iter()
        .filter(|a| a.path == format!("/orders/{number}"))
        .count();
    assert_eq!(
        replaced,
        1,
        "{:?}",
        answers.iter().map(|a| a.status).collect::<Vec<_>>()
    );

    let order = order_json(&app, &number);
    assert_eq!(order["status"]["state"], "placed");
    assert_eq!(order["lines"][0]["packId"], copy);
    let history = order["artwork"].as_array().unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[0]["kind"]["requested"]["copy"], copy);
    let replaced_pack = &history[1]["kind"]["replaced"];
    assert_eq!(replaced_pack["previousPackId"], pack);
    assert!(replaced_pack["previousPack"]["sides"].is_array());
    assert!(
        order["history"].as_array().unwrap().last().unwrap()["by"]
            .as_str()
            .unwrap()
            .starts_with("customer:")
    );
    // The press file is made again for the new pack.
    app.press_job_finished(&number).await;
    let remade = &order_json(&app, &number)["pressFiles"][0]["pressFile"];
    assert_eq!(remade["state"], "produced");
    assert!(remade["producedAt"].as_i64() > made_before["producedAt"].as_i64());
    let console = operator.get(&order_page).await;
    assert!(
        console
            .body
            .contains("replaced with new artwork by customer:")
    );

    // The link is used up; and once the order is in production, no new artwork is asked.
    assert_eq!(buyer.get(&link).await.status, 404);
    let start = operator
        .post(
            &console,
            &format!("{order_page}/move"),
            &[("move", "start")],
        )
        .await;
    assert!(start.body.contains("in production"), "{}", start.body);
    let late = operator
        .post(&start, &format!("{order_page}/artwork"), &[("pack", "1")])
        .await;
    assert_eq!(late.status, 409);
    let port = smtp.port.to_string();
    let mailing = [
        ("PRESSPACK_SMTP_HOST", "127.0.0.1"),
        ("PRESSPACK_SMTP_PORT", port.as_str()),
        ("PRESSPACK_SMTP_SECURITY", "none"),
    ];
    let asked = app.cli_with(&["orders", "ask-artwork", &number, "--pack", "1"], &mailing);
    assert!(!asked.status.success());
    assert!(
        String::from_utf8_lossy(&asked.stderr).contains("only while an order is on hold"),
        "{asked:?}"
    );

    // The operator's command asks as the console does: another order, held, gets its link.
    let (second_pack, _) = new_pack(&app, &[]).await;
    let second = buyer.order(&app, &[&second_pack]).await;
    let held = app.cli(&["orders", "hold", &second, "--reason", "Wrong phone number"]);
    assert!(held.status.success(), "{held:?}");
    let asked = app.cli_with(&["orders", "ask-artwork", &second, "--pack", "1"], &mailing);
    assert!(asked.status.success(), "{asked:?}");
    let mails = smtp
        .wait_for_matching_subject(&format!("New artwork for your order {second}"), 1)
        .await;
    assert!(artwork_link(&mails[0]).starts_with(&format!("/artwork/{second}/0?token=")));
    let by = &order_json(&app, &second)["artwork"][0]["by"];
    assert!(by.as_str().unwrap().starts_with("cli:"), "{by}");
}
