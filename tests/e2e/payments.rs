//! An order's payment, beside its production: operators record it in the console and with
//! the CLI, the shop's back office with a signed call only a key granted `mark_orders_paid`
//! may make. Each payment is recorded once whatever retries and double clicks do, refused
//! when it does not follow (paid twice, refunded before paid), told to the partner by signed
//! webhooks (`order.paid`, `order.refunded`) and shown to the customer; against every store.

use presspack::domain::keys::Permission;
use presspack::domain::orders::record::PaymentState;
use reqwest::Method;

use crate::console::signed_in_operator;
use crate::customers::new_pack;
use crate::every_store;
use crate::helpers::{ApiResponse, Credentials, StoreKind, TestApp, create_key, order_number};
use crate::orders::{orders, placed_order};

every_store!(payments_are_recorded_once_by_the_back_office_the_console_and_the_cli);

/// `svc.order.markPaid` for order `number` with `reference`, signed by `key`.
async fn mark_paid(app: &TestApp, key: &Credentials, number: &str, reference: &str) -> ApiResponse {
    let params = [
        ("method", "svc.order.markPaid"),
        ("orderNumber", number),
        ("reference", reference),
    ];
    app.send(Method::POST, &[], &params, Some(key)).await
}

async fn stored_payment(app: &TestApp, number: &str) -> presspack::domain::orders::Payment {
    presspack::domain::orders::load(app.store.as_ref(), &order_number(number))
        .await
        .unwrap()
        .unwrap()
        .payment
}

