//! Batches in the console: shipping from an uploaded list (CSV) ships each good line's order
//! once and refuses each bad line with its reason (unknown orders, an order on two lines,
//! formulas, control and bidi characters, a wrong number of cells, an order not in
//! production); two lists at once ship an order once and the loser learns who won; a list past
//! the bound is refused before any work. The press files of ticked orders, or of a filter,
//! come as one ZIP archive with a manifest, read back by Python's zipfile (an independent
//! reader that checks every file's CRC), and their packing slips as one page to print;
//! against every store.

use presspack::domain::orders::press_files;
use presspack::domain::orders::record::OrderStatus;
use presspack::domain::orders::status::{self, Mailing, Move};

use crate::console::{bytes, customer_with_order, link_of_class, signed_in_operator};
use crate::customers::new_pack;
use crate::every_store;
use crate::helpers::{StoreKind, TestApp, order_number, spawn_app};
use crate::shop::{Page, Shopper};

every_store!(
    a_shipping_list_ships_each_good_line_once_and_refuses_each_bad_one,
    the_press_files_of_ticked_or_filtered_orders_come_as_one_zip_with_a_manifest,
);

/// Uploads `list` as the shipping list, with the CSRF token of page `from` (or none).
pub async fn upload_list(operator: &Shopper, from: &Page, list: Vec<u8>) -> Page {
    let csrf = from.hidden("csrf").unwrap_or_default();
    let file = reqwest::multipart::Part::bytes(list)
        .file_name("shipments.csv")
        .mime_str("text/csv")
        .unwrap();
    let form = reqwest::multipart::Form::new()
        .text("csrf", csrf)
        .part("list", file);
    let response = operator
        .client
        .post(format!("{}/admin/orders/shipments", operator.address))
        .multipart(form)
        .send()
        .await
        .unwrap();
    Page {
        status: response.status().as_u16(),
        path: response.url().path().to_owned(),
        body: response.text().await.unwrap(),
    }
}

/// What a shipping report says of line `line`: `Shipped`, or why not.
fn line_outcome(report: &Page, line: usize) -> String {
    let marker = format!("<td class=\"line\">{line}</td>");
    let row = report
        .body
        .split("<tr>")
        .find(|row| row.contains(&marker))
        .unwrap_or_else(|| panic!("no line {line} in {}", report.body));
    let cell = row.split("<td class=\"").nth(3).unwrap();
    let text = cell.split_once('>').unwrap().1;
    text.split_once("</td>").unwrap().0.to_owned()
}

async fn status_of(app: &TestApp, number: &str) -> OrderStatus {
    presspack::domain::orders::load(app.store.as_ref(), &order_number(number))
        .await
        .unwrap()
        .unwrap()
        .status
}

async fn start(app: &TestApp, number: &str) {
    let start = Move::StartProduction { over_block: false };
    let number = order_number(number);
    status::change(
        app.store.as_ref(),
        &app.clock,
        &number,
        start,
        "test",
        Mailing::Off,
    )
    .await
    .unwrap();
}

