//! The store's own tests: coalescing with failure semantics, purges racing fetches, the stale
//! wait and the entry size limit, through the public lookup.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::http::{HeaderValue, StatusCode};
use bytes::Bytes;

use super::EdgeCache;
use crate::cache::entry::Fetched;
use crate::cache::failure::FetchFailure;
use crate::cache::policy::{CacheConfig, CachePolicy, RouteKind};
use crate::cache::status::CacheState;
use crate::observe::metrics::Metrics;

fn cache() -> EdgeCache {
    let config = CacheConfig {
        pages: CachePolicy {
            jitter: 0.0,
            ..CachePolicy::default()
        },
        ..CacheConfig::default()
    };
    EdgeCache::new(config, Arc::new(Metrics::new()))
}

fn page(body: &str) -> Fetched {
    Fetched {
        status: StatusCode::OK,
        body: Bytes::from(body.to_owned()),
        content_type: HeaderValue::from_static("application/json"),
        extra_tags: vec![],
        no_store: false,
    }
}

#[tokio::test]
async fn a_panicking_fetch_releases_its_waiters_and_the_next_lookup_fetches_again() {
    let cache = cache();
    let (release, released) = tokio::sync::oneshot::channel::<()>();
    let leader = {
        let cache = cache.clone();
        tokio::spawn(async move {
            cache
                .lookup(RouteKind::Pages, "home", move || async move {
                    let _ = released.await;
                    panic!("upstream parser exploded");
                })
                .await
        })
    };
    tokio::task::yield_now().await;
    let waiter = {
        let cache = cache.clone();
        tokio::spawn(async move {
            cache
                .lookup(RouteKind::Pages, "home", || async { Ok(page("unused")) })
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let _ = release.send(());
    assert!(matches!(leader.await.unwrap(), Err(FetchFailure::Aborted)));
    assert!(matches!(waiter.await.unwrap(), Err(FetchFailure::Aborted)));
    let next = cache
        .lookup(RouteKind::Pages, "home", || async { Ok(page("{}")) })
        .await
        .unwrap();
    assert_eq!(next.state, CacheState::Miss);
}

#[tokio::test]
async fn a_cancelled_leader_does_not_strand_its_waiters() {
    let cache = cache();
    let fetches = Arc::new(AtomicUsize::new(0));
    let counted = fetches.clone();
    let leader = {
        let cache = cache.clone();
        tokio::spawn(async move {
            cache
                .lookup(RouteKind::Pages, "home", move || async move {
                    counted.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    Ok(page("{\"fresh\":true}"))
                })
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(20)).await;
    let waiter = {
        let cache = cache.clone();
        tokio::spawn(async move {
            cache
                .lookup(RouteKind::Pages, "home", || async {
                    Ok(page("second fetch"))
                })
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(20)).await;
    // The request that started the fetch goes away (client disconnect).
    leader.abort();
    let answer = waiter.await.unwrap().unwrap();
    assert_eq!(answer.state, CacheState::Coalesced);
    assert_eq!(answer.entry.body, Bytes::from_static(b"{\"fresh\":true}"));
    assert_eq!(fetches.load(Ordering::SeqCst), 1);
    let stored = cache
        .lookup(RouteKind::Pages, "home", || async { Ok(page("unused")) })
        .await
        .unwrap();
    assert_eq!(stored.state, CacheState::Hit);
}

#[tokio::test]
async fn a_purge_during_a_fetch_keeps_the_fetched_answer_out_of_the_cache() {
    let cache = cache();
    let (release, released) = tokio::sync::oneshot::channel::<()>();
    let fetch = {
        let cache = cache.clone();
        tokio::spawn(async move {
            cache
                .lookup(RouteKind::Pages, "home", move || async move {
                    let _ = released.await;
                    Ok(page("{\"before\":\"purge\"}"))
                })
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(20)).await;
    cache.purge_tags(&["page:home".to_owned()]).await;
    let _ = release.send(());
    let answer = fetch.await.unwrap().unwrap();
    assert!(!answer.stored, "the purge won");
    let next = cache
        .lookup(RouteKind::Pages, "home", || async { Ok(page("{}")) })
        .await
        .unwrap();
    assert_eq!(next.state, CacheState::Miss);
}

/// nginx's `proxy_cache_use_stale updating`: the stale wait counts from the revalidation's
/// start, so a request arriving after it has run out gets the stale copy without waiting.
#[tokio::test]
async fn once_a_revalidation_outlasts_the_stale_wait_later_requests_do_not_wait() {
    let wait = Duration::from_millis(1_000);
    let config = CacheConfig {
        stale_wait: wait,
        pages: CachePolicy {
            ttl: Duration::from_millis(1),
            stale_while_revalidate: Duration::ZERO,
            stale_if_error: Duration::from_millis(600_000),
            jitter: 0.0,
            ..CachePolicy::default()
        },
        ..CacheConfig::default()
    };
    let cache = EdgeCache::new(config, Arc::new(Metrics::new()));
    cache
        .lookup(RouteKind::Pages, "home", || async { Ok(page("{}")) })
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    let (release, released) = tokio::sync::oneshot::channel::<()>();
    let hung = move || async move {
        let _ = released.await;
        Ok(page("{\"fresh\":true}"))
    };
    let first = cache.lookup(RouteKind::Pages, "home", hung).await.unwrap();
    assert_eq!(
        first.state,
        CacheState::StaleIfError,
        "after waiting {wait:?}"
    );
    let started = Instant::now();
    let later = cache
        .lookup(RouteKind::Pages, "home", || async { Ok(page("unused")) })
        .await
        .unwrap();
    assert_eq!(later.state, CacheState::StaleIfError);
    assert!(
        started.elapsed() < wait / 2,
        "waited {:?} for a revalidation already {wait:?} old",
        started.elapsed()
    );
    let _ = release.send(());
}

#[tokio::test]
async fn oversized_answers_are_served_but_not_stored() {
    let config = CacheConfig {
        pages: CachePolicy {
            max_entry_bytes: 10,
            ..CachePolicy::default()
        },
        ..CacheConfig::default()
    };
    let cache = EdgeCache::new(config, Arc::new(Metrics::new()));
    let big = "x".repeat(100);
    let first = cache
        .lookup(RouteKind::Pages, "home", {
            let big = big.clone();
            move || async move { Ok(page(&big)) }
        })
        .await
        .unwrap();
    assert_eq!(first.entry.body.len(), 100);
    assert!(!first.stored);
    let second = cache
        .lookup(
            RouteKind::Pages,
            "home",
            move || async move { Ok(page(&big)) },
        )
        .await
        .unwrap();
    assert_eq!(second.state, CacheState::Miss);
}
