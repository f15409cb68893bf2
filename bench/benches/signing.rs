//! What verifying a signed call costs in the server's own code, without HTTP or the machine's
//! load around it (docs/benchmarks.md): reading the protocol parameters of a signed getPack
//! and checking its HMAC-SHA1, as `auth::verify` does; and, on the embedded store, reading an
//! API key alone (what an unverified call does) against reading it and claiming a nonce in
//! the same call (what a signed one does). Run with
//! `cargo bench -p presspack-bench --bench signing`.

use presspack::domain::keys::API_KEYS;
use presspack::http::auth::NONCES;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use presspack::app::open_store;
use presspack::config::Config;
use presspack::domain::keys::{self, NewKey};
use presspack::http::auth::SignedRequest;
use presspack::http::rpc::Params;
use presspack::infra::store::Claim;

const BASE_URL: &str = "http://127.0.0.1:8080";
const PATH: &str = "/api/service/";
const PACK_ID: &str = "a3f9c2e1-5b7d-4e8a-9c0f-2d6b8e4a1f37";

/// The `Authorization` header a partner's OAuth library sends with the getPack.
fn authorization(consumer_key: &str, secret: &str) -> String {
    oauth1_request::Builder::<_, _>::new(
        oauth1_request::Credentials::new(consumer_key, secret),
        oauth1_request::HMAC_SHA1,
    )
    .authorize(
        "GET",
        format!("{BASE_URL}{PATH}"),
        &oauth1_request::ParameterList::new([("method", "svc.pack.getPack"), ("packId", PACK_ID)]),
    )
}

fn verification(c: &mut Criterion) {
    let (consumer_key, secret) = ("k8Jd93hFq2LmZx7T", "p4Vn8sQw2Jk6Xr1Hb9Tz3Lm5Cy7Fd0Ga");
    let header = authorization(consumer_key, secret);
    let params =
        Params::from_query(Some(&format!("method=svc.pack.getPack&packId={PACK_ID}"))).unwrap();
    let request = SignedRequest {
        http_method: "GET",
        path: PATH,
        authorization: Some(&header),
        params: &params,
    };
    let protocol = request.protocol().unwrap();
    assert!(request.signature_matches(BASE_URL, &protocol, secret));
    assert!(!request.signature_matches(BASE_URL, &protocol, "another secret"));
    c.bench_function(
        "verify a signed getPack (protocol parameters, HMAC-SHA1)",
        |b| {
            b.iter(|| {
                let protocol = request.protocol().unwrap();
                assert!(request.signature_matches(BASE_URL, &protocol, secret));
            })
        },
    );
}

fn nonce_claim(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let data_dir = tempfile::tempdir().unwrap();
    let config = Config::load(None, |name| {
        (name == "PRESSPACK_DATA_DIR").then(|| data_dir.path().display().to_string())
    })
    .unwrap();
    let store = runtime.block_on(open_store(&config)).unwrap();
    let key = runtime
        .block_on(keys::create(
            store.as_ref(),
            NewKey {
                name: "bench".into(),
                ..NewKey::default()
            },
        ))
        .unwrap();
    let consumer_key = key.consumer_key.as_str();
    let mut group = c.benchmark_group("embedded store");
    group.bench_function("read an API key", |b| {
        b.iter(|| {
            let stored = runtime.block_on(store.get(API_KEYS, consumer_key));
            assert!(stored.unwrap().is_some());
        })
    });
    // A fresh nonce each time, so every claim is a new entry, as with real calls.
    let counter = AtomicU64::new(0);
    group.bench_function("read an API key and claim a nonce", |b| {
        b.iter(|| {
            let nonce = format!("1790000000:{}", counter.fetch_add(1, Ordering::Relaxed));
            let claim = Claim {
                kind: NONCES,
                id: &nonce,
                ttl: Duration::from_secs(601),
            };
            let (stored, claimed) = runtime
                .block_on(store.get_and_claim(API_KEYS, consumer_key, &claim))
                .unwrap();
            assert!(stored.is_some() && claimed);
        })
    });
    group.finish();
}

criterion_group!(benches, verification, nonce_claim);
criterion_main!(benches);