async fn a_shipping_list_ships_each_good_line_once_and_refuses_each_bad_one(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let operator = signed_in_operator(&app).await;
    let (buyer, _, a) = customer_with_order(&app).await;
    let mut numbers = vec![a];
    for _ in 0..3 {
        let (pack, _) = new_pack(&app, &[]).await;
        numbers.push(buyer.order(&app, &[&pack]).await);
    }
    let [a, b, c, d] = numbers.try_into().unwrap();
    for number in [&a, &b, &d] {
        start(&app, number).await;
    }
    let list_page = operator.get("/admin/orders").await;
    assert!(list_page.body.contains("id=\"ship-list-form\""));

    let list = format!(
        "Order number,Carrier,Tracking number\r\n\
         {a},Royal Mail,RM123456785GB\r\n\
         {b},\"DHL, Express\",\"=HYPERLINK(\"\"http://evil.example\"\",\"\"x\"\")\"\r\n\
         {c},DPD,DPD1\r\n\
         PP-NOSUCHORDER,DPD,X1\r\n\
         {a},UPS,1Z999\r\n\
         {b},DHL,JD0146\u{202E}00\r\n\
         {b},\"DHL, Express\",JD014600\r\n\
         @SUM(1),DPD,1\r\n\
         {b}\r\n\
         \r\n\
         {d},Royal\u{7}Mail,X\r\n\
         {d},+44 Couriers,X\r\n"
    );
    let report = upload_list(&operator, &list_page, list.into_bytes()).await;
    assert_eq!(report.status, 200, "{}", report.body);
    let on_two_lines = format!("Order {a} is on lines 2, 6: ship it on one line.");
    for (line, says) in [
        (2, on_two_lines.as_str()),
        (
            3,
            "The tracking number begins with “=”, which a spreadsheet would run as a formula.",
        ),
        (4, "is placed; it cannot be shipped"),
        (5, "There is no order PP-NOSUCHORDER."),
        (6, on_two_lines.as_str()),
        (7, "Tracking: must not contain bidirectional controls"),
        (8, "Shipped"),
        (9, "There is no order @SUM(1)."),
        (
            10,
            "A line holds 3 cells (order number, carrier, tracking number); this one has 1.",
        ),
        (12, "Carrier: must be on one line"),
        (13, "The carrier begins with “+”"),
    ] {
        let outcome = line_outcome(&report, line);
        assert!(outcome.contains(says), "line {line}: {outcome}");
    }
    assert!(report.body.contains("1 of 11 shipped."), "{}", report.body);
    assert!(
        !report.body.contains("\u{202E}"),
        "bidi controls are not echoed"
    );
    match status_of(&app, &b).await {
        OrderStatus::Shipped {
            carrier,
            tracking_number,
        } => {
            assert_eq!(carrier, "DHL, Express");
            assert_eq!(tracking_number, "JD014600");
        }
        other => panic!("{b} is {other:?}"),
    }
    for number in [&a, &d] {
        assert_eq!(status_of(&app, number).await, OrderStatus::InProduction);
    }
    assert_eq!(status_of(&app, &c).await, OrderStatus::Placed);

    // Two operators upload overlapping lists at once: the order ships once, and the other
    // report says who shipped it.
    let one = format!("{d},DPD,DPD0001\n{a},DPD,DPD0002\n");
    let two = format!("{d},UPS,1Z0003\n");
    let (first, second) = tokio::join!(
        upload_list(&operator, &list_page, one.into_bytes()),
        upload_list(&operator, &list_page, two.into_bytes()),
    );
    let outcomes = [line_outcome(&first, 1), line_outcome(&second, 1)];
    assert_eq!(
        outcomes.iter().filter(|o| *o == "Shipped").count(),
        1,
        "{outcomes:?}"
    );
    let lost = outcomes.iter().find(|o| *o != "Shipped").unwrap();
    assert!(
        lost.contains("is shipped; it cannot be shipped: it was shipped by admin:ann.ops"),
        "{lost}"
    );
    assert_eq!(line_outcome(&first, 2), "Shipped");
    let history = presspack::domain::orders::load(app.store.as_ref(), &order_number(&d))
        .await
        .unwrap()
        .unwrap()
        .history;
    assert_eq!(
        history
            .iter()
            .filter(|c| c.status.code() == "shipped")
            .count(),
        1
    );

    // Bounds, counted before any work: lines, bytes, text; and the form's token.
    let many: String = (0..1001).map(|i| format!("PP-{i:012},DPD,{i}\n")).collect();
    let refused = upload_list(&operator, &list_page, many.into_bytes()).await;
    assert_eq!(refused.status, 413, "{}", refused.body);
    assert!(
        refused
            .body
            .contains("at most 1000 orders; this one has 1001 lines"),
        "{}",
        refused.body
    );
    let huge = format!("{a},DPD,1\n").repeat(10 * 1024 * 1024 / 20);
    let refused = upload_list(&operator, &list_page, huge.into_bytes()).await;
    assert_eq!(refused.status, 413, "{}", refused.body);
    assert!(
        refused.body.contains("A shipping list is at most 1024 KB"),
        "{}",
        refused.body
    );
    let latin1 = b"PP-000000000000,Caf\xe9 Post,1\n".to_vec();
    let refused = upload_list(&operator, &list_page, latin1).await;
    assert_eq!(refused.status, 400);
    assert!(refused.body.contains("not UTF-8 text"), "{}", refused.body);
    let empty = upload_list(
        &operator,
        &list_page,
        b"order,carrier,tracking\n\n".to_vec(),
    )
    .await;
    assert_eq!(empty.status, 400);
    assert!(empty.body.contains("holds no shipments"), "{}", empty.body);
    // A customer, with a token of their own, ships nothing.
    let shop_page = buyer.get("/cart").await;
    start(&app, &c).await;
    let stranger = upload_list(&buyer, &shop_page, format!("{c},DPD,1\n").into_bytes()).await;
    assert_eq!(stranger.path, "/admin/signin");
    assert_eq!(status_of(&app, &c).await, OrderStatus::InProduction);

    // The CLI ships a list the same way, and fails when a line was refused.
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        file.path(),
        format!("{c},DPD,CLI0001\nPP-NOSUCHORDER,DPD,X\n"),
    )
    .unwrap();
    let shipped = app.cli(&["orders", "ship-list", file.path().to_str().unwrap()]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&shipped.stdout),
        String::from_utf8_lossy(&shipped.stderr),
    );
    assert!(!shipped.status.success());
    assert!(
        stdout.contains(&format!("line 1  {c}  shipped")),
        "{stdout}"
    );
    assert!(
        stdout.contains("line 2  PP-NOSUCHORDER  refused: There is no order PP-NOSUCHORDER."),
        "{stdout}"
    );
    assert!(stderr.contains("1 of 2 lines were refused"), "{stderr}");
    assert!(matches!(
        status_of(&app, &c).await,
        OrderStatus::Shipped { .. }
    ));
}

