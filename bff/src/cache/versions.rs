//! What this replica remembers of the purge versions it has seen in L2, so that a version that
//! went back is restored rather than trusted.
//!
//! Replication to a Redis replica is asynchronous: a primary that dies right after a purge may
//! take the purge's version bump with it, and the promoted replica then answers the version of
//! before the purge, under which the purged entries are current again. Every version this
//! replica sets, reads or is told about (the purge channel carries them) is remembered, for the
//! longest life an entry can have; when Redis answers a lower one, the replica raises it again
//! before it accepts an entry recorded under it.
//!
//! The memory is bounded. A key pushed out for room raises one floor, which then stands for
//! every key this replica does not remember: a version below the floor is raised to it (at
//! worst, the entries of a tag never purged are fetched once more).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use moka::notification::RemovalCause;

/// How many version keys are remembered (about 100 bytes each).
const REMEMBERED: u64 = 100_000;

#[derive(Clone)]
pub(super) struct VersionMemory {
    /// Version key → the highest version seen, for the longest entry lifetime.
    seen: moka::sync::Cache<String, u64>,
    /// The highest version of the keys pushed out for room.
    floor: Arc<AtomicU64>,
}

impl VersionMemory {
    /// A memory that keeps each version for `lifetime` (the longest an entry can live: past it,
    /// every entry recorded under an older version has expired anyway).
    pub(super) fn new(lifetime: Duration) -> Self {
        Self::with_capacity(lifetime, REMEMBERED)
    }

    fn with_capacity(lifetime: Duration, capacity: u64) -> Self {
        let floor = Arc::new(AtomicU64::new(0));
        let raised = floor.clone();
        let seen = moka::sync::Cache::builder()
            .max_capacity(capacity)
            .time_to_live(lifetime.max(Duration::from_secs(1)))
            .eviction_listener(move |_key, version: u64, cause| {
                if cause == RemovalCause::Size {
                    raised.fetch_max(version, Ordering::Relaxed);
                }
            })
            .build();
        Self { seen, floor }
    }

    /// Records that `key` is at least at `version`.
    pub(super) fn remember(&self, key: &str, version: u64) {
        if version == 0 {
            return;
        }
        let known = self.seen.get(key).unwrap_or(0);
        if version > known {
            self.seen.insert(key.to_owned(), version);
        }
    }

    /// The least version `key` may have: what was seen, or the floor for a key not remembered.
    pub(super) fn least(&self, key: &str) -> u64 {
        self.seen
            .get(key)
            .unwrap_or_else(|| self.floor.load(Ordering::Relaxed))
    }

    #[cfg(test)]
    fn run_pending_tasks(&self) {
        self.seen.run_pending_tasks();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_highest_version_seen_is_kept_and_a_lower_one_does_not_replace_it() {
        let memory = VersionMemory::new(Duration::from_secs(60));
        assert_eq!(memory.least("tagv:a"), 0);
        memory.remember("tagv:a", 7);
        memory.remember("tagv:a", 3);
        assert_eq!(memory.least("tagv:a"), 7);
    }

    #[test]
    fn a_key_pushed_out_for_room_raises_the_floor_for_every_key_not_remembered() {
        let memory = VersionMemory::with_capacity(Duration::from_secs(60), 10);
        for index in 0..200u64 {
            memory.remember(&format!("tagv:{index}"), 1_000 + index);
            memory.run_pending_tasks();
        }
        let floor = memory.floor.load(Ordering::Relaxed);
        assert!(
            floor >= 1_000,
            "the floor rose to what was forgotten: {floor}"
        );
        assert_eq!(memory.least("tagv:never-seen"), floor);
    }
}
