//! The purges explain lists for a key: with Redis, the fleet's recent purges (each purge once,
//! with its id, the replica that took it and its mode); without Redis (or while it does not
//! answer), the purges this replica applied. Either way a purge's keys are shown redacted.

use serde::Serialize;

use super::recent_purges::{AppliedPurge, PurgeScope};
use super::redact::redacted;
use crate::coordination::replicas::purge_bus::{Purge, PurgeMode};
use crate::coordination::replicas::purge_log::PurgeRecord;

/// The most purges listed per key, newest first.
pub const SHOWN: usize = 20;

/// Which list a key's purges came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum PurgesFrom {
    /// The fleet's recent purges, in Redis: every replica's.
    Fleet,
    /// The purges this replica applied (no Redis, or Redis did not answer).
    Replica,
}

/// One purge that touched a key or its tags.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyPurge {
    pub purge_id: Option<String>,
    /// The replica that took it (the fleet's list), or that applied it (this replica's).
    pub replica: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod: Option<String>,
    pub at_unix_ms: u64,
    /// The part of the purge that touched the key (keys redacted).
    pub scope: PurgeScope,
    pub mode: PurgeMode,
    /// L1 entries it dropped: over every replica that confirmed (the fleet's list), or here.
    pub dropped: u64,
    /// `admin` or `webhook:<event>` (the fleet's list only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// How far it reached (`complete`, `partial`, `pending`, `local`; the fleet's list only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fan_out: Option<String>,
}

impl From<AppliedPurge> for KeyPurge {
    fn from(applied: AppliedPurge) -> Self {
        Self {
            purge_id: applied.purge_id,
            replica: applied.replica,
            pod: None,
            at_unix_ms: applied.at_unix_ms,
            scope: applied.scope,
            mode: applied.mode,
            dropped: applied.dropped,
            source: None,
            fan_out: None,
        }
    }
}

/// `purge` as shown: its keys redacted.
fn shown_scope(purge: &Purge) -> PurgeScope {
    match purge {
        Purge::Tags(tags) => PurgeScope::Tags(tags.clone()),
        Purge::Keys(keys) => PurgeScope::Keys(keys.iter().map(|key| redacted(key)).collect()),
        Purge::AllExceptTags(kept) => PurgeScope::AllExceptTags(kept.clone()),
        Purge::All => PurgeScope::All,
    }
}

/// The fleet's purges in `records` (newest first) that touched the entry `key` (as the cache
/// spells it, not redacted) carrying `tags`, at most [`SHOWN`].
pub fn fleet_purges_touching(records: &[PurgeRecord], key: &str, tags: &[String]) -> Vec<KeyPurge> {
    records
        .iter()
        .filter_map(|record| {
            let part = record
                .what
                .iter()
                .find(|part| PurgeRecord::part_touches(part, key, tags))?;
            Some(KeyPurge {
                purge_id: Some(record.id.clone()),
                replica: record.origin.clone(),
                pod: record.origin_pod.clone(),
                at_unix_ms: record.at_unix_ms,
                scope: shown_scope(part),
                mode: record.mode,
                dropped: record.l1_dropped,
                source: Some(record.source.clone()),
                fan_out: Some(record.fan_out.clone()),
            })
        })
        .take(SHOWN)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fleet_purge_shows_the_part_that_touched_the_key_with_its_keys_redacted() {
        let record = PurgeRecord {
            id: "p-1".to_owned(),
            what: vec![
                Purge::Tags(vec!["page:home".to_owned()]),
                Purge::Keys(vec!["search:red rifle".to_owned()]),
            ],
            mode: PurgeMode::Soft,
            origin: "b".to_owned(),
            origin_pod: Some("pod-b".to_owned()),
            source: "admin".to_owned(),
            at_unix_ms: 7,
            l1_dropped: 3,
            l2_invalidated: 2,
            replicas_confirmed: 2,
            replicas_missing: 0,
            fan_out: "complete".to_owned(),
        };
        let shown = fleet_purges_touching(std::slice::from_ref(&record), "search:red rifle", &[]);
        assert_eq!(shown.len(), 1);
        assert_eq!(shown[0].purge_id.as_deref(), Some("p-1"));
        assert_eq!(shown[0].replica, "b");
        assert_eq!(shown[0].mode, PurgeMode::Soft);
        assert_eq!(
            shown[0].scope,
            PurgeScope::Keys(vec![redacted("search:red rifle")])
        );
        assert!(!format!("{shown:?}").contains("red rifle"));
        assert!(
            fleet_purges_touching(&[record], "product:a", &["product:a".to_owned()]).is_empty()
        );
    }
}
