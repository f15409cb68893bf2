//! The attacks of the trust review (issue 20), each performed as an attacker would and
//! asserted to fail: parameters smuggled past a signature, scripts reflected into pages,
//! parallel sign-in guesses and checkout clicks, unsigned uploads as free storage and
//! engine time, slow bodies holding upload permits, and the smaller holes after them.

use presspack::domain::images::IMAGES;
use presspack::domain::orders::record::ORDERS;
use presspack::domain::packs::PACKS;
use std::time::Duration;

use presspack::domain::customers;
use presspack::domain::keys;
use presspack::domain::webhooks::Webhooks;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use crate::customers::{add_to_cart, local, new_pack};
use crate::helpers::{
    ApiResponse, Credentials, MEASURE_CALL, StoreKind, TestApp, http_client, spawn_app,
    spawn_app_with,
};
use crate::helpers::{email_address, order_number};
use crate::images::fixture;
use crate::shop::{ADDRESS, Page, Shopper};
use crate::{every_store, shared_stores};

every_store!(
    a_query_signature_cannot_be_replayed_with_a_multipart_body,
    multipart_parts_never_join_or_replace_signed_parameters,
    invalid_utf8_is_named_in_every_channel,
    api_replies_forbid_sniffing_scripts_and_framing,
    parallel_sign_in_guesses_are_counted_before_checking,
    a_guesser_elsewhere_cannot_lock_the_owner_out,
    a_password_reset_ends_what_earlier_device_cookies_spared,
    ten_clicks_on_place_order_place_one_order,
    a_cart_changed_since_the_checkout_page_is_shown_again,
    checkout_pages_of_one_cart_sent_at_once_place_one_order,
    sign_ups_are_limited_per_network,
    a_design_saved_in_the_same_second_shows_the_checkout_again,
    a_proof_approval_cannot_be_replayed_onto_a_changed_design,
    the_order_page_shows_packs_as_ordered,
    a_corrupt_record_fails_the_checkout_not_a_line,
    corrupt_records_on_drop_ins_are_not_invalid_links,
    calls_without_a_key_are_limited_per_address,
    calls_with_a_wrong_signature_are_limited_per_address,
    unsigned_upload_bytes_are_budgeted_before_the_engine,
    unused_uploads_are_swept_and_used_ones_kept,
    an_upload_during_a_sweep_keeps_its_image,
    image_addresses_cannot_be_derived_from_the_file,
    a_planted_csrf_cookie_is_useless,
    a_cart_drop_in_link_changes_nothing,
    engine_failures_keep_their_internals,
);

shared_stores!(per_address_limits_are_shared_by_hosts);

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn unique_email() -> String {
    format!("ann.{:x}@example.com", rand::random::<u64>())
}

/// A URI whose query string carries `params` and the OAuth protocol parameters signing them
/// (`oauth1-request`), as an access log or a proxy would have recorded it.
fn query_signed_uri(app: &TestApp, http_method: &str, params: &[(&str, &str)]) -> String {
    let credentials = app.credentials();
    let list = oauth1_request::ParameterList::new(params.to_vec());
    let builder = oauth1_request::Builder::<_, _>::new(
        oauth1_request::Credentials::new(credentials.key.as_str(), credentials.secret.as_str()),
        oauth1_request::HMAC_SHA1,
    );
    let signed = builder.to_query(http_method, app.public_endpoint(), &list);
    let signed = signed.replacen(&app.public_endpoint(), &app.endpoint(), 1);
    format!("{signed}&{}", oauth1_request::to_form(&list))
}

async fn multipart(app: &TestApp, uri: &str, parts: &[(&str, &str)]) -> ApiResponse {
    let form = parts
        .iter()
        .fold(reqwest::multipart::Form::new(), |form, (name, value)| {
            form.text(name.to_string(), value.to_string())
        });
    let response = app.client.post(uri).multipart(form).send().await.unwrap();
    ApiResponse::read(response).await
}

async fn pack_count(app: &TestApp) -> usize {
    app.store.list(PACKS).await.unwrap().len()
}

/// Critical: an old query-string signature (from a log), sent again with a multipart body
/// holding a fresh timestamp, a new nonce and another method, must not act as the key.
async fn a_query_signature_cannot_be_replayed_with_a_multipart_body(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let logged = query_signed_uri(
        &app,
        "POST",
        &[("method", "svc.pack.getPack"), ("packId", &"0".repeat(32))],
    );
    // Its one legitimate use.
    let response = ApiResponse::read(app.client.post(&logged).send().await.unwrap()).await;
    response.error("pack_not_found");
    let fresh_timestamp = now().to_string();
    for method in ["svc.pack.createPack", "svc.pack.createTrialPartnerPack"] {
        let nonce = format!("fresh{:x}", rand::random::<u64>());
        let response = multipart(
            &app,
            &logged,
            &[
                ("oauth_timestamp", &fresh_timestamp),
                ("oauth_nonce", &nonce),
                ("method", method),
                ("product", "businesscard"),
                ("trialPartner", "x"),
            ],
        )
        .await;
        let message = response.error("invalid_oauth_parameters");
        assert!(message.starts_with("oauth_"), "{message}");
        // Without the protocol parameters in parts, the other method alone.
        let response = multipart(
            &app,
            &logged,
            &[("method", method), ("product", "businesscard")],
        )
        .await;
        response.error("conflicting_parameters");
        // And with only new parameters (no name repeated): the signed call is refused for
        // its multipart body.
        let response = multipart(&app, &logged, &[("product", "businesscard")]).await;
        assert!(
            response
                .error("unsupported_content_type")
                .contains("multipart"),
            "{}",
            response.body
        );
    }
    assert_eq!(pack_count(&app).await, 0, "nothing was created");
}

async fn multipart_parts_never_join_or_replace_signed_parameters(kind: StoreKind) {
    let app = spawn_app(kind).await;
    // A call signed in the header with its parameters in multipart parts, which no
    // signature covers.
    let message = app
        .post_multipart(&[("method", "svc.pack.createPack"), ("product", "minicard")])
        .await
        .error("unsupported_content_type");
    assert!(message.contains("form-encoded"), "{message}");
    // Protocol parameters never travel in parts, signed or not.
    let response = multipart(
        &app,
        &app.endpoint(),
        &[
            ("method", "svc.text.measure"),
            ("oauth_consumer_key", &app.key.consumer_key),
        ],
    )
    .await;
    assert!(
        response
            .error("invalid_oauth_parameters")
            .starts_with("oauth_consumer_key")
    );
    // A part repeating a query parameter is refused, not preferred.
    let uri = format!("{}?method=svc.image.uploadImage", app.endpoint());
    let response = multipart(&app, &uri, &[("method", "svc.pack.createPack")]).await;
    assert!(
        response
            .error("conflicting_parameters")
            .starts_with("method")
    );
    // Protocol parameters in the query string and the form body at once: one place only.
    let header_free = format!(
        "{}?oauth_nonce=a&oauth_consumer_key={}",
        app.endpoint(),
        app.key.consumer_key
    );
    let response = app
        .client
        .post(&header_free)
        .form(&[("method", "svc.pack.getPack"), ("oauth_nonce", "b")])
        .send()
        .await
        .unwrap();
    let message = ApiResponse::read(response)
        .await
        .error("invalid_oauth_parameters");
    assert!(message.starts_with("oauth_nonce"), "{message}");
    // The unsigned upload still works as MOO clients send it (method as a part).
    let upload = app
        .upload("small.jpg", fixture("jpeg-small.jpg"), &[])
        .await;
    assert!(upload["uploadImageError"].is_null(), "{upload}");
    assert_eq!(pack_count(&app).await, 0);
}

