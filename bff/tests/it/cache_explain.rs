//! Why did this miss: one test per miss reason, each proving that `GET /admin/cache/explain`
//! shows the reason for the key and that `bff_cache_misses_total{route,reason}` counts the
//! next miss for it; search terms never show in explain or the top lists. In process, against
//! the sandbox; the reason that needs a second replica (outdated in L2) and the filler an L2
//! value records are in `replicas_cache_explain`.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use bff::cache::CachePolicy;
use bff::config::Config;
use common::SandboxHooks;
use common::in_process::{InProcess, get_request, start_with_secrets};
use common::test_config;
use serde_json::{Value, json};

const PAGE_ROUTE: &str = "/strapi/page/{name}";
const ADMIN_TOKEN: &str = "test-admin-token";
const SECRETS: &[(&str, &str)] = &[("BFF_ADMIN_TOKEN", ADMIN_TOKEN)];

/// Pages fresh for `ttl_ms`, with no stale windows.
fn pages(ttl_ms: u64) -> CachePolicy {
    CachePolicy {
        ttl: Duration::from_millis(ttl_ms),
        stale_while_revalidate: Duration::ZERO,
        stale_if_error: Duration::ZERO,
        jitter: 0.0,
        ..CachePolicy::default()
    }
}

/// One replica on its own, also in the Redis pass: these reasons are about this replica's L1
/// (with L2, an entry evicted or expired here is an L2 hit, not a miss).
fn start_with(configure: impl FnOnce(&mut Config)) -> InProcess {
    let mut config = test_config();
    config.redis = Config::default().redis;
    config.cache.pages = pages(60_000);
    configure(&mut config);
    start_with_secrets(config, SECRETS)
}

async fn admin_get(app: &InProcess, path: &str) -> (u16, Value) {
    let bearer = format!("Bearer {ADMIN_TOKEN}");
    let answer = app
        .admin_send(get_request(path, &[("authorization", &bearer)]))
        .await;
    (answer.status.as_u16(), answer.json())
}

/// This replica's L1 view of the first key `url` maps to.
async fn explained_l1(app: &InProcess, url: &str) -> Value {
    let (status, explained) = admin_get(app, &format!("/admin/cache/explain?url={url}")).await;
    assert_eq!(status, 200, "{explained}");
    explained["keys"][0]["replicas"][0]["l1"].clone()
}

async fn misses(app: &InProcess, route: &str, reason: &str) -> f64 {
    app.metrics()
        .await
        .value(
            "bff_cache_misses_total",
            &[("route", route), ("reason", reason)],
        )
        .unwrap_or(0.0)
}

/// Explain names `reason` for `/api/pages/home`, and its next miss is counted under it.
async fn the_next_miss_is(app: &InProcess, reason: &str) {
    let l1 = explained_l1(app, "/api/pages/home").await;
    assert_eq!(l1["present"], false, "{l1}");
    assert_eq!(l1["missReason"], reason, "{l1}");
    let before = misses(app, "pages", reason).await;
    let answer = app.get("/api/pages/home").await;
    assert_eq!(answer.status, 200);
    assert_eq!(misses(app, "pages", reason).await, before + 1.0, "{reason}");
}

#[tokio::test]
async fn a_key_never_cached_here_misses_cold() {
    let app = start_with(|_| {});
    the_next_miss_is(&app, "cold").await;
    let l1 = explained_l1(&app, "/api/pages/home").await;
    assert_eq!(l1["present"], true, "{l1}");
    assert_eq!(l1["state"], "fresh", "{l1}");
    assert!(l1["freshUntilUnixMs"].as_u64().unwrap() > l1["storedAtUnixMs"].as_u64().unwrap());
    assert!(
        l1["tags"].as_array().unwrap().contains(&json!("page:home")),
        "{l1}"
    );
}

#[tokio::test]
async fn a_key_past_its_stale_window_misses_expired() {
    let app = start_with(|config| config.cache.pages = pages(50));
    assert_eq!(app.get("/api/pages/home").await.status, 200);
    tokio::time::sleep(Duration::from_millis(150)).await;
    the_next_miss_is(&app, "expired").await;
}

#[tokio::test]
async fn a_key_pushed_out_for_room_misses_evicted() {
    // a budget smaller than any one entry: moka turns each away as it arrives
    let app = start_with(|config| config.cache.capacity_bytes = 512);
    assert_eq!(app.get("/api/pages/home").await.status, 200);
    app.metrics().await; // the scrape runs moka's pending housekeeping
    the_next_miss_is(&app, "evicted").await;
}

