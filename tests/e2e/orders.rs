//! After the order: states moved on by the operator (placed, in production, shipped,
//! cancelled), refused when illegal or malformed, never won twice, told to the customer on the
//! order page and to the partner by signed webhooks; against both stores.

use presspack::domain::orders::status::{self, Mailing, Move, MoveError};
use presspack::domain::webhooks::Webhooks;
use presspack::infra::queue;
use serde_json::Value;

use crate::console::signed_in_operator;
use crate::customers::new_pack;
use crate::every_store;
use crate::helpers::order_number;
use crate::helpers::{StoreKind, TestApp, spawn_app_with};
use crate::shop::{Receiver, Shopper};

every_store!(
    an_order_moves_forward_only_and_tells_customer_and_partner,
    two_operators_moving_one_order_at_once_cannot_both_win,
    an_order_on_hold_keeps_its_reason_and_is_started_or_cancelled_from_there,
);

/// A server that may call back to loopback, its partner's receiver (the key's callback URL),
/// and a signed-in customer who ordered a tracked pack; the order number.
pub async fn placed_order(kind: StoreKind) -> (TestApp, Receiver, Shopper, String) {
    let receiver = Receiver::start(0).await;
    let app = spawn_app_with(kind, |config| {
        config.webhooks.allow_hosts = vec!["127.0.0.1".into()];
    })
    .await;
    receiver.take_callbacks_of(&app).await;
    let shopper = Shopper::new(&app);
    shopper
        .sign_up(&format!("orders.{:x}@example.com", rand::random::<u64>()))
        .await;
    let (pack, _) = new_pack(&app, &[("trackingId", "shop-7/ann")]).await;
    let number = shopper.order(&app, &[&pack]).await;
    (app, receiver, shopper, number)
}

/// Runs `presspack orders ...`; (success, standard output, standard error).
pub fn orders(app: &TestApp, args: &[&str]) -> (bool, String, String) {
    let mut all = vec!["orders"];
    all.extend_from_slice(args);
    let output = app.cli(&all);
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

async fn an_order_moves_forward_only_and_tells_customer_and_partner(kind: StoreKind) {
    let (app, receiver, shopper, number) = placed_order(kind).await;
    let n = number.as_str();
    let ship = [
        "ship",
        n,
        "--carrier",
        "Royal Mail",
        "--tracking",
        "RM123456785GB",
    ];

    let (ok, _, stderr) = orders(&app, &ship);
    assert!(!ok);
    assert!(
        stderr.contains(&format!("order {n} is placed; it cannot be shipped")),
        "{stderr}"
    );
    let (ok, stdout, stderr) = orders(&app, &["start", n]);
    assert!(ok, "{stderr}");
    assert_eq!(stdout.trim(), format!("{n}  in production"));
    let (ok, _, stderr) = orders(&app, &["cancel", n]);
    assert!(!ok);
    assert!(
        stderr.contains("is in production; it cannot be cancelled"),
        "{stderr}"
    );
    // Malformed carriers and tracking numbers are refused, naming the parameter.
    for (carrier, tracking, expected) in [
        (" ", "RM1", "carrier: must not be empty"),
        (
            "DHL",
            "RM1\r\nBcc: x@example.com",
            "tracking: must be on one line",
        ),
        (&*"x".repeat(61), "RM1", "carrier: at most 60 characters"),
    ] {
        let (ok, _, stderr) = orders(
            &app,
            &["ship", n, "--carrier", carrier, "--tracking", tracking],
        );
        assert!(!ok);
        assert!(stderr.contains(expected), "{stderr}");
    }
    let (ok, stdout, stderr) = orders(&app, &ship);
    assert!(ok, "{stderr}");
    assert_eq!(stdout.trim(), format!("{n}  shipped"));
    let (ok, _, stderr) = orders(&app, &ship);
    assert!(!ok);
    assert!(
        stderr.contains("is shipped; it cannot be shipped"),
        "{stderr}"
    );
    let (ok, _, stderr) = orders(&app, &["start", "PP-NOSUCHORDER"]);
    assert!(!ok);
    assert!(stderr.contains("there is no order"), "{stderr}");

    // The partner hears each step, signed, in order.
    let sent = receiver.signed_webhooks(&app, 3).await;
    let mut types = Vec::new();
    for event in &sent {
        assert_eq!(event["data"]["orderNumber"], n);
        assert_eq!(event["data"]["trackingId"], "shop-7/ann");
        types.push(event["type"].as_str().unwrap().to_owned());
    }
    types.sort();
    assert_eq!(
        types,
        ["order.confirmed", "order.in_production", "order.shipped"]
    );
    let shipped = sent.iter().find(|e| e["type"] == "order.shipped").unwrap();
    assert_eq!(shipped["data"]["carrier"], "Royal Mail");
    assert_eq!(shipped["data"]["trackingNumber"], "RM123456785GB");

    // The customer sees it on the order page; the operator sees who did what, when.
    let page = shopper.get(&format!("/orders/{n}")).await;
    assert!(
        page.body.contains("<span class=\"status\">Shipped</span>"),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("Shipped with Royal Mail, tracking number"),
        "{}",
        page.body
    );
    assert!(page.body.contains("RM123456785GB"));
    let (ok, stdout, _) = orders(&app, &["show", n]);
    assert!(ok);
    let shown: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(shown["status"]["state"], "shipped");
    assert_eq!(shown["status"]["trackingNumber"], "RM123456785GB");
    let history = shown["history"].as_array().unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[0]["status"]["state"], "in_production");
    assert_eq!(history[1]["status"]["state"], "shipped");
    for change in history {
        assert!(change["by"].as_str().unwrap().starts_with("cli:"));
        assert!(change["at"].as_u64().unwrap() >= shown["placedAt"].as_u64().unwrap());
    }
    let (_, listed, _) = orders(&app, &["list"]);
    assert!(listed.contains(&format!("{n}  shipped  ")), "{listed}");
}

