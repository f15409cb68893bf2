//! Designing before having an account (issue 58): the `edit` drop-in opens the editor for a
//! visitor who is not signed in; their first save holds the pack for their guest session;
//! signing up hands it to the account. The attacks: a second guest, a planted guest cookie,
//! many guests from one network, a hold that has run out.

use std::time::Duration;

use presspack::domain::ownership::{self, GUESTS};
use serde_json::{Value, json};

use crate::attacks::trusting_local_proxy;
use crate::customers::{local, new_pack};
use crate::every_store;
use crate::helpers::{StoreKind, TestApp, spawn_app, spawn_app_with};
use crate::shop::{Page, Shopper};

every_store!(
    a_guest_designs_at_once_and_signing_up_keeps_the_design,
    a_guest_s_pack_cannot_move_to_another_guest,
    two_guests_saving_at_once_leave_one_holder,
    a_guest_cannot_reach_a_customer_s_pack,
    a_planted_guest_cookie_stops_working_at_the_first_save,
    a_guest_s_hold_ends_when_it_runs_out,
    new_guests_are_limited_per_network,
    a_refused_first_save_leaves_the_guest_their_pack,
    the_demo_keeps_a_design_only_as_asked,
);

/// The demo canvas's Save (`POST /web-demo/packs`) makes a pack only with the page's CSRF
/// token, from a valid business card pack and a business card design, and at most 60 an hour
/// from one network; a customer's is theirs at once.
async fn the_demo_keeps_a_design_only_as_asked(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let output = app.cli_input(
        &[
            "designs",
            "add",
            "--code",
            "posts",
            "--product",
            "postcard",
            "--pack",
            "/dev/stdin",
        ],
        "{}",
    );
    assert!(output.status.success(), "{output:?}");
    let customer = Shopper::new(&app);
    customer.sign_up("demo@example.org").await;
    let page = customer.get("/web-demo/").await;
    let start = |query: &'static str, csrf: Option<String>, body: String| {
        let customer = &customer;
        async move {
            let mut request = customer
                .client
                .post(format!("{}/web-demo/packs{query}", customer.address))
                .header("content-type", "application/json")
                .body(body);
            if let Some(csrf) = csrf {
                request = request.header("x-csrf-token", csrf);
            }
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (
                status,
                response.json::<Value>().await.unwrap_or(Value::Null),
            )
        }
    };
    let csrf = Some(designer_attribute(&page, "data-csrf"));
    let ada = named("Ada").to_string();
    assert_eq!(start("", None, ada.clone()).await.0, 403);
    let (status, refused) = start("", csrf.clone(), "{\"sides\": 3}".into()).await;
    assert_eq!(status, 400);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("pack"),
        "{refused}"
    );
    // A body past the editor's bound (512 KiB) is refused before it is read as a pack.
    let huge = format!("{{\"sides\": [], \"x\": \"{}\"}}", "x".repeat(600 * 1024));
    assert_eq!(start("", csrf.clone(), huge).await.0, 413);
    let (status, refused) = start("?design=posts", csrf.clone(), ada.clone()).await;
    assert_eq!(status, 400);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("design:"),
        "{refused}"
    );
    let (status, kept) = start("", csrf.clone(), ada.clone()).await;
    assert_eq!(status, 200, "{kept}");
    let edit = kept["edit"].as_str().unwrap();
    let pack = edit.split('/').nth(2).unwrap();
    let stored = app.stored_pack(pack).await;
    assert!(stored.record.pack.get().contains("Ada"));
    let owner = stored.record.owner.unwrap();
    assert!(
        !owner.starts_with("guest:"),
        "a customer's own pack: {owner}"
    );
    assert_eq!(customer.get(edit).await.status, 200);
    for _ in 1..60 {
        assert_eq!(start("", csrf.clone(), ada.clone()).await.0, 200);
    }
    assert_eq!(start("", csrf.clone(), ada.clone()).await.0, 429);
}

/// A guest's first save that the server refuses (an invalid pack) has already taken the pack
/// for their new session: the refusal carries the session's cookie, so their next save works.
async fn a_refused_first_save_leaves_the_guest_their_pack(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (pack, drop_ins) = new_pack(&app, &[]).await;
    let guest = Shopper::new(&app);
    let page = guest.get(&local(&drop_ins["edit"])).await;
    let (_, design) = load_design(&guest, &page).await;
    let save_url = design["saveUrl"].as_str().unwrap();
    let invalid = json!({"sides": "not sides"});
    assert_eq!(save(&guest, &page, save_url, &invalid).await, 400);
    assert_eq!(save(&guest, &page, save_url, &named("Ada")).await, 200);
    let stored = app.stored_pack(&pack).await;
    assert!(stored.record.pack.get().contains("Ada"));
}

