//! The cross-replica lease (`bff::coordination::lease`) against a real redis-server: claim, expire (and
//! renewal), publish at the deadline, Redis down (a wait that stops, a wait that keeps going),
//! and a holder killed (its guard dropped or its task aborted: the lease released at once, or
//! left to lapse). Each "replica" is a `Redis` handle of its own on one server.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use bff::config::RedisConfig;
use bff::coordination::lease::{
    Claim, Held, Keys, Lease, OnDrop, Operations, Waited, WhenDown, wait_until,
};
use bff::coordination::replicas::Redis;
use bff::observe::metrics::Metrics;
use common::redis::RedisServer;
use tokio::time::Instant;

const OPERATIONS: Operations = Operations {
    claim: "test_lease_claim",
    renew: "test_lease_renew",
    release: "test_lease_release",
    publish: "test_lease_publish",
    peek: "test_lease_peek",
};

/// One replica's handle on `server`, with a lease kind of `ttl`.
fn replica(server: &RedisServer, ttl: Duration, renew: bool, on_drop: OnDrop) -> Lease {
    let config = RedisConfig {
        url: server.url(),
        key_prefix: "t:".to_owned(),
        ..RedisConfig::default()
    };
    let redis = Redis::from_config(&config, None, Arc::new(Metrics::new()))
        .unwrap()
        .unwrap();
    Lease::new(redis, ttl, renew, on_drop, OPERATIONS)
}

fn held(claim: Claim) -> Held {
    match claim {
        Claim::Claimed(held) => held,
        other => panic!("expected the lease, got {other:?}"),
    }
}

fn keys_for(lease: &Lease, name: &str) -> Keys {
    Keys::beside(
        lease.redis().key(&["lease", name]),
        lease.redis().key(&["value", name]),
    )
}

