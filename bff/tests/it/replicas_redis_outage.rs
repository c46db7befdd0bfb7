//! Redis stopped in the middle of the day: every replica keeps answering (what it holds, as
//! stale and revalidated once, since it may miss purges; a cold page, sign-in, checkout), each
//! on its own, and the shared tier works again once Redis is back.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::SandboxHooks;
use common::browser::Browser;
use common::redis::RedisServer;
use common::replicas::{Replicas, Setup, admin_purge};
use common::shopping::{checkout, checkout_body, guest_with_a_cart};
use common::{TestServer, header};
use serde_json::Value;

async fn three(redis: &RedisServer) -> Replicas {
    Replicas::start(Setup::on(redis.url(), 3), |_| {}).await
}

async fn cache_status(replica: &TestServer, path: &str) -> String {
    let answer = replica.get(path).await;
    assert_eq!(answer.status(), 200, "{path} on {}", replica.base);
    header(&answer, "cache-status").to_owned()
}

/// Until `replica` has noticed that its purge channel is gone.
async fn until_channel_lost(replica: &TestServer) {
    let started = Instant::now();
    while replica
        .metrics()
        .await
        .value(
            "bff_redis_errors_total",
            &[("operation", "purge_subscribe")],
        )
        .unwrap_or(0.0)
        < 1.0
    {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{} never noticed the purge channel was lost",
            replica.base
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn redis_errors(replica: &TestServer) -> f64 {
    let scrape = replica.metrics().await;
    [
        "cache_l2_read",
        "cache_fill_lock",
        "refresh_claim",
        "ratelimit",
        "idempotency_claim",
    ]
    .iter()
    .map(|operation| {
        scrape
            .value("bff_redis_errors_total", &[("operation", operation)])
            .unwrap_or(0.0)
    })
    .sum()
}

/// Polls for up to 10 s until every replica's readiness reports Redis again.
async fn until_redis_is_back(replicas: &Replicas) -> Duration {
    let started = Instant::now();
    for replica in &replicas.replicas {
        loop {
            let report: Value = replica.get("/readyz").await.json().await.unwrap();
            if report["redis"] == true {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "{} does not see Redis again: {report}",
                replica.base
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    started.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_redis_stopped_every_replica_keeps_answering_and_recovers_when_it_returns() {
    let mut redis = RedisServer::start();
    let replicas = three(&redis).await;
    for replica in &replicas.replicas {
        cache_status(replica, "/api/pages/home").await;
    }

    redis.stop();
    for (index, replica) in replicas.replicas.iter().enumerate() {
        // Once it knows the purge channel is lost, a replica may miss purges: what its L1
        // holds is served at once, but as stale, while one revalidation runs; then fresh.
        until_channel_lost(replica).await;
        let status = cache_status(replica, "/api/pages/home").await;
        assert!(
            status.contains("detail=stale"),
            "served at once, not as fresh: {status}"
        );
        let revalidated = Instant::now();
        while !cache_status(replica, "/api/pages/home")
            .await
            .contains("detail=hit")
        {
            assert!(
                revalidated.elapsed() < Duration::from_secs(5),
                "never fresh again from the upstream"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let status = cache_status(replica, "/api/pages/faq").await;
        assert!(
            !status.contains("detail=hit"),
            "a cold page, fetched alone: {status}"
        );
        Browser::new(replica).login().await;
        let cookie = guest_with_a_cart(replica).await;
        let body = checkout_body(&replicas).await;
        let placed = checkout(replica, &cookie, &format!("outage-{index}"), &body).await;
        assert_eq!(placed.status, 200, "{}", placed.text);
        assert!(
            redis_errors(replica).await >= 1.0,
            "{} counted its fallbacks",
            replica.base
        );
    }

    redis.resume();
    let back = until_redis_is_back(&replicas).await;
    eprintln!("every replica saw Redis again after {back:?}");
    // The shared tier works again: a page filled on one replica is an L2 hit on the others.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let filled = cache_status(&replicas.replicas[0], "/api/pages/warranty").await;
        let elsewhere = cache_status(&replicas.replicas[1], "/api/pages/warranty").await;
        if filled.contains("stored") && elsewhere.contains("detail=hit") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "L2 unused: {filled} / {elsewhere}"
        );
        // Not stored in L2 while the connections were still coming back: try a fresh page.
        admin_purge(
            &replicas.replicas[0],
            &serde_json::json!({"tags": ["page:warranty"]}),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    replicas.stop().await;
}
