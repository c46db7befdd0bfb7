//! Slow and failing upstreams (issue #22, defect 1) against a real BFF and its sandbox over
//! sockets: a warm cache answers at once whatever the upstreams do, the parts of a composed
//! answer are fetched concurrently, and each upstream's circuit breaker opens, half-opens and
//! closes. No wall-clock budget: answers are compared with the injected latency (with a wide
//! margin) or with the sandbox's own log of when it received and answered each call.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use bff::cache::CachePolicy;
use common::SandboxHooks;
use common::{TestServer, header, start_with, test_config};
use serde_json::{Value, json};

const ADMIN_TOKEN: &str = "test-admin-token";
const SECRETS: &[(&str, &str)] = &[("BFF_ADMIN_TOKEN", ADMIN_TOKEN)];
const PAGE_ROUTE: &str = "/strapi/page/{name}";
const PRODUCT_ROUTE: &str = "/strapi/products/{title}";
const GROUP_ROUTE: &str = "/strapi/product-groups/{title}";
const PRICES_ROUTE: &str = "/Products";

/// Every upstream route a page, product or collection answer is made from.
const EVERY_ROUTE: [&str; 4] = [PAGE_ROUTE, PRODUCT_ROUTE, GROUP_ROUTE, PRICES_ROUTE];

/// Pages, products and collections, with a field each answer carries when it is the real thing.
const WARMED: [(&str, &str); 6] = [
    ("/api/pages/home", "carousel"),
    ("/api/pages/footer", "navLinks"),
    ("/api/products/summit%20lr", "skus"),
    ("/api/products/vanguard%2015", "skus"),
    ("/api/collections/rifles", "products"),
    ("/api/collections/pistols", "products"),
];

/// Fresh for `ttl`, then stale-if-error for ten minutes; no stale-while-revalidate, so a
/// stale entry is revalidated in the foreground (and `cache.stale_wait` is what bounds it).
fn short_lived(ttl: Duration) -> CachePolicy {
    CachePolicy {
        ttl,
        stale_while_revalidate: Duration::ZERO,
        stale_if_error: Duration::from_millis(600_000),
        jitter: 0.0,
        ..CachePolicy::default()
    }
}

fn cache_detail(response: &reqwest::Response) -> String {
    header(response, "cache-status")
        .split("; ")
        .find_map(|part| part.strip_prefix("detail="))
        .unwrap_or("none")
        .to_owned()
}

async fn admin_upstream(server: &TestServer, name: &str) -> Value {
    let answer: Value = server
        .client
        .get(format!("{}/admin/upstreams", server.admin))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer["upstreams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|upstream| upstream["upstream"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no {name} in {answer}"))
}

/// The sandbox's log entries for `route` (its template).
fn logged<'a>(log: &'a [Value], path_prefix: &str) -> Vec<&'a Value> {
    log.iter()
        .filter(|request| {
            request["path"]
                .as_str()
                .is_some_and(|path| path.starts_with(path_prefix))
        })
        .collect()
}

/// Issue #22's measurement as a test: every upstream route held for 15 s, 100 requests for warmed
/// URLs past their freshness all answer with content, long before any faulted call could have
/// returned (the sandbox still holds every one of them when the last answer arrives).
#[tokio::test]
async fn warmed_urls_answer_with_content_at_once_while_every_upstream_is_15_s_slow() {
    let mut config = test_config();
    for policy in [
        &mut config.cache.pages,
        &mut config.cache.product,
        &mut config.cache.collection,
        &mut config.cache.prices,
    ] {
        *policy = short_lived(Duration::from_millis(300));
    }
    let server = start_with(config, SECRETS).await;
    for (path, field) in WARMED {
        let response = server.get(path).await;
        assert_eq!(response.status(), 200, "{path}");
        let body: Value = response.json().await.unwrap();
        assert!(!body[field].is_null(), "{path}: {body}");
    }
    tokio::time::sleep(Duration::from_millis(400)).await;
    let warm_up_calls = last_seq(&server.sandbox_requests().await);
    let latency = Duration::from_secs(15);
    for route in EVERY_ROUTE {
        server
            .inject_fault(json!({"route": route, "latencyMs": latency.as_millis() as u64}))
            .await;
    }
    let started = Instant::now();
    let requests = (0..100).map(|n| {
        let (path, field) = WARMED[n % WARMED.len()];
        let (client, url) = (server.client.clone(), server.url(path));
        async move {
            let response = client.get(url).send().await.unwrap();
            let answered = started.elapsed();
            let state = cache_detail(&response);
            let status = response.status().as_u16();
            let body: Value = response.json().await.unwrap();
            (path, field, status, state, body, answered)
        }
    });
    let answers = futures::future::join_all(requests).await;
    let slowest = answers.iter().map(|answer| answer.5).max().unwrap();
    let log = server.sandbox_requests().await;
    for (path, field, status, state, body, _) in &answers {
        assert_eq!((*status, state.as_str()), (200, "stale-if-error"), "{path}");
        assert!(!body[field].is_null(), "{path}: the content itself: {body}");
    }
    // The upstream timeout (10 s) stays the default: an answer that had waited for it would
    // come after this bound too.
    assert!(
        slowest < latency / 3,
        "the slowest answer took {slowest:?}: someone waited for the {latency:?} upstream"
    );
    // Causality, not a clock budget: the revalidations are still held by the sandbox.
    let revalidations: Vec<&Value> = log
        .iter()
        .filter(|request| request["seq"].as_u64() > warm_up_calls)
        .collect();
    for request in &revalidations {
        assert!(
            request["answeredAtMs"].is_null(),
            "a faulted call returned before the last answer: {request}"
        );
    }
    // One revalidation per entry, however many requests asked for it.
    assert_eq!(
        revalidations.len(),
        WARMED.len() + 1,
        "six entries and the price map: {revalidations:?}"
    );
    server.clear_faults().await;
    server.stop().await;
}

