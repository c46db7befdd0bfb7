//! What three replicas on one shared tier must do, whatever the topology behind it (a single
//! Redis, Sentinel, a cluster): the checks the replicas' suite makes, shared so a topology's
//! test runs the same assertions rather than a copy of them. Each takes freshly started
//! replicas (their own key prefix) and leaves the server-specific checks (keys, TTLs) to the
//! caller.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::browser::Browser;
use super::metrics::Scrape;
use super::replicas::{Replicas, SHARED_SECRETS, admin_purge};
use super::shopping::{checkout, checkout_body, guest_with_a_cart};
use super::{SandboxHooks, TestServer, header};

pub const PAGE_ROUTE: &str = "/strapi/page/{name}";
pub const ABOUT: &str = "/api/pages/aboutus";
/// The sandbox's order route: one request there is one order.
pub const ORDER_ROUTE: &str = "/Checkout/simplified";

pub fn secret(name: &str) -> &'static str {
    SHARED_SECRETS
        .iter()
        .find(|(key, _)| *key == name)
        .map(|(_, value)| *value)
        .unwrap()
}

/// The sum of `bff_redis_events_total{event}` over the replicas.
pub async fn events(replicas: &Replicas, event: &str) -> f64 {
    let mut total = 0.0;
    for replica in &replicas.replicas {
        total += replica
            .metrics()
            .await
            .value("bff_redis_events_total", &[("event", event)])
            .unwrap_or(0.0);
    }
    total
}

/// Whether the About Us page lists open positions (the sandbox's variant takes them away).
pub async fn lists_positions(replica: &TestServer) -> (bool, String) {
    let answer = replica.get(ABOUT).await;
    assert_eq!(answer.status(), 200);
    let status = header(&answer, "cache-status").to_owned();
    let page: Value = answer.json().await.unwrap();
    let positions = page["lookingForListContent"].as_array().map_or(0, Vec::len);
    (positions > 0, status)
}

