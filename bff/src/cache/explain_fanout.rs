//! Explain across the fleet: the replica asked publishes an explain query (the keys, real, not
//! redacted: the query stays inside the fleet's Redis) on the purge channel; every other
//! replica answers with its L1 view of them; the asker collects the answers from the live
//! replicas (the fleet's heartbeats) for at most `fleet.explain_deadline`, and names those
//! that did not answer. Meanwhile it explains the keys itself, with the fleet's recent purges.
//! Without Redis, this replica is the whole fleet.

use std::time::Duration;

use serde::Serialize;

use super::explain::{ExplainTarget, KeyExplanation, KeyKind, ReplicaL1};
use super::explain_purges::PurgesFrom;
use super::store::EdgeCache;
use crate::cache::fleet::Fleet;
use crate::coordination::replicas::purge_bus::{ExplainKey, ExplainReply};
use crate::coordination::replicas::purge_log::PurgeLog;

/// How far the question reached the other replicas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Reach {
    /// Asked on the purge channel: every live replica answered in time, or is in `missing`.
    Fleet,
    /// Redis did not take the question: this replica's view only (the others in `missing`).
    Unavailable,
    /// No Redis is configured: this replica is the whole fleet.
    Local,
}

/// `GET /admin/cache/explain`'s answer.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetExplained {
    /// The replica that answered (its L1 is first in each key's `replicas`).
    pub replica: String,
    pub keys: Vec<KeyExplanation>,
    /// Live replicas that did not answer within the deadline.
    pub missing: Vec<String>,
    pub reach: Reach,
    /// How long the answer waited for the other replicas at most.
    pub deadline_ms: u64,
    /// Where `purges` came from: the fleet's list, or this replica's.
    pub purges_from: PurgesFrom,
}

/// Explains `targets` here and asks the fleet's other replicas for their L1 view of them.
pub async fn explain_across_fleet(
    cache: &EdgeCache,
    fleet: &Fleet,
    log: &PurgeLog,
    targets: &[ExplainTarget],
) -> FleetExplained {
    let deadline = fleet.config().explain_deadline;
    let expected = match cache.bus() {
        Some(_) => fleet.live_replicas().await.unwrap_or_default(),
        None => Vec::new(),
    };
    let others = |expected: &[String]| -> Vec<String> {
        expected
            .iter()
            .filter(|replica| **replica != cache.replica_id())
            .cloned()
            .collect()
    };
    let id = uuid::Uuid::new_v4().to_string();
    let waiter = cache.expect_explain_replies(&id);
    let asked = match cache.bus() {
        Some(bus) => Some(bus.publish_explain_query(&id, query_keys(targets)).await),
        None => None,
    };
    let here = async {
        let fleet_purges = log.fleet_purges().await;
        let keys = cache.explain(targets, fleet_purges.as_deref()).await;
        let from = match fleet_purges {
            Some(_) => PurgesFrom::Fleet,
            None => PurgesFrom::Replica,
        };
        (keys, from)
    };
    let ((mut keys, purges_from), (reach, replies, missing)) = match asked {
        Some(true) => {
            let collect = async {
                let mut replies: Vec<ExplainReply> = Vec::new();
                let missing = waiter
                    .collect(&expected, 1, deadline, |reply, _| replies.push(reply))
                    .await;
                (Reach::Fleet, replies, missing)
            };
            tokio::join!(here, collect)
        }
        Some(false) => {
            drop(waiter);
            (
                here.await,
                (Reach::Unavailable, Vec::new(), others(&expected)),
            )
        }
        None => {
            drop(waiter);
            (here.await, (Reach::Local, Vec::new(), Vec::new()))
        }
    };
    for reply in replies {
        // the views come in the query's order, one per key
        for (key, l1) in keys.iter_mut().zip(reply.l1) {
            key.replicas.push(ReplicaL1 {
                replica: reply.replica.clone(),
                pod: reply.pod.clone(),
                l1,
            });
        }
    }
    FleetExplained {
        replica: cache.replica_id().to_owned(),
        keys,
        missing,
        reach,
        deadline_ms: millis(deadline),
        purges_from,
    }
}

fn millis(duration: Duration) -> u64 {
    crate::config::duration::millis(duration)
}

/// `targets` as the query carries them.
fn query_keys(targets: &[ExplainTarget]) -> Vec<ExplainKey> {
    targets
        .iter()
        .map(|target| ExplainKey {
            key: target.key.clone(),
            route: target.route,
            document: target.kind == KeyKind::Document,
        })
        .collect()
}

impl EdgeCache {
    /// Answers the explain query `id` of the replica `origin` with this replica's L1 view of
    /// `keys` (in a task of its own: the channel's next message is not held up).
    pub(super) fn answer_explain_query(&self, id: String, origin: String, keys: Vec<ExplainKey>) {
        let cache = self.clone();
        tokio::spawn(async move {
            let Some(bus) = cache.bus() else {
                return;
            };
            let mut l1 = Vec::with_capacity(keys.len());
            for key in keys {
                let target = ExplainTarget {
                    kind: if key.document {
                        KeyKind::Document
                    } else {
                        KeyKind::Entry
                    },
                    route: key.route,
                    key: key.key,
                };
                let (state, _) = cache.l1_view(&target).await;
                l1.push(serde_json::to_value(&state).unwrap_or_default());
            }
            let reply = ExplainReply {
                id,
                replica: cache.replica_id().to_owned(),
                pod: cache.pod().map(str::to_owned),
                l1,
            };
            bus.publish_explain_reply(&origin, reply).await;
        });
    }
}