async fn invalid_utf8_is_named_in_every_channel(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let measure = "method=svc.text.measure&fontSize=10";
    // Query string.
    let uri = format!("{}?{measure}&text=%FF%FEab", app.endpoint());
    let response = ApiResponse::read(app.client.get(uri).send().await.unwrap()).await;
    assert!(response.error("invalid_parameter").starts_with("text:"));
    // Form body.
    let response = app
        .client
        .post(app.endpoint())
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("{measure}&text=a%C3"))
        .send()
        .await
        .unwrap();
    let message = ApiResponse::read(response).await.error("invalid_parameter");
    assert!(message.starts_with("text:"), "{message}");
    // A multipart text part of raw bytes.
    let form = reqwest::multipart::Form::new()
        .text("method", "svc.text.measure")
        .part(
            "text",
            reqwest::multipart::Part::bytes(vec![b'a', 0xC3, 0x28]),
        );
    let response = app
        .client
        .post(app.endpoint())
        .multipart(form)
        .send()
        .await
        .unwrap();
    let message = ApiResponse::read(response).await.error("invalid_parameter");
    assert!(message.starts_with("text:"), "{message}");
}

async fn api_replies_forbid_sniffing_scripts_and_framing(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let created = app.create_pack_response("minicard", &[]).await;
    let failed = app
        .get(&[("method", "svc.pack.getPack"), ("packId", "<script>")])
        .await;
    let unsigned = app
        .send(
            reqwest::Method::GET,
            &[("method", "<img src=x onerror=alert(1)>")],
            &[],
            None,
        )
        .await;
    for response in [&created, &failed, &unsigned] {
        assert_eq!(response.headers["x-content-type-options"], "nosniff");
        assert_eq!(
            response.headers["content-security-policy"],
            "default-src 'none'; frame-ancestors 'none'"
        );
    }
    let response = app
        .send(
            reqwest::Method::GET,
            &[
                ("method", "<img src=x onerror=alert(1)>"),
                ("responseContentType", "text/html"),
            ],
            &[],
            None,
        )
        .await;
    assert_eq!(response.content_type, "application/json");
    assert!(
        response
            .error("invalid_parameter")
            .starts_with("responseContentType")
    );
}

/// The sign-in form's page for `shopper`, and a function posting a guess from it.
/// Trusts 127.0.0.1 as a proxy: a test's `X-Forwarded-For` says which network a request is from.
pub(crate) fn trusting_local_proxy(config: &mut presspack::config::Config) {
    config.edge.trusted_proxies = presspack::http::client::TrustedProxies(vec![
        presspack::http::client::Network::parse("127.0.0.1").unwrap(),
    ]);
}

async fn sign_in_form(shopper: &Shopper) -> Page {
    shopper.get("/account/signin").await
}

async fn guess(shopper: &Shopper, form: &Page, email: &str, password: &str) -> Page {
    shopper
        .post(
            form,
            "/account/signin",
            &[("email", email), ("password", password)],
        )
        .await
}

/// Low to medium: the device cookie, which spares a browser the per-address limit, was a MAC
/// of the address alone: whoever signed up with someone's address first (or once knew the
/// password) kept a cookie that went on sparing guesses from any network after the owner
/// took the account back with a password reset.
async fn a_password_reset_ends_what_earlier_device_cookies_spared(kind: StoreKind) {
    let app = spawn_app_with(kind, trusting_local_proxy).await;
    let email = unique_email();
    let squatter = Shopper::from_address(&app, "203.0.113.9");
    squatter.sign_up(&email).await;
    let device = squatter.cookie("pp_device").expect("a device cookie");
    // The owner takes the account back with a reset link.
    let customer = customers::find_by_email(app.store.as_ref(), &email_address(&email))
        .await
        .unwrap()
        .unwrap();
    let holder = presspack::domain::account_links::LinkHolder {
        customer_id: customer.id.clone(),
        email: customer.email.to_string(),
        session_generation: customer.session_generation,
    };
    let hashing = customers::PasswordHashing::new(1);
    customers::reset_password(
        app.store.as_ref(),
        &hashing,
        &holder,
        "the owner's password",
    )
    .await
    .unwrap();
    // Guesses from many networks, each with the old cookie, meet the per-address limit.
    let mut statuses = Vec::new();
    for i in 0..12 {
        let spread = Shopper::from_address(&app, &format!("192.0.2.{}", 10 + i));
        spread.set_cookie("pp_device", &device);
        let form = sign_in_form(&spread).await;
        statuses.push(guess(&spread, &form, &email, "wrong").await.status);
    }
    assert_eq!(statuses[..10], [401; 10]);
    assert_eq!(statuses[10..], [429, 429], "{statuses:?}");
}

/// Medium: 60 guesses at once for one address used to get about 46 passwords checked (the
/// limit was read before and counted after hashing).
async fn parallel_sign_in_guesses_are_counted_before_checking(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let email = unique_email();
    Shopper::new(&app).sign_up(&email).await;
    let attacker = Shopper::new(&app);
    let form = sign_in_form(&attacker).await;
    let guesses: Vec<String> = (0..60)
        .map(|i| {
            if i == 30 {
                "correct horse battery".to_owned()
            } else {
                format!("guess number {i}")
            }
        })
        .collect();
    let pages = futures_util::future::join_all(
        guesses
            .iter()
            .map(|password| guess(&attacker, &form, &email, password)),
    )
    .await;
    let checked = pages.iter().filter(|p| p.status != 429).count();
    assert!(
        checked <= 5,
        "{checked} guesses were checked: {:?}",
        pages.iter().map(|p| p.status).collect::<Vec<_>>()
    );
    assert!(
        pages
            .iter()
            .filter(|p| p.status == 429)
            .all(|p| p.body.contains("Too many sign-in attempts"))
    );
}

/// Medium: five wrong guesses by anyone used to lock the owner out for 15 minutes.
async fn a_guesser_elsewhere_cannot_lock_the_owner_out(kind: StoreKind) {
    let app = spawn_app_with(kind, trusting_local_proxy).await;
    let email = unique_email();
    let owner = Shopper::from_address(&app, "198.51.100.7");
    owner.sign_up(&email).await;
    owner
        .post(&owner.get("/cart").await, "/account/signout", &[])
        .await;

    // A guesser at another address is stopped after five tries...
    let attacker = Shopper::from_address(&app, "203.0.113.9");
    let form = sign_in_form(&attacker).await;
    let mut statuses = Vec::new();
    for i in 0..7 {
        statuses.push(
            guess(&attacker, &form, &email, &format!("wrong {i}"))
                .await
                .status,
        );
    }
    assert_eq!(statuses, [401, 401, 401, 401, 401, 429, 429]);
    // ...and the owner, elsewhere, signs in at once.
    let form = sign_in_form(&owner).await;
    let page = guess(&owner, &form, &email, "correct horse battery").await;
    assert_eq!(
        (page.status, page.path.as_str()),
        (200, "/cart"),
        "{}",
        page.body
    );
    owner.post(&page, "/account/signout", &[]).await;

    // Guesses spread over many addresses slow every browser that never signed in to the
    // address for a short while only...
    for i in 0..12 {
        let spread = Shopper::from_address(&app, &format!("192.0.2.{}", 10 + i));
        let form = sign_in_form(&spread).await;
        guess(&spread, &form, &email, "wrong").await;
    }
    let newcomer = Shopper::from_address(&app, "198.51.100.99");
    let form = sign_in_form(&newcomer).await;
    let page = guess(&newcomer, &form, &email, "correct horse battery").await;
    assert_eq!(page.status, 429, "{}", page.body);
    let seconds: u64 = page
        .body
        .split("Please wait ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no wait in seconds: {}", page.body));
    assert!(seconds <= 60, "{seconds}");
    // ...while the owner's browser, which signed in before, is not held up at all.
    let form = sign_in_form(&owner).await;
    let page = guess(&owner, &form, &email, "correct horse battery").await;
    assert_eq!(
        (page.status, page.path.as_str()),
        (200, "/cart"),
        "{}",
        page.body
    );
}