/// The value of attribute `name` of the editor's element on `page`.
fn designer_attribute(page: &Page, name: &str) -> String {
    let marker = format!("{name}=\"");
    let start = page.body.find(&marker).expect(name) + marker.len();
    let end = page.body[start..].find('"').unwrap();
    page.body[start..start + end].replace("&amp;", "&")
}

/// The editor's design as the page's script loads it: status and JSON.
pub async fn load_design(shopper: &Shopper, page: &Page) -> (u16, Value) {
    let source = designer_attribute(page, "data-source");
    let response = shopper
        .client
        .get(format!("{}{source}", shopper.address))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Saves `pack` as the editor on `page` does (its save URL and CSRF token); the status.
pub async fn save(shopper: &Shopper, page: &Page, save_url: &str, pack: &Value) -> u16 {
    shopper
        .client
        .post(format!("{}{save_url}", shopper.address))
        .header("x-csrf-token", designer_attribute(page, "data-csrf"))
        .header("content-type", "application/json")
        .body(pack.to_string())
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// A pack with the name line filled in with `name`.
pub fn named(name: &str) -> Value {
    json!({"sides": [{"type": "details", "sideNum": 1,
        "templateCode": "businesscard_full_text_landscape",
        "data": [{"type": "textData", "linkId": "back_line_1", "text": name}]}],
        "imageBasket": {"items": []}})
}

async fn owner(app: &TestApp, pack: &str) -> Option<String> {
    app.stored_pack(pack).await.record.owner
}

/// A guest opens the edit link and saves `name` into the pack; the editor's page.
async fn guest_saves(app: &TestApp, guest: &Shopper, edit: &str, name: &str) -> Page {
    let page = guest.get(edit).await;
    assert_eq!(page.status, 200, "{}", page.body);
    let (status, design) = load_design(guest, &page).await;
    assert_eq!(status, 200, "{design}");
    let save_url = design["saveUrl"].as_str().unwrap().to_owned();
    assert_eq!(save(guest, &page, &save_url, &named(name)).await, 200);
    let _ = app;
    page
}

async fn a_guest_designs_at_once_and_signing_up_keeps_the_design(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (pack, drop_ins) = new_pack(&app, &[]).await;
    let edit = local(&drop_ins["edit"]);
    let guest = Shopper::new(&app);

    // The editor at once, no sign-in form; opening it takes nothing.
    let page = guest.get(&edit).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("id=\"designer\""), "{}", page.body);
    assert!(!page.body.contains("action=\"/account/signin\""));
    let (status, design) = load_design(&guest, &page).await;
    assert_eq!(status, 200, "{design}");
    let next = edit
        .replace('/', "%2F")
        .replace('?', "%3F")
        .replace('=', "%3D");
    assert_eq!(
        design["guest"]["signUp"],
        format!("/account/signup?next={next}")
    );
    assert_eq!(owner(&app, &pack).await, None);
    app.get_pack(&pack).await.ok();
    assert!(guest.cookie("pp_guest").is_none());

    // The first save holds the pack for the guest's session: the key loses it as to a
    // customer.
    let save_url = design["saveUrl"].as_str().unwrap();
    assert_eq!(
        save(&guest, &page, save_url, &named("Grace Hopper")).await,
        200
    );
    let held = owner(&app, &pack).await.unwrap();
    assert!(held.starts_with("guest:"), "{held}");
    assert!(guest.cookie("pp_guest").is_some());
    app.get_pack(&pack).await.error("pack_owned_by_customer");
    // A later save keeps it, with the hold extended and the cookie issued afresh.
    let cookie = guest.cookie("pp_guest").unwrap();
    let until = |record: Value| record["expiresAt"].as_u64().unwrap();
    let hold = async || {
        let stored = app.store.get(GUESTS, &held).await.unwrap().unwrap();
        until(serde_json::from_slice(&stored.value).unwrap())
    };
    let first_until = hold().await;
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    assert_eq!(
        save(&guest, &page, save_url, &named("Grace B. Hopper")).await,
        200
    );
    assert!(hold().await > first_until, "the hold is extended");
    assert_ne!(guest.cookie("pp_guest").unwrap(), cookie);
    assert_eq!(owner(&app, &pack).await.as_deref(), Some(held.as_str()));
    // Their thumbnail of it, as a customer's.
    let thumbnail = guest.get(&format!("/packs/{pack}/sides/0?max=100")).await;
    assert_eq!(thumbnail.status, 200);

    // Signing up from the editor's link: the pack is the account's, with what was saved,
    // and the editor opens on it without another click.
    let sign_up = guest.get(design["guest"]["signUp"].as_str().unwrap()).await;
    let back = guest
        .post(
            &sign_up,
            "/account/signup",
            &[
                ("name", "Grace Hopper"),
                (
                    "email",
                    &format!("grace.{:x}@example.com", rand::random::<u64>()),
                ),
                ("password", "correct horse battery"),
                ("next", &edit),
            ],
        )
        .await;
    assert_eq!(back.status, 200, "{}", back.body);
    assert!(back.body.contains("id=\"designer\""), "{}", back.body);
    let customer = owner(&app, &pack).await.unwrap();
    assert!(!customer.starts_with("guest:"), "{customer}");
    assert!(
        guest.cookie("pp_guest").is_none(),
        "the guest session ended"
    );
    let (status, design) = load_design(&guest, &back).await;
    assert_eq!(status, 200);
    assert_eq!(design["saveUrl"], format!("/packs/{pack}/design"));
    assert!(design.get("guest").is_none(), "{design}");
    assert!(design["pack"].to_string().contains("Grace B. Hopper"));
}

async fn a_guest_s_pack_cannot_move_to_another_guest(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (pack, drop_ins) = new_pack(&app, &[]).await;
    let edit = local(&drop_ins["edit"]);
    let first = Shopper::new(&app);
    let page = guest_saves(&app, &first, &edit, "Ada Lovelace").await;
    let held = owner(&app, &pack).await;

    // Another browser with the same link: neither the editor, nor the design, nor a save.
    let second = Shopper::new(&app);
    let refused = second.get(&edit).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(refused.body.contains("another browser"), "{}", refused.body);
    let (status, _) = load_design(&second, &page).await;
    assert_eq!(status, 403);
    let their_page = second.get("/web-demo/").await;
    let save_url = format!(
        "/packs/{pack}/design?token={}",
        edit.split("token=").nth(1).unwrap()
    );
    assert_eq!(
        save(&second, &their_page, &save_url, &named("Mallory")).await,
        403
    );
    // Nor a signed-in customer, until the guest's hold ends.
    let customer = Shopper::new(&app);
    customer
        .sign_up(&format!("c.{:x}@example.com", rand::random::<u64>()))
        .await;
    assert_eq!(customer.get(&edit).await.status, 403);
    assert_eq!(owner(&app, &pack).await, held);
    let stored = app.stored_pack(&pack).await;
    assert!(stored.record.pack.get().contains("Ada Lovelace"));
}

/// Two browsers with the link saving the pack nobody holds, at once: one holds it, the other
/// is refused, and the pack holds the winner's design.
async fn two_guests_saving_at_once_leave_one_holder(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (pack, drop_ins) = new_pack(&app, &[]).await;
    let edit = local(&drop_ins["edit"]);
    let (first, second) = (Shopper::new(&app), Shopper::new(&app));
    let (first_page, second_page) = (first.get(&edit).await, second.get(&edit).await);
    let (_, design) = load_design(&first, &first_page).await;
    let save_url = design["saveUrl"].as_str().unwrap();
    let designs = (named("First"), named("Second"));
    let (a, b) = tokio::join!(
        save(&first, &first_page, save_url, &designs.0),
        save(&second, &second_page, save_url, &designs.1),
    );
    let mut statuses = [a, b];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 403]);
    let (winner, loser) = if a == 200 {
        (&first, "Second")
    } else {
        (&second, "First")
    };
    assert!(winner.cookie("pp_guest").is_some());
    let stored = app.stored_pack(&pack).await;
    assert!(
        !stored.record.pack.get().contains(loser),
        "{}",
        stored.record.pack.get()
    );
    assert!(owner(&app, &pack).await.unwrap().starts_with("guest:"));
}