async fn payments_are_recorded_once_by_the_back_office_the_console_and_the_cli(kind: StoreKind) {
    let (app, receiver, shopper, number) = placed_order(kind).await;
    let n = number.as_str();
    receiver.wait_for("/webhook", 1, 60).await;

    // A key without the permission records nothing.
    let plain = Credentials::from(&create_key(&app.store, &[]).await);
    mark_paid(&app, &plain, n, "BANK-1")
        .await
        .error("permission_denied");
    let back_office = create_key(&app.store, &[Permission::MarkOrdersPaid]).await;
    let office = Credentials::from(&back_office);

    // Bad input names the parameter and the problem; nothing is recorded.
    let long = "9".repeat(101);
    for (order, reference, name, says) in [
        (
            "PP-NOSUCHORDER",
            "BANK-1",
            "order_not_found",
            "orderNumber: there is no order",
        ),
        (
            "../../etc",
            "BANK-1",
            "order_not_found",
            "orderNumber: there is no order",
        ),
        (n, "", "missing_parameter", "reference"),
        (n, "BANK\u{202E}1", "invalid_parameter", "reference:"),
        (n, "BANK\n1", "invalid_parameter", "reference:"),
        (n, long.as_str(), "invalid_parameter", "reference"),
    ] {
        let message = mark_paid(&app, &office, order, reference).await.error(name);
        assert!(message.contains(says), "{order} {reference:?}: {message}");
    }
    assert_eq!(
        stored_payment(&app, n).await.state,
        PaymentState::AwaitingInvoicePayment
    );

    // The back office sends the payment twice at once (a retry after a timeout): both
    // answers say paid, and it is recorded once.
    let reference = "BANK 2026-12-05 #4711";
    let (one, two) = tokio::join!(
        mark_paid(&app, &office, n, reference),
        mark_paid(&app, &office, n, reference),
    );
    for answer in [&one, &two] {
        let paid = answer.ok();
        assert_eq!(paid["paymentState"], "paid", "{}", answer.body);
        assert_eq!(paid["payment"]["reference"], reference);
        assert_eq!(
            paid["payment"]["by"],
            format!("api:{}", back_office.consumer_key)
        );
    }
    let payment = stored_payment(&app, n).await;
    assert_eq!(payment.state, PaymentState::Paid);
    assert_eq!(payment.history.len(), 1, "{payment:?}");
    // Another reference for a paid order is a conflict, not a second payment.
    let message = mark_paid(&app, &office, n, "BANK-2")
        .await
        .error("payment_conflict");
    assert!(message.contains("is paid; it cannot be paid"), "{message}");

    // The console shows who recorded it, and refunds it once.
    let operator = signed_in_operator(&app).await;
    let page = operator.get(&format!("/admin/orders/{n}")).await;
    assert!(page.body.contains("#4711"), "{}", page.body);
    assert!(
        page.body
            .contains(&format!("by api:{}", back_office.consumer_key))
    );
    assert!(page.body.contains("id=\"refund-form\""));
    assert!(!page.body.contains("id=\"paid-form\""));
    let path = format!("/admin/orders/{n}/payment");
    let bogus = operator
        .post(&page, &path, &[("payment", "forgiven")])
        .await;
    assert_eq!(bogus.status, 400);
    assert!(
        bogus.body.contains("payment: paid or refunded"),
        "{}",
        bogus.body
    );
    let refunded = operator
        .post(
            &page,
            &path,
            &[("payment", "refunded"), ("reference", "CN-17")],
        )
        .await;
    assert_eq!(refunded.status, 200, "{}", refunded.body);
    assert!(
        refunded.body.contains("refunded by admin:ann.ops"),
        "{}",
        refunded.body
    );
    let twice = operator
        .post(
            &page,
            &path,
            &[("payment", "refunded"), ("reference", "CN-17")],
        )
        .await;
    assert_eq!(
        twice.status, 200,
        "the same refund again records nothing more"
    );
    let again = operator
        .post(
            &page,
            &path,
            &[("payment", "paid"), ("reference", "BANK-3")],
        )
        .await;
    assert_eq!(again.status, 409, "{}", again.body);
    assert!(
        again.body.contains("is refunded; it cannot be paid"),
        "{}",
        again.body
    );
    let payment = stored_payment(&app, n).await;
    assert_eq!(payment.state, PaymentState::Refunded);
    assert_eq!(payment.history.len(), 2, "{payment:?}");
    // The customer sees where their payment is.
    let theirs = shopper.get(&format!("/orders/{n}")).await;
    assert!(theirs.body.contains("Payment: refunded"), "{}", theirs.body);

    // The CLI: paid, paid again with the same reference (nothing more), an unknown order.
    let (pack, _) = new_pack(&app, &[("trackingId", "shop-7/bob")]).await;
    let second = shopper.order(&app, &[&pack]).await;
    let s = second.as_str();
    for _ in 0..2 {
        let (ok, stdout, stderr) = orders(&app, &["paid", s, "--reference", "TRANSFER 88"]);
        assert!(ok, "{stderr}");
        assert!(stdout.contains("payment paid"), "{stdout}");
    }
    let payment = stored_payment(&app, s).await;
    assert_eq!(payment.history.len(), 1);
    assert!(payment.history[0].by.starts_with("cli:"), "{payment:?}");
    let (ok, _, stderr) = orders(&app, &["paid", "PP-NOSUCHORDER", "--reference", "X"]);
    assert!(!ok);
    assert!(stderr.contains("there is no order"), "{stderr}");
    let (ok, _, stderr) = orders(&app, &["refunded", s, "--reference", "a\u{7}b"]);
    assert!(!ok);
    assert!(stderr.contains("reference:"), "{stderr}");

    // The list filters by payment (any state), and refuses a payment it does not know.
    let paid = operator.get("/admin/orders?state=&payment=paid").await;
    assert!(
        paid.body.contains(s) && !paid.body.contains(n),
        "{}",
        paid.body
    );
    let refunded = operator.get("/admin/orders?state=&payment=refunded").await;
    assert!(refunded.body.contains(n) && !refunded.body.contains(s));
    let unknown = operator.get("/admin/orders?payment=forgiven").await;
    assert_eq!(unknown.status, 400);
    assert!(
        unknown
            .body
            .contains("payment: one of awaiting_invoice_payment, paid, refunded")
    );

    // The partner hears each payment once, signed: two confirmations, two payments, a refund.
    let sent = receiver.signed_webhooks(&app, 5).await;
    let mut told: Vec<(String, String)> = sent
        .iter()
        .map(|event| {
            let number = event["data"]["orderNumber"].as_str().unwrap();
            (
                number.to_owned(),
                event["type"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    told.sort();
    let mut expected: Vec<(String, String)> = [
        (n, "order.confirmed"),
        (n, "order.paid"),
        (n, "order.refunded"),
        (s, "order.confirmed"),
        (s, "order.paid"),
    ]
    .iter()
    .map(|(number, kind)| (number.to_string(), kind.to_string()))
    .collect();
    expected.sort();
    assert_eq!(told, expected);
    let paid = sent
        .iter()
        .find(|e| e["type"] == "order.paid" && e["data"]["orderNumber"] == n)
        .unwrap();
    assert_eq!(paid["data"]["payment"]["reference"], reference);
    assert_eq!(paid["data"]["payment"]["state"], "paid");
    assert_eq!(paid["data"]["trackingId"], "shop-7/ann");
}
