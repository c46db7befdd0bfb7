//! Documents in L2 at the edge cache's own API, against a real Redis (two caches sharing it
//! stand for two replicas): a document's write is refused after any purge since its parts were
//! looked up, as entries' fills are, so L2 never undoes a purge; a document written since is
//! read back on another replica only from the same parts and under the same build id.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;

use axum::http::{HeaderValue, StatusCode};
use bff::cache::entry::CachedResponse;
use bff::cache::{CacheConfig, CachedAnswer, EdgeCache, Fetched, Lookup, RouteKind};
use bff::config::RedisConfig;
use bff::coordination::replicas::Redis;
use bff::observe::metrics::Metrics;
use bytes::Bytes;
use common::redis::RedisServer;

const KEY: &str = "document:build-1:/product/summit%20lr";
const PRODUCT: &str = r#"{"title":"Summit LR"}"#;
const DOCUMENT: &[u8] = b"<!doctype html><div id=\"root\"><h1>Summit LR</h1></div>";

/// A replica's cache with L2 in `redis` under `prefix`.
fn replica(redis: &RedisServer, prefix: &str) -> EdgeCache {
    let metrics = Arc::new(Metrics::new());
    let config = RedisConfig {
        url: redis.url(),
        key_prefix: prefix.to_owned(),
        command_timeout: common::BUSY_MACHINE_REDIS_TIMEOUT,
        ..RedisConfig::default()
    };
    let redis = Redis::from_config(&config, None, metrics.clone()).unwrap();
    EdgeCache::with_shared_tier(
        CacheConfig::default(),
        metrics,
        redis,
        &bff::coordination::replica_identity::ReplicaIdentity::from_environment(),
    )
}

fn fetched(body: &'static str) -> Fetched {
    Fetched {
        status: StatusCode::OK,
        body: Bytes::from_static(body.as_bytes()),
        content_type: HeaderValue::from_static("application/json"),
        extra_tags: Vec::new(),
        no_store: false,
    }
}

/// The product's entry on `cache` (from its L1, L2, or the "upstream" `PRODUCT`).
async fn product(cache: &EdgeCache) -> Lookup {
    cache
        .lookup(RouteKind::Product, "summit lr", || async {
            Ok(fetched(PRODUCT))
        })
        .await
        .unwrap()
}

#[tokio::test]
async fn a_document_write_that_began_before_a_purge_is_refused_and_one_after_is_shared() {
    let redis = RedisServer::start();
    let prefix = format!("l2-documents-{}:", uuid::Uuid::new_v4());
    let (a, b) = (replica(&redis, &prefix), replica(&redis, &prefix));
    let body = Bytes::from_static(DOCUMENT);

    // A reads the purge epoch and looks its part up; a purge lands on B (of another tag: any
    // purge may have changed a part) before A's rendered document is written
    let epoch = a.shared_epoch().await.unwrap();
    let part = product(&a).await;
    b.purge_tags(&["page:home".to_owned()]).await;
    let rendered = a
        .remember_document(KEY.to_owned(), a.epochs(), &[&part], &body)
        .await
        .unwrap();
    assert!(
        !a.share_document(KEY, &epoch, &[&part], &rendered).await,
        "a write that began before the purge is refused"
    );
    assert!(b.shared_document(KEY, b.epochs(), &[&part]).await.is_none());

    // made again after the purge: stored, and B serves it from the same parts (its own
    // lookup of the product reads A's entry from L2: the same ETag)
    let epoch = a.shared_epoch().await.unwrap();
    assert!(a.share_document(KEY, &epoch, &[&part], &rendered).await);
    let on_b = product(&b).await;
    assert!(on_b.from_l2);
    let shared = b.shared_document(KEY, b.epochs(), &[&on_b]).await.unwrap();
    assert_eq!(
        CachedAnswer::remembered(&shared)
            .send(&Default::default())
            .headers()["etag"],
        CachedAnswer::remembered(&rendered)
            .send(&Default::default())
            .headers()["etag"]
    );

    // never from other parts (another ETag), nor under another build id
    let changed = Lookup {
        entry: Arc::new(CachedResponse::new(
            RouteKind::Product,
            fetched(r#"{"title":"Summit LR","price":2}"#),
            Vec::new(),
            &CacheConfig::default().product,
        )),
        ..on_b.clone()
    };
    assert!(
        b.shared_document(KEY, b.epochs(), &[&changed])
            .await
            .is_none()
    );
    let other_build = KEY.replace("build-1", "build-2");
    assert!(
        b.shared_document(&other_build, b.epochs(), &[&on_b])
            .await
            .is_none()
    );
    // and still there for the same parts: the refusals above dropped nothing
    assert!(b.shared_document(KEY, b.epochs(), &[&on_b]).await.is_some());
}
