//! Behaviour matrix of the edge cache, one test per behaviour, against the sandbox in process:
//! its `/sandbox/stats` counts upstream requests and `/sandbox/faults` makes the upstream
//! misbehave. Over TCP only what needs a socket: an upstream that stops listening.

#![allow(clippy::unwrap_used)]

use crate::assert_metric;
use crate::common;

use std::time::{Duration, Instant};

use bff::cache::CachePolicy;
use bff::config::Config;
use common::SandboxHooks;
use common::in_process::{Answer, InProcess, get_request, start_reloadable, start_with_secrets};
use common::{TestServer, test_config};
use serde_json::{Value, json};

const PAGE_ROUTE: &str = "/strapi/page/{name}";
const PRODUCT_ROUTE: &str = "/strapi/products/{title}";
const ADMIN_TOKEN: &str = "test-admin-token";
const WEBHOOK_SECRET: &str = "test-webhook-secret";
const SECRETS: &[(&str, &str)] = &[
    ("BFF_ADMIN_TOKEN", ADMIN_TOKEN),
    ("BFF_WEBHOOK_SECRET", WEBHOOK_SECRET),
];

/// A policy of these many milliseconds: fresh, stale-while-revalidate, stale-if-error, 404.
fn policy(ttl: u64, swr: u64, sie: u64, negative: u64) -> CachePolicy {
    CachePolicy {
        ttl: Duration::from_millis(ttl),
        stale_while_revalidate: Duration::from_millis(swr),
        stale_if_error: Duration::from_millis(sie),
        negative_ttl: Duration::from_millis(negative),
        jitter: 0.0,
        ..CachePolicy::default()
    }
}

fn config_with(pages: CachePolicy, product: CachePolicy) -> Config {
    let mut config = test_config();
    config.cache.pages = pages;
    config.cache.product = product;
    config
}

fn start_cached(pages: CachePolicy) -> InProcess {
    start_with_secrets(config_with(pages, policy(60_000, 0, 0, 300)), SECRETS)
}

fn detail(cache_status: &str) -> String {
    cache_status
        .split("; ")
        .find_map(|part| part.strip_prefix("detail="))
        .unwrap_or("none")
        .to_owned()
}

fn state_of(response: &Answer) -> String {
    detail(response.header("cache-status"))
}

/// `n` concurrent GETs of `path`, each with the instant it was answered.
async fn at_once(app: &InProcess, path: &str, n: usize) -> Vec<(Answer, Instant)> {
    let requests = (0..n).map(|_| async { (app.get(path).await, Instant::now()) });
    futures::future::join_all(requests).await
}

async fn get_state(app: &InProcess, path: &str) -> (u16, String, String) {
    let response = app.get(path).await;
    (
        response.status.as_u16(),
        state_of(&response),
        response.text(),
    )
}

#[tokio::test]
async fn test_500_concurrent_cold_requests_make_one_upstream_request() {
    let app = start_cached(policy(60_000, 0, 0, 0));
    app.inject_fault(json!({"route": PAGE_ROUTE, "latencyMs": 300}))
        .await;
    let requests = (0..500).map(|_| get_state(&app, "/api/pages/home"));
    let answers: Vec<(u16, String, String)> = futures::future::join_all(requests).await;
    assert_eq!(app.upstream_calls(PAGE_ROUTE).await, 1);
    assert!(answers.iter().all(|(status, _, _)| *status == 200));
    let body = &answers[0].2;
    assert!(
        answers.iter().all(|(_, _, other)| other == body),
        "one body for all"
    );
    let misses = answers
        .iter()
        .filter(|(_, state, _)| state == "miss")
        .count();
    assert_eq!(misses, 1, "exactly one request fetched");
    assert!(
        answers
            .iter()
            .all(|(_, state, _)| ["miss", "coalesced", "hit"].contains(&state.as_str()))
    );
    assert!(answers.iter().any(|(_, state, _)| state == "coalesced"));
}

