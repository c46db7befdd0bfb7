//! The last purges this replica applied (its own, and those heard on the purge channel), kept
//! in process for explain: which purge touched a key's tags, and when. Bounded: the newest
//! [`KEPT`] purges, oldest dropped first. A purge's keys are kept redacted (search keys carry
//! shopper text).

use std::collections::VecDeque;
use std::sync::Mutex;

use crate::coordination::replicas::purge_bus::{Purge, PurgeMode};

/// Purges remembered.
pub const KEPT: usize = 100;

/// What one purge named.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum PurgeScope {
    Tags(Vec<String>),
    /// Keys, redacted.
    Keys(Vec<String>),
    AllExceptTags(Vec<String>),
    All,
}

/// One purge as a replica applied it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppliedPurge {
    /// The purge's id, when it has one.
    pub purge_id: Option<String>,
    /// The replica that applied it (this one; the fleet's view adds the others').
    pub replica: String,
    pub at_unix_ms: u64,
    pub scope: PurgeScope,
    pub mode: PurgeMode,
    /// L1 entries it dropped here.
    pub dropped: u64,
}

impl AppliedPurge {
    /// Whether this purge would have removed an entry at `key` (redacted as kept here)
    /// carrying `tags`.
    pub fn touches(&self, key: &str, tags: &[String]) -> bool {
        match &self.scope {
            PurgeScope::Tags(named) => tags.iter().any(|tag| named.contains(tag)),
            PurgeScope::Keys(named) => named.iter().any(|named| named == key),
            PurgeScope::AllExceptTags(kept) => !tags.iter().any(|tag| kept.contains(tag)),
            PurgeScope::All => true,
        }
    }
}

/// The bounded list.
#[derive(Debug, Default)]
pub struct RecentPurges {
    /// A std `Mutex`: held to push or copy, never across an await.
    applied: Mutex<VecDeque<AppliedPurge>>,
}

impl RecentPurges {
    /// Remembers that `replica` applied `purge` (id `purge_id`, in `mode`), dropping (or
    /// marking stale) `dropped` entries.
    pub fn record(
        &self,
        purge: &Purge,
        mode: PurgeMode,
        purge_id: Option<&str>,
        replica: &str,
        dropped: u64,
    ) {
        let redact = |names: &[String]| {
            names
                .iter()
                .map(|name| super::redact::redacted(name))
                .collect()
        };
        let scope = match purge {
            Purge::Tags(tags) => PurgeScope::Tags(tags.clone()),
            Purge::Keys(keys) => PurgeScope::Keys(redact(keys)),
            Purge::AllExceptTags(kept) => PurgeScope::AllExceptTags(kept.clone()),
            Purge::All => PurgeScope::All,
        };
        let mut applied = self
            .applied
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if applied.len() == KEPT {
            applied.pop_front();
        }
        applied.push_back(AppliedPurge {
            purge_id: purge_id.map(str::to_owned),
            replica: replica.to_owned(),
            at_unix_ms: crate::coordination::replicas::unix_ms(),
            scope,
            mode,
            dropped,
        });
    }

    /// The purges that touched an entry at `key` (redacted) with `tags`, newest first.
    pub fn touching(&self, key: &str, tags: &[String]) -> Vec<AppliedPurge> {
        self.applied
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .rev()
            .filter(|purge| purge.touches(key, tags))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_keeps_the_newest_and_finds_those_that_touch_a_key() {
        let recent = RecentPurges::default();
        for index in 0..(KEPT + 10) {
            recent.record(
                &Purge::Tags(vec![format!("product:{index}")]),
                PurgeMode::Hard,
                None,
                "r1",
                1,
            );
        }
        let tags = vec!["product:5".to_owned()];
        assert!(
            recent.touching("product:5", &tags).is_empty(),
            "dropped, oldest first"
        );
        let tags = vec![format!("product:{}", KEPT + 5)];
        assert_eq!(recent.touching("product:x", &tags).len(), 1);
        recent.record(
            &Purge::Keys(vec!["search:red rifle".to_owned()]),
            PurgeMode::Hard,
            Some("p-9"),
            "r1",
            0,
        );
        let touching = recent.touching(&super::super::redact::redacted("search:red rifle"), &[]);
        assert_eq!(touching[0].purge_id.as_deref(), Some("p-9"));
        assert!(!format!("{touching:?}").contains("red rifle"));
    }
}