/// A signed-in shopper with `count` packs in their cart (each with a tracking id, so each
/// order queues a webhook to the key's callback URL).
pub(crate) async fn shopper_with_cart(
    app: &TestApp,
    count: usize,
) -> (Shopper, String, Vec<String>) {
    keys::set_callback(
        app.store.as_ref(),
        &app.key.consumer_key,
        Some("https://partner.example/orders".into()),
    )
    .await
    .unwrap();
    let shopper = Shopper::new(app);
    let email = unique_email();
    shopper.sign_up(&email).await;
    let mut packs = Vec::new();
    for i in 0..count {
        let tracking = format!("track-{i}");
        let (pack, _) = new_pack(app, &[("trackingId", &tracking)]).await;
        let body = add_to_cart(app, &pack, "1").await;
        shopper.open_drop_in(&local(&body["dropIns"]["cart"])).await;
        packs.push(pack);
    }
    (shopper, email, packs)
}

/// Posts the checkout form shown on `form` (its hidden fields) with an address, every proof
/// approved.
pub(crate) async fn place_order(shopper: &Shopper, form: &Page) -> Page {
    assert!(form.hidden("checkout").is_some(), "a checkout form");
    shopper.place_order(form, &form.approvals()).await
}

/// The number of the customer's one order (there must be exactly one).
pub(crate) async fn the_one_order(app: &TestApp, email: &str) -> String {
    let customer = customers::find_by_email(app.store.as_ref(), &email_address(email))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(customer.orders.len(), 1, "{:?}", customer.orders);
    customer.orders[0].to_string()
}

/// Medium: ten parallel "Place order" clicks on one cart made six orders and six webhooks.
async fn ten_clicks_on_place_order_place_one_order(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (shopper, email, _) = shopper_with_cart(&app, 2).await;
    let form = shopper.get("/checkout").await;
    let pages = futures_util::future::join_all((0..10).map(|_| place_order(&shopper, &form))).await;
    let number = the_one_order(&app, &email).await;
    let confirmation = format!("/orders/{number}/confirmation");
    for page in &pages {
        assert_eq!(
            (page.status, page.path.as_str()),
            (200, confirmation.as_str())
        );
    }
    let webhooks = presspack::infra::queue::list::<Webhooks>(app.store.as_ref())
        .await
        .unwrap();
    assert_eq!(
        webhooks.len(),
        2,
        "one webhook per tracked pack of one order"
    );
    assert!(webhooks.iter().all(|w| *w.payload.order_number == *number));
    // The form's key is spent: sending it again later shows the same order.
    let again = place_order(&shopper, &form).await;
    assert_eq!(again.path, confirmation);
}

async fn a_cart_changed_since_the_checkout_page_is_shown_again(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (shopper, email, _) = shopper_with_cart(&app, 1).await;
    let form = shopper.get("/checkout").await;
    // Another tab adds a pack.
    let (pack, _) = new_pack(&app, &[]).await;
    let body = add_to_cart(&app, &pack, "1").await;
    shopper.open_drop_in(&local(&body["dropIns"]["cart"])).await;
    refused_as_changed_then_placed(&app, &shopper, &email, &form).await;
}

/// Sends the checkout `form` for a cart that changed since: refused, nothing ordered; the
/// page shown again places the order as it shows it (its confirmation).
async fn refused_as_changed_then_placed(
    app: &TestApp,
    shopper: &Shopper,
    email: &str,
    form: &Page,
) -> Page {
    let page = place_order(shopper, form).await;
    assert_eq!(page.status, 409, "{}", page.body);
    assert!(page.body.contains("Your cart changed"), "{}", page.body);
    let customer = customers::find_by_email(app.store.as_ref(), &email_address(email))
        .await
        .unwrap()
        .unwrap();
    assert!(customer.orders.is_empty());
    let page = place_order(shopper, &page).await;
    assert!(page.path.ends_with("/confirmation"), "{}", page.body);
    page
}

/// Changes a pack's stored record (JSON) behind the server's back, its `updatedAt` kept.
async fn edit_stored_pack(app: &TestApp, pack: &str, change: impl FnOnce(&mut Value)) {
    let stored = app.store.get(PACKS, pack).await.unwrap().unwrap();
    let mut record: Value = serde_json::from_slice(&stored.value).unwrap();
    change(&mut record);
    replace_stored_pack(app, pack, &serde_json::to_vec(&record).unwrap()).await;
}

async fn replace_stored_pack(app: &TestApp, pack: &str, value: &[u8]) {
    let stored = app.store.get(PACKS, pack).await.unwrap().unwrap();
    assert!(
        app.store
            .replace(PACKS, pack, value, stored.revision)
            .await
            .unwrap()
    );
}

/// Low to medium: sign-ups were not counted at all, so one network could make accounts
/// without end, each a password hash on the small pool sign-ins share and a confirmation
/// mail (with a name of its choosing) to any address.
async fn sign_ups_are_limited_per_network(kind: StoreKind) {
    let app = spawn_app_with(kind, trusting_local_proxy).await;
    for _ in 0..20 {
        Shopper::from_address(&app, "203.0.113.5")
            .sign_up(&unique_email())
            .await;
    }
    let flooder = Shopper::from_address(&app, "203.0.113.5");
    let form = flooder.get("/account/signup").await;
    let email = unique_email();
    let refused = flooder
        .post(
            &form,
            "/account/signup",
            &[
                ("name", "Ann"),
                ("email", &email),
                ("password", "correct horse battery"),
            ],
        )
        .await;
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert!(
        refused.body.contains("Too many accounts"),
        "{}",
        refused.body
    );
    assert!(
        customers::find_by_email(app.store.as_ref(), &email_address(&email))
            .await
            .unwrap()
            .is_none()
    );
    // Another network is not held back.
    Shopper::from_address(&app, "198.51.100.7")
        .sign_up(&unique_email())
        .await;
}

/// Medium: checkout pages of one cart from two tabs (or one come back from the browser's
/// history, with a new form key) sent at once placed an order each: two orders, two
/// invoices, two sets of press files for one cart.
async fn checkout_pages_of_one_cart_sent_at_once_place_one_order(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (shopper, email, _) = shopper_with_cart(&app, 1).await;
    let mut forms = Vec::new();
    for _ in 0..8 {
        forms.push(shopper.get("/checkout").await);
    }
    let pages =
        futures_util::future::join_all(forms.iter().map(|form| place_order(&shopper, form))).await;
    let confirmation = format!("/orders/{}/confirmation", the_one_order(&app, &email).await);
    // The others find the cart changed (or, sent later, empty).
    for page in pages.iter().filter(|p| p.path != confirmation) {
        let told = match page.status {
            409 => page.body.contains("Your cart changed"),
            400 => page.body.contains("Your cart is empty"),
            _ => false,
        };
        assert!(told, "{}: {}", page.status, page.body);
    }
    let listed = app.cli(&["orders", "list", "--json"]);
    let orders: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(
        orders.as_array().unwrap().len(),
        1,
        "the losers' orders are removed"
    );
    let webhooks = presspack::infra::queue::list::<Webhooks>(app.store.as_ref())
        .await
        .unwrap();
    assert_eq!(webhooks.len(), 1, "the losers' webhooks are withdrawn");
}

