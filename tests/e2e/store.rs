//! The `Store` trait's contract, run against both implementations.

use presspack::domain::designs::DESIGNS;
use presspack::domain::orders::record::ORDERS;
use presspack::domain::packs::PACKS;
use presspack::domain::webhooks::WEBHOOKS_PENDING;
use presspack::http::auth::NONCES;
use presspack::http::client::RATE_LIMITS;
use std::sync::Arc;
use std::time::Duration;

use presspack::app::open_store;
use presspack::infra::store::{Claim, IndexEnd, SharedStore};

use crate::every_store;
use crate::helpers::{RedisKeys, StoreKind, test_config};

every_store!(
    insert_get_replace_delete_list,
    compare_and_swap_loses_no_increment,
    a_second_process_sees_the_same_records,
    claims_are_taken_once_until_they_expire_or_are_released,
    the_schedule_gives_what_is_due_earliest_first_and_pages_latest_first,
    windows_count_events_until_they_end,
);

async fn store(
    kind: StoreKind,
    dir: &std::path::Path,
) -> (SharedStore, presspack::config::Config, RedisKeys) {
    let config = test_config(kind, dir);
    let keys = RedisKeys::of(&config);
    (open_store(&config).await.unwrap(), config, keys)
}

async fn insert_get_replace_delete_list(kind: StoreKind) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _config, _keys) = store(kind, dir.path()).await;
    assert!(store.get(DESIGNS, "a").await.unwrap().is_none());
    assert!(store.insert(DESIGNS, "a", b"one").await.unwrap());
    assert!(
        !store.insert(DESIGNS, "a", b"again").await.unwrap(),
        "insert never overwrites"
    );
    let got = store.get(DESIGNS, "a").await.unwrap().unwrap();
    assert_eq!((got.revision, got.value.as_slice()), (1, &b"one"[..]));
    assert!(store.replace(DESIGNS, "a", b"two", 1).await.unwrap());
    assert!(
        !store.replace(DESIGNS, "a", b"stale", 1).await.unwrap(),
        "stale revision"
    );
    let got = store.get(DESIGNS, "a").await.unwrap().unwrap();
    assert_eq!((got.revision, got.value.as_slice()), (2, &b"two"[..]));
    assert!(
        store.get(PACKS, "a").await.unwrap().is_none(),
        "kinds are separate"
    );
    assert!(store.insert(DESIGNS, "b*{x}", b"").await.unwrap());
    assert_eq!(store.list(DESIGNS).await.unwrap(), ["a", "b*{x}"]);
    assert!(store.delete(DESIGNS, "a").await.unwrap());
    assert!(!store.delete(DESIGNS, "a").await.unwrap());
    assert!(!store.replace(DESIGNS, "a", b"gone", 2).await.unwrap());
    assert_eq!(store.list(DESIGNS).await.unwrap(), ["b*{x}"]);
    store.delete(DESIGNS, "b*{x}").await.unwrap();
}

