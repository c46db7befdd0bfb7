//! A purge across the fleet, answered with receipts: applied in L2, here and (through the
//! purge channel) on every other replica; each replica confirms with what it dropped, and the
//! answer waits for the live replicas (from the fleet's heartbeats) at most
//! `fleet.purge_receipt_deadline`, then names those that did not confirm. Every purge is
//! recorded in the recent-purges list.

use std::time::Instant;

use serde::Serialize;

use super::purge_receipt::{Collected, PurgeOrder, ReplicaReceipt, millis_between};
use super::store::{EdgeCache, PurgeReport};
use crate::cache::fleet::Fleet;
use crate::coordination::replicas::purge_bus::PurgeMode;
use crate::coordination::replicas::purge_log::{PurgeLog, PurgeRecord};
use crate::coordination::replicas::replication::Replication;

/// How far the purge reached the other replicas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FanOut {
    /// Every live replica confirmed within the deadline.
    Complete,
    /// Published, but some live replicas did not confirm in time (named in `missing`).
    Partial,
    /// Redis did not take it: applied on this replica only, kept and replayed (L2 and the
    /// channel) when Redis returns. Other replicas still hold what was purged until then.
    Pending,
    /// No Redis is configured: this replica is the whole fleet.
    Local,
}

impl FanOut {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::Partial => "partial",
            Self::Pending => "pending",
            Self::Local => "local",
        }
    }

    /// Whether every replica known has applied it.
    pub fn confirmed(self) -> bool {
        matches!(self, Self::Complete | Self::Local)
    }
}

/// A purge's answer.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PurgeAnswer {
    pub id: String,
    pub mode: PurgeMode,
    /// L1 entries this replica dropped (or marked stale): the answer's field before receipts.
    pub purged: u64,
    /// L2 version counters moved (one per tag, key or route); each outdates, or marks stale,
    /// every L2 entry recorded under it.
    pub l2_invalidated: u64,
    /// Every replica that confirmed, this one first.
    pub receipts: Vec<ReplicaReceipt>,
    /// Live replicas that did not confirm within the deadline.
    pub missing: Vec<String>,
    pub fan_out: FanOut,
    /// How long the answer waited for receipts at most.
    pub deadline_ms: u64,
    /// Whether its L2 write reached a Redis replica (see `replication` in OPERATING.md).
    pub replication: Replication,
    /// What an operator should know when the purge is not confirmed everywhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Where a purge came from, for the record.
#[derive(Debug, Clone)]
pub struct Origin {
    /// `admin` or `webhook:<event>`.
    pub source: String,
}

/// Applies `orders` (one purge, in parts that share its id) everywhere and collects the
/// receipts. `fleet` names the replicas expected to confirm; `log` records the purge.
pub async fn purge_with_receipts(
    cache: &EdgeCache,
    fleet: &Fleet,
    log: &PurgeLog,
    orders: &[PurgeOrder],
    origin: Origin,
) -> PurgeAnswer {
    let id = orders
        .first()
        .map(|order| order.id.clone())
        .unwrap_or_default();
    let mode = orders.first().map_or(PurgeMode::Hard, |order| order.mode);
    let expected = fleet.live_replicas().await.unwrap_or_default();
    let waiter = cache.expect_receipts(&id);
    let started = waiter.started();
    let mut report: Option<PurgeReport> = None;
    for order in orders {
        let part = cache.purge(order).await;
        report = Some(match report {
            Some(sum) => sum + part,
            None => part,
        });
    }
    let report = report.unwrap_or(PurgeReport {
        purged: 0,
        replication: Replication::NoReplicas,
        l2_invalidated: 0,
        published: None,
    });
    let identity = fleet.identity();
    let own = ReplicaReceipt {
        replica: identity.id.clone(),
        pod: identity.pod.clone(),
        l1_dropped: report.purged,
        confirmed_after_ms: millis_between(started, Instant::now()),
    };
    let deadline = fleet.config().purge_receipt_deadline;
    let (fan_out, collected) = match report.published {
        None => (FanOut::Local, Collected::default()),
        Some(false) => {
            drop(waiter);
            let missing = expected
                .iter()
                .filter(|replica| **replica != identity.id)
                .cloned()
                .collect();
            (
                FanOut::Pending,
                Collected {
                    receipts: Vec::new(),
                    missing,
                },
            )
        }
        Some(true) => {
            let collected = waiter.collect(&expected, orders.len(), deadline).await;
            let fan_out = if collected.missing.is_empty() {
                FanOut::Complete
            } else {
                FanOut::Partial
            };
            (fan_out, collected)
        }
    };
    let detail = match fan_out {
        FanOut::Pending => Some(
            "Redis did not take the purge: it was applied on this replica only and is kept; it \
             is applied to L2 and sent to the other replicas when Redis returns. Retry later, \
             or purge each replica."
                .to_owned(),
        ),
        FanOut::Partial => Some(format!(
            "{} replica(s) did not confirm within {} ms; they drop their whole L1 when they \
             rejoin the purge channel, and their copies expire within their ttl.",
            collected.missing.len(),
            crate::config::duration::millis(deadline)
        )),
        FanOut::Complete | FanOut::Local => None,
    };
    let mut receipts = vec![own];
    receipts.extend(collected.receipts);
    let answer = PurgeAnswer {
        id,
        mode,
        purged: report.purged,
        l2_invalidated: report.l2_invalidated,
        receipts,
        missing: collected.missing,
        fan_out,
        deadline_ms: crate::config::duration::millis(deadline),
        replication: report.replication,
        detail,
    };
    log.record(PurgeRecord {
        id: answer.id.clone(),
        what: orders.iter().map(|order| order.purge.clone()).collect(),
        mode,
        origin: identity.id.clone(),
        origin_pod: identity.pod.clone(),
        source: origin.source,
        at_unix_ms: crate::coordination::replicas::unix_ms(),
        l1_dropped: answer
            .receipts
            .iter()
            .map(|receipt| receipt.l1_dropped)
            .sum(),
        l2_invalidated: answer.l2_invalidated,
        replicas_confirmed: answer.receipts.len(),
        replicas_missing: answer.missing.len(),
        fan_out: fan_out.as_str().to_owned(),
    })
    .await;
    answer
}