/// Low: the order page's pictures drew each pack as it is now, so a design changed after
/// ordering showed as if it had been ordered (proofs and press files use the ordered copy).
async fn the_order_page_shows_packs_as_ordered(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (shopper, _, packs) = shopper_with_cart(&app, 1).await;
    let confirmation = place_order(&shopper, &shopper.get("/checkout").await).await;
    let number = confirmation.path.split('/').nth(2).unwrap().to_owned();
    let picture = format!("/orders/{number}/lines/0/sides/0");
    let page = shopper.get(&format!("/orders/{number}")).await;
    assert!(
        page.body.contains(&format!("src=\"{picture}\"")),
        "{}",
        page.body
    );
    let fetch = |who: &Shopper, path: String| {
        let request = who.client.get(format!("{}{path}", app.address));
        async move {
            let response = request.send().await.unwrap();
            (response.status().as_u16(), response.bytes().await.unwrap())
        }
    };
    let (status, ordered) = fetch(&shopper, picture.clone()).await;
    assert_eq!(status, 200);
    assert!(ordered.starts_with(b"\x89PNG"));
    // The pack loses its sides after the order: the order page still shows what was ordered.
    edit_stored_pack(&app, &packs[0], |record| {
        record["pack"]["sides"] = json!([])
    })
    .await;
    let live = fetch(&shopper, format!("/packs/{}/sides/0?max=300", packs[0])).await;
    assert_eq!(live.0, 404);
    assert_eq!(fetch(&shopper, picture.clone()).await, (200, ordered));
    // Nobody else sees it.
    let stranger = Shopper::new(&app);
    stranger.sign_up(&unique_email()).await;
    assert_eq!(fetch(&stranger, picture).await.0, 404);
}

/// Low: the checkout page's cart state held the packs' `updated_at`, in whole seconds, so a
/// design saved in the same second as the page was shown was ordered unseen.
async fn a_design_saved_in_the_same_second_shows_the_checkout_again(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (shopper, email, packs) = shopper_with_cart(&app, 1).await;
    let form = shopper.get("/checkout").await;
    // The design changes, its `updated_at` does not (saved within the same second).
    edit_stored_pack(&app, &packs[0], |record| {
        record["pack"]["savedInAnotherTab"] = json!(true);
    })
    .await;
    // Refused; the page shown again orders the design as it is now.
    let page = refused_as_changed_then_placed(&app, &shopper, &email, &form).await;
    let number = page.path.split('/').nth(2).unwrap();
    let order = app.store.get(ORDERS, number).await.unwrap().unwrap();
    let order: Value = serde_json::from_slice(&order.value).unwrap();
    assert_eq!(order["lines"][0]["pack"]["savedInAnotherTab"], true);
}

/// The `<input>` of a page's approval box for `field`.
fn approval_box<'p>(page: &'p Page, field: &str) -> &'p str {
    let at = page.body.find(&format!("name=\"{field}\"")).expect(field);
    let start = page.body[..at].rfind('<').unwrap();
    let end = at + page.body[at..].find('>').unwrap();
    &page.body[start..=end]
}

/// Issue 58: an order needs every line's proof approved, and an approval names the design
/// its proof showed. An approval of the design as it was (a checkout page left open while
/// the design changed in another tab, or an old approval sent on purpose with a fresh form)
/// does not approve the design as it is.
async fn a_proof_approval_cannot_be_replayed_onto_a_changed_design(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (shopper, email, packs) = shopper_with_cart(&app, 1).await;
    let no_orders = || async {
        let customer = customers::find_by_email(app.store.as_ref(), &email_address(&email)).await;
        customer.unwrap().unwrap().orders.is_empty()
    };
    let first = shopper.get("/checkout").await;
    let approved_before = first.approvals();
    assert_eq!(approved_before.len(), 1, "{}", first.body);
    let field = approved_before[0].0.clone();
    assert_eq!(field, format!("approve-{}", packs[0]));
    assert!(!approval_box(&first, &field).contains("checked"));

    // Not ticked: refused, saying what to do.
    let page = shopper.place_order(&first, &[]).await;
    assert_eq!(page.status, 400, "{}", page.body);
    assert!(page.body.contains("I approve this proof"), "{}", page.body);
    assert!(no_orders().await);

    // Ticked, but the address is incomplete: the page comes back with the box still ticked.
    let mut fields = vec![
        ("checkout", first.hidden("checkout").unwrap()),
        ("cart", first.hidden("cart").unwrap()),
    ];
    fields.push((field.as_str(), approved_before[0].1.clone()));
    let borrowed: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let page = shopper.post(&first, "/checkout", &borrowed).await;
    assert_eq!(page.status, 400, "{}", page.body);
    assert!(
        approval_box(&page, &field).contains("checked"),
        "{}",
        page.body
    );

    // The design changes; a fresh checkout form with the old approval is refused.
    edit_stored_pack(&app, &packs[0], |record| {
        record["pack"]["savedInAnotherTab"] = json!(true);
    })
    .await;
    let second = shopper.get("/checkout").await;
    let approved_now = second.approvals();
    assert_eq!(approved_now.len(), 1);
    assert_ne!(approved_now[0].1, approved_before[0].1, "the design hash");
    let page = shopper.place_order(&second, &approved_before).await;
    assert_eq!(page.status, 409, "{}", page.body);
    assert!(
        page.body.contains("changed after its proof was shown"),
        "{}",
        page.body
    );
    assert!(
        !approval_box(&page, &field).contains("checked"),
        "{}",
        page.body
    );
    assert!(no_orders().await);

    // Approving the design as it is places the order, which keeps which proof and when.
    let page = shopper.place_order(&second, &approved_now).await;
    assert!(page.path.ends_with("/confirmation"), "{}", page.body);
    let number = the_one_order(&app, &email).await;
    let order = presspack::domain::orders::load(app.store.as_ref(), &order_number(&number))
        .await
        .unwrap()
        .unwrap();
    let approval = order.lines[0].proof_approval.as_ref().expect("approved");
    assert_eq!(approval.design, approved_now[0].1);
    assert!(approval.approved_at.abs_diff(now()) < 60);
    // The customer's order page says so.
    let shown = shopper.get(&format!("/orders/{number}")).await;
    assert!(shown.body.contains(&approval.design), "{}", shown.body);
}

/// Replaces a pack's stored record with bytes that are not a pack: the store answers, but
/// what it answers cannot be read. A corrupt record is the server's fault, not a passing
/// outage: pages say something went wrong (500), the API `internal_error`; nothing is
/// placed or dropped either way (an outage: `a_store_outage_says_try_again`).
async fn break_pack(app: &TestApp, pack: &str) {
    replace_stored_pack(app, pack, b"\xff not a pack").await;
}

/// Medium: a store failure while pricing the cart dropped the line and placed the rest.
async fn a_corrupt_record_fails_the_checkout_not_a_line(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (shopper, email, packs) = shopper_with_cart(&app, 2).await;
    let form = shopper.get("/checkout").await;
    break_pack(&app, &packs[1]).await;
    let page = place_order(&shopper, &form).await;
    assert_eq!(page.status, 500, "{}", page.body);
    assert!(page.body.contains("Something went wrong"), "{}", page.body);
    let page = shopper.get("/checkout").await;
    assert_eq!(page.status, 500, "{}", page.body);
    let page = shopper.get("/cart").await;
    assert_eq!(page.status, 500, "{}", page.body);
    let customer = customers::find_by_email(app.store.as_ref(), &email_address(&email))
        .await
        .unwrap()
        .unwrap();
    assert!(customer.orders.is_empty(), "no partial order");
    assert_eq!(customer.cart.len(), 2, "no line dropped");
}

