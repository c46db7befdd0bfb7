//! The store on the purge channel: the other replicas' purges applied here (with a receipt
//! back), their explain queries and replies, sign-outs passed on, and what losing and joining
//! the channel again mean for what L1 may serve (see [`super::versions`]'s unheard window).

use std::sync::Arc;
use std::time::Instant;

use super::EdgeCache;
use crate::cache::purge_receipt::{PurgeOrder, ReceiptWaiter};
use crate::coordination::replicas::purge_bus::{
    BusEvent, ExplainReply, Purge, PurgeBus, PurgeMode, RevocationSink,
};
use crate::coordination::replicas::reply_desk::ReplyWaiter;

impl EdgeCache {
    /// Applies other replicas' purges to this cache until `stop`; drops all of L1 whenever the
    /// purge channel is joined again, since purges published meanwhile were missed. The
    /// sign-outs heard on the channel go to `revocations`. Does nothing without Redis.
    pub fn listen_for_purges(
        &self,
        stop: tokio_util::sync::CancellationToken,
        revocations: RevocationSink,
    ) {
        let Some(shared) = &self.inner.shared else {
            return;
        };
        let cache = self.clone();
        shared.bus.spawn_subscriber(
            Arc::new(move |event| {
                let cache = cache.clone();
                let revocations = revocations.clone();
                Box::pin(async move {
                    let purged = match event {
                        BusEvent::Purge {
                            purge,
                            version,
                            mode,
                            id,
                            origin,
                        } => {
                            if let (Some(shared), Some(version)) = (&cache.inner.shared, version) {
                                shared.remember_purge(&purge, mode, version);
                            }
                            let order = PurgeOrder { id, purge, mode };
                            let purged = cache.purge_local(&order).await;
                            cache.send_receipt(&order.id, &origin, purged);
                            purged
                        }
                        BusEvent::Receipt(receipt) => {
                            cache.inner.receipts.deliver(receipt);
                            return;
                        }
                        BusEvent::ExplainQuery { id, origin, keys } => {
                            cache.answer_explain_query(id, origin, keys);
                            return;
                        }
                        BusEvent::ExplainReply(reply) => {
                            cache.inner.explain_replies.deliver(reply);
                            return;
                        }
                        BusEvent::Revoked { session } => {
                            revocations(session);
                            return;
                        }
                        BusEvent::Rejoined => {
                            cache.replay_pending_purges().await;
                            let order = PurgeOrder::new(Purge::All, PurgeMode::Hard);
                            let purged = cache.purge_local(&order).await;
                            cache.inner.versions.set_unheard_since(None);
                            purged
                        }
                        BusEvent::Lost => {
                            cache.inner.versions.set_unheard_since(Some(Instant::now()));
                            // The hit path's remembered answers are made from L1's entries.
                            cache.inner.versions.changed_all();
                            0
                        }
                    };
                    tracing::debug!(purged, "purge from another replica applied");
                })
            }),
            stop,
        );
    }

    /// Confirms to `origin` that this replica applied its purge `purge_id` (in a task of its
    /// own: the channel's next message is not held up by the round trip). An older build's
    /// purge has no id and wants no receipt.
    fn send_receipt(&self, purge_id: &str, origin: &str, l1_dropped: u64) {
        let Some(shared) = &self.inner.shared else {
            return;
        };
        if purge_id.is_empty() {
            return;
        }
        let bus = shared.bus.clone();
        let receipt = self.inner.receipts.receipt(purge_id, l1_dropped);
        let origin = origin.to_owned();
        tokio::spawn(async move {
            bus.publish_receipt(&origin, receipt).await;
        });
    }

    /// Starts collecting the other replicas' receipts for the purge `purge_id` (before it is
    /// applied, so none arrives unseen).
    pub fn expect_receipts(&self, purge_id: &str) -> ReceiptWaiter {
        self.inner.receipts.expect(purge_id)
    }

    /// Starts collecting the other replicas' answers to the explain query `query_id` (before
    /// it is published, so none arrives unseen).
    pub(in crate::cache) fn expect_explain_replies(
        &self,
        query_id: &str,
    ) -> ReplyWaiter<ExplainReply> {
        self.inner.explain_replies.expect(query_id)
    }

    /// The purge channel, when Redis is configured (explain's queries and replies travel on it).
    pub(in crate::cache) fn bus(&self) -> Option<&PurgeBus> {
        self.inner.shared.as_ref().map(|shared| &shared.bus)
    }
}
