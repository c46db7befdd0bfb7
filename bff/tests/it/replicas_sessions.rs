//! Three replicas, one sandbox, one real Redis: a session's token refresh across replicas. The
//! sandbox's refresh tokens are single-use and rotating (a second spend is refused and revokes
//! the family), so a refresh made twice would sign the shopper out.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::SandboxHooks;
use common::browser::Browser;
use common::metrics::Scrape;
use common::redis::RedisServer;
use common::replicas::{Replicas, Setup};
use common::{TestServer, header};

const REFRESH: &str = "/Auth/refresh-token";

/// Access tokens live 8 s and are refreshed within 4 s of expiry: due 4 s after sign-in, and
/// not due again for 4 s after the refresh, time for the test to check the new session.
const ACCESS_TOKEN_TTL_S: i64 = 8;
const REFRESH_MARGIN_MS: u64 = 4_000;

fn event(scrape: &Scrape, event: &str) -> f64 {
    scrape
        .value("bff_redis_events_total", &[("event", event)])
        .unwrap_or(0.0)
}

/// `GET /api/account` (commerce, as the user) with `cookie`: the status and the cookie the
/// answer sets, if any.
async fn account(replica: &TestServer, cookie: &str) -> (u16, Option<String>) {
    let response = replica
        .client
        .get(replica.url("/api/account"))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    let set_cookie = header(&response, "set-cookie")
        .split(';')
        .next()
        .filter(|pair| !pair.is_empty())
        .map(str::to_owned);
    (response.status().as_u16(), set_cookie)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_requests_of_one_session_at_expiry_over_three_replicas_make_one_refresh() {
    let redis = RedisServer::start();
    let replicas = Replicas::start(
        Setup {
            replicas: 3,
            redis_url: redis.url(),
            access_token_ttl_seconds: ACCESS_TOKEN_TTL_S,
        },
        |config| config.session.refresh_margin = Duration::from_millis(REFRESH_MARGIN_MS),
    )
    .await;
    let servers = &replicas.replicas;
    let mut browser = Browser::new(&servers[0]);
    browser.login().await;
    let cookie = browser.cookie.clone().unwrap();
    // Expiry is kept in whole seconds: a little past the margin, the token is surely due.
    tokio::time::sleep(Duration::from_millis(
        u64::try_from(ACCESS_TOKEN_TTL_S).unwrap() * 1000 - REFRESH_MARGIN_MS + 200,
    ))
    .await;
    assert_eq!(servers[0].upstream_calls(REFRESH).await, 0);

    let started = Instant::now();
    let requests = (0..50).map(|i| account(&servers[i % servers.len()], &cookie));
    let answers = futures::future::join_all(requests).await;
    let took = started.elapsed();

    let statuses: Vec<u16> = answers.iter().map(|(status, _)| *status).collect();
    assert!(!statuses.contains(&401), "nobody signed out: {statuses:?}");
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    assert!(
        answers.iter().all(|(_, set_cookie)| set_cookie.is_some()),
        "every answer reseals the cookie with the new tokens"
    );
    let refreshes = servers[0].upstream_calls(REFRESH).await;
    eprintln!("50 requests over 3 replicas took {took:?}; refreshes upstream: {refreshes}");
    assert_eq!(refreshes, 1, "one refresh reached the sandbox");

    let mut holders = 0;
    for (index, replica) in servers.iter().enumerate() {
        let scrape = replica.metrics().await;
        let (acquired, waited, used) = (
            event(&scrape, "lease_acquired"),
            event(&scrape, "lease_waited"),
            event(&scrape, "successor_used"),
        );
        eprintln!(
            "replica {index}: lease_acquired {acquired}, lease_waited {waited}, successor_used {used}"
        );
        assert_eq!(
            scrape.value("bff_redis_errors_total", &[]),
            None,
            "no Redis command failed"
        );
        if acquired == 1.0 {
            holders += 1;
            assert_eq!(used, 0.0, "the holder made the successor");
        } else {
            assert_eq!(acquired, 0.0);
            // One claim per replica: its other requests joined its single flight, then found
            // the rotation in its own memory.
            assert_eq!(used, 1.0, "replica {index} used the holder's successor");
            assert!(waited <= 1.0);
        }
    }
    assert_eq!(holders, 1, "one replica held the lease");

    let successor_prefix = format!("{}session:successor:", replicas.key_prefix);
    let successors = redis.cli(&["--scan", "--pattern", &format!("{successor_prefix}*")]);
    let successor = successors.lines().collect::<Vec<_>>();
    assert_eq!(successor.len(), 1, "{successors}");
    let hash = successor[0].trim_start_matches(successor_prefix.as_str());
    assert!(
        hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
        "named by the token's hash: {hash}"
    );
    let ttl_ms: i64 = redis.cli(&["PTTL", successor[0]]).parse().unwrap();
    assert!(0 < ttl_ms && ttl_ms <= 60_000, "kept 60 s: {ttl_ms}");
    assert!(
        redis.cli(&["GET", successor[0]]).starts_with("1."),
        "sealed at rest"
    );

    let newest = answers.last().and_then(|(_, c)| c.clone()).unwrap();
    for (index, replica) in servers.iter().enumerate() {
        let (status, _) = account(replica, &newest).await;
        assert_eq!(status, 200, "the session still works on replica {index}");
    }
    assert_eq!(
        servers[0].upstream_calls(REFRESH).await,
        1,
        "the new tokens needed no refresh"
    );
    replicas.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_redis_stopped_a_replica_refreshes_on_its_own_and_recovers_when_it_returns() {
    let mut redis = RedisServer::start();
    let replicas = Replicas::start(
        Setup::on(redis.url(), 1),
        // Longer than the tokens' life: every request refreshes.
        |config| config.session.refresh_margin = Duration::from_secs(901),
    )
    .await;
    let replica = &replicas.replicas[0];
    let mut browser = Browser::new(replica);
    browser.login().await;

    redis.stop();
    let answer = browser.get("/api/account").await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    // Two refreshes, each on its own: the first checks the session with the upstream, since
    // Redis cannot say whether it was signed out (issue 50); the second is this test's margin.
    assert_eq!(replica.upstream_calls(REFRESH).await, 2);
    let scrape = replica.metrics().await;
    assert!(
        scrape.value("bff_redis_errors_total", &[("operation", "refresh_claim")]) >= Some(1.0),
        "the fallback is counted: {:?}",
        scrape.names()
    );
    assert_eq!(event(&scrape, "lease_acquired"), 0.0);
    assert_eq!(
        browser.get("/api/account").await.status,
        200,
        "the refreshed session goes on"
    );

    // Back: within its reconnection delay, the replica takes leases again.
    redis.resume();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        assert_eq!(browser.get("/api/account").await.status, 200);
        if event(&replica.metrics().await, "lease_acquired") >= 1.0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no lease taken since Redis returned"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    replicas.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_replica_that_waits_out_a_slow_holder_fails_the_request_and_leaves_the_token_unspent() {
    let redis = RedisServer::start();
    let replicas = Replicas::start(Setup::on(redis.url(), 2), |config| {
        config.session.refresh_margin = Duration::from_secs(901)
    })
    .await;
    let (holder, waiter) = (&replicas.replicas[0], &replicas.replicas[1]);
    let mut browser = Browser::new(holder);
    browser.login().await;
    let cookie = browser.cookie.clone().unwrap();
    // Longer than a waiter waits (5 s), shorter than the upstream timeout (10 s).
    holder
        .inject_fault(serde_json::json!({"route": REFRESH, "latencyMs": 6_500}))
        .await;

    let (held, (waited, waited_for)) = tokio::join!(account(holder, &cookie), async {
        // Let the holder take the lease first.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let started = Instant::now();
        (account(waiter, &cookie).await, started.elapsed())
    });
    eprintln!("the waiter answered {} after {waited_for:?}", waited.0);
    assert_eq!(held.0, 200, "the holder refreshed");
    assert_eq!(
        waited,
        (504, None),
        "the waiter fails this request, retryably, and keeps the session"
    );
    assert!(waited_for >= Duration::from_secs(5), "{waited_for:?}");
    assert_eq!(holder.upstream_calls(REFRESH).await, 1, "never spent twice");

    // The shopper's retry, still with the old cookie, gets the holder's tokens.
    holder.clear_faults().await;
    let (status, resealed) = account(waiter, &cookie).await;
    assert_eq!(status, 200);
    assert!(resealed.is_some());
    assert_eq!(holder.upstream_calls(REFRESH).await, 1);
    let scrape = waiter.metrics().await;
    assert_eq!(event(&scrape, "lease_waited"), 1.0);
    assert_eq!(event(&scrape, "successor_used"), 1.0);
    assert_eq!(event(&scrape, "lease_acquired"), 0.0);
    replicas.stop().await;
}
