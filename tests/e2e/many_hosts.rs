//! Several `presspack serve` processes on one Redis behind one public URL, as behind a load
//! balancer: one client's calls and one customer's pages spread across two hosts see one
//! service (packs, images, rendered-side URLs, sessions, carts). Nonces across hosts are in
//! `auth::two_hosts_on_redis_refuse_a_nonce_replayed_across_them`.

use serde_json::json;

use crate::helpers::{StoreKind, TestApp, spawn_app_with};
use crate::shared_stores;
use crate::shop::Shopper;

const PUBLIC_URL: &str = "http://presspack.test";

/// `url` (under the public URL) as served by `host`.
fn on(host: &TestApp, url: &str) -> String {
    url.replace(PUBLIC_URL, &host.address)
}

shared_stores!(two_hosts_on_one_redis_serve_one_client);

async fn two_hosts_on_one_redis_serve_one_client(kind: StoreKind) {
    let first = spawn_app_with(kind, |config| {
        config.service.base_url = Some(PUBLIC_URL.into())
    })
    .await;
    let second = first.second_host().await;
    let hosts = [&first, &second];

    // An image uploaded through the first host is in a pack made on the second.
    let photo = first.upload_fixture("jpeg-q95.jpg", &[]).await;
    let pack = json!({"sides": [
        {"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape",
         "data": [{"type": "imageData", "linkId": "variable_image_front",
                   "resourceUri": photo["resourceUri"],
                   "imageBox": {"center": {"x": 44, "y": 29.5}, "width": 88, "height": 59, "angle": 0}}]},
        {"type": "details", "sideNum": 1, "templateCode": "businesscard_full_text_landscape",
         "data": [{"type": "textData", "linkId": "back_line_1", "text": "Ann Example"}]}
    ], "imageBasket": {"items": [photo]}});
    let created = second
        .create_pack("businesscard", &[("pack", &pack.to_string())])
        .await;
    let id = created["packId"].as_str().unwrap().to_owned();

    // Updated on the first, read on both, alternately.
    let mut changed = created["pack"].clone();
    changed["sides"][1]["data"][0]["text"] = json!("Grace Hopper");
    first
        .post(&[
            ("method", "svc.pack.updatePack"),
            ("packId", &id),
            ("pack", &changed.to_string()),
        ])
        .await
        .ok();
    for round in 0..10 {
        let read = hosts[round % 2].get_pack(&id).await.ok();
        assert_eq!(
            read["pack"]["sides"][1]["data"][0]["text"], "Grace Hopper",
            "round {round}"
        );
    }

    // A side rendered by the second host (drawing the first host's upload) keeps its URL on
    // the first.
    let side = changed["sides"][0].to_string();
    let basket = changed["imageBasket"].to_string();
    let url = second
        .post(&[
            ("method", "svc.pack.renderSideUrl"),
            ("side", &side),
            ("imageBasket", &basket),
            ("maxSide", "300"),
        ])
        .await;
    assert_eq!(url.status, 200, "{}", url.body);
    let png = first
        .client
        .get(on(&first, &url.body))
        .send()
        .await
        .unwrap();
    assert_eq!(png.status(), 200);
    assert!(png.bytes().await.unwrap().starts_with(b"\x89PNG"));

    // A customer signs up on one host, opens the cart drop-in on the other and sees the cart
    // (and stays signed in) on the first again.
    let added = crate::customers::add_to_cart(&first, &id, "3").await;
    let mut shopper = Shopper::new(&first);
    shopper
        .sign_up(&format!("ann.{:x}@example.com", rand::random::<u32>()))
        .await;
    shopper.address.clone_from(&second.address);
    let cart = shopper
        .open_drop_in(&on(&second, added["dropIns"]["cart"].as_str().unwrap()))
        .await;
    assert_eq!((cart.status, cart.path.as_str()), (200, "/cart"));
    shopper.address.clone_from(&first.address);
    let cart = shopper.get("/cart").await;
    assert_eq!(cart.status, 200, "{}", cart.body);
    assert!(cart.body.contains("Business cards"), "{}", cart.body);
    assert!(cart.body.contains("value=\"3\""), "{}", cart.body);
    // The pack is the customer's now, on both hosts.
    for host in hosts {
        host.get_pack(&id).await.error("pack_owned_by_customer");
    }
}
