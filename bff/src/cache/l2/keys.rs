//! The names of the shared tier's keys in Redis. Entries, their versions and the byte budget
//! are read and written together by one script (a fill records every version; a purge moves
//! the epoch and the versions and deletes entries): on a cluster they share the hash tag
//! `{cache}`, one slot, so all of L2 lives on one primary. (The fill locks, one key each,
//! spread over the cluster: see [`super::fill_lock`].)

use super::tier::SharedTier;
use crate::cache::policy::RouteKind;
use crate::coordination::replicas::Redis;

impl SharedTier {
    pub(super) fn entry_key(&self, key: &str) -> String {
        self.redis.tagged_key(&["cache", "entry", key], 0)
    }

    pub(super) fn epoch_key(&self) -> String {
        self.redis.tagged_key(&["cache", "epoch"], 0)
    }

    pub(super) fn route_generation_key(&self, route: RouteKind) -> String {
        self.redis.tagged_key(&["cache", "gen", route.as_str()], 0)
    }

    pub(super) fn tag_version_key(&self, tag: &str) -> String {
        self.redis.tagged_key(&["cache", "tagv", tag], 0)
    }

    /// The version of the entry `key` as a document's part: bumped by a purge of that key.
    pub(super) fn key_version_key(&self, key: &str) -> String {
        self.redis.tagged_key(&["cache", "keyv", key], 0)
    }

    /// The L2 byte budget's bookkeeping: values by write time, their sizes, and the total.
    pub(super) fn budget_keys(&self) -> [String; 3] {
        ["order", "sizes", "total"].map(|part| self.redis.tagged_key(&["cache", "budget", part], 0))
    }
}

/// The soft-purge mark beside the version key `version_key` (in its slot: `{cache}`): the
/// Unix ms of the last soft purge of what the key covers.
pub(super) fn soft_mark_key(redis: &Redis, version_key: &str) -> String {
    redis.tagged_key(&["cache", "soft", version_key], 0)
}
