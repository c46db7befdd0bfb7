//! The edge cache's hit path, in process: lookup of a fresh entry plus building the HTTP answer
//! (conditional check, encoding negotiation, headers), and the hit path proper (a remembered
//! answer for a request, dressed with the request id and security headers, as the listener
//! sends it). `make bench` runs it.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Request, StatusCode};
use bff::cache::{CacheConfig, CachedAnswer, EdgeCache, Fetched, RouteKind};
use bff::config::Config;
use bff::edge::hit_path::HitPath;
use bff::http::security::SecurityHeaders;
use bff::observe::metrics::Metrics;
use bytes::Bytes;
use criterion::{Criterion, criterion_group, criterion_main};

/// A real page body: the `app` page (menus) as the sandbox serves it.
const APP_PAGE: &str = include_str!("../../sandbox/fixtures/pages/app.json");

fn cache_hit(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|err| panic!("runtime: {err}"));
    let cache = EdgeCache::new(CacheConfig::default(), Arc::new(Metrics::new()));
    let body = Bytes::from(APP_PAGE.replace("{{media}}", "http://127.0.0.1:8081"));
    runtime.block_on(async {
        let body = body.clone();
        cache
            .lookup(RouteKind::Pages, "app", move || async move {
                Ok(Fetched {
                    status: StatusCode::OK,
                    body,
                    content_type: HeaderValue::from_static("application/json"),
                    extra_tags: vec![],
                    no_store: false,
                })
            })
            .await
            .unwrap_or_else(|err| panic!("fill: {err}"));
    });
    let mut headers = HeaderMap::new();
    headers.insert(
        "accept-encoding",
        HeaderValue::from_static("gzip, deflate, br, zstd"),
    );

    let mut group = c.benchmark_group("cache_hit");
    group.throughput(criterion::Throughput::Elements(1));
    group.bench_function("lookup_and_respond_br", |b| {
        b.to_async(&runtime).iter(|| async {
            let lookup = cache
                .lookup(RouteKind::Pages, "app", || async {
                    unreachable!("the entry is fresh")
                })
                .await
                .unwrap_or_else(|err| panic!("lookup: {err}"));
            CachedAnswer::entry(&lookup).send(&headers)
        });
    });
    let no_headers = HeaderMap::new();
    group.bench_function("lookup_and_respond_identity", |b| {
        b.to_async(&runtime).iter(|| async {
            let lookup = cache
                .lookup(RouteKind::Pages, "app", || async {
                    unreachable!("the entry is fresh")
                })
                .await
                .unwrap_or_else(|err| panic!("lookup: {err}"));
            CachedAnswer::entry(&lookup).send(&no_headers)
        });
    });
    let epochs = cache.epochs();
    let lookup = runtime
        .block_on(cache.lookup(RouteKind::Pages, "app", || async {
            unreachable!("the entry is fresh")
        }))
        .unwrap_or_else(|err| panic!("lookup: {err}"));
    CachedAnswer::entry(&lookup)
        .remember(&cache, epochs)
        .send(&no_headers);
    let hits = HitPath::new(
        cache.clone(),
        Arc::new(SecurityHeaders::new(&Config::default(), None)),
        &Metrics::new(),
        None,
    );
    for (name, accept) in [
        ("hit_path_br", "gzip, deflate, br, zstd"),
        ("hit_path_identity", ""),
    ] {
        let request = Request::get("/api/pages/app")
            .header("accept-encoding", accept)
            .body(Body::empty())
            .unwrap_or_else(|err| panic!("request: {err}"));
        assert!(hits.answer(&request).is_some(), "the page is remembered");
        group.bench_function(name, |b| b.iter(|| hits.answer(&request)));
    }
    product_hits(&runtime, &mut group);
    group.finish();
}

/// The summit lr product of the demo catalogue: the first rifle of the sandbox's fixture.
const RIFLES: &str = include_str!("../../sandbox/fixtures/catalogue/rifles.json");
const BUILD: &str = "bench-build";
const PRODUCT_JSON: &str = "/api/products/summit%20lr";
const PRODUCT_DOCUMENT: &str = "/product/summit%20lr";

/// A product's JSON answer and its server-rendered document, both remembered from the same two
/// parts (the product and the price map), answered by the hit path in the same run: the issue's
/// "a document hit costs what a JSON hit costs" (`hit_path_product_document_*` against
/// `hit_path_product_json_*`).
fn product_hits(
    runtime: &tokio::runtime::Runtime,
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
) {
    // Fresh for the whole run: the price map's 30 s ttl ran out halfway through the four
    // benchmarks below, and the hit path then (rightly) had nothing to answer from.
    let mut config = CacheConfig::default();
    for policy in [&mut config.product, &mut config.prices] {
        policy.ttl = Duration::from_millis(3_600_000);
        policy.jitter = 0.0;
    }
    let cache = EdgeCache::new(config, Arc::new(Metrics::new()));
    let rifles: serde_json::Value =
        serde_json::from_str(RIFLES).unwrap_or_else(|err| panic!("rifles: {err}"));
    let product = Bytes::from(rifles[0].to_string());
    let fill = |route, title: &'static str, body: Bytes| {
        let cache = cache.clone();
        runtime
            .block_on(cache.lookup(route, title, move || async move {
                Ok(Fetched {
                    status: StatusCode::OK,
                    body,
                    content_type: HeaderValue::from_static("application/json"),
                    extra_tags: vec![],
                    no_store: false,
                })
            }))
            .unwrap_or_else(|err| panic!("fill {title}: {err}"))
    };
    let content = fill(RouteKind::Product, "summit lr", product.clone());
    let prices = fill(RouteKind::Prices, "all", Bytes::from_static(b"{}"));
    // read after the stores (each bumps its route's counter), as a hit's request would
    let epochs = cache.epochs();
    let parts = [&content, &prices];
    // the composed answer is remembered under the product's key, as the route remembers it
    CachedAnswer::json(parts, product.clone())
        .remember(&cache, epochs)
        .send(&HeaderMap::new());
    // a document of a product page's size: the shell, the first screen, the data inlined
    let document = Bytes::from(format!(
        "<!doctype html><html><head><title>Summit LR</title></head><body><div id=\"root\">{}</div>\
         <script type=\"application/json\" id=\"document-data\">{}</script></body></html>",
        "<div class=\"product\">Summit LR</div>".repeat(400),
        String::from_utf8_lossy(&product),
    ));
    runtime
        .block_on(cache.remember_document(
            bff::ssr::document_key(BUILD, PRODUCT_DOCUMENT, None),
            epochs,
            &parts,
            &document,
        ))
        .unwrap_or_else(|| panic!("the document is remembered"));
    let hits = HitPath::new(
        cache,
        Arc::new(SecurityHeaders::new(&Config::default(), None)),
        &Metrics::new(),
        Some(BUILD),
    );
    for (encoding, accept) in [("br", "gzip, deflate, br, zstd"), ("identity", "")] {
        for (kind, path) in [("json", PRODUCT_JSON), ("document", PRODUCT_DOCUMENT)] {
            let request = Request::get(path)
                .header("accept-encoding", accept)
                .body(Body::empty())
                .unwrap_or_else(|err| panic!("request: {err}"));
            let answer = hits
                .answer(&request)
                .unwrap_or_else(|| panic!("{path} is not remembered"));
            assert_eq!(answer.status(), StatusCode::OK, "{path}");
            let name = format!("hit_path_product_{kind}_{encoding}");
            group.bench_function(name, |b| b.iter(|| hits.answer(&request)));
        }
    }
}

criterion_group!(benches, cache_hit);
criterion_main!(benches);