async fn compare_and_swap_loses_no_increment(kind: StoreKind) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _config, _keys) = store(kind, dir.path()).await;
    store.insert(PACKS, "counter", b"0").await.unwrap();
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                for _ in 0..25 {
                    loop {
                        let current = store.get(PACKS, "counter").await.unwrap().unwrap();
                        let n: u64 = std::str::from_utf8(&current.value)
                            .unwrap()
                            .parse()
                            .unwrap();
                        let next = (n + 1).to_string();
                        if store
                            .replace(PACKS, "counter", next.as_bytes(), current.revision)
                            .await
                            .unwrap()
                        {
                            break;
                        }
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let done = store.get(PACKS, "counter").await.unwrap().unwrap();
    assert_eq!(done.value, b"200");
    assert_eq!(done.revision, 201);
    store.delete(PACKS, "counter").await.unwrap();
}

async fn a_second_process_sees_the_same_records(kind: StoreKind) {
    // Two independent store handles on one configuration, as the server and the CLI have.
    let dir = tempfile::tempdir().unwrap();
    let (first, config, _keys) = store(kind, dir.path()).await;
    let second = open_store(&config).await.unwrap();
    assert!(first.insert(DESIGNS, "shared", b"x").await.unwrap());
    assert_eq!(
        second.get(DESIGNS, "shared").await.unwrap().unwrap().value,
        b"x"
    );
    assert!(second.replace(DESIGNS, "shared", b"y", 1).await.unwrap());
    assert_eq!(
        first.get(DESIGNS, "shared").await.unwrap().unwrap().value,
        b"y"
    );
    first.delete(DESIGNS, "shared").await.unwrap();
}

async fn claims_are_taken_once_until_they_expire_or_are_released(kind: StoreKind) {
    let dir = tempfile::tempdir().unwrap();
    let (store, config, _keys) = store(kind, dir.path()).await;
    let long = Duration::from_secs(60);
    let claim = |id| Claim {
        kind: NONCES,
        id,
        ttl: long,
    };
    assert!(store.insert(DESIGNS, "owner", b"x").await.unwrap());
    let (record, claimed) = store
        .get_and_claim(DESIGNS, "owner", &claim("n1"))
        .await
        .unwrap();
    assert_eq!(record.unwrap().value, b"x", "the record is read as by get");
    assert!(claimed);
    let claimed_again = |store: SharedStore, owner: &'static str, claim: Claim<'static>| async move {
        store.get_and_claim(DESIGNS, owner, &claim).await.unwrap().1
    };
    assert!(
        !claimed_again(store.clone(), "owner", claim("n1")).await,
        "claimed"
    );
    assert!(claimed_again(store.clone(), "owner", claim("n2")).await);
    assert!(
        claimed_again(store.clone(), "missing", claim("n1")).await,
        "claims belong to their record, which need not exist"
    );
    let other_kind = Claim {
        kind: PACKS,
        ..claim("n1")
    };
    assert!(
        claimed_again(store.clone(), "owner", other_kind).await,
        "kinds are separate"
    );
    assert_eq!(
        store.list(DESIGNS).await.unwrap(),
        ["owner"],
        "claims are not records"
    );
    // A released claim is free again, and stays free after a restart; the others stay taken.
    store
        .release_claim(DESIGNS, "owner", &claim("n2"))
        .await
        .unwrap();
    drop(store);
    let store = open_store(&config).await.unwrap();
    assert!(
        !claimed_again(store.clone(), "owner", claim("n1")).await,
        "remembered"
    );
    assert!(
        claimed_again(store.clone(), "owner", claim("n2")).await,
        "released"
    );
    // Time only moves forward: after its lifetime a claim is free again.
    let short = Claim {
        ttl: Duration::from_millis(200),
        ..claim("n3")
    };
    assert!(claimed_again(store.clone(), "owner", short).await);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        claimed_again(store.clone(), "owner", short).await,
        "expired, so free again"
    );
}

async fn the_schedule_gives_what_is_due_earliest_first_and_pages_latest_first(kind: StoreKind) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _config, _keys) = store(kind, dir.path()).await;
    let queue = WEBHOOKS_PENDING;
    assert!(store.due(queue, i64::MAX, 10).await.unwrap().is_empty());
    assert_eq!(store.backlog(queue).await.unwrap(), (0, None));
    for (id, at) in [
        ("late", 3000),
        ("early", 1000),
        ("middle", 2000),
        ("future", 9000),
    ] {
        store.schedule(queue, id, at).await.unwrap();
    }
    assert_eq!(store.backlog(queue).await.unwrap(), (4, Some(1000)));
    assert_eq!(
        store.due(queue, 2500, 10).await.unwrap(),
        ["early", "middle"]
    );
    assert_eq!(
        store.due(queue, 5000, 2).await.unwrap(),
        ["early", "middle"]
    );
    // Scheduling again moves an entry; unscheduling removes it; kinds are separate.
    store.schedule(queue, "early", 4000).await.unwrap();
    store.unschedule(queue, "middle").await.unwrap();
    store.unschedule(queue, "never scheduled").await.unwrap();
    store.schedule(ORDERS, "other kind", 0).await.unwrap();
    assert_eq!(store.due(queue, 5000, 10).await.unwrap(), ["late", "early"]);
    assert_eq!(store.due(ORDERS, 5000, 10).await.unwrap(), ["other kind"]);
    // The backlog counts what is scheduled, due or not, and names the earliest time.
    assert_eq!(store.backlog(queue).await.unwrap(), (3, Some(3000)));
    assert_eq!(store.backlog(ORDERS).await.unwrap(), (1, Some(0)));
    // Read as an index: the latest first (the ids of one time in reverse order), by pages.
    store.schedule(queue, "also late", 3000).await.unwrap();
    assert_eq!(
        store.latest(queue, 0, 10).await.unwrap(),
        ["future", "early", "late", "also late"]
    );
    assert_eq!(store.latest(queue, 1, 2).await.unwrap(), ["early", "late"]);
    assert_eq!(
        store.latest(queue, 3, usize::MAX).await.unwrap(),
        ["also late"]
    );
    assert!(store.latest(queue, 4, 10).await.unwrap().is_empty());
    assert!(store.latest(queue, 0, 0).await.unwrap().is_empty());
    assert_eq!(store.latest(ORDERS, 0, 10).await.unwrap(), ["other kind"]);
    // From the earliest end: the ids of one time in order.
    let earliest = |skip, limit| store.page(queue, IndexEnd::Earliest, skip, limit);
    assert_eq!(
        earliest(0, 10).await.unwrap(),
        ["also late", "late", "early", "future"]
    );
    assert_eq!(earliest(1, 2).await.unwrap(), ["late", "early"]);
    assert_eq!(earliest(3, usize::MAX).await.unwrap(), ["future"]);
    assert!(earliest(4, 10).await.unwrap().is_empty());
    assert!(earliest(0, 0).await.unwrap().is_empty());
}

