//! The edge cache's hit path, in process: lookup of a fresh entry plus building the HTTP answer
//! (conditional check, encoding negotiation, headers), and the hit path proper (a remembered
//! answer for a request, dressed with the request id and security headers, as the listener
//! sends it). `make bench` runs it.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Request, StatusCode};
use bff::cache::{self, CacheConfig, EdgeCache, Fetched, RouteKind};
use bff::config::Config;
use bff::hit_path::HitPath;
use bff::metrics::Metrics;
use bff::security::SecurityHeaders;
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
            cache::respond(&lookup, &headers)
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
            cache::respond(&lookup, &no_headers)
        });
    });
    let epochs = cache.epochs();
    let lookup = runtime
        .block_on(cache.lookup(RouteKind::Pages, "app", || async {
            unreachable!("the entry is fresh")
        }))
        .unwrap_or_else(|err| panic!("lookup: {err}"));
    cache.respond(epochs, &[&lookup], None, &no_headers);
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
    group.finish();
}

criterion_group!(benches, cache_hit);
criterion_main!(benches);
