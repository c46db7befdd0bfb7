//! Shared-tier values carry a MAC (issue #50, finding 3): an L2 entry, a document or a checkout
//! answer written into a real Redis by hand, or moved from another key, is never served; L2
//! entries written before a session-key rotation still are; a rollout window closed on one
//! replica stays closed on every running replica after its Redis key is deleted.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::{HeaderValue, StatusCode};
use bff::cache::{CacheConfig, EdgeCache, Fetched, Lookup, RouteKind};
use bff::config::RedisConfig;
use bff::coordination::replica_identity::ReplicaIdentity;
use bff::coordination::replicas::Redis;
use bff::coordination::shared_tier_mac::SharedTierMac;
use bff::observe::metrics::Metrics;
use bytes::Bytes;
use common::SandboxHooks;
use common::TestServer;
use common::redis::RedisServer;
use common::replicas::{Replicas, Setup};
use common::shared_tier::{ORDER_ROUTE, secret};
use common::shopping::{checkout, checkout_body, guest_with_a_cart};

const FORGED: &str = "forged by hand";
const PRODUCT: &str = r#"{"title":"Summit LR"}"#;
const DOCUMENT_KEY: &str = "document:build-1:/product/summit%20lr";
const DOCUMENT: &[u8] = b"<!doctype html><div id=\"root\"><h1>Summit LR</h1></div>";

/// `bff_shared_tier_rejected_total{kind}` on `replica`.
async fn rejected(replica: &TestServer, kind: &str) -> f64 {
    replica
        .metrics()
        .await
        .value("bff_shared_tier_rejected_total", &[("kind", kind)])
        .unwrap_or(0.0)
}

/// A replica's edge cache with L2 in `redis` under `prefix`, its MAC from `session_keys`
/// (newest first), and its metrics.
fn cache(redis: &RedisServer, prefix: &str, session_keys: &[&str]) -> (EdgeCache, Arc<Metrics>) {
    let metrics = Arc::new(Metrics::new());
    let config = RedisConfig {
        url: redis.url(),
        key_prefix: prefix.to_owned(),
        command_timeout: common::BUSY_MACHINE_REDIS_TIMEOUT,
        ..RedisConfig::default()
    };
    let redis = Redis::from_config(&config, None, metrics.clone()).unwrap();
    let keys: Vec<_> = session_keys.iter().map(|key| (*key).into()).collect();
    let mac = SharedTierMac::from_session_keys(&keys, metrics.clone());
    let cache = EdgeCache::with_shared_tier(
        CacheConfig::default(),
        metrics.clone(),
        redis.zip(mac),
        &ReplicaIdentity::from_environment(),
    );
    (cache, metrics)
}

/// Whether `metrics` counted a rejected value of `kind` (a lookup may read L2 more than once:
/// before and after taking the key's fill lock).
fn rejected_in(metrics: &Metrics, kind: &str) -> bool {
    common::metrics::Scrape::parse(&metrics.render())
        .value("bff_shared_tier_rejected_total", &[("kind", kind)])
        .is_some_and(|count| count >= 1.0)
}