/// Polls until `replica` answers About Us with (`true`) or without open positions, for up to
/// 5 s (the purge message travels asynchronously); returns the Cache-Status of that answer.
pub async fn until_positions(replica: &TestServer, listed: bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (positions, status) = lists_positions(replica).await;
        if positions == listed {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "{} still serves the purged page ({status})",
            replica.base
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub async fn set_variant(replicas: &Replicas, variant: &str) {
    let response = reqwest::Client::new()
        .put(format!(
            "{}/sandbox/pages/aboutus/variant",
            replicas.sandbox
        ))
        .json(&json!({"variant": variant}))
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success());
}

/// Every replica has About Us in L1: its second request is a hit.
pub async fn warm_about(replicas: &Replicas) {
    for replica in &replicas.replicas {
        lists_positions(replica).await;
        let (positions, status) = lists_positions(replica).await;
        assert!(positions, "the fixture lists open positions");
        assert!(status.contains("detail=hit"), "{status}");
    }
}

/// Stampede: 300 cold requests for one page, spread over the three replicas while the one
/// fetch runs, make one upstream call and one fill lock.
pub async fn a_cold_stampede_makes_one_upstream_call(replicas: &Replicas) {
    // Slow enough that every request arrives while the one fetch runs.
    replicas.replicas[0]
        .inject_fault(json!({"route": PAGE_ROUTE, "latencyMs": 500}))
        .await;
    let mut requests = Vec::new();
    for index in 0..300 {
        let replica = &replicas.replicas[index % 3];
        let (client, url) = (replica.client.clone(), replica.url("/api/pages/home"));
        requests.push(tokio::spawn(async move {
            let answer = client.get(url).send().await.unwrap();
            (answer.status().as_u16(), answer.text().await.unwrap())
        }));
    }
    let mut bodies = std::collections::HashSet::new();
    for request in requests {
        let (status, body) = request.await.unwrap();
        assert_eq!(status, 200, "{body}");
        bodies.insert(body);
    }
    assert_eq!(bodies.len(), 1, "every replica answered the same page");
    assert_eq!(replicas.replicas[0].upstream_calls(PAGE_ROUTE).await, 1);
    assert_eq!(events(replicas, "fill_lock_acquired").await, 1.0);
    assert!(events(replicas, "fill_lock_waited").await >= 1.0);
    replicas.replicas[0].clear_faults().await;
}

/// L2: a page filled on one replica is an L2 hit on each other one, then an L1 hit there.
pub async fn an_entry_filled_on_one_replica_is_an_l2_hit_on_the_others(replicas: &Replicas) {
    let first = replicas.replicas[0].get("/api/pages/home").await;
    assert!(header(&first, "cache-status").contains("detail=miss"));
    for replica in &replicas.replicas[1..] {
        let answer = replica.get("/api/pages/home").await;
        assert!(
            header(&answer, "cache-status").starts_with("bff-l2; hit; ttl="),
            "{}",
            header(&answer, "cache-status")
        );
        // Then an L1 hit on that replica.
        let again = replica.get("/api/pages/home").await;
        assert!(
            header(&again, "cache-status").starts_with("bff; hit;"),
            "{}",
            header(&again, "cache-status")
        );
    }
    assert_eq!(replicas.replicas[0].upstream_calls(PAGE_ROUTE).await, 1);
    assert_eq!(events(replicas, "l2_hit").await, 2.0);
}

/// Purge fan-out: a purge on one replica reaches every replica's L1 and L2; the fresh page is
/// fetched once for all three.
pub async fn a_purge_on_one_replica_reaches_every_replica(replicas: &Replicas) {
    warm_about(replicas).await;
    let calls_before = replicas.replicas[0].upstream_calls(PAGE_ROUTE).await;
    set_variant(replicas, "no-positions").await;
    let purge = admin_purge(&replicas.replicas[0], &json!({"tags": ["page:aboutus"]})).await;
    assert_eq!(purge.status(), 200);
    for replica in &replicas.replicas {
        // The next answer on each replica is an L1 miss with fresh content (fetched once,
        // then an L2 hit for the others).
        let status = until_positions(replica, false).await;
        assert!(status.contains("bff; fwd=uri-miss"), "{status}");
        assert!(!status.contains("detail=stale"), "{status}");
    }
    assert_eq!(
        replicas.replicas[0].upstream_calls(PAGE_ROUTE).await,
        calls_before + 1,
        "the purged page was fetched once for all three replicas"
    );
    assert_eq!(events(replicas, "purge_sent").await, 1.0);
    assert_eq!(events(replicas, "purge_received").await, 2.0);
}

async fn shared_idempotency_events(replicas: &Replicas) -> f64 {
    events(replicas, "idempotency_shared").await
}

/// Idempotency: a checkout retried under its key on the other replicas places one order and
/// replays its answer; another body under the key is refused on a replica that knows the key
/// only from Redis.
pub async fn a_checkout_retried_on_other_replicas_places_one_order(replicas: &Replicas) {
    let [first_replica, second_replica, third_replica] = &replicas.replicas[..] else {
        panic!("three replicas");
    };
    let cookie = guest_with_a_cart(first_replica).await;
    let body = checkout_body(replicas).await;

    let first = checkout(first_replica, &cookie, "retried-key", &body).await;
    assert_eq!(first.status, 200, "{}", first.text);
    assert!(!first.replayed);
    assert!(first.body["orderId"].as_i64().is_some(), "{}", first.text);
    // Another body under the key, on a replica that knows the key only from Redis.
    let mut other_body = body.clone();
    other_body["company"] = json!("Acme");
    let reused = checkout(third_replica, &cookie, "retried-key", &other_body).await;
    assert_eq!(reused.status, 422, "{}", reused.text);
    assert_eq!(reused.body["code"], "idempotency_key_reused");
    for replica in [second_replica, third_replica] {
        let retry = checkout(replica, &cookie, "retried-key", &body).await;
        assert_eq!(retry.status, 200, "{}", retry.text);
        assert!(retry.replayed, "the retry is the first answer, replayed");
        assert_eq!(retry.text, first.text);
    }
    assert_eq!(first_replica.upstream_calls(ORDER_ROUTE).await, 1);
    assert_eq!(
        shared_idempotency_events(replicas).await,
        3.0,
        "the mismatch and both retries were settled in Redis"
    );
}

/// `GET path` with `cookie`: status, body and whether the answer removes the cookie.
pub async fn replay(replica: &TestServer, path: &str, cookie: &str) -> (u16, Value, bool) {
    let response = replica
        .client
        .get(replica.url(path))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let removed = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .any(|value| value.to_str().unwrap().contains("Max-Age=0"));
    let body = response.json().await.unwrap_or(Value::Null);
    (status, body, removed)
}

pub fn session_event(scrape: &Scrape, event: &str) -> f64 {
    scrape
        .value("bff_session_events_total", &[("event", event)])
        .unwrap_or(0.0)
}

/// Revocation: a cookie copied before sign-out is signed out on every replica right after
/// sign-out answers, and a new sign-in is a new session the revocation does not touch. The
/// browser is signed in again when this returns.
pub async fn a_cookie_replayed_after_sign_out_is_signed_out_everywhere(replicas: &Replicas) {
    let servers = &replicas.replicas;
    let mut browser = Browser::new(&servers[0]);
    browser.login().await;
    let copy = browser.cookie.clone().unwrap();
    // Every replica shows the session signed in (and, before the fix, kept showing it).
    for (index, replica) in servers.iter().enumerate() {
        let (status, body, _) = replay(replica, "/api/session", &copy).await;
        assert_eq!(status, 200);
        assert_eq!(body["signedIn"], true, "replica {index}: {body}");
    }

    let signed_out = browser
        .post("/api/auth/logout", serde_json::json!({}))
        .await;
    assert_eq!(signed_out.status, 204, "{}", signed_out.text);
    assert!(browser.cookie.is_none(), "the cookie is cleared");

    for (index, replica) in servers.iter().enumerate() {
        // Answered as any ended session: 401 session_expired, no name or e-mail, cookie removed.
        let (status, body, removed) = replay(replica, "/api/session", &copy).await;
        assert_eq!(status, 401, "replica {index}: {body}");
        assert_eq!(body["code"], "session_expired", "replica {index}: {body}");
        assert!(!body.to_string().contains("Jordan"), "{body}");
        assert!(!body.to_string().contains("shopper@"), "{body}");
        assert!(removed, "replica {index} removes the copied cookie");
        let (status, body, _) = replay(replica, "/api/account", &copy).await;
        assert_eq!(status, 401, "replica {index}: {body}");
    }
    for (index, replica) in servers.iter().enumerate() {
        let scrape = replica.metrics().await;
        assert!(
            session_event(&scrape, "revoked") >= 1.0,
            "replica {index} counted the revoked session"
        );
        assert_eq!(scrape.value("bff_redis_errors_total", &[]), None);
    }

    // A new sign-in is a new session, unaffected by the revocation.
    browser.login().await;
    let (_, body, _) = replay(
        &servers[2],
        "/api/session",
        &browser.cookie.clone().unwrap(),
    )
    .await;
    assert_eq!(body["signedIn"], true);
}