async fn two_operators_moving_one_order_at_once_cannot_both_win(kind: StoreKind) {
    let (app, receiver, _, number) = placed_order(kind).await;
    receiver.wait_for("/webhook", 1, 60).await;
    let store = app.store.as_ref();
    let parsed = order_number(&number);
    let moves = (0..8).map(|i| {
        let requested = if i % 2 == 0 {
            Move::StartProduction { over_block: false }
        } else {
            Move::Cancel
        };
        status::change(store, &app.clock, &parsed, requested, "test", Mailing::Off)
    });
    let results = futures_util::future::join_all(moves).await;
    let won: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    assert_eq!(won.len(), 1, "{results:?}");
    for lost in results.iter().filter_map(|r| r.as_ref().err()) {
        assert!(matches!(lost, MoveError::Illegal { .. }), "{lost:?}");
    }
    let order = presspack::domain::orders::load(store, &order_number(&number))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(order.history.len(), 1);
    assert_eq!(order.status, won[0].status);
    // One message for the confirmation and one for the change that won: the losers' were
    // never queued or taken back.
    let event = match order.status {
        presspack::domain::orders::record::OrderStatus::InProduction => "order.in_production",
        _ => "order.cancelled",
    };
    let sent = receiver.wait_for("/webhook", 2, 60).await;
    assert_eq!(sent[1].json()["type"], event);
    let messages = queue::list::<Webhooks>(store).await.unwrap();
    assert_eq!(messages.len(), 2, "{messages:?}");
}