async fn corrupt_records_on_drop_ins_are_not_invalid_links(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (pack, drop_ins) = new_pack(&app, &[]).await;
    let shopper = Shopper::new(&app);
    shopper.sign_up(&unique_email()).await;
    break_pack(&app, &pack).await;
    for name in ["edit", "finish", "preview", "cart"] {
        let url = drop_ins
            .get(name)
            .map_or_else(|| local(&drop_ins["edit"]).replace("/edit", "/cart"), local);
        let page = shopper.get(&url).await;
        assert_eq!(page.status, 500, "{name}: {}", page.body);
        assert!(page.body.contains("Something went wrong"), "{}", page.body);
        assert!(!page.body.contains("not valid"), "{}", page.body);
    }
    let page = shopper.get(&format!("/packs/{pack}/sides/0")).await;
    assert_eq!(page.status, 500);
    app.get_pack(&pack).await.error("internal_error");
    // A pack that does not exist is still "not valid".
    let page = shopper
        .get(&format!(
            "/dropins/{}/edit?token={}",
            "0".repeat(32),
            "0".repeat(32)
        ))
        .await;
    assert_eq!(page.status, 404);
}

/// A store that stops answering is a passing outage: the API says `store_unavailable`, a page
/// says to try again (503), and once the store answers again the service goes on without a
/// restart. Redis refuses every command of the server's own ACL user while it is "down".
#[tokio::test]
async fn a_store_outage_says_try_again() {
    let user = format!("presspack-test-{:016x}", rand::random::<u64>());
    let admin = redis::Client::open(crate::helpers::redis_url()).unwrap();
    let mut admin = admin.get_multiplexed_async_connection().await.unwrap();
    let acl = |rules: &[&str]| {
        let mut command = redis::cmd("ACL");
        command.arg("SETUSER").arg(&user);
        for rule in rules {
            command.arg(*rule);
        }
        command
    };
    let _: () = acl(&["on", ">outage-test", "~*", "&*", "+@all"])
        .query_async(&mut admin)
        .await
        .unwrap();
    let url = crate::helpers::redis_url().replacen(
        "redis://",
        &format!("redis://{user}:outage-test@"),
        1,
    );
    let app = spawn_app_with(StoreKind::Redis, |config| {
        config.store.redis_url = Some(url)
    })
    .await;
    let (pack, drop_ins) = new_pack(&app, &[]).await;
    let shopper = Shopper::new(&app);
    shopper.sign_up(&unique_email()).await;

    let _: () = acl(&["-@all"]).query_async(&mut admin).await.unwrap();
    let message = app.get_pack(&pack).await.error("store_unavailable");
    assert!(message.contains("try again"), "{message}");
    let page = shopper.get(&local(&drop_ins["edit"])).await;
    assert_eq!(page.status, 503, "{}", page.body);
    assert!(page.body.contains("try again"), "{}", page.body);
    assert!(!page.body.contains("not valid"), "{}", page.body);
    let page = shopper.get("/cart").await;
    assert_eq!(page.status, 503, "{}", page.body);
    let metrics = app.metrics().await;
    assert!(
        metrics.lines().any(|line| {
            line.strip_prefix("presspack_store_errors_total ")
                .is_some_and(|count| count != "0")
        }),
        "{metrics}"
    );
    // An outage is the server's fault: what a 5xx alert watches.
    assert!(
        metrics.contains("presspack_server_faults_total{endpoint=\"svc.pack.getPack\"} 1"),
        "{metrics}"
    );

    let _: () = acl(&["+@all"]).query_async(&mut admin).await.unwrap();
    app.get_pack(&pack).await.ok();
    let page = shopper.get(&local(&drop_ins["edit"])).await;
    assert_eq!(page.status, 200, "{}", page.body);
    drop(app);
    let _: () = redis::cmd("ACL")
        .arg("DELUSER")
        .arg(&user)
        .query_async(&mut admin)
        .await
        .unwrap();
}

/// Medium: without a key, uploads and engine time were free.
async fn calls_without_a_key_are_limited_per_address(kind: StoreKind) {
    let app = spawn_app_with(kind, |config| {
        config.unsigned_limits.calls_per_minute = 5;
    })
    .await;
    for remaining in (0..5).rev() {
        let response = app
            .send(reqwest::Method::GET, &MEASURE_CALL, &[], None)
            .await;
        response.ok();
        assert_eq!(response.headers["ratelimit-limit"], "5");
        assert_eq!(
            response.headers["ratelimit-remaining"],
            remaining.to_string().as_str()
        );
    }
    let response = app
        .send(reqwest::Method::GET, &MEASURE_CALL, &[], None)
        .await;
    let message = response.error("rate_limited");
    assert!(message.contains("this address"), "{message}");
    assert!(response.headers.contains_key("retry-after"));
    // Uploads count too, before their body is looked at.
    app.upload_response("a.jpg", fixture("jpeg-small.jpg"), &[])
        .await
        .error("rate_limited");
    // A key's calls count against the key, not the address.
    app.get(&[("method", "svc.pack.getPack"), ("packId", "x")])
        .await
        .error("pack_not_found");
    let signed = app.get(&MEASURE_CALL).await;
    signed.ok();
    assert_eq!(signed.headers["ratelimit-limit"], "1200");
}

/// Medium: a call with a wrong signature or an unknown key was counted against neither a key
/// nor its address, so guesses (each a nonce claim and an HMAC over up to 2 MB) were free.
async fn calls_with_a_wrong_signature_are_limited_per_address(kind: StoreKind) {
    let app = spawn_app_with(kind, |config| {
        config.unsigned_limits.calls_per_minute = 5;
    })
    .await;
    let wrong = Credentials {
        key: app.key.consumer_key.clone(),
        secret: "wrong".into(),
    };
    let unknown = Credentials {
        key: "0".repeat(32),
        secret: "x".into(),
    };
    let params = [("method", "svc.pack.getPack"), ("packId", "x")];
    for (remaining, signer) in (0..5).rev().zip([&wrong, &unknown].into_iter().cycle()) {
        let response = app
            .send(reqwest::Method::POST, &[], &params, Some(signer))
            .await;
        response.error("invalid_signature");
        assert_eq!(
            response.headers["ratelimit-remaining"],
            remaining.to_string().as_str()
        );
    }
    let response = app
        .send(reqwest::Method::POST, &[], &params, Some(&wrong))
        .await;
    let message = response.error("rate_limited");
    assert!(message.contains("this address"), "{message}");
    // The key itself is not held to the address's limit once it signs right.
    app.get(&params).await.error("pack_not_found");
}

async fn per_address_limits_are_shared_by_hosts(kind: StoreKind) {
    let app = spawn_app_with(kind, |config| {
        config.unsigned_limits.calls_per_minute = 3;
    })
    .await;
    let second = app.second_host().await;
    for host in [&app, &second, &app] {
        host.send(reqwest::Method::GET, &MEASURE_CALL, &[], None)
            .await
            .ok();
    }
    second
        .send(reqwest::Method::GET, &MEASURE_CALL, &[], None)
        .await
        .error("rate_limited");
}

