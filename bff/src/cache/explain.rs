//! Explain a key: where it is cached, for how long, with which tags, who filled it and which
//! purges touched it; and, when it is gone, the reason its next lookup would miss.
//!
//! The answer is shaped for the fleet: this replica's L1 is one item of `replicas`, and the
//! fleet's view ([`super::explain_fanout`]) adds the others' beside it; `purges` comes from the
//! fleet's recent purges when given, else from the purges this replica applied.

use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use super::entry::{CachedResponse, SharedMeta};
use super::entry_state::EntryState;
use super::explain_purges::{KeyPurge, SHOWN, fleet_purges_touching};
use super::miss_reason::MissReason;
use super::policy::RouteKind;
use super::redact::redacted;
use super::store::EdgeCache;
use crate::coordination::replicas::purge_log::PurgeRecord;

/// What a key holds: one entry, or a server-rendered document made of entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyKind {
    Entry,
    Document,
}

/// A key to explain, as the real key functions spell it.
#[derive(Debug, Clone)]
pub struct ExplainTarget {
    pub key: String,
    /// The entry's route; a document's is its first part's (what L2 records it under).
    pub route: RouteKind,
    pub kind: KeyKind,
}

/// One key explained.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyExplanation {
    /// The key, redacted when it carries shopper text.
    pub key: String,
    pub kind: KeyKind,
    pub route: &'static str,
    /// Each replica's L1: this one's first, then each other replica that answered in time.
    pub replicas: Vec<ReplicaL1>,
    /// L2's value; `None` without Redis, or for a key L2 never holds (search results).
    pub l2: Option<L2State>,
    /// The last purges that touched the key or its tags, newest first.
    pub purges: Vec<KeyPurge>,
}

/// One replica's L1 view of a key.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaL1 {
    pub replica: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod: Option<String>,
    /// An [`L1State`] as JSON: another replica's arrives as JSON, and is shown as it sent it
    /// (a newer build's fields included).
    pub l1: serde_json::Value,
}

/// A key in one replica's L1: its windows when present, else what the next lookup would miss
/// for.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct L1State {
    pub present: bool,
    /// `fresh`, `stale` (within stale-while-revalidate), `stale-if-error`, `expired`; a
    /// document: `current` or `outdated` (a part changed since it was rendered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored_at_unix_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fresh_until_unix_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale_until_unix_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_until_unix_ms: Option<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// The reason the next lookup misses for (absent, or present but expired).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub miss_reason: Option<MissReason>,
    /// The purge that removed it, when it was purged by one with an id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub purge_id: Option<String>,
    /// When it was removed (Unix ms), when this replica remembers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed_at_unix_ms: Option<u64>,
}

/// A key's value in L2.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct L2State {
    pub present: bool,
    /// Whether its recorded versions hold: a read would serve it (`false`: outdated in L2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored_at_unix_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fresh_until_unix_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale_until_unix_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_until_unix_ms: Option<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// A document's parts (`key etag`, keys redacted).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// Until Redis drops it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// The replica that filled it, and when (absent for a value an older build wrote).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filled_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filled_at_unix_ms: Option<u64>,
}

/// `instant` as Unix ms, by its distance from `now`.
fn unix_ms_of(instant: Instant, now: Instant, now_unix_ms: u64) -> u64 {
    let ms = |duration: std::time::Duration| u64::try_from(duration.as_millis()).unwrap_or(0);
    if instant >= now {
        now_unix_ms.saturating_add(ms(instant - now))
    } else {
        now_unix_ms.saturating_sub(ms(now - instant))
    }
}

impl EdgeCache {
    /// Explains each of `targets` (the keys one URL maps to) on this replica and in L2; each
    /// key's purges from `fleet_purges` (the fleet's recent purges) when given, else from the
    /// purges this replica applied.
    pub async fn explain(
        &self,
        targets: &[ExplainTarget],
        fleet_purges: Option<&[PurgeRecord]>,
    ) -> Vec<KeyExplanation> {
        let mut explained = Vec::with_capacity(targets.len());
        // a document's tags are its parts': the entries explained beside it
        let mut part_tags: Vec<String> = Vec::new();
        for target in targets.iter().filter(|t| t.kind == KeyKind::Entry) {
            let tags = match self.l1_entry(target.route, &target.key).await {
                Some(entry) => entry.tags.clone(),
                None => vec![own_tag(target)],
            };
            part_tags.extend(tags);
        }
        for target in targets {
            explained.push(self.explain_one(target, &part_tags, fleet_purges).await);
        }
        explained
    }

    async fn explain_one(
        &self,
        target: &ExplainTarget,
        part_tags: &[String],
        fleet_purges: Option<&[PurgeRecord]>,
    ) -> KeyExplanation {
        let (l1, entry_tags) = self.l1_view(target).await;
        let mut tags = match target.kind {
            KeyKind::Entry => entry_tags.unwrap_or_else(|| vec![own_tag(target)]),
            KeyKind::Document => part_tags.to_vec(),
        };
        let policy = self.config().policy(target.route).clone();
        let l2 = self.l2_state(target, &policy).await;
        if let Some(l2) = &l2
            && tags.len() <= 1
            && !l2.tags.is_empty()
        {
            tags = l2.tags.clone();
        }
        let shown = redacted(&target.key);
        let purges = match fleet_purges {
            Some(records) => fleet_purges_touching(records, &target.key, &tags),
            None => self
                .purges_touching(&shown, &tags)
                .into_iter()
                .take(SHOWN)
                .map(KeyPurge::from)
                .collect(),
        };
        KeyExplanation {
            purges,
            key: shown,
            kind: target.kind,
            route: target.route.as_str(),
            replicas: vec![ReplicaL1 {
                replica: self.replica_id().to_owned(),
                pod: self.pod().map(str::to_owned),
                l1: serde_json::to_value(&l1).unwrap_or_default(),
            }],
            l2,
        }
    }

