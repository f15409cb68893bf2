//! The shop's console at `/admin/` over HTTP: operators made with the CLI sign in with their
//! password and authenticator code and nobody else gets in (customers, forged forms, used
//! codes, removed operators); the order list filters and pages; an order's page shows what
//! production needs and moves the order on; a reprint makes one new order per form. The
//! journey in Chromium is `browser::console`.

use presspack::domain::operators;
use presspack::domain::orders::record::{OPEN, ORDERS, PLACED, state_index};
use presspack::infra::store::INDEXES_BUILT;
use serde_json::Value;

use crate::customers::new_pack;
use crate::every_store;
use crate::helpers::order_number;
use crate::helpers::{StoreKind, TestApp, spawn_app};
use crate::shop::{Page, Shopper};
use crate::warnings::photo_at_172_dpi;

every_store!(
    operators_sign_in_with_password_and_code_and_nobody_else_gets_in,
    the_console_lists_filters_moves_and_reprints_orders,
    the_order_list_pages_through_an_index_that_takes_in_earlier_orders,
    changing_an_operators_credentials_ends_their_sessions,
    the_console_puts_blocked_orders_on_top_and_starts_them_only_when_told,
    operators_keep_notes_customers_never_see_and_export_orders_as_csv,
    a_batch_starts_each_ticked_order_once_and_reports_every_one,
);

pub const OPERATOR_PASSWORD: &str = "operator password 1";

/// Adds operator `name` with the CLI (password on standard input).
pub fn add_operator(app: &TestApp, name: &str) {
    let added = app.cli_input(
        &["operators", "add", name],
        &format!("{OPERATOR_PASSWORD}\n"),
    );
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
}

/// The browser of operator `ann.ops`, added with the CLI and signed in (no authenticator).
pub async fn signed_in_operator(app: &TestApp) -> Shopper {
    add_operator(app, "ann.ops");
    let operator = Shopper::new(app);
    sign_in(&operator, "ann.ops", OPERATOR_PASSWORD, "").await;
    operator
}