async fn unsigned_upload_bytes_are_budgeted_before_the_engine(kind: StoreKind) {
    let app = spawn_app_with(kind, |config| {
        config.unsigned_limits.upload_bytes_per_hour = 100_000;
    })
    .await;
    let photo = fixture("photo-astronaut.jpg");
    assert!(photo.len() > 50_000);
    let first = app.upload("a.jpg", photo.clone(), &[]).await;
    assert!(first["uploadImageError"].is_null(), "{first}");
    let message = app
        .upload_response("b.jpg", fixture("photo-camera.jpg"), &[])
        .await
        .error("rate_limited");
    assert!(message.starts_with("imageFile"), "{message}");
    assert!(message.contains("100000 bytes"), "{message}");
    // Nothing of the refused file was stored.
    assert_eq!(app.store.list(IMAGES).await.unwrap().len(), 1);
}

/// The `presspack_blob_bytes` figure of `/metrics`.
async fn blob_bytes(app: &TestApp) -> u64 {
    app.metric("presspack_blob_bytes").await
}

/// Uploads went on forever: an image nothing refers to is now deleted after the retention
/// time, by `presspack images sweep` (and the server's own sweeps).
async fn unused_uploads_are_swept_and_used_ones_kept(kind: StoreKind) {
    let app = spawn_app_with(kind, |config| {
        config.images.retention = Duration::from_millis(1);
    })
    .await;
    let unused = app.upload_fixture("photo-astronaut.jpg", &[]).await;
    let used = app.upload_fixture("photo-camera.jpg", &[]).await;
    let pack = json!({"sides": [{"type": "image", "sideNum": 1,
        "templateCode": "businesscard_full_image_landscape",
        "data": [{"type": "imageData", "linkId": "variable_image_front",
                  "resourceUri": used["resourceUri"],
                  "imageBox": {"center": {"x": 44, "y": 29.5}, "width": 88, "height": 59, "angle": 0}}]}],
        "imageBasket": {"items": [used]}});
    app.create_pack("businesscard", &[("pack", &pack.to_string())])
        .await;
    let before = blob_bytes(&app).await;
    assert!(before > 0);
    tokio::time::sleep(Duration::from_millis(20)).await;
    let output = app.cli(&["images", "sweep"]);
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{printed}");
    assert!(printed.starts_with("deleted 1 unused images"), "{printed}");
    let image = |item: &serde_json::Value| app.print_url(item);
    let gone = app.client.get(image(&unused)).send().await.unwrap();
    assert_eq!(gone.status(), 404);
    let kept = app.client.get(image(&used)).send().await.unwrap();
    assert_eq!(kept.status(), 200);
    // Uploaded again, it is made again.
    let again = app.upload_fixture("photo-astronaut.jpg", &[]).await;
    assert_eq!(again["cacheId"], unused["cacheId"]);
    let back = app.client.get(image(&again)).send().await.unwrap();
    assert_eq!(back.status(), 200);
    if kind != StoreKind::Embedded {
        // The directory's size is summed at most once a minute; Redis keeps a running total.
        assert!(blob_bytes(&app).await > 0);
    }
    // Unused again, it goes again at the next sweep; the used one never does.
    let output = app.cli(&["images", "sweep"]);
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("deleted 1 unused images"));
    let kept = app.client.get(image(&used)).send().await.unwrap();
    assert_eq!(kept.status(), 200);
}

/// Low: uploading an unused image again only moved its due time, so a sweep that had read
/// its record just before still marked it swept (its compare-and-swap saw no change) and
/// deleted it: the uploader held the address of an image that was gone.
async fn an_upload_during_a_sweep_keeps_its_image(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let item = app.upload_fixture("photo-moon.jpg", &[]).await;
    let id = item["cacheId"].as_str().unwrap();
    // A sweep reads the record (the image is due) ...
    let read = app.store.get(IMAGES, id).await.unwrap().unwrap();
    // ... the same file is uploaded again ...
    let again = app.upload_fixture("photo-moon.jpg", &[]).await;
    assert_eq!(again["cacheId"], item["cacheId"]);
    // ... and the sweep's mark, a compare-and-swap on what it read, fails: the image stays.
    let mut marked: Value = serde_json::from_slice(&read.value).unwrap();
    marked["swept"] = json!(true);
    let marked = serde_json::to_vec(&marked).unwrap();
    let swept = app
        .store
        .replace(IMAGES, id, &marked, read.revision)
        .await
        .unwrap();
    assert!(!swept, "the upload moved the record on");
    let image = app.client.get(app.print_url(&item)).send().await.unwrap();
    assert_eq!(image.status(), 200);
}

/// Low: image addresses were the file's SHA-256, so anyone holding a file could see whether
/// another partner had uploaded it.
async fn image_addresses_cannot_be_derived_from_the_file(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let bytes = fixture("photo-moon.jpg");
    let item = app.upload_accepted("moon.jpg", bytes.clone(), &[]).await;
    let digest = hex::encode(Sha256::digest(&bytes));
    let id = item["cacheId"].as_str().unwrap();
    assert_ne!(id, &digest[..32]);
    let derived = app
        .client
        .get(format!("{}/images/{}/print", app.address, &digest[..32]))
        .send()
        .await
        .unwrap();
    assert_eq!(derived.status(), 404);
    // The same file twice is still one image.
    let again = app.upload_accepted("moon.jpg", bytes, &[]).await;
    assert_eq!(again["cacheId"], id);
}

/// Low: CSRF was a double-submit cookie, so a cookie planted by someone else (a sibling
/// subdomain, plain http) with a token of their choosing passed.
async fn a_planted_csrf_cookie_is_useless(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (shopper, email, _) = shopper_with_cart(&app, 1).await;
    let session = shopper.cookie("pp_session").expect("signed in");
    // The victim's browser sends its session cookie; the attacker planted pp_csrf and puts
    // the same value in the form their page submits.
    let planted = "a".repeat(64);
    let checkout = "b".repeat(32);
    let mut fields = vec![("csrf", planted.as_str()), ("checkout", checkout.as_str())];
    fields.extend_from_slice(&ADDRESS);
    let response = http_client()
        .post(format!("{}/checkout", app.address))
        .header("cookie", format!("pp_session={session}; pp_csrf={planted}"))
        .form(&fields)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    let customer = customers::find_by_email(app.store.as_ref(), &email_address(&email))
        .await
        .unwrap()
        .unwrap();
    assert!(customer.orders.is_empty());
    // The token of the victim's own page still works: the check is not simply stricter.
    let form = shopper.get("/checkout").await;
    assert!(
        place_order(&shopper, &form)
            .await
            .path
            .ends_with("/confirmation")
    );
}

/// Low: the `cart` drop-in took the pack and filled the cart on a GET, which any site can
/// make a signed-in browser do.
async fn a_cart_drop_in_link_changes_nothing(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let (pack, _) = new_pack(&app, &[]).await;
    let body = add_to_cart(&app, &pack, "2").await;
    let shopper = Shopper::new(&app);
    let email = unique_email();
    shopper.sign_up(&email).await;
    for name in ["cart", "checkout"] {
        let page = shopper.get(&local(&body["dropIns"][name])).await;
        assert_eq!(page.status, 200);
        assert!(page.body.contains("Add to my cart"), "{}", page.body);
    }
    app.get_pack(&pack).await.ok();
    let customer = customers::find_by_email(app.store.as_ref(), &email_address(&email))
        .await
        .unwrap()
        .unwrap();
    assert!(customer.cart.is_empty());
    // The button does it (a POST with the form's token).
    let cart = shopper.open_drop_in(&local(&body["dropIns"]["cart"])).await;
    assert_eq!(cart.path, "/cart");
    app.get_pack(&pack).await.error("pack_owned_by_customer");
}