    /// `target` in this replica's L1, and an entry's tags when it is present: what this replica
    /// shows for itself, and answers another replica's explain query with.
    pub(super) async fn l1_view(&self, target: &ExplainTarget) -> (L1State, Option<Vec<String>>) {
        let now = Instant::now();
        let now_unix_ms = crate::coordination::replicas::unix_ms();
        let at = |instant| unix_ms_of(instant, now, now_unix_ms);
        let policy = self.config().policy(target.route).clone();
        let mut l1 = L1State::default();
        let mut tags = None;
        match target.kind {
            KeyKind::Entry => {
                if let Some(entry) = self.l1_entry(target.route, &target.key).await {
                    let freshness = entry.freshness(&policy);
                    // By its windows alone, as L2's view below is: whether this replica vouches
                    // for it is the lookup's concern.
                    let state = EntryState::at(&freshness, now);
                    tags = Some(entry.tags.clone());
                    l1 = L1State {
                        present: true,
                        state: Some(state.as_str()),
                        status: Some(entry.status.as_u16()),
                        stored_at_unix_ms: Some(at(entry.stored_at)),
                        fresh_until_unix_ms: Some(at(freshness.fresh_until)),
                        stale_until_unix_ms: Some(at(freshness.stale_until)),
                        error_until_unix_ms: Some(at(freshness.error_until)),
                        tags: entry.tags.clone(),
                        size_bytes: Some(u64::from(entry.weight(&target.key))),
                        miss_reason: (state == EntryState::Expired).then_some(MissReason::Expired),
                        ..L1State::default()
                    };
                }
            }
            KeyKind::Document => {
                if let Some((current, weight)) = self.document_state(&target.key, now) {
                    l1 = L1State {
                        present: true,
                        state: Some(if current { "current" } else { "outdated" }),
                        size_bytes: Some(u64::from(weight)),
                        ..L1State::default()
                    };
                }
            }
        }
        if !l1.present {
            let tombstone = self.tombstone(&target.key).await;
            l1.miss_reason = Some(tombstone.as_ref().map_or(MissReason::Cold, |t| t.reason));
            l1.purge_id = tombstone
                .as_ref()
                .and_then(|t| t.purge_id.as_deref().map(str::to_owned));
            l1.removed_at_unix_ms = tombstone.map(|t| t.at_unix_ms);
        }
        (l1, tags)
    }

    async fn l2_state(
        &self,
        target: &ExplainTarget,
        policy: &super::policy::CachePolicy,
    ) -> Option<L2State> {
        let shared = self.shared_tier_for(target.route)?;
        let Some(inspected) = shared.inspect(&target.key, target.route).await else {
            return Some(L2State::default());
        };
        let Some((meta, body, gzip, brotli)) = inspected.value else {
            return Some(L2State::default());
        };
        let mut state = L2State {
            present: true,
            current: Some(inspected.current),
            size_bytes: Some(inspected.size_bytes),
            ttl_ms: inspected.ttl_ms,
            filled_by: inspected.filled_by,
            filled_at_unix_ms: inspected.filled_at_unix_ms,
            ..L2State::default()
        };
        match target.kind {
            KeyKind::Entry => {
                let entry = serde_json::from_slice::<SharedMeta>(&meta)
                    .ok()
                    .and_then(|meta| CachedResponse::from_shared(meta, body, gzip, brotli, policy));
                if let Some(entry) = entry.map(Arc::new) {
                    let now = Instant::now();
                    let now_unix_ms = crate::coordination::replicas::unix_ms();
                    let at = |instant| Some(unix_ms_of(instant, now, now_unix_ms));
                    let freshness = entry.freshness(policy);
                    state.stored_at_unix_ms = at(entry.stored_at);
                    state.fresh_until_unix_ms = at(freshness.fresh_until);
                    state.stale_until_unix_ms = at(freshness.stale_until);
                    state.error_until_unix_ms = at(freshness.error_until);
                    state.tags = entry.tags.clone();
                }
            }
            KeyKind::Document => {
                #[derive(serde::Deserialize)]
                struct Parts {
                    parts: Vec<String>,
                }
                if let Ok(meta) = serde_json::from_slice::<Parts>(&meta) {
                    state.parts = meta.parts.iter().map(|part| redacted(part)).collect();
                }
            }
        }
        Some(state)
    }
}

/// The tag every entry at `target` carries: its route's, for its title.
fn own_tag(target: &ExplainTarget) -> String {
    let title = target.key.split_once(':').map_or("", |(_, title)| title);
    target.route.tag(title).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn instants_map_to_unix_time_both_ways() {
        let now = Instant::now();
        assert_eq!(
            unix_ms_of(now + Duration::from_secs(2), now, 10_000),
            12_000
        );
        assert_eq!(unix_ms_of(now - Duration::from_secs(2), now, 10_000), 8_000);
    }
}