/// The number of the last call in the sandbox's log.
fn last_seq(log: &[Value]) -> Option<u64> {
    log.iter()
        .filter_map(|request| request["seq"].as_u64())
        .max()
}

/// A cold product needs its content entry and the price map: both calls are made at once, so
/// with both upstreams slow the product costs one latency, not two in series.
#[tokio::test]
async fn a_cold_product_fetches_its_content_and_the_price_map_concurrently() {
    let server = start_with(test_config(), SECRETS).await;
    let latency_ms = 1_500;
    for route in [PRODUCT_ROUTE, PRICES_ROUTE] {
        server
            .inject_fault(json!({"route": route, "latencyMs": latency_ms}))
            .await;
    }
    let response = server.get("/api/products/summit%20lr").await;
    assert_eq!(response.status(), 200);
    let product: Value = response.json().await.unwrap();
    assert_eq!(product["title"], "Summit LR");
    assert!(product["skus"][0]["finalPrice"].is_number(), "{product}");

    let log = server.sandbox_requests().await;
    let content = logged(&log, "/strapi/products/");
    let prices = logged(&log, "/Products");
    assert_eq!((content.len(), prices.len()), (1, 1), "{log:?}");
    let time = |request: &Value, field: &str| request[field].as_u64().unwrap();
    let last_start = time(content[0], "receivedAtMs").max(time(prices[0], "receivedAtMs"));
    let first_end = time(content[0], "answeredAtMs").min(time(prices[0], "answeredAtMs"));
    assert!(
        last_start < first_end,
        "one call started only after the other had finished: {content:?} {prices:?}"
    );
    server.stop().await;
}

