//! Three replicas, one sandbox, one real Redis: checkout idempotency keys and the auth rate
//! limit hold across replicas, and fall back to each replica on its own when Redis is gone.

#![allow(clippy::unwrap_used)]

use crate::assert_metric;
use crate::common;

use std::time::Duration;

use bff::config::Config;
use common::SandboxHooks;
use common::TestServer;
use common::browser::{CAPTCHA, SHOPPER};
use common::redis::RedisServer;
use common::replicas::{Replicas, Setup};
use common::shared_tier::{self, ORDER_ROUTE};
use common::shopping::{checkout, checkout_body, guest_with_a_cart};
use serde_json::json;

const LOGIN_ROUTE: &str = "/Auth/login";

async fn three(redis: &RedisServer, configure: impl Fn(&mut Config)) -> Replicas {
    Replicas::start(Setup::on(redis.url(), 3), configure).await
}

/// A sign-in with a wrong password: the status (401, or 429 when limited) and `Retry-After`.
async fn wrong_sign_in(server: &TestServer) -> (u16, Option<u64>) {
    let response = server
        .client
        .post(server.url("/api/auth/login"))
        .header("x-csrf", "1")
        .json(&json!({"email": SHOPPER, "password": "wrong-password", "captcha": CAPTCHA}))
        .send()
        .await
        .unwrap();
    let retry_after = common::header(&response, "retry-after").parse().ok();
    (response.status().as_u16(), retry_after)
}