async fn a_guest_cannot_reach_a_customer_s_pack(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let design = named("Customer's card").to_string();
    let (pack, drop_ins) = new_pack(&app, &[("pack", &design)]).await;
    let edit = local(&drop_ins["edit"]);
    let customer = Shopper::new(&app);
    customer
        .sign_up(&format!("owner.{:x}@example.com", rand::random::<u64>()))
        .await;
    customer.open_drop_in(&edit).await;
    let held = owner(&app, &pack).await.unwrap();
    assert!(!held.starts_with("guest:"), "{held}");
    // The link asks a guest to sign in; the design and saving are refused.
    let guest = Shopper::new(&app);
    let page = guest.get(&edit).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(!page.body.contains("id=\"designer\""), "{}", page.body);
    assert!(page.body.contains("action=\"/account/signin\""));
    let token = edit.split("token=").nth(1).unwrap();
    let address = format!("/packs/{pack}/design?token={token}");
    assert_eq!(guest.get(&address).await.status, 403);
    let their_page = guest.get("/web-demo/").await;
    assert_eq!(
        save(&guest, &their_page, &address, &named("Mallory")).await,
        403
    );
    // Nor does a guest have a cart to order from.
    assert_eq!(guest.get("/cart").await.status, 401);
    assert_eq!(owner(&app, &pack).await.as_deref(), Some(held.as_str()));
    let stored = app.stored_pack(&pack).await;
    assert!(stored.record.pack.get().contains("Customer's card"));
}

