//! API keys, OAuth 1.0a signatures, per-operation rules and pack ownership.

use presspack::domain::packs::PACKS;
use std::num::NonZeroU64;

use presspack::app::Application;
use presspack::domain::keys::{self, Permission};
use presspack::domain::packs::PackRecord;
use presspack::http::auth::AuthRule;
use presspack::http::rpc::OPERATIONS;
use presspack::infra::store::StoreError;
use reqwest::Method;

use crate::helpers::{
    ApiResponse, Credentials, StoreKind, TestApp, create_key, spawn_app, spawn_app_with,
};
use crate::{every_store, shared_stores};

every_store!(
    permission_matrix_follows_the_spec_table,
    granted_permissions_open_their_operations,
    a_key_reads_and_updates_only_its_own_packs_until_a_customer_owns_them,
    each_signature_failure_is_a_distinct_error,
    a_replayed_request_is_refused,
    timestamps_outside_the_window_are_refused,
    oauth1_request_signatures_in_header_body_and_query_are_accepted,
    requests_oauthlib_signatures_are_accepted,
    a_nonce_is_remembered_across_a_restart,
    the_cli_manages_keys,
);

const AUTH_ERRORS: [&str; 9] = [
    "missing_signature",
    "unknown_key",
    "invalid_signature",
    "stale_timestamp",
    "reused_nonce",
    "permission_denied",
    "key_disabled",
    "signature_not_allowed",
    "invalid_oauth_parameters",
];