#[tokio::test]
async fn test_slow_upstream_timeout_releases_every_waiter_promptly_then_retries() {
    let mut config = config_with(policy(60_000, 0, 0, 0), policy(60_000, 0, 0, 0));
    config.upstreams.content.timeout = Duration::from_millis(300);
    let app = start_with_secrets(config, SECRETS);
    app.inject_fault(json!({"route": PAGE_ROUTE, "latencyMs": 3000}))
        .await;
    let started = Instant::now();
    let requests = (0..20).map(|_| async {
        let response = app.get("/api/pages/home").await;
        let problem = response.json();
        (
            response.status.as_u16(),
            problem["code"].as_str().unwrap_or_default().to_owned(),
            Instant::now(),
        )
    });
    let answers: Vec<_> = futures::future::join_all(requests).await;
    for (status, code, finished) in &answers {
        assert_eq!(*status, 504);
        assert_eq!(code, "upstream_timeout");
        // Released by the fetch's own timeout, long before the upstream's 3 s answer.
        assert!(finished.duration_since(started) < Duration::from_millis(2000));
    }
    assert_eq!(
        app.upstream_calls(PAGE_ROUTE).await,
        1,
        "the waiters shared one fetch"
    );

    app.clear_faults().await;
    let (status, state, _) = get_state(&app, "/api/pages/home").await;
    assert_eq!(
        (status, state.as_str()),
        (200, "miss"),
        "errors are not cached"
    );
    assert_eq!(app.upstream_calls(PAGE_ROUTE).await, 2);
}

#[tokio::test]
async fn test_stale_while_revalidate_serves_stale_at_once_with_one_background_refresh() {
    let app = start_cached(policy(1000, 60_000, 0, 0));
    assert_eq!(get_state(&app, "/api/pages/home").await.1, "miss");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    app.inject_fault(json!({"route": PAGE_ROUTE, "latencyMs": 600}))
        .await;
    let started = Instant::now();
    for (response, finished) in &at_once(&app, "/api/pages/home", 20).await {
        assert_eq!(
            (response.status.as_u16(), state_of(response).as_str()),
            (200, "stale")
        );
        // RFC 9211: answered from storage without going forward, so a `hit`, stale by its ttl.
        let status = response.header("cache-status");
        assert!(status.starts_with("bff; hit; ttl=-"), "{status}");
        // Served without waiting for the 600 ms refresh.
        assert!(finished.duration_since(started) < Duration::from_millis(500));
    }
    // The refresh answers after 600 ms and is then fresh for 1 s.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(
        app.upstream_calls(PAGE_ROUTE).await,
        2,
        "one fill, one refresh"
    );
    assert_eq!(
        get_state(&app, "/api/pages/home").await.1,
        "hit",
        "fresh again"
    );
}

/// Cache-Status per state, on the wire (RFC 9211): a cold miss is `fwd=uri-miss`, a fresh hit
/// `hit`, and a miss that replaced a stale copy (past its stale-while-revalidate window) went
/// forward because what it had was stale: `fwd=stale`.
#[tokio::test]
async fn test_cache_status_says_why_a_request_went_forward() {
    let mut config = config_with(policy(1000, 0, 60_000, 0), policy(60_000, 0, 0, 300));
    // The refetch below is waited for, however busy the machine (else stale-if-error).
    config.cache.stale_wait = Duration::from_millis(10_000);
    let app = start_with_secrets(config, SECRETS);
    let cold = app.get("/api/pages/home").await;
    let status = cold.header("cache-status");
    assert!(
        status.starts_with("bff; fwd=uri-miss; fwd-status=200; stored; ttl=")
            && status.ends_with("; detail=miss"),
        "{status}"
    );
    let hit = app.get("/api/pages/home").await;
    assert!(
        hit.header("cache-status").starts_with("bff; hit; ttl="),
        "{}",
        hit.header("cache-status")
    );
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let revalidated = app.get("/api/pages/home").await;
    let status = revalidated.header("cache-status");
    assert!(
        status.starts_with("bff; fwd=stale; fwd-status=200; stored; ttl=")
            && status.ends_with("; detail=miss"),
        "{status}"
    );
}