/// An operator holds a placed order with a reason (the CLI, the console): the partner hears
/// `order.on_hold` with it, the order stays on the floor's list, nothing but a start or a
/// cancel moves it on, and a bad reason is refused.
async fn an_order_on_hold_keeps_its_reason_and_is_started_or_cancelled_from_there(kind: StoreKind) {
    let (app, receiver, shopper, number) = placed_order(kind).await;
    let n = number.as_str();
    receiver.wait_for("/webhook", 1, 60).await;
    for (reason, says) in [
        ("", "reason: must not be empty"),
        (
            "logo\u{202E}gpj",
            "reason: must not contain bidirectional controls",
        ),
        (&"x".repeat(201), "reason: at most 200 characters"),
    ] {
        let (ok, _, stderr) = orders(&app, &["hold", n, "--reason", reason]);
        assert!(!ok);
        assert!(stderr.contains(says), "{reason:?}: {stderr}");
    }
    let reason = "The logo is 72 dpi: asked for a vector file";
    let (ok, stdout, stderr) = orders(&app, &["hold", n, "--reason", reason]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("on hold"), "{stdout}");
    for refused in [
        vec!["hold", n, "--reason", "again"],
        vec!["ship", n, "--carrier", "DHL", "--tracking", "JD1"],
    ] {
        let (ok, _, stderr) = orders(&app, &refused);
        assert!(!ok, "{refused:?}");
        assert!(stderr.contains("is on hold; it cannot be"), "{stderr}");
        assert!(stderr.contains("it was put on hold by cli:"), "{stderr}");
    }

    // The console shows why, lists it as work to do and under its own state, and starts it.
    let operator = signed_in_operator(&app).await;
    let page = operator.get(&format!("/admin/orders/{n}")).await;
    assert!(page.body.contains(reason), "{}", page.body);
    assert!(!page.body.contains("id=\"hold-form\""), "not held twice");
    for list in ["/admin/orders", "/admin/orders?state=on_hold"] {
        let listed = operator.get(list).await;
        assert!(listed.body.contains(n), "{list}");
    }
    let placed = operator.get("/admin/orders?state=placed").await;
    assert!(!placed.body.contains(n));
    let customer_view = shopper.get(&format!("/orders/{n}")).await;
    assert!(
        customer_view.body.contains("On hold"),
        "{}",
        customer_view.body
    );
    assert!(
        !customer_view.body.contains(reason),
        "the reason is the floor's"
    );
    let started = operator
        .post(
            &page,
            &format!("/admin/orders/{n}/move"),
            &[("move", "start")],
        )
        .await;
    assert_eq!(started.status, 200, "{}", started.body);
    assert!(
        started
            .body
            .contains("<span class=\"status\">In production</span>")
    );

    // Another order is held from the console and cancelled from there.
    let (pack, _) = new_pack(&app, &[("trackingId", "shop-7/bob")]).await;
    let second = shopper.order(&app, &[&pack]).await;
    let page = operator.get(&format!("/admin/orders/{second}")).await;
    let path = format!("/admin/orders/{second}/move");
    let held = operator
        .post(
            &page,
            &path,
            &[("move", "hold"), ("reason", "Address unclear")],
        )
        .await;
    assert!(
        held.body.contains("On hold: Address unclear"),
        "{}",
        held.body
    );
    let cancelled = operator.post(&held, &path, &[("move", "cancel")]).await;
    assert!(
        cancelled
            .body
            .contains("<span class=\"status\">Cancelled</span>")
    );

    // The partner heard each, with the reason.
    let sent = receiver.signed_webhooks(&app, 6).await;
    let held: Vec<&Value> = sent
        .iter()
        .filter(|e| e["type"] == "order.on_hold")
        .collect();
    assert_eq!(held.len(), 2, "{sent:?}");
    let first = held.iter().find(|e| e["data"]["orderNumber"] == n).unwrap();
    assert_eq!(first["data"]["reason"], reason);
    let mut types: Vec<String> = sent
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_owned())
        .collect();
    types.sort();
    assert_eq!(
        types,
        [
            "order.cancelled",
            "order.confirmed",
            "order.confirmed",
            "order.in_production",
            "order.on_hold",
            "order.on_hold"
        ]
    );
}
