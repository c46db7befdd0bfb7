//! Where audit records are kept: in the coordination tier (one Redis list for the whole fleet,
//! newest first, `LPUSH` + `LTRIM` in one `MULTI` so it never holds more than its bound; one
//! key, so Redis Cluster takes it as a single server does), and in this process (a ring of the
//! same bound), which answers when Redis is not configured or not reachable. A record Redis
//! did not take is kept locally and counted (`bff_redis_errors_total{operation="audit_append"}`
//! and the answer's `unshared`): the action it records is never failed for it.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

use super::entry::AuditEntry;
use crate::coordination::replica_identity::ReplicaIdentity;
use crate::coordination::replicas::Redis;

/// The audit log of this storefront (shared by its replicas through Redis).
#[derive(Debug)]
pub struct AuditLog {
    /// The coordination tier, when `[redis]` is set.
    redis: Option<Redis>,
    /// `<key_prefix>admin:audit`.
    key: String,
    /// How many records are kept, here and in Redis.
    bound: usize,
    /// This replica's records, newest first (a std mutex: held for a push or a copy, never
    /// across an await).
    local: Mutex<VecDeque<AuditEntry>>,
    /// Records Redis did not take since start.
    unshared: AtomicU64,
    /// This replica, as its records name it: the pod's name, else its id.
    replica: String,
}

/// The answer of `GET /admin/audit`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditPage {
    /// `redis`: the fleet's log; `local`: this replica's own records only (no Redis configured,
    /// or Redis did not answer).
    pub source: &'static str,
    /// Why the records are this replica's only, when they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'static str>,
    /// How many records the log keeps (oldest dropped first).
    pub bound: usize,
    /// Records this replica could not write to Redis since it started (kept locally).
    pub unshared: u64,
    /// Newest first.
    pub entries: Vec<AuditEntry>,
}

impl AuditLog {
    pub fn new(redis: Option<Redis>, bound: usize, replica: &ReplicaIdentity) -> Self {
        let key = redis
            .as_ref()
            .map_or_else(String::new, |redis| redis.key(&["admin", "audit"]));
        Self {
            redis,
            key,
            bound: bound.max(1),
            local: Mutex::new(VecDeque::new()),
            unshared: AtomicU64::new(0),
            replica: replica.pod.clone().unwrap_or_else(|| replica.id.clone()),
        }
    }

    /// This replica's name in the records.
    pub fn replica(&self) -> &str {
        &self.replica
    }

    pub fn bound(&self) -> usize {
        self.bound
    }

    /// Keeps `entry` and writes it as one structured log line (target `audit`).
    pub async fn record(&self, entry: AuditEntry) {
        let arguments = entry.arguments.to_string();
        let result = entry.result.to_string();
        tracing::info!(
            target: "audit",
            actor = %entry.actor,
            method = %entry.method,
            route = %entry.route,
            status = entry.status,
            %arguments,
            %result,
            "admin action"
        );
        {
            let mut local = self
                .local
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            local.push_front(entry.clone());
            local.truncate(self.bound);
        }
        let Some(redis) = &self.redis else {
            return;
        };
        let Ok(json) = serde_json::to_string(&entry) else {
            return;
        };
        let last = isize::try_from(self.bound).unwrap_or(isize::MAX) - 1;
        let mut append = redis::pipe();
        append
            .atomic()
            .lpush(&self.key, json)
            .ignore()
            .ltrim(&self.key, 0, last)
            .ignore();
        if redis.pipeline::<()>("audit_append", &append).await.is_err() {
            self.unshared.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The newest `limit` records (at most the bound): the fleet's from Redis, else this
    /// replica's, saying so.
    pub async fn read(&self, limit: usize) -> AuditPage {
        let limit = limit.clamp(1, self.bound);
        let page = |source, note, entries| AuditPage {
            source,
            note,
            bound: self.bound,
            unshared: self.unshared.load(Ordering::Relaxed),
            entries,
        };
        if let Some(redis) = &self.redis {
            let last = isize::try_from(limit).unwrap_or(isize::MAX) - 1;
            let mut range = redis::cmd("LRANGE");
            range.arg(&self.key).arg(0).arg(last);
            match redis.query::<Vec<String>>("audit_read", &range).await {
                Ok(lines) => {
                    let entries = lines
                        .iter()
                        .filter_map(|line| serde_json::from_str(line).ok())
                        .collect();
                    return page("redis", None, entries);
                }
                Err(_) => {
                    return page(
                        "local",
                        Some("Redis did not answer: this replica's own records only"),
                        self.local_entries(limit),
                    );
                }
            }
        }
        page(
            "local",
            Some("no Redis configured: this replica's own records only"),
            self.local_entries(limit),
        )
    }

    fn local_entries(&self, limit: usize) -> Vec<AuditEntry> {
        let local = self
            .local
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        local.iter().take(limit).cloned().collect()
    }
}