/// The error name of an authorisation failure, or `None` if the call got past authorisation.
fn auth_error(response: &ApiResponse) -> Option<String> {
    let name = response.json()["exception"]["name"].as_str()?.to_owned();
    AUTH_ERRORS.contains(&name.as_str()).then_some(name)
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// An Authorization header by oauth1-request with a chosen timestamp and nonce.
fn header_at(
    app: &TestApp,
    http_method: &str,
    params: &[(&str, &str)],
    signer: &Credentials,
    timestamp: u64,
    nonce: &str,
) -> String {
    let list = oauth1_request::ParameterList::new(params.to_vec());
    let mut builder = oauth1_request::Builder::<_, _>::new(
        oauth1_request::Credentials::new(signer.key.as_str(), signer.secret.as_str()),
        oauth1_request::HMAC_SHA1,
    );
    builder.timestamp(NonZeroU64::new(timestamp)).nonce(nonce);
    builder.authorize(http_method, app.public_endpoint(), &list)
}

async fn get_with_header(app: &TestApp, params: &[(&str, &str)], header: &str) -> ApiResponse {
    let response = app
        .client
        .get(app.endpoint())
        .query(params)
        .header("authorization", header)
        .send()
        .await
        .unwrap();
    ApiResponse::read(response).await
}

async fn permission_matrix_follows_the_spec_table(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let plain_key = create_key(&app.store, &[]).await;
    let plain = Credentials::from(&plain_key);
    let wrong = Credentials {
        key: plain.key.clone(),
        secret: "not-the-secret".into(),
    };
    let created = app
        .send(
            Method::POST,
            &[],
            &[("method", "svc.pack.createPack"), ("product", "minicard")],
            Some(&plain),
        )
        .await
        .ok();
    let pack_id = created["packId"].as_str().unwrap();
    for operation in OPERATIONS {
        let params = [
            ("method", operation.name),
            ("packId", pack_id),
            ("product", "minicard"),
            ("physicalSpec", "{}"),
            ("pack", "{}"),
        ];
        let unsigned = auth_error(&app.send(Method::POST, &[], &params, None).await);
        let wrongly = auth_error(&app.send(Method::POST, &[], &params, Some(&wrong)).await);
        let by_plain = app.send(Method::POST, &[], &params, Some(&plain)).await;
        let name = operation.name;
        match operation.auth {
            AuthRule::Required(permission) => {
                assert_eq!(
                    unsigned.as_deref(),
                    Some("missing_signature"),
                    "{name} unsigned"
                );
                assert_eq!(
                    wrongly.as_deref(),
                    Some("invalid_signature"),
                    "{name} wrong secret"
                );
                if permission.is_inherent() {
                    assert_eq!(
                        auth_error(&by_plain),
                        None,
                        "{name} by a plain key: {}",
                        by_plain.body
                    );
                } else {
                    assert_eq!(
                        auth_error(&by_plain).as_deref(),
                        Some("permission_denied"),
                        "{name}"
                    );
                    assert!(
                        by_plain.body.contains(permission.as_str()),
                        "{name}: {}",
                        by_plain.body
                    );
                }
            }
            AuthRule::Optional(_) => {
                assert_eq!(unsigned, None, "{name} unsigned");
                assert_eq!(
                    wrongly.as_deref(),
                    Some("invalid_signature"),
                    "{name} wrong secret"
                );
                assert_eq!(auth_error(&by_plain), None, "{name} by a plain key");
            }
            AuthRule::NotAllowed => {
                assert_eq!(unsigned, None, "{name} unsigned");
                assert_eq!(
                    wrongly.as_deref(),
                    Some("signature_not_allowed"),
                    "{name} wrong secret"
                );
                assert_eq!(
                    auth_error(&by_plain).as_deref(),
                    Some("signature_not_allowed"),
                    "{name}"
                );
            }
            AuthRule::Open => {
                assert_eq!(unsigned, None, "{name} unsigned");
                assert_eq!(wrongly, None, "{name} wrong secret");
                assert_eq!(auth_error(&by_plain), None, "{name} by a plain key");
            }
        }
    }
    // The table is the spec's.
    let spec = [
        (
            "svc.pack.createPack",
            AuthRule::Required(Permission::Create),
        ),
        (
            "svc.pack.createTrialPartnerPack",
            AuthRule::Required(Permission::CreateTrialPack),
        ),
        ("svc.pack.getPack", AuthRule::Required(Permission::Read)),
        (
            "svc.pack.getPhysicalSpec",
            AuthRule::Required(Permission::Read),
        ),
        (
            "svc.pack.updatePack",
            AuthRule::Required(Permission::Update),
        ),
        (
            "svc.pack.updatePhysicalSpec",
            AuthRule::Required(Permission::Update),
        ),
        (
            "svc.pack.addToCart",
            AuthRule::Required(Permission::AddToCart),
        ),
        (
            "svc.pack.renderSide",
            AuthRule::Required(Permission::RenderSide),
        ),
        (
            "svc.pack.renderSideUrl",
            AuthRule::Required(Permission::RenderSide),
        ),
        // Presspack's own (docs/api.md): a pack's PDF and its preflight, like a render.
        (
            "svc.pack.renderPackPdf",
            AuthRule::Required(Permission::RenderSide),
        ),
        (
            "svc.pack.preflightPack",
            AuthRule::Required(Permission::RenderSide),
        ),
        ("svc.pack.getRenderedSide", AuthRule::Open),
        (
            "svc.template.getTemplate",
            AuthRule::Optional(Permission::GetTemplate),
        ),
        ("svc.image.uploadImage", AuthRule::NotAllowed),
        (
            "svc.image.importImage",
            AuthRule::Required(Permission::ImportImage),
        ),
        ("svc.text.measure", AuthRule::Open),
        // Presspack's own: the shop's back office records a payment.
        (
            "svc.order.markPaid",
            AuthRule::Required(Permission::MarkOrdersPaid),
        ),
    ];
    let table: Vec<(&str, AuthRule)> = OPERATIONS.iter().map(|op| (op.name, op.auth)).collect();
    assert_eq!(table, spec);
}

async fn granted_permissions_open_their_operations(kind: StoreKind) {
    let app = spawn_app(kind).await;
    for (permission, method) in [
        (
            Permission::CreateTrialPack,
            "svc.pack.createTrialPartnerPack",
        ),
        (Permission::AddToCart, "svc.pack.addToCart"),
        (Permission::RenderSide, "svc.pack.renderSide"),
        (Permission::ImportImage, "svc.image.importImage"),
        (Permission::MarkOrdersPaid, "svc.order.markPaid"),
    ] {
        let key = create_key(&app.store, &[permission]).await;
        let response = app
            .send(
                Method::POST,
                &[],
                &[("method", method)],
                Some(&Credentials::from(&key)),
            )
            .await;
        assert_eq!(
            auth_error(&response),
            None,
            "{method} with {permission}: {}",
            response.body
        );
        // Revoked, the same call is refused.
        keys::revoke(app.store.as_ref(), &key.consumer_key, &[permission])
            .await
            .unwrap();
        let response = app
            .send(
                Method::POST,
                &[],
                &[("method", method)],
                Some(&Credentials::from(&key)),
            )
            .await;
        assert_eq!(
            auth_error(&response).as_deref(),
            Some("permission_denied"),
            "{method}"
        );
    }
}

async fn a_key_reads_and_updates_only_its_own_packs_until_a_customer_owns_them(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let other =
        Credentials::from(&create_key(&app.store, &crate::helpers::every_permission()).await);
    let id = app.create_pack("businesscard", &[]).await["packId"]
        .as_str()
        .unwrap()
        .to_owned();
    let calls: [&[(&str, &str)]; 4] = [
        &[("method", "svc.pack.getPack"), ("packId", &id)],
        &[("method", "svc.pack.getPhysicalSpec"), ("packId", &id)],
        &[
            ("method", "svc.pack.updatePack"),
            ("packId", &id),
            ("pack", "{}"),
        ],
        &[
            ("method", "svc.pack.updatePhysicalSpec"),
            ("packId", &id),
            ("physicalSpec", "{}"),
        ],
    ];
    for params in calls {
        // Another key's pack is indistinguishable from a missing one.
        let response = app.send(Method::POST, &[], params, Some(&other)).await;
        assert_eq!(
            response.error("pack_not_found"),
            "packId: no pack has this id"
        );
        app.post(params).await.ok();
    }
    // A customer takes ownership (the drop-in pages do this; here, directly in the store).
    presspack::infra::store::modify(app.store.as_ref(), PACKS, &id, |record: &mut PackRecord| {
        record.owner = Some("customer-1".into());
        Ok::<(), StoreError>(())
    })
    .await
    .unwrap()
    .unwrap();
    for params in calls {
        let message = app.post(params).await.error("pack_owned_by_customer");
        assert!(message.contains("customer"), "{message}");
        app.send(Method::POST, &[], params, Some(&other))
            .await
            .error("pack_not_found");
    }
}

async fn each_signature_failure_is_a_distinct_error(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let params = [("method", "svc.pack.createPack"), ("product", "minicard")];
    // A wrong signature gets one answer whether the key is unknown, disabled or fine: the
    // answers do not tell which consumer keys exist.
    let unknown = Credentials {
        key: "0".repeat(32),
        secret: "x".into(),
    };
    let wrong = Credentials {
        key: app.key.consumer_key.clone(),
        secret: "wrong".into(),
    };
    let for_unknown = app
        .send(Method::POST, &[], &params, Some(&unknown))
        .await
        .error("invalid_signature");
    let message = app
        .send(Method::POST, &[], &params, Some(&wrong))
        .await
        .error("invalid_signature");
    assert_eq!(for_unknown, message);
    assert!(
        message.contains(&app.public_endpoint()),
        "names the signed URI: {message}"
    );
    app.send(Method::POST, &[], &params, None)
        .await
        .error("missing_signature");

    keys::set_disabled(app.store.as_ref(), &app.key.consumer_key, true)
        .await
        .unwrap();
    let for_disabled = app
        .send(Method::POST, &[], &params, Some(&wrong))
        .await
        .error("invalid_signature");
    assert_eq!(for_disabled, message);
    // Only the key's holder, signing correctly, learns that it is disabled.
    app.post(&params).await.error("key_disabled");
    keys::set_disabled(app.store.as_ref(), &app.key.consumer_key, false)
        .await
        .unwrap();
    app.post(&params).await.ok();

    // Malformed protocol parameters, each named.
    let ts = now().to_string();
    let base = format!(
        r#"oauth_consumer_key="{}", oauth_nonce="n{ts}", oauth_timestamp="{ts}", oauth_signature="AAAA""#,
        app.key.consumer_key
    );
    for (extra, named) in [
        (
            r#", oauth_signature_method="PLAINTEXT""#,
            "oauth_signature_method",
        ),
        (
            r#", oauth_signature_method="HMAC-SHA1", oauth_version="2.0""#,
            "oauth_version",
        ),
        (
            r#", oauth_signature_method="HMAC-SHA1", oauth_token="three-legged""#,
            "oauth_token",
        ),
        ("", "oauth_signature_method"),
    ] {
        let header = format!("OAuth {base}{extra}");
        let message = get_with_header(&app, &params, &header)
            .await
            .error("invalid_oauth_parameters");
        assert!(message.starts_with(named), "{extra}: {message}");
    }
    let header = format!(
        r#"OAuth oauth_consumer_key="{}", oauth_signature_method="HMAC-SHA1""#,
        app.key.consumer_key
    );
    let message = get_with_header(&app, &params, &header)
        .await
        .error("invalid_oauth_parameters");
    assert!(message.starts_with("oauth_signature"), "{message}");
    // Protocol parameters in the header and the request at once.
    let header = app.authorization("GET", &params, &app.credentials());
    let mut doubled = params.to_vec();
    doubled.push(("oauth_nonce", "again"));
    get_with_header(&app, &doubled, &header)
        .await
        .error("invalid_oauth_parameters");
    // uploadImage refuses signed calls.
    let message = app
        .post(&[("method", "svc.image.uploadImage")])
        .await
        .error("signature_not_allowed");
    assert!(message.contains("unsigned"), "{message}");
}

async fn a_replayed_request_is_refused(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let id = app.create_pack("minicard", &[]).await["packId"]
        .as_str()
        .unwrap()
        .to_owned();
    let params = [("method", "svc.pack.getPack"), ("packId", id.as_str())];
    // One clock reading: a second ticking over between readings made "another timestamp"
    // the same one (a flaky failure under load).
    let signed_at = now();
    let header = header_at(
        &app,
        "GET",
        &params,
        &app.credentials(),
        signed_at,
        "replay-nonce",
    );
    get_with_header(&app, &params, &header).await.ok();
    let message = get_with_header(&app, &params, &header)
        .await
        .error("reused_nonce");
    assert!(message.starts_with("oauth_nonce:"), "{message}");
    // The same nonce with another timestamp is another request.
    let header = header_at(
        &app,
        "GET",
        &params,
        &app.credentials(),
        signed_at - 1,
        "replay-nonce",
    );
    get_with_header(&app, &params, &header).await.ok();
    // A refused signature does not use up its nonce.
    let wrong = Credentials {
        key: app.key.consumer_key.clone(),
        secret: "wrong".into(),
    };
    let ts = signed_at - 2;
    let bad = header_at(&app, "GET", &params, &wrong, ts, "kept");
    get_with_header(&app, &params, &bad)
        .await
        .error("invalid_signature");
    let good = header_at(&app, "GET", &params, &app.credentials(), ts, "kept");
    get_with_header(&app, &params, &good).await.ok();
}

async fn timestamps_outside_the_window_are_refused(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let params = [("method", "svc.pack.createPack"), ("product", "sticker")];
    for (offset, accepted) in [
        (-290i64, true),
        (290, true),
        (-310, false),
        (310, false),
        (-100_000, false),
    ] {
        let ts = now().saturating_add_signed(offset);
        let header = header_at(
            &app,
            "GET",
            &params,
            &app.credentials(),
            ts,
            &format!("n{offset}"),
        );
        let response = get_with_header(&app, &params, &header).await;
        if accepted {
            response.ok();
        } else {
            let message = response.error("stale_timestamp");
            assert!(message.contains("300 s"), "{message}");
        }
    }
    // The window is configurable.
    let strict = spawn_app_with(kind, |config| {
        config.edge.timestamp_window = std::time::Duration::from_secs(10)
    })
    .await;
    let header = header_at(
        &strict,
        "GET",
        &params,
        &strict.credentials(),
        now() - 60,
        "n",
    );
    get_with_header(&strict, &params, &header)
        .await
        .error("stale_timestamp");
}

async fn oauth1_request_signatures_in_header_body_and_query_are_accepted(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let credentials = app.credentials();
    let builder = oauth1_request::Builder::<_, _>::new(
        oauth1_request::Credentials::new(credentials.key.as_str(), credentials.secret.as_str()),
        oauth1_request::HMAC_SHA1,
    );
    let params = [
        ("method", "svc.pack.createPack"),
        ("product", "postcard"),
        ("friendlyName", "A & B's cards + more ✓"),
    ];
    let list = oauth1_request::ParameterList::new(params.to_vec());
    // oauth1-request's to_form/to_query write the protocol parameters and sign the request
    // parameters; the caller appends the request parameters themselves.
    let request_params = oauth1_request::to_form(&list);
    // Protocol parameters in the form body.
    let body = format!(
        "{}&{request_params}",
        builder.to_form("POST", app.public_endpoint(), &list)
    );
    let response = app
        .client
        .post(app.endpoint())
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    ApiResponse::read(response).await.ok();
    // Protocol parameters in the query string.
    let uri = format!(
        "{}&{request_params}",
        builder.to_query("GET", app.public_endpoint(), &list)
    );
    let response = app.client.get(uri).send().await.unwrap();
    ApiResponse::read(response).await.ok();
    // In the header, GET with query and POST with form body.
    app.get(&params).await.ok();
    app.post(&params).await.ok();
}

async fn python_client(
    app: &TestApp,
    mode: &str,
    params: &[(&str, &str)],
) -> (u16, serde_json::Value) {
    let reply = crate::helpers::python_call(app, mode, params).await;
    (reply.status, reply.json())
}

async fn requests_oauthlib_signatures_are_accepted(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let params = [
        ("method", "svc.pack.createPack"),
        ("product", "businesscard"),
        ("trackingId", "A & B ~ 100% ✓"),
    ];
    for mode in [
        "get-header",
        "post-header",
        "post-body",
        "get-query",
        "post-header-sha256",
    ] {
        let (status, body) = python_client(&app, mode, &params).await;
        assert_eq!(status, 200, "{mode}: {body}");
        assert_eq!(
            body["pack"]["productCode"], "businesscard",
            "{mode}: {body}"
        );
    }
}

async fn a_nonce_is_remembered_across_a_restart(kind: StoreKind) {
    // A fixed public URL: the restarted server listens on another port.
    let mut app = spawn_app_with(kind, |config| {
        config.service.base_url = Some("http://presspack.test".into())
    })
    .await;
    let params = [("method", "svc.pack.createPack"), ("product", "minicard")];
    let header = header_at(
        &app,
        "GET",
        &params,
        &app.credentials(),
        now(),
        "before-restart",
    );
    get_with_header(&app, &params, &header).await.ok();
    app.restart().await;
    get_with_header(&app, &params, &header)
        .await
        .error("reused_nonce");
}

#[tokio::test]
async fn a_second_server_on_one_embedded_store_stops_at_start_up() {
    let app = spawn_app(StoreKind::Embedded).await;
    let Err(error) = Application::build(&app.config).await else {
        panic!("a second server on the same embedded store must not start");
    };
    let message = error.to_string();
    assert!(
        message.contains("in use by another presspack server") && message.contains("Redis"),
        "{message}"
    );
    // The operator CLI still works beside the running server.
    assert!(app.cli(&["keys", "list"]).status.success());
}

shared_stores!(two_hosts_on_redis_refuse_a_nonce_replayed_across_them);

async fn two_hosts_on_redis_refuse_a_nonce_replayed_across_them(kind: StoreKind) {
    // Both hosts sit behind one public URL, as behind a load balancer.
    let app = spawn_app_with(kind, |config| {
        config.service.base_url = Some("http://presspack.test".into())
    })
    .await;
    let second = Application::build(&app.config).await.unwrap();
    let second_endpoint = format!("http://{}/api/service/", second.local_addr());
    tokio::spawn(second.run_until(std::future::pending()));
    let params = [("method", "svc.pack.createPack"), ("product", "minicard")];
    let header = header_at(
        &app,
        "POST",
        &params,
        &app.credentials(),
        now(),
        "across-hosts",
    );
    let send = |endpoint: String| {
        let (client, header) = (app.client.clone(), header.clone());
        async move {
            let response = client
                .post(endpoint)
                .form(&params)
                .header("authorization", header)
                .send()
                .await
                .unwrap();
            ApiResponse::read(response).await
        }
    };
    send(app.endpoint()).await.ok();
    send(second_endpoint.clone()).await.error("reused_nonce");
    // And the second host serves the first host's packs.
    let id = app.create_pack("minicard", &[]).await["packId"]
        .as_str()
        .unwrap()
        .to_owned();
    let get = [("method", "svc.pack.getPack"), ("packId", id.as_str())];
    let header = header_at(
        &app,
        "GET",
        &get,
        &app.credentials(),
        now(),
        "second-host-get",
    );
    let response = app
        .client
        .get(&second_endpoint)
        .query(&get)
        .header("authorization", header)
        .send()
        .await
        .unwrap();
    assert_eq!(
        ApiResponse::read(response).await.ok()["packId"],
        id.as_str()
    );
}

async fn the_cli_manages_keys(kind: StoreKind) {
    let app = spawn_app(kind).await;
    let text = |output: std::process::Output| {
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let created = text(app.cli(&[
        "keys",
        "create",
        "--name",
        "Acme Shop",
        "--grant",
        "add_to_cart,render_side",
    ]));
    let line = |prefix: &str| {
        created
            .lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no {prefix} line in {created}"))
            .to_owned()
    };
    let acme = Credentials {
        key: line("key: "),
        secret: line("secret: "),
    };
    assert!(
        acme.secret.len() >= 32,
        "at least 128 bits: {}",
        acme.secret
    );
    let cart = [("method", "svc.pack.addToCart")];
    assert_eq!(
        auth_error(&app.send(Method::POST, &[], &cart, Some(&acme)).await),
        None
    );

    let json: serde_json::Value = serde_json::from_str(&text(
        app.cli(&["keys", "create", "--name", "Other", "--json"]),
    ))
    .unwrap();
    assert!(
        json["consumerKey"].is_string() && json["secret"].is_string(),
        "{json}"
    );
    assert_eq!(
        json["permissions"],
        serde_json::json!(["create", "get_template", "read", "update"])
    );

    let list = text(app.cli(&["keys", "list"]));
    assert!(
        list.contains(&acme.key) && list.contains("Acme Shop"),
        "{list}"
    );
    assert!(!list.contains(&acme.secret), "list never shows secrets");
    let shown = text(app.cli(&["keys", "show", &acme.key, "--json"]));
    assert!(!shown.contains(&acme.secret), "show never shows secrets");
    assert!(shown.contains("add_to_cart"), "{shown}");

    text(app.cli(&["keys", "revoke", &acme.key, "add_to_cart"]));
    assert_eq!(
        auth_error(&app.send(Method::POST, &[], &cart, Some(&acme)).await).as_deref(),
        Some("permission_denied")
    );
    text(app.cli(&["keys", "grant", &acme.key, "add_to_cart"]));
    assert_eq!(
        auth_error(&app.send(Method::POST, &[], &cart, Some(&acme)).await),
        None
    );
    let refused = app.cli(&["keys", "grant", &acme.key, "read"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("every key"));
    assert!(
        !app.cli(&["keys", "grant", &acme.key, "fly"])
            .status
            .success()
    );

    text(app.cli(&["keys", "disable", &acme.key]));
    app.send(Method::POST, &[], &cart, Some(&acme))
        .await
        .error("key_disabled");
    text(app.cli(&["keys", "enable", &acme.key]));

    let rotated = text(app.cli(&["keys", "rotate-secret", &acme.key]));
    let new_secret = rotated
        .lines()
        .find_map(|l| l.strip_prefix("secret: "))
        .unwrap()
        .to_owned();
    assert_ne!(new_secret, acme.secret);
    app.send(Method::POST, &[], &cart, Some(&acme))
        .await
        .error("invalid_signature");
    let renewed = Credentials {
        key: acme.key.clone(),
        secret: new_secret,
    };
    assert_eq!(
        auth_error(&app.send(Method::POST, &[], &cart, Some(&renewed)).await),
        None
    );
    assert!(!app.cli(&["keys", "show", "nope"]).status.success());
}