/// Low: engine failures sent the wasm backtrace to the client and said "try again" for an
/// input that will always fail.
async fn engine_failures_keep_their_internals(kind: StoreKind) {
    let app = spawn_app_with(kind, |config| {
        config.engine.call_timeout = Duration::from_millis(10);
    })
    .await;
    let lines: Vec<Value> = (1..=11)
        .map(|n| json!({"type": "textData", "linkId": format!("back_line_{n}"), "text": "Ann Example ".repeat(40)}))
        .collect();
    let side = json!({"type": "details", "sideNum": 1,
        "templateCode": "businesscard_full_text_landscape", "data": lines});
    let overlays: Vec<Value> = vec![side.clone(); 8];
    let response = app
        .post(&[
            ("method", "svc.pack.renderSide"),
            ("side", &side.to_string()),
            ("overlays", &Value::Array(overlays).to_string()),
            ("imageBasket", r#"{"items": []}"#),
            ("maxSide", "4096"),
        ])
        .await;
    let message = response.error("engine_failure");
    assert!(message.contains("not supported"), "{message}");
    for internal in ["wasm", "backtrace", "0x", "presspack_engine", "try again"] {
        assert!(!message.contains(internal), "{internal}: {message}");
    }
    assert!(response.headers.contains_key("x-request-id"));
}

/// The shortest valid JPEG we have, with its frame header saying 10,000 x 10,000.
fn huge_declared_jpeg() -> Vec<u8> {
    let mut jpeg = fixture("jpeg-small.jpg");
    let sof = jpeg
        .windows(2)
        .position(|w| w[0] == 0xFF && matches!(w[1], 0xC0..=0xC2))
        .expect("a frame header");
    // FF Cn, length (2), precision (1), height (2), width (2).
    jpeg[sof + 5..sof + 7].copy_from_slice(&10_000u16.to_be_bytes());
    jpeg[sof + 7..sof + 9].copy_from_slice(&10_000u16.to_be_bytes());
    jpeg
}

/// Medium: a 4 KB JPEG declaring 10,000 x 10,000 cost seconds of engine time and 500 MB.
#[tokio::test]
async fn a_small_file_declaring_huge_pixels_is_refused_from_its_header() {
    let app = spawn_app(StoreKind::Embedded).await;
    let envelope = app.upload("huge.jpg", huge_declared_jpeg(), &[]).await;
    let error = &envelope["uploadImageError"];
    assert_eq!(error["code"], "image_too_many_pixels", "{envelope}");
    assert!(
        error["message"].as_str().unwrap().contains("10000 x 10000"),
        "{error}"
    );
}

/// Raw connections that send an upload's headers and then trickle (through a proxy that
/// says the n-th comes from `from[n]`, if given).
async fn trickling_uploads(
    app: &TestApp,
    count: usize,
    sent_first: usize,
    from: &[&str],
) -> Vec<tokio::net::TcpStream> {
    let address = app.address.trim_start_matches("http://");
    let mut sockets = Vec::new();
    for n in 0..count {
        let forwarded = from
            .get(n)
            .map_or_else(String::new, |from| format!("X-Forwarded-For: {from}\r\n"));
        let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
        let head = format!(
            "POST /api/service/?method=svc.image.uploadImage HTTP/1.1\r\nHost: {address}\r\n\
             {forwarded}Content-Type: multipart/form-data; boundary=X\r\n\
             Content-Length: 60000000\r\n\r\n\
             --X\r\nContent-Disposition: form-data; name=\"imageFile\"; filename=\"a.jpg\"\r\n\r\n"
        );
        socket.write_all(head.as_bytes()).await.unwrap();
        socket.write_all(&vec![0u8; sent_first]).await.unwrap();
        sockets.push(socket);
    }
    sockets
}

/// A PNG of noise larger than the usual body limit (2 MiB), so its upload needs a permit.
fn large_png() -> Vec<u8> {
    let (width, height) = (1000u32, 900u32);
    let mut state = 0x2545F491u32;
    let pixels: Vec<u8> = (0..width * height * 3)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as u8
        })
        .collect();
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&pixels).unwrap();
    }
    assert!(out.len() > 2 * 1024 * 1024);
    out
}

/// Medium: four sockets trickling a byte every few seconds with a 60 MB Content-Length held
/// every upload permit, and every large upload failed with `server_busy`.
#[tokio::test]
async fn trickling_bodies_hold_no_upload_permit() {
    let app = spawn_app(StoreKind::Embedded).await;
    let _sockets = trickling_uploads(&app, 4, 1, &[]).await;
    let envelope = app.upload("large.png", large_png(), &[]).await;
    assert!(envelope["uploadImageError"].is_null(), "{envelope}");
}

/// A client that sends the usual limit quickly and then stalls does take a permit, but the
/// server's pace check fails its body and frees the permit for others.
#[tokio::test]
async fn stalled_bodies_give_their_permit_back() {
    let app = spawn_app_with(StoreKind::Embedded, trusting_local_proxy).await;
    // Four networks, so that they can hold every permit between them.
    let networks = ["203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4"];
    let mut sockets = trickling_uploads(&app, 4, 2_200_000, &networks).await;
    let envelope = app.upload("large.png", large_png(), &[]).await;
    assert!(envelope["uploadImageError"].is_null(), "{envelope}");
    // The stalled ones were answered and closed.
    for socket in &mut sockets {
        let mut answer = Vec::new();
        let _ = tokio::time::timeout(
            Duration::from_secs(30),
            tokio::io::AsyncReadExt::read_to_end(socket, &mut answer),
        )
        .await;
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.contains("request_too_slow"), "{answer}");
    }
}

