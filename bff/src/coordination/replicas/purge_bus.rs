//! Purge fan-out: a purge on one replica is published on a Redis channel, and every other replica
//! drops the same entries from its L1. A replica that lost the channel may have missed purges,
//! so when it joins the channel again it drops its whole L1 (what L2 holds is purged in Redis itself,
//! by the replica that took the purge).
//!
//! On a Redis Cluster the channel is classic pub/sub, not `SSUBSCRIBE`: a `PUBLISH` (routed by
//! the client to the channel name's slot) is broadcast over the cluster bus to every node, so a
//! subscriber on any node hears every purge, and one that loses its node subscribes on another.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::Redis;
use super::reply_desk::Reply;
use crate::config::RouteKind;
use crate::observe::metrics::RedisEvent;

/// A purge, as every replica applies it to its L1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Purge {
    Tags(Vec<String>),
    Keys(Vec<String>),
    /// Every entry that carries none of these tags (the webhook's answer to an unmapped change).
    AllExceptTags(Vec<String>),
    All,
}

/// How a purge treats what it names: `hard` removes the entries; `soft` marks them stale, so
/// the next request is served stale while one refresh runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PurgeMode {
    #[default]
    Hard,
    Soft,
}

impl PurgeMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hard => "hard",
            Self::Soft => "soft",
        }
    }
}

/// One replica's answer to a purge it applied: sent back on the channel to the purge's origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Receipt {
    /// The purge's id (the id of the message that carried it).
    pub purge_id: String,
    /// The confirming replica's id, and its pod where known.
    pub replica: String,
    #[serde(default)]
    pub pod: Option<String>,
    /// The L1 entries it dropped (hard) or marked stale (soft).
    pub l1_dropped: u64,
}

impl Reply for Receipt {
    fn request_id(&self) -> &str {
        &self.purge_id
    }
    fn replica(&self) -> &str {
        &self.replica
    }
}

/// A key an explain query asks the other replicas about, as the cache spells it: the real key,
/// not the redacted one (the query stays inside the fleet's Redis; never log it).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplainKey {
    pub key: String,
    pub route: RouteKind,
    /// A server-rendered document (else one entry).
    #[serde(default)]
    pub document: bool,
}

impl std::fmt::Debug for ExplainKey {
    /// Without the key: it may carry what a shopper typed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExplainKey")
            .field("route", &self.route)
            .field("document", &self.document)
            .finish_non_exhaustive()
    }
}

/// One replica's answer to an explain query: its L1 view of each key asked, in the query's
/// order, as the JSON it shows for itself (passed on as is, so a newer build's fields show).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplainReply {
    /// The query's id (the id of the message that carried it).
    pub id: String,
    pub replica: String,
    #[serde(default)]
    pub pod: Option<String>,
    pub l1: Vec<serde_json::Value>,
}

impl Reply for ExplainReply {
    fn request_id(&self) -> &str {
        &self.id
    }
    fn replica(&self) -> &str {
        &self.replica
    }
}

/// What the subscriber hands the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusEvent {
    /// Another replica purged; `version` is what the purge set its versions to in L2 (`None`
    /// from a replica of an older build). `id`: the purge's (empty from an older build, which
    /// wants no receipt); `origin`: the replica to send the receipt to.
    Purge {
        purge: Purge,
        version: Option<u64>,
        mode: PurgeMode,
        id: String,
        origin: String,
    },
    /// Another replica confirmed a purge this replica published.
    Receipt(Receipt),
    /// Another replica (`origin`) asks for this one's L1 view of `keys` (query `id`).
    ExplainQuery {
        id: String,
        origin: String,
        keys: Vec<ExplainKey>,
    },
    /// Another replica answered an explain query this replica published.
    ExplainReply(ExplainReply),
    /// Another replica signed out the session `session` (its id): revoked here too, so a check
    /// that cannot reach Redis still finds it.
    Revoked { session: String },
    /// The channel was joined after a time without it (lost, or not reachable at start):
    /// purges published meanwhile were missed.
    Rejoined,
    /// The channel, joined until now, was lost: purges may go unheard from here on, and one
    /// published just before (a primary killed right after it) may never arrive.
    Lost,
}

/// One message on the channel. Typed by `kind`, so later kinds (receipts, revocations) are
/// new variants on the one channel; a kind a replica does not know is ignored, not an error.
#[derive(Debug, Serialize, Deserialize)]
struct Message {
    /// Unique per message, for receipts and for telling a replay from a repeat.
    #[serde(default)]
    id: String,
    /// The publishing replica, which has already applied the purge.
    origin: String,
    #[serde(flatten)]
    kind: Kind,
}

