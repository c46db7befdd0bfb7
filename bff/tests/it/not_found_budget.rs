//! Issue 30, finding 2: made-up product and collection titles cannot fill the cache. Their 404s
//! live in a small budget of their own and never in L2; a title over 200 bytes is a 404 at once
//! (no upstream call, no entry); a remembered 404 does not echo the title; 404 answers are
//! limited per client. Against the real sandbox, in process (the client address comes through
//! the trusted proxy header).

#![allow(clippy::unwrap_used)]

use crate::assert_metric;
use crate::common;

use bff::config::Config;
use common::SandboxHooks;
use common::cache_stats::{cache_stats, catalogue_and_pages, entries};
use common::in_process::{InProcess, start_with_secrets};
use common::test_config;
use serde_json::Value;

const PRODUCT_ROUTE: &str = "/strapi/products/{title}";
const COLLECTION_ROUTE: &str = "/strapi/product-groups/{title}";
const ADMIN_TOKEN: &str = "test-admin-token";
const SECRETS: &[(&str, &str)] = &[("BFF_ADMIN_TOKEN", ADMIN_TOKEN)];

fn behind_the_ingress(configure: impl FnOnce(&mut Config)) -> InProcess {
    let mut config = test_config();
    config.rate_limit.trusted_client_ip_header = "x-forwarded-for".to_owned();
    config.rate_limit.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    configure(&mut config);
    start_with_secrets(config, SECRETS)
}

/// A made-up title of `length` letters.
fn made_up(rng: &mut fastrand::Rng, length: usize) -> String {
    (0..length).map(|_| rng.lowercase()).collect()
}

/// 5,000 made-up titles (products and collections, 8 to 400 letters) from 250 client
/// addresses, within each address's 404 budget: every page, product and collection stays
/// cached and the main budget's bytes do not move by 1 %. (Before: one 30,000-character title
/// took about 91 KB of the main budget, and about 730 of them filled 64 MiB.)
#[tokio::test]
async fn five_thousand_made_up_titles_leave_every_page_product_and_collection_cached() {
    let app = behind_the_ingress(|config| {
        config.cache.capacity_bytes = 2 * 1024 * 1024;
        config.cache.negative_capacity_bytes = 64 * 1024;
    });
    let mut warmed = 0;
    for path in catalogue_and_pages() {
        if app.get(&path).await.status == 200 {
            warmed += 1;
        }
    }
    assert!(warmed > 60, "{warmed}");
    let before = cache_stats(&app, ADMIN_TOKEN).await;
    let kept_routes = ["pages", "product", "collection", "prices"];
    let kept = |stats: &Value| -> Vec<u64> {
        kept_routes
            .iter()
            .map(|route| entries(stats, route))
            .collect()
    };
    let main_before = before["mainBytes"].as_u64().unwrap();

    let mut rng = fastrand::Rng::with_seed(30);
    let mut long = 0;
    for request in 0..5_000u32 {
        let length = rng.usize(8..=400);
        if length > 200 {
            long += 1;
        }
        let route = if request % 2 == 0 {
            "products"
        } else {
            "collections"
        };
        let from = format!("198.51.{}.{}", request % 250 / 100, request % 250 % 100 + 1);
        let answer = app
            .get_with(
                &format!("/api/{route}/{}", made_up(&mut rng, length)),
                &[("x-forwarded-for", &from)],
            )
            .await;
        assert_eq!(answer.status, 404, "request {request}: {}", answer.text());
    }

    let after = cache_stats(&app, ADMIN_TOKEN).await;
    let main_after = after["mainBytes"].as_u64().unwrap();
    let drift = main_after.abs_diff(main_before) as f64 / main_before as f64;
    println!(
        "5000 made-up titles ({long} over 200 bytes): main budget {main_before} -> {main_after} \
         bytes ({:.3} %), entries (pages, products, collections, prices) {:?} -> {:?}; {} 404s \
         hold {} of {} bytes",
        drift * 100.0,
        kept(&before),
        kept(&after),
        after["negativeEntries"],
        after["negativeBytes"],
        after["negativeCapacityBytes"]
    );
    assert_eq!(kept(&after), kept(&before), "{after}");
    assert!(drift < 0.01, "{main_before} -> {main_after}");
    assert!(
        after["negativeBytes"].as_u64().unwrap() <= 64 * 1024,
        "{after}"
    );
}

