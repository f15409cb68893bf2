//! The customer side over HTTP, against both stores: drop-ins taking ownership, addToCart,
//! the cart, checkout and orders, trial packs and the one-trial rule, CSRF, other customers,
//! sign-in limits, and the order-confirmation webhook's retries across a restart.

use presspack::domain::customers;
use presspack::domain::keys::{self, ApiKey, Permission};
use serde_json::Value;

use crate::every_store;
use crate::helpers::{Credentials, StoreKind, TestApp, create_key, spawn_app, spawn_app_with};
use crate::helpers::{email_address, order_number};
use crate::shop::{Receiver, Shopper};

every_store!(
    opening_a_drop_in_takes_ownership_and_the_key_loses_access,
    drop_in_tokens_are_secret_and_checked,
    add_to_cart_checks_its_parameters_and_returns_the_cart_drop_ins,
    the_cart_renames_requantifies_removes_and_checks_out,
    trial_partner_packs_follow_the_partner_rules,
    a_customer_orders_one_trial_pack_only,
    two_concurrent_trial_checkouts_place_one_order,
    forms_without_the_csrf_token_are_refused,
    every_post_route_of_the_router_checks_its_csrf_token,
    customers_cannot_reach_each_others_packs_carts_or_orders,
    failed_sign_ins_are_limited,
    a_cart_holds_a_bounded_number_of_packs,
    webhooks_are_retried_with_one_id_and_survive_a_restart,
);

fn unique_email() -> String {
    format!("ann.{:x}@example.com", rand::random::<u64>())
}

pub async fn new_pack(app: &TestApp, extra: &[(&str, &str)]) -> (String, Value) {
    let body = app.create_pack("businesscard", extra).await;
    (
        body["packId"].as_str().unwrap().to_owned(),
        body["dropIns"].clone(),
    )
}

/// The path and query of a drop-in URL, so the shopper goes to the test server's address.
pub fn local(url: &Value) -> String {
    let url = url::Url::parse(url.as_str().unwrap()).unwrap();
    format!("{}?{}", url.path(), url.query().unwrap())
}

/// addToCart for `pack_id`; asserts success and returns the answer (with the drop-ins).
pub async fn add_to_cart(app: &TestApp, pack_id: &str, quantity: &str) -> Value {
    app.post(&[
        ("method", "svc.pack.addToCart"),
        ("packId", pack_id),
        ("quantity", quantity),
    ])
    .await
    .ok()
}

/// addToCart for `pack_id` (one pack), which must be refused as `pack_not_orderable`; the
/// refusal's message.
pub async fn add_to_cart_refused(app: &TestApp, pack_id: &str) -> String {
    app.post(&[
        ("method", "svc.pack.addToCart"),
        ("packId", pack_id),
        ("quantity", "1"),
    ])
    .await
    .error("pack_not_orderable")
}

