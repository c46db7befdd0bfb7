//! What happened to keys that are gone: a bounded in-process memory, written when an entry
//! leaves L1 (or a fetch stores nothing) and read only on a miss, so a hit never touches it.
//!
//! Bounded by count and by age: at most [`MAX_TOMBSTONES`] keys (moka, least recently written
//! dropped first), each for [`TOMBSTONE_LIFE`]. A tombstone is keyed by a 64-bit hash of the
//! cache key, not the key, so its size does not depend on what a client sent: about 40 bytes
//! of value plus moka's bookkeeping (some 150 bytes a key), 10 MiB at most. A key whose
//! tombstone was dropped reads as cold.

use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use super::miss_reason::MissReason;

/// The most keys remembered at once.
pub const MAX_TOMBSTONES: u64 = 65_536;
/// How long a key's fate is remembered: past this, a miss is as good as cold.
pub const TOMBSTONE_LIFE: Duration = Duration::from_secs(3_600);

/// What happened to one key.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tombstone {
    /// The reason its next miss gets.
    pub reason: MissReason,
    /// The purge that removed it, when it was purged and the purge has an id.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_purge_id"
    )]
    pub purge_id: Option<Arc<str>>,
    /// When it happened (Unix ms).
    pub at_unix_ms: u64,
}

fn serialize_purge_id<S: serde::Serializer>(
    id: &Option<Arc<str>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_some(&id.as_deref())
}

/// The bounded memory of removed keys. Cloning shares it.
#[derive(Clone)]
pub struct Tombstones {
    by_key_hash: moka::sync::Cache<u64, Tombstone>,
}

impl std::fmt::Debug for Tombstones {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tombstones")
            .field("keys", &self.by_key_hash.entry_count())
            .finish()
    }
}

impl Default for Tombstones {
    fn default() -> Self {
        Self::with_capacity(MAX_TOMBSTONES)
    }
}

impl Tombstones {
    fn with_capacity(capacity: u64) -> Self {
        Self {
            by_key_hash: moka::sync::Cache::builder()
                .max_capacity(capacity)
                .time_to_live(TOMBSTONE_LIFE)
                .build(),
        }
    }

    /// Records that `key` went away for `reason`.
    pub fn record(&self, key: &str, reason: MissReason, purge_id: Option<Arc<str>>) {
        self.by_key_hash.insert(
            key_hash(key),
            Tombstone {
                reason,
                purge_id,
                at_unix_ms: crate::coordination::replicas::unix_ms(),
            },
        );
    }

    /// Records that `key` was just stored and expires at `at_unix_ms` (its last stale window's
    /// end): what it was before is forgotten, and a miss from then on is an expiry, unless a
    /// removal records another fate first.
    pub fn expires_at(&self, key: &str, at_unix_ms: u64) {
        self.by_key_hash.insert(
            key_hash(key),
            Tombstone {
                reason: MissReason::Expired,
                purge_id: None,
                at_unix_ms,
            },
        );
    }

    /// What happened to `key`, if it is remembered (an expiry only once it is due).
    pub fn of(&self, key: &str) -> Option<Tombstone> {
        self.by_key_hash.get(&key_hash(key)).filter(|tombstone| {
            tombstone.reason != MissReason::Expired
                || tombstone.at_unix_ms <= crate::coordination::replicas::unix_ms()
        })
    }

    #[cfg(test)]
    fn len(&self) -> u64 {
        self.by_key_hash.run_pending_tasks();
        self.by_key_hash.entry_count()
    }
}

/// A stable 64-bit hash of `key` (SipHash with fixed keys): the same on every call in a process.
fn key_hash(key: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_key_tells_its_reason_and_purge_and_a_stored_one_its_expiry() {
        let tombstones = Tombstones::default();
        tombstones.record("product:a", MissReason::Purged, Some(Arc::from("p-1")));
        let found = tombstones.of("product:a").unwrap();
        assert_eq!(found.reason, MissReason::Purged);
        assert_eq!(found.purge_id.as_deref(), Some("p-1"));
        assert!(tombstones.of("product:b").is_none());
        let now = crate::coordination::replicas::unix_ms();
        tombstones.expires_at("product:a", now + 60_000);
        assert!(
            tombstones.of("product:a").is_none(),
            "stored again, not yet expired"
        );
        tombstones.expires_at("product:a", now - 1);
        assert_eq!(
            tombstones.of("product:a").unwrap().reason,
            MissReason::Expired
        );
    }

    #[test]
    fn the_memory_keeps_its_bound() {
        let tombstones = Tombstones::with_capacity(100);
        for index in 0..1_000 {
            tombstones.record(&format!("search:{index}"), MissReason::Evicted, None);
        }
        assert!(tombstones.len() <= 100, "{}", tombstones.len());
    }
}