/// Medium: connections that send the usual limit at once and then keep just above the
/// server's pace hold their permits for as long as their 60 MB take (about an hour): four
/// of them, from one network, held every permit.
#[tokio::test]
async fn one_network_keeping_pace_holds_at_most_half_the_upload_permits() {
    let app = spawn_app_with(StoreKind::Embedded, |config| {
        trusting_local_proxy(config);
        config.images.concurrent_uploads = 2;
    })
    .await;
    let network = ["203.0.113.9"; 2];
    let mut sockets = trickling_uploads(&app, 2, 2_200_000, &network).await;
    let keep_pace = tokio::spawn(async move {
        loop {
            for socket in &mut sockets {
                let _ = socket.write_all(&[0u8; 32 * 1024]).await;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });
    // (Let the server take their permits first: the attack as it was.)
    tokio::time::sleep(Duration::from_secs(1)).await;
    let envelope = app.upload("large.png", large_png(), &[]).await;
    keep_pace.abort();
    assert!(envelope["uploadImageError"].is_null(), "{envelope}");
}

/// A signed GET of `params` at `address` (an `Authorization` header by oauth1-request).
fn signed_get(
    address: &str,
    key: &presspack::domain::keys::ApiKey,
    params: &[(&str, &str)],
) -> (String, String) {
    let endpoint = format!("http://{address}/api/service/");
    let list = oauth1_request::ParameterList::new(params.to_vec());
    let header = oauth1_request::Builder::<_, _>::new(
        oauth1_request::Credentials::new(key.consumer_key.as_str(), key.secret.as_str()),
        oauth1_request::HMAC_SHA1,
    )
    .authorize("GET", &endpoint, &list);
    let url = reqwest::Url::parse_with_params(&endpoint, params).unwrap();
    (url.to_string(), header)
}

/// The error name of a signed GET sent again.
async fn error_name(url: &str, header: &str) -> String {
    let response = http_client()
        .get(url)
        .header("authorization", header)
        .send()
        .await
        .unwrap();
    let body: Value = response.json().await.unwrap();
    body["exception"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Low: a nonce answered with 200 was accepted again after `kill -9` and a restart of the
/// embedded store (its claim was written after the answer).
#[test]
fn an_answered_nonce_is_refused_after_kill_9() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let key = runtime.block_on(async {
        let mut config = presspack::config::Config::default();
        config.service.data_dir = dir.path().to_owned();
        let store = presspack::app::open_store(&config).await.unwrap();
        crate::helpers::create_key(&store, &crate::helpers::every_permission()).await
    });
    let params = [("method", "svc.pack.getPhysicalSpec"), ("packId", "x")];
    let mut replays = Vec::new();
    for _ in 0..6 {
        let (mut child, address) = crate::cli::serve_at(&[("PRESSPACK_DATA_DIR", &data)]);
        let (url, header) = signed_get(&address, &key, &params);
        // The base URL is the bound address, so each start needs its own signature: what
        // matters is the nonce, answered and then killed.
        let first = runtime.block_on(error_name(&url, &header));
        assert_eq!(first, "pack_not_found");
        child.kill().unwrap();
        child.wait().unwrap();
        let (mut child, again) = crate::cli::serve_at(&[
            ("PRESSPACK_DATA_DIR", &data),
            ("PRESSPACK_LISTEN", &address),
        ]);
        assert_eq!(again, address);
        replays.push(runtime.block_on(error_name(&url, &header)));
        child.kill().unwrap();
        child.wait().unwrap();
    }
    assert!(replays.iter().all(|r| r == "reused_nonce"), "{replays:?}");
}

/// Medium: a shutdown waited for idle and stalled connections without end.
#[test]
fn a_shutdown_does_not_wait_for_stalled_connections() {
    let dir = tempfile::tempdir().unwrap();
    let (child, address) = crate::cli::serve_at(&[
        ("PRESSPACK_DATA_DIR", dir.path().to_str().unwrap()),
        ("PRESSPACK_SHUTDOWN_DRAIN_MS", "500"),
        ("PRESSPACK_HEADER_TIMEOUT_MS", "600000"),
    ]);
    // One connection idle before its headers end, one stalled in its body.
    let mut half_headers = std::net::TcpStream::connect(&address).unwrap();
    std::io::Write::write_all(&mut half_headers, b"GET /healthz HTTP/1.1\r\nHost: x\r\n").unwrap();
    let mut stalled = std::net::TcpStream::connect(&address).unwrap();
    std::io::Write::write_all(
        &mut stalled,
        b"POST /api/service/ HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nmethod=",
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let pid = child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let mut child = child;
    for _ in 0..300 {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap();
    panic!("presspack did not stop within 30 s of SIGTERM");
}

/// Low: four parallel createPacks of 256 sides each ran their layout reports on the async
/// threads, and `/healthz` waited behind them. On this test's one-thread runtime, which also
/// runs the server, a report on the async thread would leave nothing else running while it
/// lasts: `/metrics` could never be answered while an engine instance is busy. When a round's
/// reports end before a `/metrics` answer lands (a loaded machine answers slowly), the round
/// proves nothing either way and is run again; a server that blocks fails every round.
#[tokio::test]
async fn big_pack_reports_leave_the_server_responsive() {
    let app = spawn_app(StoreKind::Embedded).await;
    let lines: Vec<Value> = (1..=11)
        .map(|n| json!({"type": "textData", "linkId": format!("back_line_{n}"), "text": "Ann Example, printer"}))
        .collect();
    let sides: Vec<Value> = (1..=256)
        .map(|n| {
            json!({"type": "details", "sideNum": n,
            "templateCode": "businesscard_full_text_landscape", "data": lines})
        })
        .collect();
    let pack = json!({"sides": sides}).to_string();
    let params = [
        ("method", "svc.pack.createPack"),
        ("product", "businesscard"),
        ("pack", pack.as_str()),
    ];
    const ROUNDS: usize = 5;
    for _ in 0..ROUNDS {
        let creates = futures_util::future::join_all((0..4).map(|_| app.post(&params)));
        // Busy: one instance or both (four creates on two instances may keep both busy).
        let watch = async {
            loop {
                let metrics = app.metrics().await;
                let busy = metrics
                    .lines()
                    .find_map(|line| line.strip_prefix("presspack_engine_instances_busy "))
                    .and_then(|value| value.trim().parse::<f64>().ok());
                if busy.is_some_and(|busy| busy >= 1.0) {
                    return;
                }
                tokio::task::yield_now().await;
            }
        };
        tokio::pin!(creates);
        let answered_while_busy = tokio::select! {
            () = watch => true,
            _ = &mut creates => false,
        };
        for created in creates.await {
            created.ok();
        }
        if answered_while_busy {
            return;
        }
    }
    panic!("in {ROUNDS} rounds no request was answered while a pack's reports ran");
}

/// Low: `/metrics` could only be served on the public port.
#[tokio::test]
async fn metrics_can_be_served_apart_from_the_public_port() {
    let app = spawn_app_with(StoreKind::Embedded, |config| {
        config.service.metrics_listen = Some("127.0.0.1:0".parse().unwrap());
    })
    .await;
    let public = app
        .client
        .get(format!("{}/metrics", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(public.status(), 404);
    let metrics_address = app.metrics_address.clone().expect("a metrics listener");
    let metrics = app
        .client
        .get(format!("http://{metrics_address}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(metrics.status(), 200);
    assert!(
        metrics
            .text()
            .await
            .unwrap()
            .contains("presspack_requests_total")
    );
}

/// Low: a webhook URL refused by the address policy was retried on the full schedule, and
/// importImage's refusal told the caller what a name resolved to.
#[tokio::test]
async fn refused_addresses_are_not_revealed_or_retried() {
    let app = spawn_app_with(StoreKind::Embedded, |config| {
        config.images.import_resolve = vec![("inside.example".into(), [10, 1, 2, 3].into())];
    })
    .await;
    let message = app
        .post(&[
            ("method", "svc.image.importImage"),
            ("imageUrl", "http://inside.example/photo.jpg"),
        ])
        .await
        .error("image_address_not_allowed");
    assert!(message.contains("not public"), "{message}");
    assert!(!message.contains("10.1.2.3"), "{message}");

    // A webhook to a loopback address the operator did not allow: given up at once.
    let receiver = crate::shop::Receiver::start(0).await;
    receiver.take_callbacks_of(&app).await;
    let shopper = Shopper::new(&app);
    shopper.sign_up(&unique_email()).await;
    let (pack, _) = new_pack(&app, &[("trackingId", "t-1")]).await;
    let body = add_to_cart(&app, &pack, "1").await;
    shopper.open_drop_in(&local(&body["dropIns"]["cart"])).await;
    let confirmation = shopper.check_out().await;
    assert!(confirmation.path.ends_with("/confirmation"));
    let mut finished = None;
    for _ in 0..100 {
        let deliveries = presspack::infra::queue::list::<Webhooks>(app.store.as_ref())
            .await
            .unwrap();
        if let Some(done) = deliveries.iter().find(|d| d.finished_at.is_some()) {
            finished = Some(done.clone());
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let delivery = finished.expect("the webhook was given up");
    assert_eq!(delivery.attempts, 1, "{delivery:?}");
    assert!(receiver.received("/webhook").is_empty());
}