async fn opening_a_drop_in_takes_ownership_and_the_key_loses_access(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (pack_id, drop_ins) = new_pack(
        &app,
        &[
            ("friendlyName", "Ann's cards"),
            ("startAgainUrl", "https://shop.example.com/design?again=1"),
        ],
    )
    .await;
    let finish = local(&drop_ins["finish"]);
    let shopper = Shopper::new(&app);

    // Not signed in: the drop-in asks to sign in or up, and nothing changes hands.
    let page = shopper.get(&finish).await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("Create an account") && page.body.contains("Ann&#39;s cards")
            || page.body.contains("Ann's cards"),
        "{}",
        page.body
    );
    app.get_pack(&pack_id).await.ok();

    // Signing up from it comes back to it, asking to continue with the pack: following the
    // link alone changes nothing (another site can make a browser follow a link).
    let form = page;
    let page = shopper
        .post(
            &form,
            "/account/signup",
            &[
                ("name", "Ann"),
                ("email", &unique_email()),
                ("password", "correct horse battery"),
                ("next", &finish),
            ],
        )
        .await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.path.ends_with("/finish"), "{}", page.path);
    assert!(
        page.body.contains("Continue with this pack"),
        "{}",
        page.body
    );
    app.get_pack(&pack_id).await.ok();
    // The button makes the customer the pack's owner.
    let page = shopper.open_drop_in(&finish).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.path.ends_with("/finish"), "{}", page.path);
    assert!(page.body.contains("Add to cart"));
    let message = app.get_pack(&pack_id).await.error("pack_owned_by_customer");
    assert!(message.contains("packId"), "{message}");
    app.post(&[
        ("method", "svc.pack.updatePack"),
        ("packId", &pack_id),
        ("pack", "{}"),
    ])
    .await
    .error("pack_owned_by_customer");

    // The owner sees the rendered sides; the images are PNGs.
    let preview = shopper.get(&local(&drop_ins["preview"])).await;
    assert_eq!(preview.status, 200);
    assert!(
        preview
            .body
            .contains(r#"href="https://shop.example.com/design?again=1""#)
    );
    assert!(preview.body.contains("Start again"));
    // Edit is the design canvas, loading this pack's design (tests/e2e/canvas.rs runs it).
    let edit = shopper.get(&local(&drop_ins["edit"])).await;
    assert_eq!(edit.status, 200);
    assert!(
        edit.body
            .contains(&format!(r#"data-source="/packs/{pack_id}/design""#)),
        "{}",
        edit.body
    );
    let side = shopper
        .client
        .get(format!("{}/packs/{pack_id}/sides/0?max=300", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(side.status(), 200);
    let png = side.bytes().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");

    // Another customer with the same link is turned away.
    let other = Shopper::new(&app);
    other.sign_up(&unique_email()).await;
    let page = other.get(&finish).await;
    assert_eq!(page.status, 403, "{}", page.body);
    assert!(page.body.contains("belongs to another account"));
}

async fn drop_in_tokens_are_secret_and_checked(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (first_id, first) = new_pack(&app, &[]).await;
    let (_, second) = new_pack(&app, &[]).await;
    let token = |drop_ins: &Value| {
        url::Url::parse(drop_ins["edit"].as_str().unwrap())
            .unwrap()
            .query_pairs()
            .find(|(n, _)| n == "token")
            .unwrap()
            .1
            .into_owned()
    };
    let (a, b) = (token(&first), token(&second));
    assert_eq!(a.len(), 32);
    assert_ne!(a, b);
    assert!(!a.contains(&first_id) && !first_id.contains(&a));

    let shopper = Shopper::new(&app);
    shopper.sign_up(&unique_email()).await;
    for path in [
        format!("/dropins/{first_id}/edit?token={b}"),
        format!("/dropins/{first_id}/edit"),
        format!("/dropins/{first_id}/edit?token="),
        format!("/dropins/{first_id}/nosuch?token={a}"),
        format!("/dropins/{}/edit?token={a}", "0".repeat(32)),
    ] {
        let page = shopper.get(&path).await;
        assert_eq!(page.status, 404, "{path}: {}", page.body);
    }
    // A refused link took nothing.
    app.get_pack(&first_id).await.ok();
    assert_eq!(
        shopper.open_drop_in(&local(&first["edit"])).await.status,
        200
    );
    app.get_pack(&first_id)
        .await
        .error("pack_owned_by_customer");
}

async fn add_to_cart_checks_its_parameters_and_returns_the_cart_drop_ins(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (pack_id, _) = new_pack(&app, &[("friendlyName", "Launch cards")]).await;
    for (quantity, problem) in [("0", "quantity"), ("101", "quantity"), ("two", "quantity")] {
        let message = app
            .post(&[
                ("method", "svc.pack.addToCart"),
                ("packId", &pack_id),
                ("quantity", quantity),
            ])
            .await
            .error("invalid_parameter");
        assert!(message.contains(problem), "{message}");
    }
    app.post(&[("method", "svc.pack.addToCart"), ("packId", &pack_id)])
        .await
        .error("missing_parameter");
    app.post(&[
        ("method", "svc.pack.addToCart"),
        ("packId", &"a".repeat(32)),
        ("quantity", "1"),
    ])
    .await
    .error("pack_not_found");

    // A pack with warnings that block ordering is refused, its warnings listed.
    let bad = app
        .create_pack("businesscard", &[("pack", r#"{"numCards": 7}"#)])
        .await;
    let message = add_to_cart_refused(&app, bad["packId"].as_str().unwrap()).await;
    assert!(message.contains("PV001"), "{message}");
    assert!(!bad["dropIns"].as_object().unwrap().contains_key("finish"));

    // Without the add_to_cart permission.
    let limited = create_key(&app.store, &[]).await;
    let params = [
        ("method", "svc.pack.addToCart"),
        ("packId", pack_id.as_str()),
        ("quantity", "1"),
    ];
    app.send(
        reqwest::Method::POST,
        &[],
        &params,
        Some(&Credentials::from(&limited)),
    )
    .await
    .error("permission_denied");

    let body = add_to_cart(&app, &pack_id, "3").await;
    assert_eq!(body["warnings"], serde_json::json!([]));
    assert!(body.get("packId").is_none());
    let drop_ins = body["dropIns"].as_object().unwrap();
    assert_eq!(drop_ins.keys().collect::<Vec<_>>(), ["cart", "checkout"]);

    // The cart drop-in puts the pack in the customer's cart with the partner's quantity.
    let shopper = Shopper::new(&app);
    shopper.sign_up(&unique_email()).await;
    let cart = shopper.open_drop_in(&local(&body["dropIns"]["cart"])).await;
    assert_eq!(cart.path, "/cart");
    assert!(cart.body.contains("Launch cards"), "{}", cart.body);
    assert!(cart.body.contains(r#"value="3""#), "{}", cart.body);
    assert!(cart.body.contains("£44.97"), "{}", cart.body);
    app.get_pack(&pack_id).await.error("pack_owned_by_customer");
    // Once a customer owns it, the key cannot add it to a cart either.
    app.post(&params).await.error("pack_owned_by_customer");
}

async fn the_cart_renames_requantifies_removes_and_checks_out(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let shopper = Shopper::new(&app);
    let email = unique_email();
    shopper.sign_up(&email).await;
    let (first, first_drop_ins) = new_pack(&app, &[("friendlyName", "First")]).await;
    let (second, second_drop_ins) = new_pack(&app, &[("friendlyName", "Second")]).await;
    for drop_ins in [&first_drop_ins, &second_drop_ins] {
        let finish = shopper.open_drop_in(&local(&drop_ins["finish"])).await;
        let token = finish.hidden("token").unwrap();
        let pack_id = finish.path.split('/').nth(2).unwrap().to_owned();
        let cart = shopper
            .post(
                &finish,
                &format!("/packs/{pack_id}/finish"),
                &[
                    ("token", &token),
                    ("paperClass", "classic"),
                    ("finishingOption", "square_corners"),
                    ("packSize", "50"),
                    ("paperLaminate", "nolam"),
                    ("quantity", "1"),
                ],
            )
            .await;
        assert_eq!(cart.path, "/cart", "{}", cart.body);
    }
    // A combination the catalogue does not offer is explained on the form.
    let finish = shopper
        .open_drop_in(&local(&first_drop_ins["finish"]))
        .await;
    let token = finish.hidden("token").unwrap();
    let refused = shopper
        .post(
            &finish,
            &format!("/packs/{first}/finish"),
            &[
                ("token", &token),
                ("paperClass", "quadplex_red"),
                ("finishingOption", "rounded_corners"),
                ("packSize", "50"),
                ("quantity", "1"),
            ],
        )
        .await;
    assert_eq!(refused.status, 400);
    assert!(refused.body.contains("not available"), "{}", refused.body);

    let cart = shopper.get("/cart").await;
    let changed = shopper
        .post(
            &cart,
            &format!("/cart/lines/{first}"),
            &[("action", "quantity"), ("quantity", "4")],
        )
        .await;
    assert!(changed.body.contains("£59.96"), "{}", changed.body);
    let renamed = shopper
        .post(
            &changed,
            &format!("/cart/lines/{first}"),
            &[("action", "rename"), ("name", "Team cards")],
        )
        .await;
    assert!(renamed.body.contains("Team cards"));
    let bad = shopper
        .post(
            &renamed,
            &format!("/cart/lines/{first}"),
            &[("action", "quantity"), ("quantity", "1000")],
        )
        .await;
    assert_eq!(bad.status, 400);
    let removed = shopper
        .post(
            &bad,
            &format!("/cart/lines/{second}"),
            &[("action", "remove")],
        )
        .await;
    assert!(!removed.body.contains("Second"), "{}", removed.body);
    assert!(removed.body.contains("£59.96"));

    let confirmation = shopper.check_out().await;
    assert_eq!(confirmation.status, 200, "{}", confirmation.body);
    assert!(confirmation.path.ends_with("/confirmation"));
    let number = confirmation.path.split('/').nth(2).unwrap().to_owned();
    assert!(number.starts_with("PP-"), "{number}");
    assert!(confirmation.body.contains("Team cards") && confirmation.body.contains("E1 6AN"));
    assert!(confirmation.body.contains("awaiting invoice payment"));
    // The cart is empty; the order is in the history and in the operator's list.
    assert!(
        shopper
            .get("/cart")
            .await
            .body
            .contains("Your cart is empty")
    );
    let history = shopper.get("/orders").await;
    assert!(history.body.contains(&number) && history.body.contains("Team cards"));
    let listed = app.cli(&["orders", "list", "--json"]);
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let orders: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(orders[0]["number"], number.as_str());
    assert_eq!(orders[0]["customerEmail"], email.as_str());
    assert_eq!(orders[0]["total"], 5996);
    assert_eq!(orders[0]["payment"]["state"], "awaiting_invoice_payment");
    assert_eq!(orders[0]["lines"][0]["name"], "Team cards");
    assert!(orders[0]["lines"][0]["pack"]["sides"].is_array());
}

/// Gives the test key a trial-partner id.
async fn make_trial_partner(app: &TestApp, partner: &str) -> ApiKey {
    let partner = partner.to_owned();
    keys::change(app.store.as_ref(), &app.key.consumer_key, |key| {
        key.trial_partner = Some(partner.clone());
        Ok(())
    })
    .await
    .unwrap()
}

async fn trial_pack(app: &TestApp, product: &str) -> (String, Value) {
    let body = app
        .post(&[
            ("method", "svc.pack.createTrialPartnerPack"),
            ("product", product),
            ("trialPartner", "partner-7"),
            ("friendlyName", "Free trial cards"),
        ])
        .await
        .ok();
    (
        body["packId"].as_str().unwrap().to_owned(),
        body["dropIns"].clone(),
    )
}

async fn create_trial(
    app: &TestApp,
    product: &str,
    partner: Option<&str>,
) -> crate::helpers::ApiResponse {
    let mut params = vec![
        ("method", "svc.pack.createTrialPartnerPack"),
        ("product", product),
    ];
    params.extend(partner.map(|p| ("trialPartner", p)));
    app.post(&params).await
}

async fn trial_partner_packs_follow_the_partner_rules(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let create = |product, partner| create_trial(&app, product, partner);
    create("businesscard", None)
        .await
        .error("missing_parameter");
    // The key has no trial-partner id yet.
    create("businesscard", Some("partner-7"))
        .await
        .error("trial_partner_mismatch");
    make_trial_partner(&app, "partner-7").await;
    create("businesscard", Some("partner-8"))
        .await
        .error("trial_partner_mismatch");
    let message = create("postcard", Some("partner-7"))
        .await
        .error("not_a_trial_product");
    assert!(message.contains("businesscard, minicard"), "{message}");
    for product in ["businesscard", "minicard"] {
        let body = create(product, Some("partner-7")).await.ok();
        assert_eq!(body["pack"]["productCode"], product);
        assert!(body["dropIns"]["finish"].is_string());
    }
    let without = create_key(&app.store, &[Permission::AddToCart]).await;
    let params = [
        ("method", "svc.pack.createTrialPartnerPack"),
        ("product", "minicard"),
        ("trialPartner", "partner-7"),
    ];
    app.send(
        reqwest::Method::POST,
        &[],
        &params,
        Some(&Credentials::from(&without)),
    )
    .await
    .error("permission_denied");
}

async fn a_customer_orders_one_trial_pack_only(kind: StoreKind) {
    let app = spawn_app(kind).await;
    make_trial_partner(&app, "partner-7").await;
    let shopper = Shopper::new(&app);
    shopper.sign_up(&unique_email()).await;

    let (first, _) = trial_pack(&app, "businesscard").await;
    let body = add_to_cart(&app, &first, "1").await;
    shopper.open_drop_in(&local(&body["dropIns"]["cart"])).await;
    let confirmation = shopper.check_out().await;
    assert!(
        confirmation.path.ends_with("/confirmation"),
        "{}",
        confirmation.body
    );

    // A second trial pack is refused at checkout, clearly.
    let (second, _) = trial_pack(&app, "minicard").await;
    let body = add_to_cart(&app, &second, "1").await;
    shopper
        .open_drop_in(&local(&body["dropIns"]["checkout"]))
        .await;
    let refused = shopper.check_out().await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert!(
        refused.body.contains("already ordered a trial pack"),
        "{}",
        refused.body
    );

    // Non-trial packs still order, once the trial pack is out of the cart.
    let (regular, _) = new_pack(&app, &[("friendlyName", "Regular")]).await;
    let body = add_to_cart(&app, &regular, "2").await;
    let cart = shopper.open_drop_in(&local(&body["dropIns"]["cart"])).await;
    let cart = shopper
        .post(
            &cart,
            &format!("/cart/lines/{second}"),
            &[("action", "remove")],
        )
        .await;
    assert!(cart.body.contains("Regular"));
    let confirmation = shopper.check_out().await;
    assert!(
        confirmation.path.ends_with("/confirmation"),
        "{}",
        confirmation.body
    );

    // A trial pack counts once per order: two copies are refused.
    let other = Shopper::new(&app);
    other.sign_up(&unique_email()).await;
    let (third, _) = trial_pack(&app, "businesscard").await;
    let body = add_to_cart(&app, &third, "2").await;
    other.open_drop_in(&local(&body["dropIns"]["cart"])).await;
    let refused = other.check_out().await;
    assert_eq!(refused.status, 400);
    assert!(refused.body.contains("one trial pack"), "{}", refused.body);
}

async fn two_concurrent_trial_checkouts_place_one_order(kind: StoreKind) {
    let receiver = Receiver::start(0).await;
    let app = spawn_app_with(kind, |config| {
        config.webhooks.allow_hosts = vec!["127.0.0.1".into()];
    })
    .await;
    make_trial_partner(&app, "partner-7").await;
    let callback = format!("{}/webhook", receiver.url);
    keys::set_callback(app.store.as_ref(), &app.key.consumer_key, Some(callback))
        .await
        .unwrap();
    let shopper = Shopper::new(&app);
    let email = unique_email();
    shopper.sign_up(&email).await;
    let body = app
        .post(&[
            ("method", "svc.pack.createTrialPartnerPack"),
            ("product", "businesscard"),
            ("trialPartner", "partner-7"),
            ("trackingId", "trial-1"),
        ])
        .await
        .ok();
    let pack = body["packId"].as_str().unwrap().to_owned();
    let body = add_to_cart(&app, &pack, "1").await;
    shopper.open_drop_in(&local(&body["dropIns"]["cart"])).await;
    // A regular pack too, so that the losers still have something to order.
    let (regular, _) = new_pack(&app, &[]).await;
    let body = add_to_cart(&app, &regular, "1").await;
    shopper.open_drop_in(&local(&body["dropIns"]["cart"])).await;

    let attempts: Vec<_> = (0..4).map(|_| shopper.check_out()).collect();
    let pages = futures_util::future::join_all(attempts).await;
    let placed: Vec<_> = pages
        .iter()
        .filter(|p| p.path.ends_with("/confirmation"))
        .collect();
    assert_eq!(
        placed.len(),
        1,
        "{:?}",
        pages
            .iter()
            .map(|p| (p.status, &p.path))
            .collect::<Vec<_>>()
    );
    let number = placed[0].path.split('/').nth(2).unwrap();
    for page in pages.iter().filter(|p| !p.path.ends_with("/confirmation")) {
        assert!(
            page.body.contains("already ordered a trial pack")
                || page.body.contains("cart is empty"),
            "{}",
            page.body
        );
    }
    let customer = customers::find_by_email(app.store.as_ref(), &email_address(&email))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(customer.orders, [order_number(number)]);
    assert_eq!(customer.trial_order.as_deref(), Some(number));
    let listed = app.cli(&["orders", "list", "--json"]);
    let orders: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(
        orders.as_array().unwrap().len(),
        1,
        "orders that lost were removed"
    );
    // Only the placed order's webhook goes out; the losers' were withdrawn.
    let sent = receiver.wait_for("/webhook", 1, 60).await;
    assert_eq!(sent[0].json()["data"]["orderNumber"], number);
    delivered_webhooks(&app, 1).await;
}

/// The operator's list of webhook messages once `count` of them are delivered (the worker
/// records a delivery just after the receiver has it).
async fn delivered_webhooks(app: &TestApp, count: usize) -> Vec<Value> {
    for _ in 0..600 {
        let listed = app.cli(&["webhooks", "list", "--json"]);
        assert!(
            listed.status.success(),
            "{}",
            String::from_utf8_lossy(&listed.stderr)
        );
        let messages: Vec<Value> = serde_json::from_slice(&listed.stdout).unwrap();
        if messages.iter().filter(|m| m["state"] == "done").count() >= count {
            assert_eq!(messages.len(), count, "{messages:?}");
            return messages;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{count} webhooks were not delivered within a minute");
}

/// Every route that takes a POST, as the router's source declares it (`http/router.rs` and
/// the console's `http/admin/mod.rs`), so that a route added later is in the list: the path
/// of each `.route(...)` call whose handlers include `post(`.
fn post_routes() -> Vec<String> {
    let http = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/http");
    let mut routes = Vec::new();
    for file in ["router.rs", "admin/mod.rs"] {
        let text = std::fs::read_to_string(http.join(file)).unwrap();
        for (at, call) in text.match_indices(".route(") {
            let arguments = &text[at + call.len()..];
            let mut depth = 1;
            let end = arguments
                .char_indices()
                .find_map(|(i, c)| {
                    depth += match c {
                        '(' => 1,
                        ')' => -1,
                        _ => 0,
                    };
                    (depth == 0).then_some(i)
                })
                .expect("a route call closes");
            let arguments = &arguments[..end];
            if arguments.contains("post(") {
                routes.push(arguments.split('"').nth(1).unwrap().to_owned());
            }
        }
    }
    routes
}

/// A test over the router: every POST route, signed in as the customer or the operator whose
/// page it serves, refuses a request without the page's token (403) before it does anything.
/// Forms carry the token as a field; the canvas's JSON saves carry it in `X-CSRF-Token`.
/// (The API endpoint is signed with OAuth instead, and is not a `.route` with `post(` in it.)
async fn every_post_route_of_the_router_checks_its_csrf_token(kind: StoreKind) {
    const JSON_ROUTES: [&str; 2] = ["/web-demo/packs", "/packs/{pack_id}/design"];
    let app = spawn_app(kind).await;
    let routes = post_routes();
    for known in [
        "/checkout",
        "/account/signin",
        "/admin/orders/{number}/move",
    ]
    .into_iter()
    .chain(JSON_ROUTES)
    {
        assert!(routes.iter().any(|r| r == known), "{known}: {routes:?}");
    }
    assert!(routes.len() >= 15, "{routes:?}");

    let customer = Shopper::new(&app);
    customer.sign_up(&unique_email()).await;
    let operator = crate::console::signed_in_operator(&app).await;
    let (pack, _) = new_pack(&app, &[]).await;
    for route in &routes {
        let path = route
            .replace("{pack_id}", &pack)
            .replace("{number}", "PP-1")
            .replace("{token}", "t")
            .replace("{name}", "edit")
            .replace("{line}", "1")
            .replace("{index}", "1");
        assert!(!path.contains('{'), "a parameter to fill in: {route}");
        let browser = if route.starts_with("/admin") {
            &operator
        } else {
            &customer
        };
        let status = if JSON_ROUTES.contains(&route.as_str()) {
            browser
                .client
                .post(format!("{}{path}", browser.address))
                .json(&serde_json::json!({}))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        } else {
            browser.post_raw(&path, &[("quantity", "1")]).await.status
        };
        assert_eq!(status, 403, "POST {route} without its token");
    }
    // Both are still signed in (not sent to sign in again): nothing was done.
    let orders = customer.get("/orders").await;
    assert_eq!((orders.status, orders.path.as_str()), (200, "/orders"));
    let console = operator.get("/admin/orders").await;
    assert_eq!(
        (console.status, console.path.as_str()),
        (200, "/admin/orders")
    );
}

async fn forms_without_the_csrf_token_are_refused(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let shopper = Shopper::new(&app);
    let email = unique_email();
    // No token, and a token from another visitor: both refused before anything happens.
    let attacker = Shopper::new(&app);
    let their_token = attacker
        .get("/account/signup")
        .await
        .hidden("csrf")
        .unwrap();
    shopper.get("/account/signup").await;
    for csrf in [None, Some(their_token.as_str())] {
        let mut fields = vec![
            ("name", "Ann"),
            ("email", email.as_str()),
            ("password", "correct horse battery"),
        ];
        fields.extend(csrf.map(|t| ("csrf", t)));
        let page = shopper.post_raw("/account/signup", &fields).await;
        assert_eq!(page.status, 403, "{}", page.body);
    }
    assert!(
        customers::find_by_email(app.store.as_ref(), &email_address(&email))
            .await
            .unwrap()
            .is_none()
    );

    shopper.sign_up(&email).await;
    let (pack, _) = new_pack(&app, &[]).await;
    let body = add_to_cart(&app, &pack, "1").await;
    shopper.open_drop_in(&local(&body["dropIns"]["cart"])).await;
    for (path, fields) in [
        (
            "/checkout",
            vec![
                ("name", "A"),
                ("line1", "B"),
                ("city", "C"),
                ("postcode", "D"),
                ("country", "E"),
            ],
        ),
        ("/account/signout", vec![]),
        (&*format!("/cart/lines/{pack}"), vec![("action", "remove")]),
        (&*format!("/packs/{pack}/finish"), vec![("quantity", "2")]),
        (
            "/account/signin",
            vec![
                ("email", email.as_str()),
                ("password", "correct horse battery"),
            ],
        ),
    ] {
        let page = shopper.post_raw(path, &fields).await;
        assert_eq!(page.status, 403, "{path}: {}", page.body);
    }
    // The token in the query string, where a link could carry it, does not count: only the
    // form's own field does.
    let token = shopper.get("/cart").await.hidden("csrf").unwrap();
    let in_query = shopper
        .post_raw(&format!("/account/signout?csrf={token}"), &[])
        .await;
    assert_eq!(in_query.status, 403, "{}", in_query.body);
    // A body that is not a form is refused as one, saying what a form is sent as.
    let not_a_form = shopper
        .client
        .post(format!("{}/cart/lines/{pack}", shopper.address))
        .json(&serde_json::json!({"action": "remove"}))
        .send()
        .await
        .unwrap();
    assert_eq!(not_a_form.status(), 415);
    let body = not_a_form.text().await.unwrap();
    assert!(body.contains("application/x-www-form-urlencoded"), "{body}");
    // Still signed in, cart intact, no order.
    let cart = shopper.get("/cart").await;
    assert_eq!(cart.status, 200);
    assert!(cart.body.contains("Go to checkout"));
    let customer = customers::find_by_email(app.store.as_ref(), &email_address(&email))
        .await
        .unwrap()
        .unwrap();
    assert!(customer.orders.is_empty());
}

async fn customers_cannot_reach_each_others_packs_carts_or_orders(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let ann = Shopper::new(&app);
    ann.sign_up(&unique_email()).await;
    let (pack, _) = new_pack(&app, &[("friendlyName", "Ann's private cards")]).await;
    let body = add_to_cart(&app, &pack, "1").await;
    ann.open_drop_in(&local(&body["dropIns"]["cart"])).await;
    let confirmation = ann.check_out().await;
    let number = confirmation.path.split('/').nth(2).unwrap().to_owned();

    let bob = Shopper::new(&app);
    bob.sign_up(&unique_email()).await;
    for path in [
        format!("/orders/{number}"),
        format!("/orders/{number}/confirmation"),
        format!("/orders/{number}/proof/0"),
        format!("/packs/{pack}/sides/0"),
    ] {
        let page = bob.get(&path).await;
        assert_eq!(page.status, 404, "{path}");
        assert!(!page.body.contains("Ann&#39;s private") && !page.body.contains("Ann's private"));
    }
    assert!(!bob.get("/cart").await.body.contains("private cards"));
    assert!(!bob.get("/orders").await.body.contains(&number));
    // Bob cannot change Ann's pack through his cart either.
    let cart = bob.get("/cart").await;
    let page = bob
        .post(
            &cart,
            &format!("/cart/lines/{pack}"),
            &[("action", "rename"), ("name", "Bob's now")],
        )
        .await;
    assert_eq!(page.status, 404);
    assert!(
        ann.get(&format!("/orders/{number}"))
            .await
            .body
            .contains("private cards")
    );
    // Ann's proof is hers; a line the order does not have is not found.
    assert!(
        ann.get(&format!("/orders/{number}/proof/0"))
            .await
            .body
            .starts_with("%PDF-")
    );
    assert_eq!(
        ann.get(&format!("/orders/{number}/proof/1")).await.status,
        404
    );
    // Signed out, nothing is shown.
    let anonymous = Shopper::new(&app);
    assert_eq!(
        anonymous.get(&format!("/orders/{number}")).await.status,
        401
    );
    assert_eq!(anonymous.get("/cart").await.status, 401);
    assert_eq!(
        anonymous
            .get(&format!("/orders/{number}/proof/0"))
            .await
            .status,
        401
    );
}

async fn failed_sign_ins_are_limited(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let email = unique_email();
    Shopper::new(&app).sign_up(&email).await;
    let shopper = Shopper::new(&app);
    for _ in 0..5 {
        let form = shopper.get("/account/signin").await;
        let page = shopper
            .post(
                &form,
                "/account/signin",
                &[("email", &email), ("password", "wrong password")],
            )
            .await;
        assert_eq!(page.status, 401);
        assert!(page.body.contains("not right"));
    }
    // Now even the right password waits.
    let form = shopper.get("/account/signin").await;
    let page = shopper
        .post(
            &form,
            "/account/signin",
            &[("email", &email), ("password", "correct horse battery")],
        )
        .await;
    assert_eq!(page.status, 429, "{}", page.body);
    assert!(page.body.contains("Too many sign-in attempts"));
    // An unknown address says the same as a wrong password.
    let form = shopper.get("/account/signin").await;
    let page = shopper
        .post(
            &form,
            "/account/signin",
            &[
                ("email", "nobody@example.com"),
                ("password", "whatever it is"),
            ],
        )
        .await;
    assert_eq!(page.status, 401);
    assert!(
        page.body
            .contains("The e-mail address or the password is not right.")
    );
}

async fn webhooks_are_retried_with_one_id_and_survive_a_restart(kind: StoreKind) {
    let receiver = Receiver::start(2).await;
    let mut app = spawn_app_with(kind, |config| {
        config.webhooks.allow_hosts = vec!["127.0.0.1".into()];
        config.webhooks.retry_delays = vec![std::time::Duration::from_millis(1500); 3];
    })
    .await;
    let callback = format!("{}/webhook", receiver.url);
    let key = keys::set_callback(app.store.as_ref(), &app.key.consumer_key, Some(callback))
        .await
        .unwrap();
    let secret = key.webhook_secret.clone().unwrap();
    assert!(secret.starts_with("whsec_"));

    let shopper = Shopper::new(&app);
    shopper.sign_up(&unique_email()).await;
    let (pack, _) = new_pack(&app, &[("trackingId", "campaign-42/ann")]).await;
    let (untracked, _) = new_pack(&app, &[]).await;
    for id in [&pack, &untracked] {
        let body = add_to_cart(&app, id, "1").await;
        shopper.open_drop_in(&local(&body["dropIns"]["cart"])).await;
    }
    let confirmation = shopper.check_out().await;
    let number = confirmation.path.split('/').nth(2).unwrap().to_owned();

    // The first attempt fails; the host restarts before the retry.
    receiver.wait_for("/webhook", 1, 60).await;
    app.restart().await;
    let attempts = receiver.wait_for("/webhook", 3, 60).await;
    let id = attempts[0].header("webhook-id").to_owned();
    assert!(id.starts_with("msg_"), "{id}");
    for attempt in &attempts {
        assert_eq!(attempt.header("webhook-id"), id, "one id across retries");
        let timestamp: i64 = attempt.header("webhook-timestamp").parse().unwrap();
        let expected =
            presspack::domain::webhooks::signature(&secret, &id, timestamp, &attempt.body).unwrap();
        assert_eq!(attempt.header("webhook-signature"), expected);
        let event = attempt.json();
        assert_eq!(event["type"], "order.confirmed");
        assert_eq!(event["data"]["trackingId"], "campaign-42/ann");
        assert_eq!(event["data"]["orderNumber"], number.as_str());
        assert_eq!(event["data"]["packId"], pack.as_str());
    }
    // Only the tracked pack has a message; the operator sees it delivered after 3 attempts.
    let messages = delivered_webhooks(&app, 1).await;
    assert_eq!(messages[0]["attempts"], 3);
    assert!(messages[0]["lastError"].as_str().unwrap().contains("500"));
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    assert_eq!(
        receiver.received("/webhook").len(),
        3,
        "nothing after delivery"
    );
}

async fn a_cart_holds_a_bounded_number_of_packs(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let shopper = Shopper::new(&app);
    shopper.sign_up(&unique_email()).await;
    let limit = presspack::domain::cart::MAX_CART_LINES;
    let mut last = String::new();
    for _ in 0..=limit {
        let (pack, _) = new_pack(&app, &[]).await;
        let body = add_to_cart(&app, &pack, "1").await;
        let page = shopper.open_drop_in(&local(&body["dropIns"]["cart"])).await;
        last = format!("{} {}", page.status, page.body);
    }
    assert!(last.starts_with("409"), "{last}");
    assert!(last.contains(&format!("at most {limit} packs")), "{last}");
    let customer = shopper.get("/cart").await;
    assert_eq!(customer.body.matches("class=\"line\"").count(), limit);
}
