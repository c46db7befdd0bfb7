//! Hits per tag without slowing a hit: each L1 entry ([`super::entry::CachedResponse`]) and each
//! remembered answer ([`super::rendered::Rendered`]) counts its own hits in a
//! [`super::hit_counter::HitCounter`], one relaxed `fetch_add` per hit (no map lookup, no
//! allocation, no lock). The fold takes each counter's value (a `swap` to 0, so only the hits
//! since the last fold, never a total, are added) and adds it to the entry's tags (and key) in
//! the top lists' current one-minute bucket ([`super::top_lists`]).
//!
//! It runs every [`FOLD_INTERVAL`] over every L1 entry and remembered answer (a walk of the
//! storages on the blocking pool, off the request path: a visit per entry, and one lock of the
//! top lists per entry with new hits), when an entry leaves L1 (moka's removal listener:
//! eviction, expiry, purge, replacement), and before the lists are read (`GET /admin/cache/top`,
//! `GET /admin/fleet`, each heartbeat), so a reading includes every hit so far. A hit is counted
//! in the minute of the fold that took it: at most [`FOLD_INTERVAL`] late.

use std::time::Duration;

use super::entry::CachedResponse;
use super::redact::redacted;
use super::rendered::Rendered;
use super::top_lists::TopListRecorder;

/// How often every entry's hits are folded into the top lists.
pub const FOLD_INTERVAL: Duration = Duration::from_secs(5);

/// Adds the hits of the L1 entry at `key` since its last fold to its key and tags.
pub(super) fn fold_entry(top: &TopListRecorder, key: &str, entry: &CachedResponse, now_secs: u64) {
    let hits = entry.hits.take();
    if hits > 0 {
        top.record_hits(Some(&redacted(key)), &entry.tags, hits, now_secs);
    }
}

/// Adds the hits of the answer remembered at `key` since its last fold to its parts' tags, and
/// to `key` when the key list names it (an API answer is remembered under its primary entry's
/// key; a document's key is never a lookup's, so never listed).
pub(super) fn fold_answer(top: &TopListRecorder, key: &str, answer: &Rendered, now_secs: u64) {
    let hits = answer.hits.take();
    if hits > 0 {
        top.record_hits(Some(&redacted(key)), answer.tags(), hits, now_secs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::entry::Fetched;
    use crate::cache::policy::{CachePolicy, RouteKind};
    use axum::http::{HeaderValue, StatusCode};
    use bytes::Bytes;

    const NOW: u64 = 1_700_000_000;

    fn entry() -> CachedResponse {
        let fetched = Fetched {
            status: StatusCode::OK,
            body: Bytes::from_static(b"{}"),
            content_type: HeaderValue::from_static("application/json"),
            extra_tags: vec![],
            no_store: false,
        };
        CachedResponse::new(
            RouteKind::Pages,
            fetched,
            vec![RouteKind::Pages.tag("home")],
            &CachePolicy::default(),
        )
    }

    fn hits_of(top: &TopListRecorder, tag: &str) -> Option<u64> {
        let lists = top.lists(NOW);
        lists
            .hit_tags
            .iter()
            .find(|c| c.name == tag)
            .map(|c| c.hits)
    }

    #[test]
    fn a_fold_adds_the_hits_since_the_last_one_not_the_total() {
        let top = TopListRecorder::default();
        let entry = entry();
        let tag = entry.tags[0].clone();
        for _ in 0..3 {
            entry.hits.bump();
        }
        fold_entry(&top, "pages:home", &entry, NOW);
        assert_eq!(hits_of(&top, &tag), Some(3));
        // nothing new: nothing added
        fold_entry(&top, "pages:home", &entry, NOW);
        assert_eq!(hits_of(&top, &tag), Some(3));
        for _ in 0..2 {
            entry.hits.bump();
        }
        fold_entry(&top, "pages:home", &entry, NOW);
        assert_eq!(hits_of(&top, &tag), Some(5));
    }

    #[test]
    fn an_entry_folded_on_removal_is_not_counted_again() {
        let top = TopListRecorder::default();
        let entry = entry();
        let tag = entry.tags[0].clone();
        for _ in 0..4 {
            entry.hits.bump();
        }
        // the removal listener's fold, then a periodic fold that still holds the entry
        fold_entry(&top, "pages:home", &entry, NOW);
        fold_entry(&top, "pages:home", &entry, NOW);
        assert_eq!(hits_of(&top, &tag), Some(4));
    }
}