/// Sends the console's sign-in form as `operator`'s browser would.
pub async fn sign_in(operator: &Shopper, name: &str, password: &str, code: &str) -> Page {
    let form = operator.get("/admin/signin").await;
    operator
        .post(
            &form,
            "/admin/signin",
            &[("name", name), ("password", password), ("code", code)],
        )
        .await
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

async fn operators_sign_in_with_password_and_code_and_nobody_else_gets_in(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let added = app.cli_input(
        &["operators", "add", "Ann.Ops"],
        &format!("{OPERATOR_PASSWORD}\n"),
    );
    assert!(added.status.success(), "{}", stderr(&added));
    assert_eq!(
        String::from_utf8_lossy(&added.stdout).trim(),
        "operator ann.ops added"
    );
    let again = app.cli_input(&["operators", "add", "ann.ops"], "another password\n");
    assert!(!again.status.success());
    assert!(stderr(&again).contains("there is an operator \"ann.ops\" already"));
    let short = app.cli_input(&["operators", "add", "bob"], "short\n");
    assert!(
        stderr(&short).contains("password: use 8 to 128 characters"),
        "{}",
        stderr(&short)
    );
    let bad_name = app.cli_input(&["operators", "add", "bob smith"], "long enough password\n");
    assert!(
        stderr(&bad_name).contains("name: use 1 to 40 of a-z"),
        "{}",
        stderr(&bad_name)
    );

    // Not signed in: to the sign-in page, which returns to the page asked for.
    let guest = Shopper::new(&app);
    let page = guest.get("/admin/orders?state=placed").await;
    assert_eq!((page.status, page.path.as_str()), (200, "/admin/signin"));
    assert_eq!(
        page.hidden("next").as_deref(),
        Some("/admin/orders?state=placed")
    );
    // A customer's session opens nothing in the console.
    let customer = Shopper::new(&app);
    customer
        .sign_up(&format!("console.{:x}@example.com", rand::random::<u64>()))
        .await;
    assert_eq!(customer.get("/admin/orders").await.path, "/admin/signin");

    let operator = Shopper::new(&app);
    let forged = operator
        .post_raw(
            "/admin/signin",
            &[("name", "ann.ops"), ("password", OPERATOR_PASSWORD)],
        )
        .await;
    assert_eq!(forged.status, 403);
    // A wrong password and an unknown name get the same answer.
    for (name, password) in [
        ("ann.ops", "wrong password!"),
        ("nobody", OPERATOR_PASSWORD),
    ] {
        let page = sign_in(&operator, name, password, "").await;
        assert_eq!(page.status, 401);
        assert!(
            page.body
                .contains("The name, password or code is not right.")
        );
    }
    let page = sign_in(&operator, "ANN.OPS", OPERATOR_PASSWORD, "").await;
    assert_eq!(
        (page.status, page.path.as_str()),
        (200, "/admin/orders"),
        "{}",
        page.body
    );
    assert!(page.body.contains("Sign out ann.ops"));
    // Console forms take the console's token only, not a customer page's.
    let shop_token = operator
        .get("/account/signin")
        .await
        .hidden("csrf")
        .unwrap();
    let refused = operator
        .post_raw("/admin/signout", &[("csrf", &shop_token)])
        .await;
    assert_eq!(refused.status, 403);
    assert_eq!(operator.get("/admin/orders").await.path, "/admin/orders");

    // With an authenticator, the password alone is not enough, and each code works once.
    let totp = app.cli(&["operators", "totp", "ann.ops"]);
    let printed = String::from_utf8_lossy(&totp.stdout).into_owned();
    let secret = printed
        .lines()
        .find_map(|l| l.strip_prefix("authenticator secret: "))
        .unwrap()
        .to_owned();
    assert!(
        printed.contains(&format!(
            "otpauth://totp/Presspack:ann%2Eops?secret={secret}&"
        )),
        "{printed}"
    );
    let second = Shopper::new(&app);
    let page = sign_in(&second, "ann.ops", OPERATOR_PASSWORD, "").await;
    assert_eq!(page.status, 401);
    assert!(
        page.body
            .contains("The name, password or code is not right.")
    );
    let code = operators::current_totp_code(&secret, &app.clock).unwrap();
    let wrong = format!(
        "{:06}",
        (code.parse::<u32>().unwrap() + 500_000) % 1_000_000
    );
    let page = sign_in(&second, "ann.ops", OPERATOR_PASSWORD, &wrong).await;
    assert!(
        page.body
            .contains("The name, password or code is not right."),
        "{}",
        page.body
    );
    let page = sign_in(&second, "ann.ops", OPERATOR_PASSWORD, &code).await;
    assert_eq!(page.path, "/admin/orders", "{}", page.body);
    let third = Shopper::new(&app);
    let page = sign_in(&third, "ann.ops", OPERATOR_PASSWORD, &code).await;
    assert_eq!(page.status, 401);
    assert!(
        page.body
            .contains("The name, password or code is not right.")
    );

    let listed = app.cli(&["operators", "list"]);
    assert_eq!(
        String::from_utf8_lossy(&listed.stdout).trim(),
        "ann.ops  password and authenticator code"
    );
    // Removing an operator ends their sessions at once.
    assert!(
        app.cli(&["operators", "remove", "ann.ops"])
            .status
            .success()
    );
    assert_eq!(second.get("/admin/orders").await.path, "/admin/signin");
    assert_eq!(operator.get("/admin/mail").await.path, "/admin/signin");
}

/// Medium: a console session named only its operator, so it outlived a password change (a
/// stolen password, reset by the admin, kept its session for the rest of the working day)
/// and came back when an operator of the same name was added again.
async fn changing_an_operators_credentials_ends_their_sessions(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let intruder = signed_in_operator(&app).await;
    let owner = Shopper::new(&app);
    sign_in(&owner, "ann.ops", OPERATOR_PASSWORD, "").await;
    assert_eq!(intruder.get("/admin/orders").await.path, "/admin/orders");

    let new_password = "operator password 2";
    let changed = app.cli_input(
        &["operators", "password", "ann.ops"],
        &format!("{new_password}\n"),
    );
    assert!(changed.status.success(), "{}", stderr(&changed));
    assert_eq!(intruder.get("/admin/orders").await.path, "/admin/signin");
    assert_eq!(owner.get("/admin/orders").await.path, "/admin/signin");
    let page = sign_in(&owner, "ann.ops", new_password, "").await;
    assert_eq!(page.path, "/admin/orders", "{}", page.body);

    // An authenticator added, or taken away, ends the sessions begun without it (with it).
    let totp = app.cli(&["operators", "totp", "ann.ops"]);
    assert!(totp.status.success(), "{}", stderr(&totp));
    assert_eq!(owner.get("/admin/orders").await.path, "/admin/signin");
    let secret = String::from_utf8_lossy(&totp.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("authenticator secret: ").map(str::to_owned))
        .unwrap();
    let code = operators::current_totp_code(&secret, &app.clock).unwrap();
    let page = sign_in(&owner, "ann.ops", new_password, &code).await;
    assert_eq!(page.path, "/admin/orders", "{}", page.body);
    assert!(
        app.cli(&["operators", "no-totp", "ann.ops"])
            .status
            .success()
    );
    assert_eq!(owner.get("/admin/orders").await.path, "/admin/signin");

    // Removed and added again under the same name: a session of the first is not theirs.
    sign_in(&owner, "ann.ops", new_password, "").await;
    assert_eq!(owner.get("/admin/orders").await.path, "/admin/orders");
    assert!(
        app.cli(&["operators", "remove", "ann.ops"])
            .status
            .success()
    );
    add_operator(&app, "ann.ops");
    assert_eq!(owner.get("/admin/orders").await.path, "/admin/signin");
    // A session is not ended by anything else: signing in again keeps working.
    sign_in(&owner, "ann.ops", OPERATOR_PASSWORD, "").await;
    assert_eq!(owner.get("/admin/mail").await.path, "/admin/mail");
}

/// A new customer who ordered one pack: the shopper, their address and the order number.
pub async fn customer_with_order(app: &TestApp) -> (Shopper, String, String) {
    let shopper = Shopper::new(app);
    let email = format!("buyer.{:x}@example.com", rand::random::<u64>());
    shopper.sign_up(&email).await;
    let (pack, _) = new_pack(app, &[]).await;
    let number = shopper.order(app, &[&pack]).await;
    (shopper, email, number)
}

/// The `href` of the first link with class `class`.
pub fn link_of_class(page: &Page, class: &str) -> Option<String> {
    let start = page.body.find(&format!("class=\"{class}\" href=\""))?;
    let rest = &page.body[start..];
    let href = rest.split_once("href=\"")?.1.split_once('"')?.0;
    Some(href.replace("&amp;", "&"))
}

pub async fn bytes(shopper: &Shopper, app: &TestApp, path: &str) -> (u16, Vec<u8>) {
    let response = shopper
        .client
        .get(format!("{}{path}", app.address))
        .send()
        .await
        .unwrap();
    (
        response.status().as_u16(),
        response.bytes().await.unwrap().to_vec(),
    )
}

async fn the_console_lists_filters_moves_and_reprints_orders(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let operator = signed_in_operator(&app).await;
    let (buyer, email, first) = customer_with_order(&app).await;
    let (_, _, second) = customer_with_order(&app).await;
    let partner = app.key.consumer_key.clone();
    // The first an hour earlier (both were placed within the same second).
    app.change_stored_order(&first, |order| {
        order["placedAt"] = (order["placedAt"].as_u64().unwrap() - 3600).into();
    })
    .await;

    let count = |page: &Page| {
        let start = page.body.find("id=\"order-count\">").unwrap() + "id=\"order-count\">".len();
        page.body[start..]
            .split_once(' ')
            .unwrap()
            .0
            .parse::<usize>()
            .unwrap()
    };
    // First the work to do, the oldest first; any state, the newest first.
    let to_do = operator.get("/admin/orders").await;
    assert_eq!(count(&to_do), 2);
    assert!(
        to_do.body.find(&first).unwrap() < to_do.body.find(&second).unwrap(),
        "oldest first"
    );
    let all = operator.get("/admin/orders?state=").await;
    assert_eq!(count(&all), 2);
    assert!(
        all.body.find(&second).unwrap() < all.body.find(&first).unwrap(),
        "newest first"
    );
    for (query, expected) in [
        (format!("q={email}"), vec![&first]),
        (format!("q={}", second[3..9].to_lowercase()), vec![&second]),
        ("state=placed".to_owned(), vec![&first, &second]),
        ("state=in_production".to_owned(), vec![]),
        ("from=2000-01-01".to_owned(), vec![&first, &second]),
        ("to=2000-01-01".to_owned(), vec![]),
        (format!("key={partner}"), vec![&first, &second]),
        ("key=someone-else".to_owned(), vec![]),
    ] {
        let page = operator.get(&format!("/admin/orders?{query}")).await;
        assert_eq!(count(&page), expected.len(), "{query}");
        for number in [&first, &second] {
            assert_eq!(
                page.body.contains(number.as_str()),
                expected.contains(&number),
                "{query}"
            );
        }
    }
    let bad = operator.get("/admin/orders?from=yesterday").await;
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("from: a date as YYYY-MM-DD"));

    // The order's page: customer, address, the proof the customer approved, the pack's
    // sides and its press file.
    let path = format!("/admin/orders/{first}");
    let page = operator.get(&path).await;
    let ordered = presspack::domain::orders::load(app.store.as_ref(), &order_number(&first))
        .await
        .unwrap()
        .unwrap();
    let approval = ordered.lines[0].proof_approval.as_ref().expect("approved");
    let approved = format!(
        "Proof approved {}",
        presspack::http::pages::layout::when(approval.approved_at)
    );
    for expected in [
        "Ann Example",
        "1 Print Street",
        "E1 6AN",
        &email,
        "Start production",
        &approved,
        &approval.design,
    ] {
        assert!(page.body.contains(expected), "{expected}");
    }
    let (status, png) = bytes(&operator, &app, &format!("{path}/lines/0/sides/0")).await;
    assert_eq!(status, 200);
    assert!(png.starts_with(b"\x89PNG"));
    // Nobody else sees the sides.
    assert_eq!(
        buyer.get(&format!("{path}/lines/0/sides/0")).await.path,
        "/admin/signin"
    );
    let mut press_link = None;
    for _ in 0..600 {
        press_link = link_of_class(&operator.get(&path).await, "press-link");
        if press_link.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let press_link = press_link.expect("the press file is made within a minute");
    let (status, pdf) = bytes(&Shopper::new(&app), &app, &press_link).await;
    assert_eq!(status, 200);
    assert!(pdf.starts_with(b"%PDF-"));
    let order_page = operator.get(&path).await.body;
    assert!(
        order_page.contains("preflight: ") && order_page.contains("FOGRA39, most ink "),
        "{order_page}"
    );

    // Moves: refused when illegal or malformed, with the problem on the page.
    let move_to = |fields: Vec<(&'static str, &'static str)>| {
        let (operator, path) = (&operator, &path);
        async move {
            let page = operator.get(path).await;
            operator.post(&page, &format!("{path}/move"), &fields).await
        }
    };
    let page = move_to(vec![
        ("move", "ship"),
        ("carrier", "DHL"),
        ("tracking", "1"),
    ])
    .await;
    assert_eq!(page.status, 409);
    assert!(
        page.body
            .contains(&format!("Order {first} is placed; it cannot be shipped"))
    );
    let page = move_to(vec![("move", "start")]).await;
    assert_eq!((page.status, page.path.as_str()), (200, path.as_str()));
    assert!(page.body.contains("In production"));
    let page = move_to(vec![("move", "ship"), ("carrier", " "), ("tracking", "1")]).await;
    assert_eq!(page.status, 400);
    assert!(page.body.contains("Carrier: must not be empty"));
    let page = move_to(vec![("move", "fly")]).await;
    assert!(
        page.body
            .contains("move: one of start, ship, hold or cancel")
    );
    let page = move_to(vec![
        ("move", "ship"),
        ("carrier", "DHL"),
        ("tracking", "JD0146"),
    ])
    .await;
    assert!(
        page.body.contains("Shipped with DHL, tracking number"),
        "{}",
        page.body
    );
    assert!(page.body.contains("shipped by admin:ann.ops"));
    let page = move_to(vec![("move", "cancel")]).await;
    assert_eq!(page.status, 409);
    // No console token, or no operator: nothing moves.
    let forged = operator
        .post_raw(
            &format!("/admin/orders/{second}/move"),
            &[("move", "cancel")],
        )
        .await;
    assert_eq!(forged.status, 403);
    let token = operator.get("/admin/orders").await.hidden("csrf").unwrap();
    let stranger = buyer
        .post_raw(
            &format!("/admin/orders/{second}/move"),
            &[("csrf", &token), ("move", "cancel")],
        )
        .await;
    assert_eq!(stranger.path, "/admin/signin");
    assert!(
        operator
            .get(&format!("/admin/orders/{second}"))
            .await
            .body
            .contains("Start production")
    );

    // A reprint: one new order per form, however often it is sent.
    let page = operator.get(&path).await;
    let key = page.hidden("key").unwrap();
    let fields = [("key", key.as_str())];
    let action = format!("{path}/reprint");
    let (one, two) = tokio::join!(
        operator.post(&page, &action, &fields),
        operator.post(&page, &action, &fields),
    );
    assert_eq!(one.path, two.path);
    let reprint = one.path.strip_prefix("/admin/orders/").unwrap().to_owned();
    assert_ne!(reprint, first);
    assert!(
        one.body
            .contains(&format!("A reprint of <a href=\"/admin/orders/{first}\">"))
    );
    assert!(one.body.contains("£0.00"));
    assert!(one.body.contains("placed by admin:ann.ops"));
    assert!(!one.body.contains("placed by the customer"));
    assert!(buyer.get("/orders").await.body.contains(&reprint));
    assert_eq!(count(&operator.get("/admin/orders?state=").await), 3);
    let bad_key = operator.post(&page, &action, &[("key", "x")]).await;
    assert_eq!(bad_key.status, 400);

    // Low: a cancelled order was reprinted too, as a free, paid, placed order.
    let second_path = format!("/admin/orders/{second}");
    let page = operator.get(&second_path).await;
    let key = page.hidden("key").unwrap();
    let cancelled = operator
        .post(&page, &format!("{second_path}/move"), &[("move", "cancel")])
        .await;
    assert!(cancelled.body.contains("cancelled"), "{}", cancelled.body);
    assert!(!cancelled.body.contains("Reprint as a new order"));
    let refused = operator
        .post(&page, &format!("{second_path}/reprint"), &[("key", &key)])
        .await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert!(refused.body.contains("was cancelled"), "{}", refused.body);
    assert_eq!(count(&operator.get("/admin/orders?state=").await), 3);
}

/// The order numbers on a list page, in the order shown.
fn listed_numbers(page: &Page) -> Vec<String> {
    page.body
        .split("href=\"/admin/orders/PP-")
        .skip(1)
        .map(|rest| format!("PP-{}", rest.split_once('"').unwrap().0))
        .collect()
}

async fn the_order_list_pages_through_an_index_that_takes_in_earlier_orders(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let operator = signed_in_operator(&app).await;
    // One more than a page (25), most placed within the same second.
    let (buyer, _, first) = customer_with_order(&app).await;
    let mut placed = vec![first.clone()];
    for _ in 0..25 {
        let (pack, _) = new_pack(&app, &[]).await;
        placed.push(buyer.order(&app, &[&pack]).await);
    }
    // The store as it was before the index: no entries and no mark that it was built. And a
    // checkout that crashed before its commit left an order record no customer lists.
    let in_placed = state_index("placed").unwrap();
    for number in &placed {
        app.press_job_finished(number).await;
        for index in [PLACED, OPEN, in_placed] {
            app.store.unschedule(index, number).await.unwrap();
        }
    }
    for index in [PLACED, OPEN] {
        assert!(
            app.store
                .delete(INDEXES_BUILT, index.as_str())
                .await
                .unwrap()
        );
    }
    let abandoned = "PP-ABANDNED0000";
    let stored = app.store.get(ORDERS, &first).await.unwrap().unwrap();
    let mut record: Value = serde_json::from_slice(&stored.value).unwrap();
    record["number"] = abandoned.into();
    let value = serde_json::to_vec(&record).unwrap();
    assert!(app.store.insert(ORDERS, abandoned, &value).await.unwrap());

    // The CLI lists every placed order, oldest first (by when, then by number).
    let listed = app.cli(&["orders", "list", "--json"]);
    assert!(listed.status.success());
    let listed: Vec<Value> = serde_json::from_slice(&listed.stdout).unwrap();
    let oldest_first: Vec<(u64, String)> = listed
        .iter()
        .map(|o| {
            (
                o["placedAt"].as_u64().unwrap(),
                o["number"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let mut sorted = oldest_first.clone();
    sorted.sort();
    assert_eq!(oldest_first, sorted);
    let mut numbers: Vec<String> = oldest_first.into_iter().map(|(_, n)| n).collect();
    let mut expected = placed.clone();
    expected.sort();
    let mut found = numbers.clone();
    found.sort();
    assert_eq!(
        found, expected,
        "every placed order once, not the abandoned one"
    );

    // The console shows the work to do oldest first, 25 to a page, as the CLI lists them.
    let to_do = operator.get("/admin/orders").await;
    assert!(
        to_do.body.contains(">26 orders · page 1 of 2<"),
        "{}",
        to_do.body
    );
    assert_eq!(listed_numbers(&to_do), numbers[..25]);
    // Any state: the newest first.
    numbers.reverse();
    let first_page = operator.get("/admin/orders?state=").await;
    assert!(
        first_page.body.contains(">26 orders · page 1 of 2<"),
        "{}",
        first_page.body
    );
    assert_eq!(listed_numbers(&first_page), numbers[..25]);
    assert!(first_page.body.contains("rel=\"next\""));
    let second_page = operator
        .get("/admin/orders?state=&from=&to=&key=&q=&page=2")
        .await;
    assert!(second_page.body.contains(">26 orders · page 2 of 2<"));
    assert_eq!(listed_numbers(&second_page), numbers[25..]);
    assert!(!second_page.body.contains("rel=\"next\""));
    assert!(second_page.body.contains("rel=\"prev\""));
    // A filtered list pages the same way.
    let filtered = operator.get("/admin/orders?state=placed&page=2").await;
    assert_eq!(listed_numbers(&filtered), numbers[25..]);

    // An order placed now is indexed as it is placed: on the first page. (Orders are placed
    // to the second, and the list orders one second's orders by number: the pause makes this
    // one the newest for certain, not one of 27 in the same second.)
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (pack, _) = new_pack(&app, &[]).await;
    let newest = buyer.order(&app, &[&pack]).await;
    let first_page = operator.get("/admin/orders?state=").await;
    assert!(first_page.body.contains(">27 orders · page 1 of 2<"));
    assert!(listed_numbers(&first_page).contains(&newest));

    // An order placed by a host without the index (a rolling upgrade) is missing until the
    // operator rebuilds the indexes. (Its press-file job, which indexes it too, is over.)
    app.press_job_finished(&newest).await;
    app.store.unschedule(PLACED, &newest).await.unwrap();
    let first_page = operator.get("/admin/orders?state=").await;
    assert!(first_page.body.contains(">26 orders · page 1 of 2<"));
    let rebuilt = app.cli(&["indexes", "rebuild"]);
    assert!(
        rebuilt.status.success(),
        "{}",
        String::from_utf8_lossy(&rebuilt.stderr)
    );
    let first_page = operator.get("/admin/orders?state=").await;
    assert!(first_page.body.contains(">27 orders · page 1 of 2<"));
    assert!(listed_numbers(&first_page).contains(&newest));
}

/// A pack whose one photo prints at 172 dpi (see [`photo_at_172_dpi`]); its id.
pub(crate) async fn photo_pack(app: &TestApp, extra: &[(&str, &str)]) -> String {
    let pack = photo_at_172_dpi(app).await;
    let mut params = vec![("pack", pack.as_str())];
    params.extend_from_slice(extra);
    let (id, _) = new_pack(app, &params).await;
    id
}

/// The press-check label shown on a list page's row of order `number`.
fn verdict_in_row(page: &Page, number: &str) -> String {
    let row = page
        .body
        .split("<tr>")
        .find(|row| row.contains(number))
        .unwrap();
    let label = row.split("class=\"verdict verdict-").nth(1).unwrap();
    label.split_once('"').unwrap().0.to_owned()
}

/// Triage: the default view is the work to do, oldest first, with orders whose press file
/// blocks in a table of their own on top; the list filters by press verdict and searches
/// names and tracking ids; a blocked order starts only when the operator says they looked
/// (in the console or the CLI), and the history says who did.
async fn the_console_puts_blocked_orders_on_top_and_starts_them_only_when_told(kind: StoreKind) {
    let mut app = spawn_app(kind).await;
    let mut operator = signed_in_operator(&app).await;
    let buyer = Shopper::new(&app);
    buyer.sign_up("triage@example.com").await;
    let photo = photo_pack(&app, &[("trackingId", "Shop-Track-77")]).await;
    let with_photo = buyer.order(&app, &[&photo]).await;
    app.clock.advance(std::time::Duration::from_secs(3600));
    let (plain, _) = new_pack(&app, &[]).await;
    let without = buyer.order(&app, &[&plain]).await;
    for number in [&with_photo, &without] {
        app.press_job_finished(number).await;
    }
    let to_do = operator.get("/admin/orders").await;
    assert_eq!(
        listed_numbers(&to_do),
        [with_photo.clone(), without.clone()]
    );
    assert_eq!(verdict_in_row(&to_do, &with_photo), "warning");
    // (A card of the starter template has a warning of its own.)
    assert_eq!(verdict_in_row(&to_do, &without), "warning");
    assert!(!to_do.body.contains("Blocked: look at these first"));
    assert!(
        to_do.body.contains(">1 h<"),
        "the older order's age: {}",
        to_do.body
    );

    // The operator asks for sharper pictures; a reprint's press file is made under the new
    // limit and blocks.
    app.config.images.press_block_dpi = 200;
    app.restart().await;
    operator.address.clone_from(&app.address);
    let page = operator.get(&format!("/admin/orders/{with_photo}")).await;
    let key = page.hidden("key").unwrap();
    let reprinted = operator
        .post(
            &page,
            &format!("/admin/orders/{with_photo}/reprint"),
            &[("key", &key)],
        )
        .await;
    let blocked = reprinted
        .path
        .strip_prefix("/admin/orders/")
        .unwrap()
        .to_owned();
    app.press_job_finished(&blocked).await;
    let to_do = operator.get("/admin/orders").await;
    let (top, rest) = to_do.body.split_once("id=\"order-count\"").unwrap();
    assert!(
        top.contains("Blocked: look at these first"),
        "{}",
        to_do.body
    );
    assert!(top.contains(&blocked) && !top.contains(&without), "{top}");
    assert!(rest.contains(&blocked) && rest.contains(&without));
    assert_eq!(verdict_in_row(&to_do, &blocked), "block");

    // Filters: by verdict, by the customer's name and by the partner's tracking id.
    for (query, expected) in [
        ("state=&verdict=block", vec![&blocked]),
        ("state=placed&verdict=block", vec![&blocked]),
        ("verdict=warning", vec![&with_photo, &without]),
        ("verdict=pass", vec![]),
        ("verdict=not_made", vec![]),
        ("q=shop-track-77", vec![&with_photo, &blocked]),
        ("q=ANN%20EXAMPLE", vec![&with_photo, &without, &blocked]),
        ("q=nobody", vec![]),
    ] {
        let page = operator.get(&format!("/admin/orders?{query}")).await;
        let mut listed = listed_numbers(&page);
        listed.sort();
        let mut expected: Vec<String> = expected.into_iter().cloned().collect();
        expected.sort();
        assert_eq!(listed, expected, "{query}");
    }
    let bad = operator.get("/admin/orders?verdict=maybe").await;
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("verdict: one of block"), "{}", bad.body);

    // Starting it asks for the operator's word; without it nothing moves.
    let path = format!("/admin/orders/{blocked}");
    let page = operator.get(&path).await;
    assert!(page.body.contains("id=\"over-block\""), "{}", page.body);
    let refused = operator
        .post(&page, &format!("{path}/move"), &[("move", "start")])
        .await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert!(
        refused.body.contains("press file blocks"),
        "{}",
        refused.body
    );
    assert!(operator.get(&path).await.body.contains("Start production"));
    let started = operator
        .post(
            &page,
            &format!("{path}/move"),
            &[("move", "start"), ("over_block", "yes")],
        )
        .await;
    assert_eq!(started.status, 200, "{}", started.body);
    assert!(
        started
            .body
            .contains("in production by admin:ann.ops<strong class=\"over-block\"> over a press file that blocks"),
        "{}",
        started.body
    );
    let order = presspack::domain::orders::load(app.store.as_ref(), &order_number(&blocked))
        .await
        .unwrap()
        .unwrap();
    let change = order.history.last().unwrap();
    assert!(
        change.over_block && change.by == "admin:ann.ops",
        "{change:?}"
    );
    // Started, it is off the top but still work to do; the state's own list has it.
    let to_do = operator.get("/admin/orders").await;
    assert!(!to_do.body.contains("Blocked: look at these first"));
    assert!(listed_numbers(&to_do).contains(&blocked));
    let in_production = operator.get("/admin/orders?state=in_production").await;
    assert_eq!(listed_numbers(&in_production), [blocked.as_str()]);

    // The CLI asks the same: another reprint blocks, and starts only with --over-block.
    let page = operator.get(&format!("/admin/orders/{with_photo}")).await;
    let key = page.hidden("key").unwrap();
    let again = operator
        .post(
            &page,
            &format!("/admin/orders/{with_photo}/reprint"),
            &[("key", &key)],
        )
        .await;
    let again = again
        .path
        .strip_prefix("/admin/orders/")
        .unwrap()
        .to_owned();
    app.press_job_finished(&again).await;
    let refused = app.cli(&["orders", "start", &again]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("press file blocks"),
        "{}",
        stderr(&refused)
    );
    let started = app.cli(&["orders", "start", &again, "--over-block"]);
    assert!(started.status.success(), "{}", stderr(&started));
    let shown = app.cli(&["orders", "show", &again]);
    let shown: Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(shown["history"][1]["overBlock"], true, "{shown}");
    // Shipped, an order leaves the work to do.
    let page = operator.get(&format!("/admin/orders/{without}")).await;
    operator
        .post(
            &page,
            &format!("/admin/orders/{without}/move"),
            &[("move", "start")],
        )
        .await;
    let page = operator.get(&format!("/admin/orders/{without}")).await;
    let shipped = operator
        .post(
            &page,
            &format!("/admin/orders/{without}/move"),
            &[("move", "ship"), ("carrier", "DHL"), ("tracking", "JD1")],
        )
        .await;
    assert!(
        shipped.body.contains("Shipped with DHL"),
        "{}",
        shipped.body
    );
    assert!(!listed_numbers(&operator.get("/admin/orders").await).contains(&without));
    let shipped = operator.get("/admin/orders?state=shipped").await;
    assert_eq!(listed_numbers(&shipped), [without.as_str()]);
}

/// Notes on an order are the floor's: who wrote what and when, on the order's page, bounded,
/// and never on the customer's pages. The list's orders export as CSV for its filter, every
/// cell quoted and formulas neutralised.
async fn operators_keep_notes_customers_never_see_and_export_orders_as_csv(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let operator = signed_in_operator(&app).await;
    let (buyer, email, first) = customer_with_order(&app).await;
    let formula = "=HYPERLINK(\"http://evil.example\")";
    let (pack, _) = new_pack(&app, &[("friendlyName", formula)]).await;
    // A minute later, so that "newest first" is one order for certain.
    app.clock.advance(std::time::Duration::from_secs(60));
    let second = buyer.order(&app, &[&pack]).await;

    let path = format!("/admin/orders/{first}");
    let page = operator.get(&path).await;
    assert!(page.body.contains("No notes yet."));
    let note = "Call the shop before printing:\nthe logo may change";
    let noted = operator
        .post(&page, &format!("{path}/notes"), &[("note", note)])
        .await;
    assert_eq!((noted.status, noted.path.as_str()), (200, path.as_str()));
    assert!(
        noted
            .body
            .contains("Call the shop before printing:\nthe logo may change")
            && noted.body.contains(" · admin:ann.ops"),
        "{}",
        noted.body
    );
    // Text in another script is text (Arabic runs right to left by itself, no controls).
    let arabic = "اتصل بالمتجر قبل الطباعة";
    let noted = operator
        .post(&page, &format!("{path}/notes"), &[("note", arabic)])
        .await;
    assert_eq!(noted.status, 200);
    assert!(noted.body.contains(arabic), "{}", noted.body);
    for (bad, problem) in [
        ("  ", "Note: write something"),
        ("evil \u{202e}txt", "Note: only text and line breaks"),
    ] {
        let refused = operator
            .post(&page, &format!("{path}/notes"), &[("note", bad)])
            .await;
        assert_eq!(refused.status, 400, "{bad:?}");
        assert!(refused.body.contains(problem), "{}", refused.body);
    }
    let long = "x".repeat(2001);
    let refused = operator
        .post(&page, &format!("{path}/notes"), &[("note", &long)])
        .await;
    assert!(refused.body.contains("at most 2000 characters"));
    // The customer sees none of it, and cannot write one.
    let theirs = buyer.get(&format!("/orders/{first}")).await;
    assert_eq!(theirs.status, 200);
    assert!(!theirs.body.contains("Call the shop"), "{}", theirs.body);
    let token = page.hidden("csrf").unwrap();
    let stranger = buyer
        .post_raw(
            &format!("{path}/notes"),
            &[("csrf", &token), ("note", "mine")],
        )
        .await;
    assert_eq!(stranger.path, "/admin/signin");
    assert!(!operator.get(&path).await.body.contains("mine"));

    // The export: a header, then one row per order of the filter.
    let export = |query: String| {
        let (operator, app) = (&operator, &app);
        async move {
            let response = operator
                .client
                .get(format!("{}/admin/orders.csv?{query}", app.address))
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            let kind = response.headers()[reqwest::header::CONTENT_TYPE].clone();
            (status, kind, response.text().await.unwrap())
        }
    };
    let (status, content_type, csv) = export("state=".into()).await;
    assert_eq!(
        (status, content_type.to_str().unwrap()),
        (200, "text/csv; charset=utf-8")
    );
    let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[0].starts_with("\"order\",\"placed\",\"state\",\"press check\""));
    assert!(
        lines[1].starts_with(&format!("\"{second}\"")),
        "newest first: {csv}"
    );
    assert!(
        lines[2].contains(&email) && lines[2].contains("\"14.99\",\"GBP\""),
        "{csv}"
    );
    // The pack named as a formula is text in a spreadsheet.
    assert!(
        lines[1].contains("\"'=HYPERLINK(\"\"http://evil.example\"\") × 1\""),
        "{csv}"
    );
    assert!(
        !csv.contains("Call the shop"),
        "notes stay out of the export"
    );
    let (_, _, csv) = export(format!("state=&q={second}")).await;
    assert_eq!(
        csv.split("\r\n").filter(|l| !l.is_empty()).count(),
        2,
        "{csv}"
    );
    let (status, _, problem) = export("verdict=maybe".into()).await;
    assert_eq!(status, 400);
    assert!(problem.starts_with("verdict:"), "{problem}");
    let response = buyer
        .client
        .get(format!("{}/admin/orders.csv", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(response.url().path(), "/admin/signin");
}

/// What a batch's report says of order `number`: `Started`, or why not.
fn batch_outcome(report: &Page, number: &str) -> String {
    let row = report
        .body
        .split("<tr>")
        .find(|row| row.contains(number))
        .unwrap();
    let cell = row.split("<td class=\"").nth(2).unwrap();
    let text = cell.split_once('>').unwrap().1;
    text.split_once("</td>").unwrap().0.to_owned()
}

/// Starting production of the orders ticked in the list: each order moves once, whatever
/// two operators do at once, and the report names every order with what became of it.
async fn a_batch_starts_each_ticked_order_once_and_reports_every_one(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let operator = signed_in_operator(&app).await;
    let (buyer, _, first) = customer_with_order(&app).await;
    let mut placed = vec![first];
    for _ in 0..2 {
        let (pack, _) = new_pack(&app, &[]).await;
        placed.push(buyer.order(&app, &[&pack]).await);
    }
    let [a, b, c] = placed.try_into().unwrap();
    let page = operator.get(&format!("/admin/orders/{a}")).await;
    operator
        .post(
            &page,
            &format!("/admin/orders/{a}/move"),
            &[("move", "start")],
        )
        .await;
    let list = operator.get("/admin/orders").await;
    for number in [&b, &c] {
        assert!(
            list.body.contains(&format!("name=\"order-{number}\"")),
            "a box for {number}"
        );
    }
    assert!(
        list.body.contains(&format!("name=\"order-{a}\"")),
        "a box for an order in production too: its press files can be downloaded"
    );

    // Two operators at once, on overlapping orders.
    let tick = |n: &str| format!("order-{n}");
    let (ta, tb, tc) = (tick(&a), tick(&b), tick(&c));
    let one: Vec<(&str, &str)> = vec![
        ("action", "start"),
        (&ta, "yes"),
        (&tb, "yes"),
        (&tc, "yes"),
    ];
    let two: Vec<(&str, &str)> = vec![
        ("action", "start"),
        (&tb, "yes"),
        (&tc, "yes"),
        ("order-PP-NOSUCHORDER", "yes"),
    ];
    let (first_report, second_report) = tokio::join!(
        operator.post(&list, "/admin/orders/batch", &one),
        operator.post(&list, "/admin/orders/batch", &two),
    );
    for report in [&first_report, &second_report] {
        assert_eq!(report.status, 200, "{}", report.body);
    }
    assert!(
        batch_outcome(&first_report, &a)
            .contains("is in production; it cannot be put in production")
    );
    assert!(batch_outcome(&second_report, "PP-NOSUCHORDER").contains("There is no order"));
    for number in [&b, &c] {
        let outcomes = [
            batch_outcome(&first_report, number),
            batch_outcome(&second_report, number),
        ];
        let started = outcomes.iter().filter(|o| *o == "Started").count();
        assert_eq!(started, 1, "{number}: {outcomes:?}");
        let order = presspack::domain::orders::load(app.store.as_ref(), &order_number(number))
            .await
            .unwrap()
            .unwrap();
        let starts = order
            .history
            .iter()
            .filter(|change| change.status.code() == "in_production");
        assert_eq!(starts.count(), 1, "{number}: one audited start");
        assert_eq!(order.history.last().unwrap().by, "admin:ann.ops");
    }
    assert!(first_report.body.contains("id=\"batch-summary\""));

    // Nothing ticked, or more than a batch holds: refused before any work.
    let none = operator
        .post(&list, "/admin/orders/batch", &[("action", "start")])
        .await;
    assert_eq!(none.status, 400);
    assert!(none.body.contains("Tick the orders to start first."));
    let many: Vec<String> = (0..101).map(|i| format!("order-PP-{i:012}")).collect();
    let mut fields = vec![("action", "start")];
    fields.extend(many.iter().map(|name| (name.as_str(), "yes")));
    let too_many = operator.post(&list, "/admin/orders/batch", &fields).await;
    assert_eq!(too_many.status, 400);
    assert!(
        too_many
            .body
            .contains("A batch holds at most 100 orders; this one had 101"),
        "{}",
        too_many.body
    );
    // A customer's session moves nothing.
    let token = list.hidden("csrf").unwrap();
    let stranger = buyer
        .post_raw(
            "/admin/orders/batch",
            &[("csrf", &token), ("action", "start"), (&tc, "yes")],
        )
        .await;
    assert_eq!(stranger.path, "/admin/signin");
}