/// Polls `server` (by `redis-cli`) for up to 2 s until `key` is gone.
async fn until_gone(server: &RedisServer, key: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline {
        if server.cli(&["EXISTS", key]) == "0" {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test]
async fn one_replica_claims_and_the_others_find_it_busy_until_it_releases() {
    let server = RedisServer::start();
    let (a, b) = (
        replica(&server, Duration::from_secs(10), false, OnDrop::Lapse),
        replica(&server, Duration::from_secs(10), false, OnDrop::Lapse),
    );
    let keys = keys_for(&a, "claim");
    let holder = held(a.claim(&keys, b"token-a").await);
    assert_eq!(server.cli(&["GET", "t:lease:claim"]), "token-a");
    let ttl: u64 = server.cli(&["PTTL", "t:lease:claim"]).parse().unwrap();
    assert!(ttl > 9_000 && ttl <= 10_000, "PX of the lease's TTL: {ttl}");
    assert!(matches!(b.claim(&keys, b"token-b").await, Claim::Busy));
    assert!(b.is_held(&keys).await.unwrap());
    // Release is by token: b cannot free a's lease.
    assert!(!b.release_as(&keys, b"token-b").await.unwrap());
    assert_eq!(server.cli(&["GET", "t:lease:claim"]), "token-a");
    assert!(holder.release().await.unwrap());
    assert!(!b.is_held(&keys).await.unwrap());
    held(b.claim(&keys, b"token-b").await).detach();
}

#[tokio::test]
async fn a_lease_that_is_not_renewed_expires_and_another_replica_claims_it() {
    let server = RedisServer::start();
    let ttl = Duration::from_millis(300);
    let (a, b) = (
        replica(&server, ttl, false, OnDrop::Lapse),
        replica(&server, ttl, false, OnDrop::Lapse),
    );
    let keys = keys_for(&a, "expire");
    let stale = held(a.claim(&keys, b"token-a").await);
    assert!(matches!(b.claim(&keys, b"token-b").await, Claim::Busy));
    tokio::time::sleep(ttl + Duration::from_millis(100)).await;
    let fresh = held(b.claim(&keys, b"token-b").await);
    // The first holder, back too late, touches nothing of the second's.
    assert!(!stale.release().await.unwrap());
    assert_eq!(server.cli(&["GET", "t:lease:expire"]), "token-b");
    fresh.detach();
}

#[tokio::test]
async fn a_renewed_lease_outlives_its_ttl_while_held() {
    let server = RedisServer::start();
    let ttl = Duration::from_millis(300);
    let (a, b) = (
        replica(&server, ttl, true, OnDrop::Lapse),
        replica(&server, ttl, true, OnDrop::Lapse),
    );
    let keys = keys_for(&a, "renew");
    let holder = held(a.claim(&keys, b"token-a").await);
    tokio::time::sleep(ttl * 4).await;
    assert!(matches!(b.claim(&keys, b"token-b").await, Claim::Busy));
    assert_eq!(server.cli(&["GET", "t:lease:renew"]), "token-a");
    assert!(holder.release().await.unwrap());
}

#[tokio::test]
async fn a_value_published_at_the_deadline_reaches_the_waiter_and_ends_the_lease() {
    let server = RedisServer::start();
    let (a, b) = (
        replica(&server, Duration::from_secs(10), true, OnDrop::Release),
        replica(&server, Duration::from_secs(10), true, OnDrop::Release),
    );
    let keys = keys_for(&a, "publish");
    let mut holder = held(a.claim(&keys, b"token-a").await);
    assert!(matches!(b.claim(&keys, b"token-b").await, Claim::Busy));
    let wait = Duration::from_millis(400);
    let deadline = Instant::now() + wait;
    let publisher = tokio::spawn(async move {
        tokio::time::sleep(wait - Duration::from_millis(60)).await;
        assert!(
            holder
                .publish(b"the value", Duration::from_secs(60))
                .await
                .unwrap()
        );
    });
    // The poll is longer than the wait: the only look is the one at the deadline.
    let looks = std::sync::atomic::AtomicUsize::new(0);
    let waited = wait_until(deadline, Duration::from_secs(60), WhenDown::Stop, || {
        looks.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        b.peek(&keys)
    })
    .await;
    publisher.await.unwrap();
    assert_eq!(waited, Waited::Ready(b"the value".to_vec()));
    assert_eq!(looks.load(std::sync::atomic::Ordering::SeqCst), 1);
    let now = Instant::now();
    assert!(
        now >= deadline && now < deadline + Duration::from_secs(1),
        "looked at the deadline, not a poll later"
    );
    assert_eq!(server.cli(&["EXISTS", "t:lease:publish"]), "0", "released");
    // Later claims find the value instead of the lease; a second value does not replace it.
    match b.claim(&keys, b"token-b").await {
        Claim::Published(value) => assert_eq!(value, b"the value"),
        other => panic!("expected the value, got {other:?}"),
    }
    assert!(
        b.publish_as(&keys, b"token-b", b"another", Duration::from_secs(60))
            .await
            .unwrap()
    );
    assert_eq!(server.cli(&["GET", "t:value:publish"]), "the value");
}

#[tokio::test]
async fn in_place_the_value_replaces_its_holders_token_and_never_another_holders() {
    let server = RedisServer::start();
    let (a, b) = (
        replica(&server, Duration::from_millis(300), false, OnDrop::Lapse),
        replica(&server, Duration::from_millis(300), false, OnDrop::Lapse),
    );
    let keys = Keys::in_place(a.redis().key(&["key", "in-place"]));
    let mut stale = held(a.claim(&keys, b"running-a").await);
    // In place, a waiter sees whatever holds the key: here the holder's token.
    match b.claim(&keys, b"running-b").await {
        Claim::Published(held) => assert_eq!(held, b"running-a"),
        other => panic!("expected the holder's token, got {other:?}"),
    }
    tokio::time::sleep(Duration::from_millis(400)).await;
    let mut fresh = held(b.claim(&keys, b"running-b").await);
    assert!(
        !stale
            .publish(b"answer-a", Duration::from_secs(60))
            .await
            .unwrap(),
        "a lapsed holder does not overwrite the new one's lease"
    );
    assert_eq!(server.cli(&["GET", "t:key:in-place"]), "running-b");
    assert!(
        fresh
            .publish(b"answer-b", Duration::from_secs(60))
            .await
            .unwrap()
    );
    assert_eq!(server.cli(&["GET", "t:key:in-place"]), "answer-b");
    let ttl: u64 = server.cli(&["PTTL", "t:key:in-place"]).parse().unwrap();
    assert!(ttl > 59_000, "the value's own TTL: {ttl}");
}

#[tokio::test]
async fn with_redis_down_a_claim_is_unavailable_and_a_wait_stops_or_keeps_going() {
    let mut server = RedisServer::start();
    let a = replica(&server, Duration::from_secs(10), false, OnDrop::Lapse);
    let keys = keys_for(&a, "down");
    held(a.claim(&keys, b"token-a").await).detach();
    server.stop();
    assert!(matches!(
        a.claim(&keys, b"token-a").await,
        Claim::Unavailable
    ));
    let exposition = a.redis().metrics().render();
    assert!(
        exposition.contains("bff_redis_errors_total{operation=\"test_lease_claim\"} 1"),
        "counted under the caller's operation name: {exposition}"
    );

    // Fail fast: the first failed look ends the wait.
    let started = Instant::now();
    let deadline = started + Duration::from_secs(2);
    let stopped = wait_until(deadline, Duration::from_millis(20), WhenDown::Stop, || {
        a.peek(&keys)
    })
    .await;
    assert_eq!(stopped, Waited::Unavailable);
    assert!(started.elapsed() < Duration::from_secs(1));

    // Keep waiting: a failed look is "not yet", and the wait runs to its deadline.
    let deadline = Instant::now() + Duration::from_millis(300);
    let kept = wait_until(
        deadline,
        Duration::from_millis(20),
        WhenDown::KeepWaiting,
        || a.peek(&keys),
    )
    .await;
    assert_eq!(kept, Waited::TimedOut);
    assert!(Instant::now() >= deadline);

    // …and finds a value published once Redis is back (a fresh server: nothing persisted).
    server.resume();
    let deadline = Instant::now() + Duration::from_secs(5);
    let setter = {
        let port = server.port;
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            std::process::Command::new("redis-cli")
                .args(["-p", &port.to_string(), "SET", "t:value:down", "late"])
                .output()
                .unwrap();
        })
    };
    let back = wait_until(
        deadline,
        Duration::from_millis(20),
        WhenDown::KeepWaiting,
        || a.peek(&keys),
    )
    .await;
    setter.await.unwrap();
    assert_eq!(back, Waited::Ready(b"late".to_vec()));
}