async fn windows_count_events_until_they_end(kind: StoreKind) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _config, _keys) = store(kind, dir.path()).await;
    let minute = Duration::from_secs(60);
    for expected in 1..=3 {
        let (count, left) = store
            .count_in_window(RATE_LIMITS, "key-a", minute, 1)
            .await
            .unwrap();
        assert_eq!(count, expected);
        assert!(left <= minute && left > Duration::from_secs(30), "{left:?}");
    }
    // Ids and kinds count apart.
    let other = store.count_in_window(RATE_LIMITS, "key-b", minute, 1);
    assert_eq!(other.await.unwrap().0, 1);
    let kind_apart = store.count_in_window(NONCES, "key-a", minute, 1);
    assert_eq!(kind_apart.await.unwrap().0, 1);
    // A new window starts once the old one has ended.
    let short = Duration::from_millis(200);
    assert_eq!(
        store
            .count_in_window(RATE_LIMITS, "key-c", short, 1)
            .await
            .unwrap()
            .0,
        1
    );
    tokio::time::sleep(short * 2).await;
    let (count, _) = store
        .count_in_window(RATE_LIMITS, "key-c", short, 1)
        .await
        .unwrap();
    assert_eq!(count, 1);
}

/// An embedded store made before the schedules' counts were kept counts what it holds once,
/// as it opens, and keeps counting from there.
#[tokio::test]
async fn an_embedded_store_of_an_earlier_version_counts_its_schedules() {
    let dir = tempfile::tempdir().unwrap();
    let (store, config, _) = store(StoreKind::Embedded, dir.path()).await;
    for (id, at) in [("a", 1), ("b", 2), ("c", 3)] {
        store.schedule(ORDERS, id, at).await.unwrap();
    }
    drop(store);
    // As the earlier version left it: no counts, no triggers.
    let file = dir.path().join("presspack.sqlite3");
    rusqlite::Connection::open(&file)
        .unwrap()
        .execute_batch(
            "DROP TRIGGER schedule_counted; DROP TRIGGER schedule_uncounted;
             DROP TABLE schedule_counts;",
        )
        .unwrap();
    let store = open_store(&config).await.unwrap();
    assert_eq!(store.backlog(ORDERS).await.unwrap(), (3, Some(1)));
    store.unschedule(ORDERS, "a").await.unwrap();
    store.schedule(ORDERS, "b", 5).await.unwrap();
    store.schedule(ORDERS, "d", 4).await.unwrap();
    assert_eq!(store.backlog(ORDERS).await.unwrap(), (3, Some(3)));
    assert_eq!(
        store.page(ORDERS, IndexEnd::Earliest, 0, 10).await.unwrap(),
        ["c", "d", "b"]
    );
}