#[tokio::test]
async fn test_stale_if_error_serves_stale_on_upstream_500_inside_the_window_only() {
    let app = start_cached(policy(200, 0, 1500, 0));
    let (_, state, fresh_body) = get_state(&app, "/api/pages/home").await;
    assert_eq!(state, "miss");
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.inject_fault(json!({"route": PAGE_ROUTE, "errorStatus": 500}))
        .await;
    let response = app.get("/api/pages/home").await;
    assert_eq!(response.status, 200);
    assert_eq!(state_of(&response), "stale-if-error");
    // RFC 9211: went forward with a stale copy at hand, so `fwd=stale` and never `hit`.
    let status = response.header("cache-status");
    assert!(
        status.starts_with("bff; fwd=stale; fwd-status=500; ttl=-"),
        "{status}"
    );
    assert_eq!(response.text(), fresh_body);

    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (status, _, _) = get_state(&app, "/api/pages/home").await;
    assert_eq!(status, 502, "outside the window the error shows");
}

#[tokio::test]
async fn test_5xx_is_never_cached() {
    let app = start_cached(policy(60_000, 0, 0, 60_000));
    app.inject_fault(json!({"route": PAGE_ROUTE, "errorStatus": 503}))
        .await;
    for _ in 0..3 {
        let (status, state, _) = get_state(&app, "/api/pages/home").await;
        assert_eq!((status, state.as_str()), (502, "none"));
    }
    assert_eq!(app.upstream_calls(PAGE_ROUTE).await, 3);
}

#[tokio::test]
async fn test_404_is_cached_for_the_negative_ttl() {
    let app = start_with_secrets(
        config_with(policy(60_000, 0, 0, 0), policy(60_000, 0, 0, 400)),
        SECRETS,
    );
    let (status, state, body) = get_state(&app, "/api/products/no-such-rifle").await;
    assert_eq!((status, state.as_str()), (404, "miss"));
    let problem: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(problem["code"], "not_found");
    let (status, state, _) = get_state(&app, "/api/products/No-Such-Rifle").await;
    assert_eq!((status, state.as_str()), (404, "hit"));
    assert_eq!(app.upstream_calls(PRODUCT_ROUTE).await, 1);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (status, state, _) = get_state(&app, "/api/products/no-such-rifle").await;
    assert_eq!((status, state.as_str()), (404, "miss"));
    assert_eq!(app.upstream_calls(PRODUCT_ROUTE).await, 2);
}

#[tokio::test]
async fn test_if_none_match_gets_a_304_without_a_body() {
    let app = start_cached(policy(60_000, 0, 0, 0));
    let first = app.get("/api/pages/home").await;
    let etag = first.header("etag").to_owned();
    assert!(
        etag.starts_with('"') && etag.ends_with('"'),
        "strong ETag: {etag}"
    );
    assert!(
        first
            .header("cache-control")
            .starts_with("public, max-age=")
    );
    assert_eq!(first.header("surrogate-key"), "page:home");
    let again = app.get_if_none_match("/api/pages/home", &etag).await;
    assert_eq!(again.status, 304);
    assert_eq!(again.header("etag"), etag);
    assert!(again.body.is_empty());
}

#[tokio::test]
async fn test_compressed_variants_are_served_from_the_cache() {
    let app = start_cached(policy(60_000, 0, 0, 0));
    let plain = app.get("/api/pages/app").await.body;
    for encoding in ["br", "gzip"] {
        let response = app
            .get_with("/api/pages/app", &[("accept-encoding", encoding)])
            .await;
        assert_eq!(response.header("content-encoding"), encoding);
        assert_eq!(state_of(&response), "hit");
        assert!(
            response
                .header("vary")
                .to_lowercase()
                .contains("accept-encoding")
        );
        assert!(response.body.len() < plain.len());
    }
}