/// A message as the build before typed messages sent it (no id, no kind).
#[derive(Debug, Deserialize)]
struct Legacy {
    origin: String,
    purge: Purge,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Kind {
    /// `purge` was applied to L2, its versions set to `version`. A build without modes
    /// ignores `mode` and purges hard: more than asked, never less.
    Purge {
        purge: Purge,
        #[serde(default)]
        version: Option<u64>,
        #[serde(default)]
        mode: PurgeMode,
    },
    /// `receipt` confirms the purge `receipt.purge_id`, for the replica `to` (its origin).
    Receipt { to: String, receipt: Receipt },
    /// Asks every other replica for its L1 view of `keys`; they answer with `explainReply`.
    /// A build without explain ignores it (an unknown kind) and is named missing.
    ExplainQuery { keys: Vec<ExplainKey> },
    /// `reply` answers the explain query `reply.id`, for the replica `to` (its origin).
    ExplainReply { to: String, reply: ExplainReply },
    /// The session `session` (its random id, never a token) was signed out. A build without
    /// it ignores it and reads the revocation from Redis only.
    Revocation { session: String },
    #[serde(other)]
    Unknown,
}

pub type Handler = Arc<dyn Fn(BusEvent) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// Where the subscriber hands the revocations it hears (the session's id): the sessions'
/// memory of them, which the cache that owns the subscription does not know.
pub type RevocationSink = Arc<dyn Fn(String) + Send + Sync>;

/// Publishes and receives purges for one replica.
#[derive(Debug, Clone)]
pub struct PurgeBus {
    redis: Redis,
    channel: String,
    /// This replica's id.
    replica: String,
}

const RECONNECT_MIN: Duration = Duration::from_millis(100);
/// The most a replica waits, at random, between rejoining the channel and dropping its L1.
const REJOIN_JITTER: Duration = Duration::from_secs(1);
const RECONNECT_MAX: Duration = Duration::from_secs(2);

impl PurgeBus {
    /// `replica`: this replica's id ([`crate::coordination::replica_identity::ReplicaIdentity`]).
    pub fn new(redis: Redis, replica: String) -> Self {
        Self {
            channel: redis.key(&["purge"]),
            replica,
            redis,
        }
    }

    /// Tells the other replicas; `false` when Redis did not take it (they keep their L1 until
    /// its ttl ends, or until their subscription is renewed).
    /// `version`: what the purge set its versions to in L2, so the others remember it; `id`:
    /// the purge's, which their receipts name.
    pub async fn publish(
        &self,
        id: &str,
        purge: Purge,
        version: Option<u64>,
        mode: PurgeMode,
    ) -> bool {
        let message = Message {
            id: id.to_owned(),
            origin: self.replica.clone(),
            kind: Kind::Purge {
                purge,
                version,
                mode,
            },
        };
        let sent = self.send(&message, "purge_publish").await;
        if sent {
            self.redis.count(RedisEvent::PurgeSent);
        }
        sent
    }

    /// Confirms to the replica `to` that this one applied its purge (best effort: a receipt
    /// lost is a replica named missing, never a purge undone).
    pub async fn publish_receipt(&self, to: &str, receipt: Receipt) -> bool {
        let message = Message {
            id: uuid::Uuid::new_v4().to_string(),
            origin: self.replica.clone(),
            kind: Kind::Receipt {
                to: to.to_owned(),
                receipt,
            },
        };
        self.send(&message, "purge_receipt").await
    }

    /// Asks the other replicas for their L1 view of `keys`; `id` names the query, which their
    /// replies name. `false` when Redis did not take it.
    pub async fn publish_explain_query(&self, id: &str, keys: Vec<ExplainKey>) -> bool {
        let message = Message {
            id: id.to_owned(),
            origin: self.replica.clone(),
            kind: Kind::ExplainQuery { keys },
        };
        self.send(&message, "explain_query").await
    }

    /// Answers the explain query of the replica `to` (best effort: a reply lost is a replica
    /// named missing).
    pub async fn publish_explain_reply(&self, to: &str, reply: ExplainReply) -> bool {
        let message = Message {
            id: uuid::Uuid::new_v4().to_string(),
            origin: self.replica.clone(),
            kind: Kind::ExplainReply {
                to: to.to_owned(),
                reply,
            },
        };
        self.send(&message, "explain_reply").await
    }

    /// Tells the other replicas that the session `session` was signed out. When Redis does not
    /// take it, the message is kept and published again once Redis answers (with the other
    /// writes a shopper would miss, see [`super::pending_writes`]), for at most `keep_for`.
    pub async fn publish_revocation(&self, session: &str, keep_for: Duration) -> bool {
        let message = Message {
            id: uuid::Uuid::new_v4().to_string(),
            origin: self.replica.clone(),
            kind: Kind::Revocation {
                session: session.to_owned(),
            },
        };
        let Some(command) = self.command(&message) else {
            return false;
        };
        let sent = self
            .redis
            .query::<i64>("revocation_publish", &command)
            .await
            .is_ok();
        if !sent {
            self.redis
                .keep_for_replay("revocation_publish", command, keep_for);
        }
        sent
    }

    fn command(&self, message: &Message) -> Option<redis::Cmd> {
        let payload = serde_json::to_string(message).ok()?;
        let mut command = redis::cmd("PUBLISH");
        command.arg(&self.channel).arg(payload);
        Some(command)
    }