/// The keys under `pattern` in Redis.
fn redis_keys(redis: &RedisServer, pattern: &str) -> Vec<String> {
    redis
        .cli(&["--scan", "--pattern", pattern])
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_checkout_retried_on_other_replicas_places_one_order_and_replays_its_answer() {
    let redis = RedisServer::start();
    let replicas = three(&redis, |_| {}).await;
    shared_tier::a_checkout_retried_on_other_replicas_places_one_order(&replicas).await;

    // One answer in Redis, under the prefix, kept for the 10 minutes of the in-process store.
    let keys = redis_keys(&redis, &format!("{}idempotency:*", replicas.key_prefix));
    assert_eq!(keys.len(), 1, "{keys:?}");
    let ttl_ms: u64 = redis.cli(&["PTTL", &keys[0]]).parse().unwrap();
    assert!((590_000..=600_000).contains(&ttl_ms), "{ttl_ms}");
    replicas.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_same_checkout_on_three_replicas_at_once_places_one_order() {
    let redis = RedisServer::start();
    let replicas = three(&redis, |_| {}).await;
    let cookie = guest_with_a_cart(&replicas.replicas[0]).await;
    let body = checkout_body(&replicas).await;
    // A slow order, so the duplicates arrive while it runs and must wait for its answer.
    replicas.replicas[0]
        .inject_fault(json!({"route": ORDER_ROUTE, "latencyMs": 500}))
        .await;

    let answers = futures::future::join_all(
        replicas
            .replicas
            .iter()
            .map(|replica| checkout(replica, &cookie, "concurrent-key", &body)),
    )
    .await;
    for answer in &answers {
        assert_eq!(answer.status, 200, "{}", answer.text);
        assert_eq!(answer.text, answers[0].text);
    }
    let made = answers.iter().filter(|answer| !answer.replayed).count();
    assert_eq!(made, 1, "one answer made, two replayed: {answers:?}");
    assert_eq!(replicas.replicas[0].upstream_calls(ORDER_ROUTE).await, 1);
    assert_eq!(
        shared_tier::events(&replicas, "idempotency_shared").await,
        2.0,
        "the two duplicates found the run in Redis"
    );
    replicas.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_auth_rate_limit_holds_across_replicas() {
    let redis = RedisServer::start();
    let replicas = three(&redis, |config| config.rate_limit.auth_per_minute = 10).await;
    common::early_in_a_rate_limit_window().await;
    for attempt in 0..12 {
        let replica = &replicas.replicas[attempt % 3];
        let (status, retry_after) = wrong_sign_in(replica).await;
        if attempt < 10 {
            assert_eq!(status, 401, "attempt {}", attempt + 1);
        } else {
            assert_eq!(status, 429, "attempt {}", attempt + 1);
            let wait = retry_after.unwrap();
            assert!((1..=60).contains(&wait), "{wait}");
        }
    }
    assert_eq!(replicas.replicas[0].upstream_calls(LOGIN_ROUTE).await, 10);
    let keys = redis_keys(
        &redis,
        &format!("{}ratelimit:auth:127.0.0.1:*", replicas.key_prefix),
    );
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert_eq!(redis.cli(&["GET", &keys[0]]), "12");
    replicas.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_redis_stopped_each_replica_keeps_checkout_idempotent_and_limits_sign_ins_alone() {
    let mut redis = RedisServer::start();
    let replicas = three(&redis, |config| config.rate_limit.auth_per_minute = 3).await;
    let [first_replica, second_replica, _] = &replicas.replicas[..] else {
        panic!("three replicas");
    };
    let cookie = guest_with_a_cart(first_replica).await;
    let body = checkout_body(&replicas).await;
    redis.stop();

    let first = checkout(first_replica, &cookie, "no-redis-key", &body).await;
    assert_eq!(first.status, 200, "{}", first.text);
    assert!(!first.replayed);
    let again = checkout(first_replica, &cookie, "no-redis-key", &body).await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert!(again.replayed);
    assert_eq!(again.text, first.text);
    assert_eq!(first_replica.upstream_calls(ORDER_ROUTE).await, 1);

    for attempt in 1..=4 {
        let (status, retry_after) = wrong_sign_in(second_replica).await;
        if attempt <= 3 {
            assert_eq!(status, 401, "attempt {attempt}");
        } else {
            assert_eq!(status, 429, "attempt {attempt}: this replica's own limit");
            assert!(retry_after.is_some_and(|wait| wait >= 1));
        }
    }

    let checkout_metrics = first_replica.metrics().await;
    assert_metric!(checkout_metrics, "bff_redis_errors_total", {"operation" => "idempotency_claim"}, 1);
    let sign_in_metrics = second_replica.metrics().await;
    assert_metric!(sign_in_metrics, "bff_redis_errors_total", {"operation" => "ratelimit"}, 4);
    replicas.stop().await;
}

/// Redis going away between "marker set" and "answer stored": the answer is stored when Redis
/// is back (here, empty: restarted without persistence), so a retry on another replica replays
/// it instead of placing a second order.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_answer_redis_missed_mid_order_is_stored_when_redis_is_back() {
    let mut redis = RedisServer::start();
    let replicas = three(&redis, |_| {}).await;
    let [first_replica, second_replica, _] = &replicas.replicas[..] else {
        panic!("three replicas");
    };
    let cookie = guest_with_a_cart(first_replica).await;
    let body = checkout_body(&replicas).await;
    first_replica
        .inject_fault(json!({"route": ORDER_ROUTE, "latencyMs": 1000}))
        .await;

    let (first, ()) = tokio::join!(
        checkout(first_replica, &cookie, "outage-key", &body),
        async {
            // The key is claimed at once; Redis dies while the order runs and comes back
            // only after the answer was made.
            tokio::time::sleep(Duration::from_millis(300)).await;
            redis.stop();
            tokio::time::sleep(Duration::from_millis(1500)).await;
            redis.resume();
        }
    );
    assert_eq!(first.status, 200, "{}", first.text);
    let stored = wait_for_a_stored_answer(&redis, &replicas.key_prefix).await;
    assert!(stored, "the answer never reached Redis");

    let retry = checkout(second_replica, &cookie, "outage-key", &body).await;
    assert_eq!(retry.status, 200, "{}", retry.text);
    assert!(retry.replayed);
    assert_eq!(retry.text, first.text);
    assert_eq!(first_replica.upstream_calls(ORDER_ROUTE).await, 1);
    let missed = first_replica
        .metrics()
        .await
        .value(
            "bff_redis_errors_total",
            &[("operation", "idempotency_store")],
        )
        .unwrap_or(0.0);
    assert!(missed >= 1.0, "the first store failed: {missed}");
    replicas.stop().await;
}

/// Whether an answer (not a marker) appears under the idempotency keys within 15 s.
async fn wait_for_a_stored_answer(redis: &RedisServer, key_prefix: &str) -> bool {
    for _ in 0..150 {
        let answered = redis_keys(redis, &format!("{key_prefix}idempotency:*"))
            .iter()
            // behind its MAC's line
            .any(|key| redis.cli(&["GET", key]).contains("\nanswered\n"));
        if answered {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// A duplicate waiting on another replica's run when Redis goes away does not run the order
/// itself (it may be under way): it answers 409, not kept, and the one order completes.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_duplicate_that_loses_redis_while_waiting_answers_409_instead_of_ordering() {
    let mut redis = RedisServer::start();
    let replicas = three(&redis, |_| {}).await;
    let [first_replica, second_replica, _] = &replicas.replicas[..] else {
        panic!("three replicas");
    };
    let cookie = guest_with_a_cart(first_replica).await;
    let body = checkout_body(&replicas).await;
    first_replica
        .inject_fault(json!({"route": ORDER_ROUTE, "latencyMs": 1500}))
        .await;

    let (first, duplicate, ()) = tokio::join!(
        checkout(first_replica, &cookie, "lost-key", &body),
        async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            checkout(second_replica, &cookie, "lost-key", &body).await
        },
        async {
            tokio::time::sleep(Duration::from_millis(700)).await;
            redis.stop();
        }
    );
    assert_eq!(duplicate.status, 409, "{}", duplicate.text);
    assert_eq!(duplicate.body["code"], "idempotency_key_in_flight");
    assert!(!duplicate.replayed);
    assert_eq!(first.status, 200, "{}", first.text);
    assert_eq!(first_replica.upstream_calls(ORDER_ROUTE).await, 1);
    let again = checkout(first_replica, &cookie, "lost-key", &body).await;
    assert!(again.replayed && again.text == first.text, "{again:?}");
    replicas.stop().await;
}