async fn admin_post(app: &InProcess, path: &str, token: &str, body: Value) -> (u16, Value) {
    let response = app.admin_post(path, token, &body).await;
    (
        response.status.as_u16(),
        serde_json::from_slice(&response.body).unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn test_purge_by_tag_drops_only_tagged_entries() {
    let app = start_cached(policy(60_000, 0, 0, 0));
    get_state(&app, "/api/pages/home").await;
    get_state(&app, "/api/pages/footer").await;
    let (status, answer) = admin_post(
        &app,
        "/admin/cache/purge",
        ADMIN_TOKEN,
        json!({"tags": ["page:home"]}),
    )
    .await;
    assert_eq!((status, answer["purged"].as_u64()), (200, Some(1)));
    assert_eq!(get_state(&app, "/api/pages/home").await.1, "miss");
    assert_eq!(get_state(&app, "/api/pages/footer").await.1, "hit");
}

#[tokio::test]
async fn test_admin_cache_api_needs_the_admin_token() {
    let app = start_cached(policy(60_000, 0, 0, 0));
    get_state(&app, "/api/pages/home").await;
    let (status, _) = admin_post(&app, "/admin/cache/purge", "wrong", json!({"all": true})).await;
    assert_eq!(status, 401);
    assert_eq!(
        get_state(&app, "/api/pages/home").await.1,
        "hit",
        "nothing purged"
    );
    let stats = app.admin("/admin/cache").await;
    assert_eq!(stats.status, 401);
    let bearer = format!("Bearer {ADMIN_TOKEN}");
    let stats = app
        .admin_send(get_request("/admin/cache", &[("authorization", &bearer)]))
        .await
        .json();
    let pages = stats["routes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|route| route["route"] == "pages")
        .unwrap();
    assert_eq!(pages["entries"], 1);
    assert_eq!(pages["lookups"]["miss"], 1);
    assert_eq!(pages["lookups"]["hit"], 1);
    assert_eq!(pages["hitRatio"], 0.5);
    // The scheme is case-insensitive (RFC 9110 §11.1); the token is not.
    for scheme in ["bearer", "BEARER"] {
        let authorization = format!("{scheme} {ADMIN_TOKEN}");
        let stats = app
            .admin_send(get_request(
                "/admin/cache",
                &[("authorization", &authorization)],
            ))
            .await;
        assert_eq!(stats.status, 200, "{scheme}");
    }
    let shouted = format!("Bearer {}", ADMIN_TOKEN.to_uppercase());
    let stats = app
        .admin_send(get_request("/admin/cache", &[("authorization", &shouted)]))
        .await;
    assert_eq!(stats.status, 401);
}

#[tokio::test]
async fn test_webhook_with_a_bad_secret_is_rejected_and_purges_nothing() {
    let app = start_cached(policy(60_000, 0, 0, 0));
    get_state(&app, "/api/pages/home").await;
    let payload =
        json!({"event": "entry.publish", "model": "page", "entry": {"id": 1, "name": "home"}});
    let (status, _) = admin_post(
        &app,
        "/admin/webhooks/content",
        "not-the-secret",
        payload.clone(),
    )
    .await;
    assert_eq!(status, 401);
    let (status, _) = admin_post(
        &app,
        "/admin/webhooks/content",
        ADMIN_TOKEN,
        payload.clone(),
    )
    .await;
    assert_eq!(status, 401, "the admin token is not the webhook secret");
    assert_eq!(get_state(&app, "/api/pages/home").await.1, "hit");

    let (status, answer) =
        admin_post(&app, "/admin/webhooks/content", WEBHOOK_SECRET, payload).await;
    assert_eq!((status, answer["purged"].as_u64()), (200, Some(1)));
    assert_eq!(get_state(&app, "/api/pages/home").await.1, "miss");
}

#[tokio::test]
async fn test_hostile_titles_stay_inside_one_path_segment() {
    let app = start_cached(policy(60_000, 0, 0, 0));
    let cases = [
        (
            "/api/products/..%2F..%2Fsandbox%2Fstats",
            "/strapi/products/..%2F..%2Fsandbox%2Fstats",
        ),
        ("/api/products/a%252Fb", "/strapi/products/a%252fb"),
        (
            "/api/products/what%3Fq=1%23frag",
            "/strapi/products/what%3Fq%3D1%23frag",
        ),
        (
            "/api/products/%C3%9Cber%20Rifle",
            "/strapi/products/%C3%BCber%20rifle",
        ),
    ];
    for (path, _) in cases {
        let response = app.get(path).await;
        assert!(response.status == 404 || response.status == 200, "{path}");
    }
    let seen: Vec<String> = app
        .sandbox_requests()
        .await
        .iter()
        .filter(|r| r["route"] != "/health")
        .map(|r| r["path"].as_str().unwrap_or_default().to_owned())
        .collect();
    for (_, expected) in cases {
        assert!(
            seen.contains(&expected.to_owned()),
            "{expected} not in {seen:?}"
        );
    }
    let routes: Vec<String> = app
        .sandbox_requests()
        .await
        .iter()
        .map(|r| r["route"].as_str().unwrap_or_default().to_owned())
        .collect();
    // The price map is looked up beside each product's content (concurrently, once: cached).
    assert!(
        routes
            .iter()
            .all(|route| route == PRODUCT_ROUTE || route == "/Products" || route == "/health"),
        "{routes:?}"
    );
}

#[tokio::test]
async fn test_policy_reload_changes_the_ttl_and_a_broken_reload_keeps_the_old_policy() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bff.toml");
    let write = |ttl: &str| {
        std::fs::write(
            &path,
            format!(
                "[cache.pages]\nttl = \"{ttl}\"\nstale_while_revalidate = \"0s\"\njitter = 0.0\n"
            ),
        )
        .unwrap();
    };
    write("1ms");
    let mut config = Config::load(&path).unwrap();
    let defaults = test_config();
    config.server = defaults.server;
    config.admin = defaults.admin;
    config.sandbox = defaults.sandbox;
    let app = start_reloadable(config, SECRETS, path.clone());

    assert_eq!(get_state(&app, "/api/pages/home").await.1, "miss");
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(
        get_state(&app, "/api/pages/home").await.1,
        "miss",
        "1 ms ttl"
    );

    write("1m");
    let (status, _) = admin_post(&app, "/admin/config/reload", ADMIN_TOKEN, json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(
        get_state(&app, "/api/pages/home").await.1,
        "hit",
        "the stored entry is fresh under the new ttl"
    );

    std::fs::write(&path, "[cache.pages]\nttl = \"soon\"\n").unwrap();
    let (status, problem) = admin_post(&app, "/admin/config/reload", ADMIN_TOKEN, json!({})).await;
    assert_eq!(status, 422);
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("cache.pages.ttl"),
        "{problem}"
    );
    assert_eq!(
        get_state(&app, "/api/pages/home").await.1,
        "hit",
        "the old policy stays"
    );
    assert_eq!(app.upstream_calls(PAGE_ROUTE).await, 2);
}

#[tokio::test]
async fn test_cache_metrics_count_lookups_by_route_and_state() {
    let app = start_cached(policy(60_000, 0, 0, 0));
    get_state(&app, "/api/pages/home").await;
    get_state(&app, "/api/pages/home").await;
    get_state(&app, "/api/pages/home").await;
    let metrics = app.metrics().await;
    assert_metric!(metrics, "bff_cache_lookups_total", {"route" => "pages", "state" => "miss"}, 1);
    assert_metric!(metrics, "bff_cache_lookups_total", {"route" => "pages", "state" => "hit"}, 2);
    assert_metric!(metrics, "bff_cache_entries", {}, 1);
    assert_eq!(
        metrics.histogram_count(
            "bff_cache_fetch_duration_seconds",
            &[("route", "pages"), ("outcome", "ok")]
        ),
        Some(1)
    );
}

// Over TCP: the upstream stops listening, so the fetch fails to connect (a connection
// refused, which only a socket gives).

async fn get_state_over_tcp(server: &TestServer, path: &str) -> (u16, String) {
    let response = server.get(path).await;
    (
        response.status().as_u16(),
        detail(common::header(&response, "cache-status")),
    )
}

#[tokio::test]
async fn test_stale_if_error_serves_stale_when_the_upstream_is_down() {
    // A standalone sandbox as the content upstream, so it can be stopped.
    let data = tempfile::tempdir().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let upstream = sandbox::SandboxState::new(sandbox::SandboxOptions::new(
        data.path().to_owned(),
        format!("http://{addr}"),
    ))
    .unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let upstream_task = tokio::spawn(sandbox::serve(listener, upstream, async move {
        let _ = stopped.await;
    }));
    let mut config = config_with(policy(200, 0, 1500, 0), policy(60_000, 0, 0, 0));
    config.upstreams.content.base_url = format!("http://{addr}/strapi/");
    config.upstreams.content.connect_timeout = Duration::from_millis(200);
    let server = common::start_with(config, SECRETS).await;

    assert_eq!(
        get_state_over_tcp(&server, "/api/pages/footer").await.1,
        "miss"
    );
    let _ = stop.send(());
    upstream_task.await.unwrap().unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;

    let (status, state) = get_state_over_tcp(&server, "/api/pages/footer").await;
    assert_eq!((status, state.as_str()), (200, "stale-if-error"));
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (status, _) = get_state_over_tcp(&server, "/api/pages/footer").await;
    assert_eq!(status, 502);
    server.stop().await;
}

/// Past its stale-while-revalidate window but inside stale-if-error, a page whose upstream has
/// turned slow is answered with the stale copy after `stale_wait`, not after the upstream's
/// timeout; one fetch runs on in the background and stores the page when it comes.
#[tokio::test]
async fn test_a_slow_upstream_costs_a_warm_page_the_stale_wait_not_the_upstream_timeout() {
    let mut config = config_with(policy(1000, 0, 600_000, 0), policy(60_000, 0, 0, 300));
    config.cache.stale_wait = Duration::from_millis(100);
    let app = start_with_secrets(config, SECRETS);
    assert_eq!(get_state(&app, "/api/pages/home").await.1, "miss");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    // Far longer than the wait: an answer that waited for this upstream would come after it.
    let latency = Duration::from_secs(3);
    app.inject_fault(json!({"route": PAGE_ROUTE, "latencyMs": latency.as_millis() as u64}))
        .await;
    let started = Instant::now();
    let answers = at_once(&app, "/api/pages/home", 20).await;
    let elapsed = started.elapsed();
    for (response, _) in &answers {
        assert_eq!(
            (response.status.as_u16(), state_of(response).as_str()),
            (200, "stale-if-error")
        );
        // The forward had not answered within the wait: for this request, it timed out.
        let status = response.header("cache-status");
        assert!(
            status.starts_with("bff; fwd=stale; fwd-status=504; ttl=-"),
            "{status}"
        );
        assert!(response.json()["carousel"].is_array(), "the page itself");
    }
    assert!(
        elapsed < latency,
        "answered after {elapsed:?}: someone waited for the {latency:?} upstream"
    );
    assert_eq!(
        app.upstream_calls(PAGE_ROUTE).await,
        2,
        "one fill, one revalidation"
    );
    // The revalidation lands (at `latency`) and the page is fresh again for its 1 s ttl.
    app.clear_faults().await;
    tokio::time::sleep((latency + Duration::from_millis(300)).saturating_sub(started.elapsed()))
        .await;
    assert_eq!(get_state(&app, "/api/pages/home").await.1, "hit");
    assert_eq!(app.upstream_calls(PAGE_ROUTE).await, 2);
}