    async fn send(&self, message: &Message, operation: &'static str) -> bool {
        let Some(command) = self.command(message) else {
            return false;
        };
        self.redis.query::<i64>(operation, &command).await.is_ok()
    }

    /// Listens until `stop`: every purge from another replica, and every (re)subscription, goes
    /// to `handler`. Reconnects with a growing delay while Redis is away.
    pub fn spawn_subscriber(&self, handler: Handler, stop: CancellationToken) {
        let bus = self.clone();
        tokio::spawn(async move {
            let mut delay = RECONNECT_MIN;
            // Whether purges may have been missed: after a lost channel, or a failed first try.
            let mut missed = false;
            while !stop.is_cancelled() {
                match bus.subscribe().await {
                    Ok(mut pubsub) => {
                        delay = RECONNECT_MIN;
                        if missed {
                            // After a failover every replica rejoins at once: spread their L1
                            // drops, so they do not all read L2 (and the upstreams) together.
                            let jitter = REJOIN_JITTER.mul_f64(fastrand::f64());
                            bus.redis.count(RedisEvent::PurgeResubscribed);
                            tracing::warn!(
                                jitter_ms = jitter.as_millis(),
                                "purge channel joined again; dropping L1, since purges may have been missed"
                            );
                            tokio::time::sleep(jitter).await;
                            handler(BusEvent::Rejoined).await;
                        }
                        missed = true;
                        let mut messages = pubsub.on_message();
                        loop {
                            let message = tokio::select! {
                                () = stop.cancelled() => return,
                                message = messages.next() => message,
                            };
                            let Some(message) = message else { break };
                            if let Some(event) = bus.decode(&message) {
                                if matches!(event, BusEvent::Purge { .. }) {
                                    bus.redis.count(RedisEvent::PurgeReceived);
                                }
                                handler(event).await;
                            }
                        }
                        bus.redis.metrics().count_redis_error("purge_subscribe");
                        tracing::warn!("purge channel lost; reconnecting");
                        handler(BusEvent::Lost).await;
                    }
                    Err(error) => {
                        missed = true;
                        bus.redis.metrics().count_redis_error("purge_subscribe");
                        tracing::debug!(%error, "purge channel unavailable; retrying");
                    }
                }
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(delay) => {}
                }
                delay = (delay * 2).min(RECONNECT_MAX);
            }
        });
    }

    /// Subscribes on the first server that takes it: the URL's, or on a cluster any node (a
    /// classic `PUBLISH` is broadcast to every node, so one subscription hears every purge).
    async fn subscribe(&self) -> Result<redis::aio::PubSub, String> {
        let mut failed = "no server to subscribe on".to_owned();
        for client in self.redis.subscriber_clients().await {
            let connect = async {
                let mut pubsub = client.get_async_pubsub().await?;
                pubsub.subscribe(&self.channel).await?;
                Ok::<_, redis::RedisError>(pubsub)
            };
            match tokio::time::timeout(RECONNECT_MAX, connect).await {
                Ok(Ok(pubsub)) => return Ok(pubsub),
                Ok(Err(err)) => failed = err.to_string(),
                Err(_) => failed = "no answer".to_owned(),
            }
        }
        Err(failed)
    }

    /// The event in `message`, unless this replica sent it, it does not parse or its kind is
    /// unknown here.
    fn decode(&self, message: &redis::Msg) -> Option<BusEvent> {
        let payload: String = message.get_payload().ok()?;
        let message: Message = match serde_json::from_str(&payload) {
            Ok(message) => message,
            // A replica of the build before typed messages, during a rolling deploy.
            Err(_) if let Ok(legacy) = serde_json::from_str::<Legacy>(&payload) => Message {
                id: String::new(),
                origin: legacy.origin,
                kind: Kind::Purge {
                    purge: legacy.purge,
                    version: None,
                    mode: PurgeMode::Hard,
                },
            },
            Err(error) => {
                tracing::warn!(%error, "purge message ignored: not understood");
                return None;
            }
        };
        if message.origin == self.replica {
            return None;
        }
        match message.kind {
            Kind::Purge {
                purge,
                version,
                mode,
            } => Some(BusEvent::Purge {
                purge,
                version,
                mode,
                id: message.id,
                origin: message.origin,
            }),
            // Receipts for other replicas' purges are not this one's business.
            Kind::Receipt { to, receipt } => {
                (to == self.replica).then_some(BusEvent::Receipt(receipt))
            }
            Kind::ExplainQuery { keys } => Some(BusEvent::ExplainQuery {
                id: message.id,
                origin: message.origin,
                keys,
            }),
            Kind::ExplainReply { to, reply } => {
                (to == self.replica).then_some(BusEvent::ExplainReply(reply))
            }
            Kind::Revocation { session } => Some(BusEvent::Revoked { session }),
            Kind::Unknown => {
                tracing::debug!(id = %message.id, "purge channel message of an unknown kind ignored");
                None
            }
        }
    }
}
