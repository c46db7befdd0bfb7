//! Purge receipts: a purge has an id, every replica that applies it answers on the purge
//! channel with what it dropped, and the replica that took the purge collects those answers for
//! a bounded time. The desk here only matches receipts to waiting purges; who is expected comes
//! from the fleet's heartbeats (see [`super::purge_fanout`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::coordination::replicas::purge_bus::{Purge, PurgeMode, Receipt};
use crate::coordination::replicas::reply_desk::{ReplyDesk, ReplyWaiter};

/// One purge as every replica applies it: what, how, and the id its receipts (and the miss
/// reasons it causes) name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PurgeOrder {
    pub id: String,
    pub purge: Purge,
    pub mode: PurgeMode,
}

impl PurgeOrder {
    /// A new purge with an id of its own.
    pub fn new(purge: Purge, mode: PurgeMode) -> Self {
        Self {
            id: new_purge_id(),
            purge,
            mode,
        }
    }
}

/// A fresh purge id (a UUID: unique across replicas, no coordination needed).
pub fn new_purge_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// One replica's confirmation, as the purge's answer shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaReceipt {
    pub replica: String,
    pub pod: Option<String>,
    /// L1 entries it dropped (hard) or marked stale (soft).
    pub l1_dropped: u64,
    /// From the start of the purge on the replica that took it to the receipt's arrival there.
    pub confirmed_after_ms: u64,
}

/// Receipts by purge id, for the purges this replica is waiting on (a [`ReplyDesk`] of
/// receipts).
#[derive(Debug)]
pub struct ReceiptDesk {
    pod: Option<String>,
    desk: Arc<ReplyDesk<Receipt>>,
}

impl ReceiptDesk {
    /// The desk of the replica `replica` (its id), in `pod` where known.
    pub fn new(replica: String, pod: Option<String>) -> Self {
        Self {
            pod,
            desk: Arc::new(ReplyDesk::new(replica)),
        }
    }

    /// This replica's receipt for `purge_id`, sent to other replicas' desks.
    pub fn receipt(&self, purge_id: &str, l1_dropped: u64) -> Receipt {
        Receipt {
            purge_id: purge_id.to_owned(),
            replica: self.desk.replica().to_owned(),
            pod: self.pod.clone(),
            l1_dropped,
        }
    }

    /// Starts waiting for the receipts of `purge_id`: call before the purge is published, so
    /// no receipt can arrive unseen.
    pub fn expect(&self, purge_id: &str) -> ReceiptWaiter {
        ReceiptWaiter {
            waiter: self.desk.expect(purge_id),
        }
    }

    /// Hands `receipt` to the purge waiting for it; a late one (its purge answered already)
    /// is dropped.
    pub fn deliver(&self, receipt: Receipt) {
        self.desk.deliver(receipt);
    }
}

/// The receipts of one purge, as they arrive; stops waiting when dropped.
#[derive(Debug)]
pub struct ReceiptWaiter {
    waiter: ReplyWaiter<Receipt>,
}

/// What a purge's wait for receipts came to.
#[derive(Debug, Clone, Default)]
pub struct Collected {
    /// By replica id, in arrival order: summed over the purge's parts (a purge by tags and
    /// keys is two purges under one id).
    pub receipts: Vec<ReplicaReceipt>,
    /// Expected replicas that did not confirm every part in time.
    pub missing: Vec<String>,
}

impl ReceiptWaiter {
    /// When the purge began here: what receipts' `confirmedAfterMs` count from.
    pub fn started(&self) -> Instant {
        self.waiter.started()
    }

    /// Waits until every replica in `expected` (other than this one) sent `parts` receipts,
    /// or `deadline` from the purge's start passed. Receipts from replicas not expected (one
    /// that started after the fleet was read) are kept too.
    pub async fn collect(self, expected: &[String], parts: usize, deadline: Duration) -> Collected {
        let started = self.started();
        let mut receipts: Vec<ReplicaReceipt> = Vec::new();
        let missing = self
            .waiter
            .collect(expected, parts, deadline, |receipt, arrived| {
                let after = millis_between(started, arrived);
                match receipts
                    .iter_mut()
                    .find(|known| known.replica == receipt.replica)
                {
                    Some(known) => {
                        known.l1_dropped += receipt.l1_dropped;
                        known.confirmed_after_ms = known.confirmed_after_ms.max(after);
                    }
                    None => receipts.push(ReplicaReceipt {
                        replica: receipt.replica,
                        pod: receipt.pod,
                        l1_dropped: receipt.l1_dropped,
                        confirmed_after_ms: after,
                    }),
                }
            })
            .await;
        Collected { receipts, missing }
    }
}

/// Whole milliseconds from `from` to `to` (0 when `to` is earlier).
pub fn millis_between(from: Instant, to: Instant) -> u64 {
    u64::try_from(to.saturating_duration_since(from).as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn receipts_are_summed_per_replica_and_the_silent_ones_named() {
        let desk = ReceiptDesk::new("me".to_owned(), None);
        let waiter = desk.expect("p1");
        let other = ReceiptDesk::new("b".to_owned(), Some("pod-b".to_owned()));
        desk.deliver(other.receipt("p1", 2));
        desk.deliver(other.receipt("p1", 3));
        // Another purge's receipt is not this one's.
        desk.deliver(other.receipt("p2", 7));
        let expected = ["me", "b", "c"].map(str::to_owned);
        let collected = waiter
            .collect(&expected, 2, Duration::from_millis(50))
            .await;
        assert_eq!(collected.receipts.len(), 1);
        assert_eq!(collected.receipts[0].l1_dropped, 5);
        assert_eq!(collected.receipts[0].pod.as_deref(), Some("pod-b"));
        assert_eq!(collected.missing, vec!["c".to_owned()]);
        assert_eq!(desk.desk.waiting(), 0, "the wait is over");
    }
}