/// A title over 200 bytes after normalisation is a 404 problem at once: no upstream call, no
/// cache entry. A remembered 404 of a shorter one does not echo the title.
#[tokio::test]
async fn a_long_title_is_a_404_at_once_and_a_remembered_404_does_not_echo_the_title() {
    let app = behind_the_ingress(|_| {});
    let long = format!("{}x", "a".repeat(200));
    let padded = format!("%20%20{}%20%20", "B".repeat(201));
    for path in [
        format!("/api/products/{long}"),
        format!("/api/collections/{long}"),
        format!("/api/products/{padded}"),
    ] {
        let answer = app.get(&path).await;
        assert_eq!(answer.status, 404, "{path}");
        assert_eq!(answer.header("content-type"), "application/problem+json");
        assert_eq!(answer.json()["code"], "not_found");
        assert!(!answer.text().contains("aaaa"), "{}", answer.text());
    }
    assert_eq!(
        app.upstream_calls(PRODUCT_ROUTE).await,
        0,
        "no upstream call for titles over 200 bytes"
    );
    assert_eq!(app.upstream_calls(COLLECTION_ROUTE).await, 0);
    let stats = cache_stats(&app, ADMIN_TOKEN).await;
    assert_eq!(stats["negativeEntries"], 0, "no entry: {stats}");
    assert_eq!(
        entries(&stats, "product") + entries(&stats, "collection"),
        0
    );

    // Exactly 200 bytes once trimmed is a title like any other: asked upstream.
    let exactly = format!("%20{}%20", "c".repeat(200));
    assert_eq!(
        app.get(&format!("/api/products/{exactly}")).await.status,
        404
    );
    assert_eq!(app.upstream_calls(PRODUCT_ROUTE).await, 1);

    let title = "no-such-rifle-zz9";
    for _ in 0..2 {
        let answer = app.get(&format!("/api/products/{title}")).await;
        assert_eq!(answer.status, 404);
        assert!(!answer.text().contains(title), "{}", answer.text());
    }
    assert_eq!(
        app.upstream_calls(PRODUCT_ROUTE).await,
        2,
        "the second was the remembered 404"
    );
    // the page's document over the same title: `seo::unknown_paths_products_and_collections_…`
}

/// Past `rate_limit.not_found_per_minute` 404s, the client gets 429 with `Retry-After` on the
/// product and collection routes (documents too); another client is not affected, and answers
/// that find their title are never counted.
#[tokio::test]
async fn four_oh_fours_past_the_budget_are_refused_per_client() {
    let app = behind_the_ingress(|config| config.rate_limit.not_found_per_minute = 3);
    let get = |path: &str, from: &str| {
        let (app, path, from) = (&app, path.to_owned(), from.to_owned());
        async move { app.get_with(&path, &[("x-forwarded-for", &from)]).await }
    };
    for _ in 0..10 {
        assert_eq!(
            get("/api/products/summit%20lr", "203.0.113.60")
                .await
                .status,
            200,
            "found titles are not counted"
        );
    }
    for attempt in 0..3 {
        let answer = get(&format!("/api/products/made-up-{attempt}"), "203.0.113.60").await;
        assert_eq!(answer.status, 404, "attempt {attempt}");
    }
    // The fourth 404 is answered, and counted over the budget: from now on, 429.
    assert_eq!(
        get("/api/collections/made-up-3", "203.0.113.60")
            .await
            .status,
        404
    );
    let calls = app.upstream_calls(PRODUCT_ROUTE).await;
    let refused = get("/api/products/made-up-4", "203.0.113.60").await;
    assert_eq!(refused.status, 429);
    assert_eq!(refused.json()["code"], "rate_limited");
    let wait: u64 = refused.header("retry-after").parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    assert_eq!(
        app.upstream_calls(PRODUCT_ROUTE).await,
        calls,
        "no upstream call"
    );
    assert_eq!(get("/product/made-up-5", "203.0.113.60").await.status, 429);
    assert_eq!(
        get("/api/products/made-up-4", "203.0.113.61").await.status,
        404,
        "another client"
    );
    assert_metric!(app.metrics().await, "bff_rate_limited_total", {"limit" => "not_found"}, 3);
}

/// With Redis, a remembered 404 never enters L2 (only this replica's 404 budget holds it), while
/// a title that exists does.
#[tokio::test]
async fn a_404_never_enters_l2() {
    let redis = common::redis::RedisServer::start();
    let app = behind_the_ingress(|config| {
        config.redis.url = redis.url();
        config.redis.key_prefix = "nf-test:".to_owned();
        config.redis.command_timeout = common::BUSY_MACHINE_REDIS_TIMEOUT;
    });
    assert_eq!(app.get("/api/products/summit%20lr").await.status, 200);
    for title in ["made-up-rifle-qq7", "another-made-up-zz1"] {
        assert_eq!(app.get(&format!("/api/products/{title}")).await.status, 404);
        assert_eq!(
            app.get(&format!("/api/collections/{title}")).await.status,
            404
        );
    }
    let keys = redis.cli(&["--scan", "--pattern", "nf-test:*"]);
    assert!(keys.contains("summit lr"), "a real title is in L2: {keys}");
    assert!(!keys.contains("made-up"), "no 404 in L2: {keys}");
    let stats = cache_stats(&app, ADMIN_TOKEN).await;
    assert_eq!(stats["negativeEntries"], 4, "{stats}");
}