/// What Python's `zipfile` reads in `archive`: the first file whose CRC is wrong (none), the
/// names, each file's SHA-256, and the manifest.
fn unzipped(archive: &[u8]) -> serde_json::Value {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), archive).unwrap();
    let script = "import hashlib, json, sys, zipfile\n\
                  z = zipfile.ZipFile(sys.argv[1])\n\
                  print(json.dumps({'bad': z.testzip(), 'names': z.namelist(),\n\
                  'sha256': {n: hashlib.sha256(z.read(n)).hexdigest() for n in z.namelist()},\n\
                  'manifest': z.read('manifest.csv').decode('utf-8')}))";
    let output = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(file.path())
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

async fn the_press_files_of_ticked_or_filtered_orders_come_as_one_zip_with_a_manifest(
    kind: StoreKind,
) {
    let app = spawn_app(kind).await;
    let operator = signed_in_operator(&app).await;
    let (buyer, _, a) = customer_with_order(&app).await;
    let (pack, _) = new_pack(&app, &[]).await;
    let b = buyer.order(&app, &[&pack]).await;
    let mut numbers = [a.clone(), b.clone()];
    numbers.sort();
    for number in &numbers {
        app.press_job_finished(number).await;
    }
    start(&app, &a).await;
    let list = operator.get("/admin/orders").await;
    assert!(list.body.contains("id=\"archive-ticked\""));
    let csrf = list.hidden("csrf").unwrap();
    let ticked: Vec<(String, &str)> = vec![
        ("csrf".into(), csrf.as_str()),
        ("action".into(), "archive"),
        (format!("order-{a}"), "yes"),
        (format!("order-{b}"), "yes"),
    ];
    let response = operator
        .client
        .post(format!("{}/admin/orders/batch", app.address))
        .form(&ticked)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/zip");
    assert!(
        response.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("attachment; filename=\"press-files-"),
    );
    let archive = response.bytes().await.unwrap();
    let read = unzipped(&archive);
    assert_eq!(read["bad"], serde_json::Value::Null, "every CRC is right");
    let names: Vec<String> = numbers.iter().map(|n| format!("{n}-1-press.pdf")).collect();
    assert_eq!(
        read["names"],
        serde_json::json!([names[0], names[1], "manifest.csv"])
    );
    // Each file is the order's press file, byte for byte.
    for (number, name) in numbers.iter().zip(&names) {
        let page = operator.get(&format!("/admin/orders/{number}")).await;
        let (status, pdf) = bytes(
            &operator,
            &app,
            &link_of_class(&page, "press-link").unwrap(),
        )
        .await;
        assert_eq!(status, 200);
        use sha2::Digest;
        let digest = hex::encode(sha2::Sha256::digest(&pdf));
        assert_eq!(
            read["sha256"][name],
            digest.as_str(),
            "{name} is the press file"
        );
    }
    let manifest = read["manifest"].as_str().unwrap();
    let lines: Vec<&str> = manifest.lines().collect();
    assert_eq!(
        lines[0],
        "\"order\",\"line\",\"product\",\"paper\",\"finish\",\"quantity\",\"file\",\"preflight\",\"note\""
    );
    assert_eq!(lines.len(), 3, "{manifest}");
    for (line, (number, name)) in lines[1..].iter().zip(numbers.iter().zip(&names)) {
        assert!(
            line.starts_with(&format!("\"{number}\",\"1\",\"businesscard\",")),
            "{line}"
        );
        // The verdict the order's page gives its file.
        let store = app.store.as_ref();
        let order = presspack::domain::orders::load(store, &order_number(number))
            .await
            .unwrap()
            .unwrap();
        let states = press_files::states(store, &order).await.unwrap();
        let verdict = press_files::verdict_of_file(&states[0]).code();
        assert!(
            line.contains(&format!("\"{name}\",\"{verdict}\",\"\"")),
            "{line}"
        );
    }

    // A filter's archive: the orders in production only.
    let response = operator
        .client
        .get(format!(
            "{}/admin/orders/press-files.zip?state=in_production",
            app.address
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let read = unzipped(&response.bytes().await.unwrap());
    assert_eq!(
        read["names"],
        serde_json::json!([format!("{a}-1-press.pdf"), "manifest.csv"])
    );

    // Their packing slips: the address and the packs, no prices; one from the order's page.
    let (tick_a, tick_b) = (format!("order-{a}"), format!("order-{b}"));
    let slips = operator
        .post(
            &list,
            "/admin/orders/batch",
            &[("action", "slips"), (&tick_a, "yes"), (&tick_b, "yes")],
        )
        .await;
    assert_eq!(slips.status, 200, "{}", slips.body);
    assert_eq!(
        slips.body.matches("class=\"sheet packing-slip\"").count(),
        2
    );
    for number in &numbers {
        let heading = format!("Packing slip · <span class=\"order-number\">{number}");
        assert!(slips.body.contains(&heading), "{}", slips.body);
    }
    assert!(!slips.body.contains('£'), "no prices on a packing slip");
    let one = operator
        .get(&format!("/admin/orders/{a}/packing-slip"))
        .await;
    assert_eq!(one.body.matches("class=\"sheet packing-slip\"").count(), 1);
    assert!(
        one.body.contains("1 Print Street") && !one.body.contains('£'),
        "{}",
        one.body
    );

    // A ticked name that is no order, or nothing ticked: refused, nothing sent.
    let forged = operator
        .post(
            &list,
            "/admin/orders/batch",
            &[("action", "archive"), ("order-PP-NOSUCHORDER", "yes")],
        )
        .await;
    assert_eq!(forged.status, 400);
    assert!(
        forged.body.contains("There is no order PP-NOSUCHORDER."),
        "{}",
        forged.body
    );
    let none = operator
        .post(&list, "/admin/orders/batch", &[("action", "archive")])
        .await;
    assert_eq!(none.status, 400);
    // Nobody else gets the files.
    for path in [
        "/admin/orders/press-files.zip?state=in_production".to_owned(),
        format!("/admin/orders/{a}/packing-slip"),
    ] {
        assert_eq!(buyer.get(&path).await.path, "/admin/signin", "{path}");
    }
}