#[tokio::test]
async fn a_holder_dropped_mid_work_releases_at_once_when_its_work_is_safe_to_redo() {
    let server = RedisServer::start();
    let (a, b) = (
        replica(&server, Duration::from_secs(30), true, OnDrop::Release),
        replica(&server, Duration::from_secs(30), true, OnDrop::Release),
    );
    let keys = keys_for(&a, "dropped");
    drop(held(a.claim(&keys, b"token-a").await));
    assert!(until_gone(&server, "t:lease:dropped").await, "released");
    held(b.claim(&keys, b"token-b").await).detach();

    // A task killed while holding its guard: the same.
    let killed = keys_for(&a, "killed");
    let task = {
        let (a, killed) = (a.clone(), killed.clone());
        tokio::spawn(async move {
            let _holder = held(a.claim(&killed, b"token-a").await);
            tokio::time::sleep(Duration::from_secs(60)).await;
        })
    };
    let claimed_by_task = async {
        while server.cli(&["EXISTS", "t:lease:killed"]) != "1" {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(2), claimed_by_task)
        .await
        .unwrap();
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    assert!(until_gone(&server, "t:lease:killed").await, "released");
    assert!(matches!(
        b.claim(&killed, b"token-b").await,
        Claim::Claimed(_)
    ));
}

#[tokio::test]
async fn a_holder_dropped_mid_work_leaves_its_lease_to_lapse_when_its_work_may_have_had_effects() {
    let server = RedisServer::start();
    let ttl = Duration::from_millis(400);
    let (a, b) = (
        replica(&server, ttl, true, OnDrop::Lapse),
        replica(&server, ttl, true, OnDrop::Lapse),
    );
    let keys = keys_for(&a, "lapse");
    let dropped_at = Instant::now();
    drop(held(a.claim(&keys, b"token-a").await));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        matches!(b.claim(&keys, b"token-b").await, Claim::Busy),
        "still held after the drop"
    );
    // Its renewal stopped with the guard: the lease lapses by its TTL.
    assert!(until_gone(&server, "t:lease:lapse").await, "lapsed");
    assert!(dropped_at.elapsed() >= ttl - Duration::from_millis(50));
    held(b.claim(&keys, b"token-b").await).detach();
}