/// The product's entry on `cache`: from its L1, L2, or the "upstream" `PRODUCT`.
async fn product(cache: &EdgeCache) -> Lookup {
    cache
        .lookup(RouteKind::Product, "summit lr", || async {
            Ok(Fetched {
                status: StatusCode::OK,
                body: Bytes::from_static(PRODUCT.as_bytes()),
                content_type: HeaderValue::from_static("application/json"),
                extra_tags: Vec::new(),
                no_store: false,
            })
        })
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_entry_written_into_redis_by_hand_or_moved_from_another_key_is_never_served() {
    let redis = RedisServer::start();
    let replicas = Replicas::start(Setup::on(redis.url(), 2), |_| {}).await;
    let (a, b) = (&replicas.replicas[0], &replicas.replicas[1]);
    let entry = |page: &str| format!("{}cache:entry:pages:{page}", replicas.key_prefix);
    for page in ["contactus", "aboutus"] {
        assert_eq!(a.get(&format!("/api/pages/{page}")).await.status(), 200);
    }
    assert_eq!(redis.cli(&["HEXISTS", &entry("contactus"), "mac"]), "1");

    // contactus: another body and ETag under the MAC that was there; aboutus: contactus's
    // value, MAC and all, copied under aboutus's key
    let meta = redis.cli(&["HGET", &entry("contactus"), "meta"]);
    let forged_meta = meta.replacen("\"etag\":\"\\\"", "\"etag\":\"\\\"f0", 1);
    assert_ne!(forged_meta, meta);
    redis.cli(&["COPY", &entry("contactus"), &entry("aboutus"), "REPLACE"]);
    redis.cli(&[
        "HSET",
        &entry("contactus"),
        "meta",
        &forged_meta,
        "body",
        FORGED,
        "gzip",
        "",
        "brotli",
        "",
    ]);
    let contactus = b.get("/api/pages/contactus").await;
    assert_eq!(contactus.status(), 200);
    let cache_status = common::header(&contactus, "cache-status").to_owned();
    assert!(!cache_status.contains("bff-l2; hit"), "{cache_status}");
    assert!(!contactus.text().await.unwrap().contains(FORGED));
    let aboutus = b.get("/api/pages/aboutus").await.text().await.unwrap();
    let genuine_contactus = a.get("/api/pages/contactus").await.text().await.unwrap();
    assert_ne!(aboutus, genuine_contactus, "served under another key");
    // each key's value at least once (a miss reads L2 again after taking the fill lock)
    assert!(rejected(b, "entry").await >= 2.0);
    // refetched and written over: signed again, and an L2 hit from then on
    assert_eq!(
        redis.cli(&["HGET", &entry("contactus"), "body"]),
        genuine_contactus
    );
    replicas.stop().await;
}

#[tokio::test]
async fn a_document_whose_body_was_replaced_in_redis_is_not_served() {
    let redis = RedisServer::start();
    let prefix = format!("mac-documents-{}:", uuid::Uuid::new_v4());
    let ((a, _), (b, b_metrics)) = (
        cache(&redis, &prefix, &["session-key"]),
        cache(&redis, &prefix, &["session-key"]),
    );
    let epoch = a.shared_epoch().await.unwrap();
    let part = product(&a).await;
    let body = Bytes::from_static(DOCUMENT);
    let rendered = a
        .remember_document(DOCUMENT_KEY.to_owned(), a.epochs(), &[&part], &body)
        .await
        .unwrap();
    assert!(
        a.share_document(DOCUMENT_KEY, &epoch, &[&part], &rendered)
            .await
    );
    let on_b = product(&b).await;
    assert!(on_b.from_l2);

    // the parts' keys and ETags left as they are, the body (and its variants) replaced
    let stored = format!("{prefix}cache:entry:{DOCUMENT_KEY}");
    redis.cli(&["HSET", &stored, "body", FORGED, "gzip", "", "brotli", ""]);
    assert!(
        b.shared_document(DOCUMENT_KEY, b.epochs(), &[&on_b])
            .await
            .is_none()
    );
    assert!(rejected_in(&b_metrics, "document"));

    // a genuine write is served again
    let epoch = a.shared_epoch().await.unwrap();
    assert!(
        a.share_document(DOCUMENT_KEY, &epoch, &[&part], &rendered)
            .await
    );
    let shared = b.shared_document(DOCUMENT_KEY, b.epochs(), &[&on_b]).await;
    assert!(shared.is_some());
}

#[tokio::test]
async fn entries_written_before_a_session_key_rotation_are_still_served() {
    let redis = RedisServer::start();
    let prefix = format!("mac-rotation-{}:", uuid::Uuid::new_v4());
    let (before, _) = cache(&redis, &prefix, &["old-session-key"]);
    assert!(!product(&before).await.from_l2, "filled from the upstream");

    // a new first key, the old one still listed: the entry is an L2 hit
    let (rotated, rotated_metrics) =
        cache(&redis, &prefix, &["new-session-key", "old-session-key"]);
    assert!(product(&rotated).await.from_l2);
    assert!(!rejected_in(&rotated_metrics, "entry"));

    // the old key retired: a miss, counted
    let (retired, retired_metrics) = cache(&redis, &prefix, &["new-session-key"]);
    assert!(!product(&retired).await.from_l2);
    assert!(rejected_in(&retired_metrics, "entry"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_checkout_answer_written_into_redis_by_hand_is_never_replayed() {
    let redis = RedisServer::start();
    let replicas = Replicas::start(Setup::on(redis.url(), 2), |_| {}).await;
    let (a, b) = (&replicas.replicas[0], &replicas.replicas[1]);
    let cookie = guest_with_a_cart(a).await;
    let body = checkout_body(&replicas).await;
    let placed = checkout(a, &cookie, "mac-key", &body).await;
    assert_eq!(placed.status, 200, "{}", placed.text);

    // the kept answer, its body replaced; its MAC line (and fingerprint) left as they were
    let pattern = format!("{}idempotency:*", replicas.key_prefix);
    let key = redis.cli(&["--scan", "--pattern", &pattern]);
    let kept = redis.cli(&["GET", key.trim()]);
    let mut lines = kept.splitn(6, '\n');
    let (mac, kind, fingerprint) = (
        lines.next().unwrap(),
        lines.next().unwrap(),
        lines.next().unwrap(),
    );
    assert_eq!(kind, "answered", "{kept}");
    let forged =
        format!("{mac}\nanswered\n{fingerprint}\n200\napplication/json\n{{\"{FORGED}\":1}}");
    redis.cli(&["SET", key.trim(), &forged]);

    let retried = checkout(b, &cookie, "mac-key", &body).await;
    assert!(!retried.text.contains(FORGED), "{}", retried.text);
    assert_eq!(rejected(b, "idempotency").await, 1.0);
    assert!(a.upstream_calls(ORDER_ROUTE).await >= 1);
    replicas.stop().await;
}

/// How many times `replica` has read the rollout window's closing flag from Redis.
async fn closed_flag_reads(replica: &TestServer) -> u64 {
    replica
        .metrics()
        .await
        .histogram_count(
            "bff_redis_command_duration_seconds",
            &[("operation", "web_rollout_closed")],
        )
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_closed_rollout_window_stays_closed_after_its_redis_key_is_deleted() {
    const OLD_ASSET: &str = "/assets/index-Old00000.js";
    let redis = RedisServer::start();
    let previous = tempfile::TempDir::new().unwrap();
    std::fs::create_dir_all(previous.path().join("assets")).unwrap();
    std::fs::write(previous.path().join("assets/index-Old00000.js"), "old();").unwrap();
    let dirs = vec![previous.path().to_owned()];
    let replicas = Replicas::start(Setup::on(redis.url(), 2), |config| {
        config.web.previous_dist_dirs.clone_from(&dirs)
    })
    .await;
    let (a, b) = (&replicas.replicas[0], &replicas.replicas[1]);
    for replica in [a, b] {
        assert_eq!(replica.get(OLD_ASSET).await.status(), 200);
    }
    let closed = a
        .client
        .post(format!("{}/admin/web/rollout/close", a.admin))
        .bearer_auth(secret("BFF_ADMIN_TOKEN"))
        .send()
        .await
        .unwrap();
    assert_eq!(closed.status(), 200);

    // B is asked nothing: it reads the flag on its own within a second (a read that raced the
    // close is followed by another a second later)
    let seen_before = closed_flag_reads(b).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while closed_flag_reads(b).await <= seen_before {
        assert!(Instant::now() < deadline, "B never read the flag again");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let pattern = format!("{}web:rollout:*:closed", replicas.key_prefix);
    let flag = redis.cli(&["--scan", "--pattern", &pattern]);
    assert_eq!(redis.cli(&["DEL", flag.trim()]), "1");
    for replica in [a, b] {
        assert_eq!(replica.get(OLD_ASSET).await.status(), 404);
    }
    replicas.stop().await;
}
