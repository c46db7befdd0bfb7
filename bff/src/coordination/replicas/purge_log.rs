//! The recent purges: a bounded list in the coordination tier (`purges:recent`, newest first,
//! `fleet.recent_purges` long, the oldest dropped first), or in this process without Redis.
//! Read by `GET /admin/cache/purges` and by whatever explains a key ("the last purges that
//! touched its tags", and which purge removed it).

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use super::Redis;
use super::purge_bus::{Purge, PurgeMode};

/// One purge, as recorded once its receipts are in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PurgeRecord {
    pub id: String,
    /// What it named: `{"tags": [...]}`, `{"keys": [...]}`, `{"allExceptTags": [...]}` or
    /// `"all"` (one per part: a purge of tags and keys has two).
    pub what: Vec<Purge>,
    pub mode: PurgeMode,
    /// The replica that took it, and its pod where known.
    pub origin: String,
    pub origin_pod: Option<String>,
    /// Where it came from: `admin` or `webhook:<event>`.
    pub source: String,
    pub at_unix_ms: u64,
    /// L1 entries dropped (or marked stale) over every replica that confirmed.
    pub l1_dropped: u64,
    pub l2_invalidated: u64,
    pub replicas_confirmed: usize,
    pub replicas_missing: usize,
    /// `complete`, `partial`, `pending` or `local` (see the purge answer's `fanOut`).
    pub fan_out: String,
}

impl PurgeRecord {
    /// Whether this purge named the entry `key` carrying `tags` (the key as the cache spells
    /// it, `route:title`; tags as entries carry them).
    pub fn touches(&self, key: &str, tags: &[String]) -> bool {
        self.what
            .iter()
            .any(|part| Self::part_touches(part, key, tags))
    }

    /// Whether the one part `part` of a purge named the entry `key` carrying `tags`.
    pub fn part_touches(part: &Purge, key: &str, tags: &[String]) -> bool {
        match part {
            Purge::Tags(named) => tags.iter().any(|tag| named.contains(tag)),
            Purge::Keys(named) => named.iter().any(|named| named == key),
            Purge::AllExceptTags(kept) => !tags.iter().any(|tag| kept.contains(tag)),
            Purge::All => true,
        }
    }
}

/// Where the recent purges are kept.
#[derive(Debug)]
pub struct PurgeLog {
    redis: Option<Redis>,
    limit: usize,
    /// Without Redis (or while it fails): this replica's own, newest first.
    local: Mutex<VecDeque<PurgeRecord>>,
}

impl PurgeLog {
    pub fn new(redis: Option<Redis>, limit: usize) -> Self {
        Self {
            redis,
            limit: limit.max(1),
            local: Mutex::default(),
        }
    }

    fn key(redis: &Redis) -> String {
        redis.key(&["purges", "recent"])
    }

    /// Adds `record` (newest first), dropping the oldest past the limit. Kept in this process
    /// too, so a Redis outage does not lose what this replica did.
    pub async fn record(&self, record: PurgeRecord) {
        {
            let mut local = self.local.lock().unwrap_or_else(PoisonError::into_inner);
            local.push_front(record.clone());
            local.truncate(self.limit);
        }
        let Some(redis) = &self.redis else {
            return;
        };
        let Ok(json) = serde_json::to_string(&record) else {
            return;
        };
        let key = Self::key(redis);
        let mut pipeline = redis::pipe();
        pipeline
            .atomic()
            .cmd("LPUSH")
            .arg(&key)
            .arg(json)
            .ignore()
            .cmd("LTRIM")
            .arg(&key)
            .arg(0)
            .arg(self.limit.saturating_sub(1))
            .ignore();
        let _ = redis.pipeline::<()>("purge_log_write", &pipeline).await;
    }

    /// The last `limit` purges, newest first: the fleet's from Redis, else this replica's own.
    pub async fn recent_purges(&self, limit: usize) -> Vec<PurgeRecord> {
        let limit = limit.min(self.limit);
        if limit == 0 {
            return Vec::new();
        }
        if let Some(redis) = &self.redis {
            let stored: Result<Vec<String>, _> = redis
                .query(
                    "purge_log_read",
                    redis::cmd("LRANGE")
                        .arg(Self::key(redis))
                        .arg(0)
                        .arg(limit - 1),
                )
                .await;
            if let Ok(stored) = stored {
                return stored
                    .iter()
                    .filter_map(|json| serde_json::from_str(json).ok())
                    .collect();
            }
        }
        self.local
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .take(limit)
            .cloned()
            .collect()
    }

    /// The fleet's recent purges, newest first; `None` without Redis or when it does not
    /// answer (then this replica's own records are all there is, and explain prefers the
    /// purges it applied, heard ones included).
    pub async fn fleet_purges(&self) -> Option<Vec<PurgeRecord>> {
        let redis = self.redis.as_ref()?;
        let stored: Vec<String> = redis
            .query(
                "purge_log_read",
                redis::cmd("LRANGE")
                    .arg(Self::key(redis))
                    .arg(0)
                    .arg(self.limit - 1),
            )
            .await
            .ok()?;
        Some(
            stored
                .iter()
                .filter_map(|json| serde_json::from_str(json).ok())
                .collect(),
        )
    }

    /// The last `limit` purges that named the entry `key` with `tags`, newest first.
    pub async fn recent_purges_touching(
        &self,
        key: &str,
        tags: &[String],
        limit: usize,
    ) -> Vec<PurgeRecord> {
        self.recent_purges(self.limit)
            .await
            .into_iter()
            .filter(|record| record.touches(key, tags))
            .take(limit)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, what: Purge) -> PurgeRecord {
        PurgeRecord {
            id: id.to_owned(),
            what: vec![what],
            mode: PurgeMode::Hard,
            origin: "r".to_owned(),
            origin_pod: None,
            source: "admin".to_owned(),
            at_unix_ms: 0,
            l1_dropped: 0,
            l2_invalidated: 0,
            replicas_confirmed: 1,
            replicas_missing: 0,
            fan_out: "local".to_owned(),
        }
    }

    #[tokio::test]
    async fn the_list_is_bounded_and_filtered_by_what_a_purge_named() {
        let log = PurgeLog::new(None, 2);
        log.record(record("1", Purge::Tags(vec!["page:home".to_owned()])))
            .await;
        log.record(record("2", Purge::Keys(vec!["product:a".to_owned()])))
            .await;
        log.record(record("3", Purge::Tags(vec!["search".to_owned()])))
            .await;
        let ids = |records: Vec<PurgeRecord>| {
            records
                .into_iter()
                .map(|record| record.id)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            ids(log.recent_purges(10).await),
            ["3", "2"],
            "the oldest dropped"
        );
        let touching = log
            .recent_purges_touching("product:a", &["product:a".to_owned()], 5)
            .await;
        assert_eq!(ids(touching), ["2"]);
    }
}