/// The content breaker (threshold 3, cool-off 2 s): three failed calls open it; while open a
/// warmed page is served stale at once and a cold one is a fast 503 with `Retry-After`, neither
/// reaching the upstream; after the cool-off one probe goes through: a failed probe opens it
/// again, a good one closes it. Checked on `/admin/upstreams` and the metrics.
#[tokio::test]
async fn the_breaker_opens_after_repeated_failures_answers_fast_then_half_opens_and_closes() {
    let mut config = test_config();
    config.cache.pages = short_lived(Duration::from_millis(200));
    config.upstreams.content.breaker_failure_threshold = 3;
    config.upstreams.content.breaker_cool_off = Duration::from_millis(2_000);
    let cool_off = Duration::from_millis(2_000);
    let server = start_with(config, SECRETS).await;
    assert_eq!(server.get("/api/pages/footer").await.status(), 200);
    assert_eq!(admin_upstream(&server, "content").await["state"], "closed");
    tokio::time::sleep(Duration::from_millis(300)).await;

    server
        .inject_fault(json!({"route": PAGE_ROUTE, "errorStatus": 500}))
        .await;
    for _ in 0..3 {
        assert_eq!(server.get("/api/pages/home").await.status(), 502);
    }
    let calls = server.upstream_calls(PAGE_ROUTE).await;
    let content = admin_upstream(&server, "content").await;
    assert_eq!(content["state"], "open", "{content}");
    assert_eq!(admin_upstream(&server, "commerce").await["state"], "closed");
    let scrape = server.metrics().await;
    // One series per state, exactly one of them at 1.
    let state = |scrape: &common::metrics::Scrape| {
        let series = scrape.by_label(
            "bff_upstream_breaker_state",
            &[("upstream", "content")],
            "state",
        );
        assert_eq!(
            series.keys().copied().collect::<Vec<_>>(),
            ["closed", "half_open", "open"],
            "{series:?}"
        );
        let current: Vec<&str> = series
            .iter()
            .filter(|(_, value)| **value == 1.0)
            .map(|(state, _)| *state)
            .collect();
        assert!(
            series.values().all(|value| *value == 0.0 || *value == 1.0),
            "{series:?}"
        );
        assert_eq!(current.len(), 1, "{series:?}");
        current[0].to_owned()
    };
    let transitions = |scrape: &common::metrics::Scrape, to: &str| {
        scrape
            .value(
                "bff_upstream_breaker_transitions_total",
                &[("upstream", "content"), ("to", to)],
            )
            .unwrap_or(0.0)
    };
    assert_eq!(state(&scrape), "open");
    assert_eq!(transitions(&scrape, "open"), 1.0);

    // Open: the warmed page at once from its stale copy, the cold one a fast 503.
    let stale = server.get("/api/pages/footer").await;
    assert_eq!(stale.status(), 200);
    assert!(
        header(&stale, "cache-status").contains("fwd-status=503"),
        "{}",
        header(&stale, "cache-status")
    );
    assert_eq!(cache_detail(&stale), "stale-if-error");
    let refused = server.get("/api/pages/home").await;
    assert_eq!(refused.status(), 503);
    let retry_after: u64 = header(&refused, "retry-after").parse().unwrap();
    assert!(
        (1..=2).contains(&retry_after),
        "the rest of the 2 s cool-off: {retry_after}"
    );
    assert_eq!(header(&refused, "content-type"), "application/problem+json");
    let problem: Value = refused.json().await.unwrap();
    assert_eq!(problem["code"], "upstream_unavailable");
    assert_eq!(
        server.upstream_calls(PAGE_ROUTE).await,
        calls,
        "nothing reached the upstream while open"
    );

    // Half-open: one probe; it fails, so the breaker opens for another cool-off.
    tokio::time::sleep(cool_off + Duration::from_millis(100)).await;
    assert_eq!(server.get("/api/pages/home").await.status(), 502);
    assert_eq!(server.upstream_calls(PAGE_ROUTE).await, calls + 1);
    assert_eq!(admin_upstream(&server, "content").await["state"], "open");
    let scrape = server.metrics().await;
    assert_eq!(
        (
            transitions(&scrape, "half_open"),
            transitions(&scrape, "open")
        ),
        (1.0, 2.0)
    );
    assert_eq!(state(&scrape), "open");

    // The upstream recovers: the next probe succeeds and closes the breaker.
    server.clear_faults().await;
    tokio::time::sleep(cool_off + Duration::from_millis(100)).await;
    let recovered = server.get("/api/pages/home").await;
    assert_eq!(recovered.status(), 200);
    let content = admin_upstream(&server, "content").await;
    assert_eq!(
        (&content["state"], &content["consecutiveFailures"]),
        (&json!("closed"), &json!(0)),
        "{content}"
    );
    let scrape = server.metrics().await;
    assert_eq!(state(&scrape), "closed");
    assert_eq!(
        (
            transitions(&scrape, "open"),
            transitions(&scrape, "half_open"),
            transitions(&scrape, "closed")
        ),
        (2.0, 2.0, 1.0)
    );
    assert_eq!(server.get("/api/pages/footer").await.status(), 200);
    server.stop().await;
}

/// `/admin/upstreams` is behind the admin token like `/admin/cache`.
#[tokio::test]
async fn the_upstreams_admin_view_needs_the_admin_token() {
    let server = start_with(test_config(), SECRETS).await;
    let url = format!("{}/admin/upstreams", server.admin);
    let anonymous = server.client.get(&url).send().await.unwrap();
    assert_eq!(anonymous.status(), 401);
    let names: Vec<String> = {
        let answer: Value = server
            .client
            .get(&url)
            .bearer_auth(ADMIN_TOKEN)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        answer["upstreams"]
            .as_array()
            .unwrap()
            .iter()
            .map(|upstream| upstream["upstream"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names, ["commerce", "content", "tiles"]);
    server.stop().await;
}