async fn a_planted_guest_cookie_stops_working_at_the_first_save(kind: StoreKind) {
    let app = spawn_app(kind).await;
    // The attacker is a guest of their own, and plants their cookie in the victim's browser.
    let attacker = Shopper::new(&app);
    let (_, theirs) = new_pack(&app, &[]).await;
    guest_saves(&app, &attacker, &local(&theirs["edit"]), "Mallory").await;
    let planted = attacker.cookie("pp_guest").unwrap();
    let victim = Shopper::new(&app);
    victim.set_cookie("pp_guest", &planted);
    let (pack, drop_ins) = new_pack(&app, &[]).await;
    guest_saves(&app, &victim, &local(&drop_ins["edit"]), "Victim Name").await;
    let fresh = victim.cookie("pp_guest").unwrap();
    assert_ne!(fresh, planted, "the save issued a new session");
    // The planted cookie opens nothing now, and signing up with it takes nothing.
    let design = attacker.get(&format!("/packs/{pack}/design")).await;
    assert_eq!(design.status, 404, "{}", design.body);
    attacker
        .sign_up(&format!("m.{:x}@example.com", rand::random::<u64>()))
        .await;
    let held = owner(&app, &pack).await.unwrap();
    assert!(
        held.starts_with("guest:"),
        "still the victim's guest: {held}"
    );
    // The victim, signing in, gets it.
    victim
        .sign_up(&format!("v.{:x}@example.com", rand::random::<u64>()))
        .await;
    let mine = victim.get(&format!("/packs/{pack}/design")).await;
    assert_eq!(mine.status, 200, "{}", mine.body);
    assert!(mine.body.contains("Victim Name"));
}

async fn a_guest_s_hold_ends_when_it_runs_out(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (pack, drop_ins) = new_pack(&app, &[]).await;
    let edit = local(&drop_ins["edit"]);
    guest_saves(&app, &Shopper::new(&app), &edit, "Left behind").await;
    let guest = owner(&app, &pack).await.unwrap();
    // Four days later another guest saves another pack; four more days on, the first hold
    // (seven days from its save) has run out and the second has not.
    let four_days = Duration::from_secs(4 * 24 * 60 * 60);
    app.clock.advance(four_days);
    let (_, other) = new_pack(&app, &[]).await;
    guest_saves(
        &app,
        &Shopper::new(&app),
        &local(&other["edit"]),
        "Still held",
    )
    .await;
    let store = app.store.as_ref();
    assert_eq!(
        ownership::sweep_lapsed(store, &app.clock, 100)
            .await
            .unwrap(),
        0,
        "none due yet"
    );
    app.clock.advance(four_days);
    assert_eq!(
        ownership::sweep_lapsed(store, &app.clock, 100)
            .await
            .unwrap(),
        1,
        "the first guest's record, not the second's"
    );
    assert!(store.get(GUESTS, &guest).await.unwrap().is_none());
    // Whoever has the link may design it again, with what the guest saved.
    let next = Shopper::new(&app);
    let page = next.get(&edit).await;
    assert_eq!(page.status, 200, "{}", page.body);
    let (_, design) = load_design(&next, &page).await;
    assert!(design["pack"].to_string().contains("Left behind"));
    guest_saves(&app, &next, &edit, "Picked up").await;
    assert_ne!(owner(&app, &pack).await.unwrap(), guest);
}

/// Every new guest is counted against their network, in the store (so shared by all hosts),
/// before anything is kept.
async fn new_guests_are_limited_per_network(kind: StoreKind) {
    let app = spawn_app_with(kind, trusting_local_proxy).await;
    let network = format!("203.0.113.{}", rand::random::<u8>());
    let mut statuses = Vec::new();
    for _ in 0..31 {
        let (_, drop_ins) = new_pack(&app, &[]).await;
        let guest = Shopper::from_address(&app, &network);
        let page = guest.get(&local(&drop_ins["edit"])).await;
        let (_, design) = load_design(&guest, &page).await;
        let save_url = design["saveUrl"].as_str().unwrap();
        statuses.push(save(&guest, &page, save_url, &named("Someone")).await);
    }
    assert!(statuses[..30].iter().all(|s| *s == 200), "{statuses:?}");
    assert_eq!(statuses[30], 429);
    // Another network is not held up.
    let (_, drop_ins) = new_pack(&app, &[]).await;
    let elsewhere = Shopper::from_address(&app, &format!("198.51.100.{}", rand::random::<u8>()));
    guest_saves(&app, &elsewhere, &local(&drop_ins["edit"]), "Fine").await;
}