#[tokio::test]
async fn a_purged_key_misses_purged_and_explain_lists_the_purge() {
    let app = start_with(|_| {});
    assert_eq!(app.get("/api/pages/home").await.status, 200);
    let purged = app
        .admin_post(
            "/admin/cache/purge",
            ADMIN_TOKEN,
            &json!({"tags": ["page:home"]}),
        )
        .await;
    assert_eq!(purged.status, 200);
    let (_, explained) = admin_get(&app, "/admin/cache/explain?url=/api/pages/home").await;
    let purges = explained["keys"][0]["purges"].as_array().unwrap().clone();
    assert_eq!(purges.len(), 1, "{explained}");
    assert_eq!(
        purges[0]["scope"]["tags"],
        json!(["page:home"]),
        "{explained}"
    );
    assert_eq!(purges[0]["replica"], explained["replica"], "{explained}");
    the_next_miss_is(&app, "purged").await;
}

#[tokio::test]
async fn an_answer_over_the_entry_limit_misses_too_large() {
    let app = start_with(|config| config.cache.pages.max_entry_bytes = 10);
    assert_eq!(app.get("/api/pages/home").await.status, 200);
    the_next_miss_is(&app, "too_large").await;
}

#[tokio::test]
async fn a_key_whose_last_fetch_failed_misses_not_cacheable() {
    let app = start_with(|_| {});
    app.inject_fault(json!({"route": PAGE_ROUTE, "errorStatus": 503}))
        .await;
    assert_eq!(app.get("/api/pages/home").await.status, 502);
    app.clear_faults().await;
    the_next_miss_is(&app, "not_cacheable").await;
}

#[tokio::test]
async fn an_answer_the_upstream_forbids_storing_misses_not_cacheable_and_is_kept_nowhere() {
    let app = start_with(|_| {});
    assert_eq!(app.get("/api/pages/home").await.status, 200);
    // the page is cached; it goes stale, and the upstream now says not to keep it
    let purged = app
        .admin_post(
            "/admin/cache/purge",
            ADMIN_TOKEN,
            &json!({"tags": ["page:home"], "mode": "soft"}),
        )
        .await;
    assert_eq!(purged.status, 200);
    app.inject_fault(json!({"route": PAGE_ROUTE, "cacheControl": "private, no-store"}))
        .await;
    let calls = app.upstream_calls(PAGE_ROUTE).await;
    let refreshed = app.get("/api/pages/home").await;
    assert_eq!(refreshed.status, 200);
    // the stale copy is served while one refresh runs; the refresh says not to store
    for _ in 0..50 {
        if app.upstream_calls(PAGE_ROUTE).await > calls {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    // neither the new answer nor the old copy is kept: every request goes upstream, each
    // answered `no-store` (so no browser or CDN keeps it either), and says why
    for _ in 0..2 {
        let calls = app.upstream_calls(PAGE_ROUTE).await;
        let answer = app.get("/api/pages/home").await;
        assert_eq!(answer.status, 200);
        assert_eq!(answer.header("cache-control"), "no-store");
        assert_eq!(app.upstream_calls(PAGE_ROUTE).await, calls + 1);
    }
    the_next_miss_is(&app, "not_cacheable").await;
}

#[tokio::test]
async fn a_request_the_cache_does_not_serve_is_bypassed() {
    let app = start_with(|_| {});
    let url = format!("/api/products/{}", "x".repeat(201));
    let before = misses(&app, "product", "bypassed").await;
    assert_eq!(app.get(&url).await.status, 404);
    assert_eq!(misses(&app, "product", "bypassed").await, before + 1.0);
    let l1 = explained_l1(&app, &url).await;
    assert_eq!(l1["missReason"], "bypassed", "{l1}");
}

#[tokio::test]
async fn a_search_shows_as_its_route_and_a_hash_never_the_term() {
    let app = start_with(|_| {});
    let answer = app.get("/api/search?q=Summit").await;
    assert_eq!(answer.status, 200);
    let (status, explained) =
        admin_get(&app, "/admin/cache/explain?url=/api/search?q=Summit").await;
    assert_eq!(status, 200, "{explained}");
    let key = explained["keys"][0]["key"].as_str().unwrap();
    assert!(key.starts_with("search:sha256:"), "{explained}");
    let (_, top) = admin_get(&app, "/admin/cache/top").await;
    assert!(
        top["keys"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["name"] == key),
        "the search's miss is listed under its hash: {top}"
    );
    for shown in [explained.to_string(), top.to_string()] {
        assert!(!shown.to_lowercase().contains("summit"), "{shown}");
    }
}

#[tokio::test]
async fn explain_without_a_url_names_the_field() {
    let app = start_with(|_| {});
    for path in [
        "/admin/cache/explain",
        "/admin/cache/explain?url=/api/orders/1",
    ] {
        let (status, problem) = admin_get(&app, path).await;
        assert_eq!(status, 422, "{problem}");
        assert!(problem["errors"]["url"].is_string(), "{problem}");
    }
}
