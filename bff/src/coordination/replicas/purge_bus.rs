//! Purge fan-out: a purge on one replica is published on a Redis channel, and every other replica
//! drops the same entries from its L1. A replica that lost the channel may have missed purges,
//! so when it joins the channel again it drops its whole L1 (what L2 holds is purged in Redis itself,
//! by the replica that took the purge).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::Redis;
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

/// What the subscriber hands the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusEvent {
    /// Another replica purged.
    Purge(Purge),
    /// The channel was joined after a time without it (lost, or not reachable at start):
    /// purges published meanwhile were missed.
    Rejoined,
}

#[derive(Debug, Serialize, Deserialize)]
struct Message {
    /// The publishing replica, which has already applied the purge.
    origin: String,
    purge: Purge,
}

pub type Handler = Arc<dyn Fn(BusEvent) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// Publishes and receives purges for one replica.
#[derive(Debug, Clone)]
pub struct PurgeBus {
    redis: Redis,
    channel: String,
    /// This replica's id, random per process.
    replica: String,
}

const RECONNECT_MIN: Duration = Duration::from_millis(100);
const RECONNECT_MAX: Duration = Duration::from_secs(2);

impl PurgeBus {
    pub fn new(redis: Redis) -> Self {
        Self {
            channel: redis.key(&["purge"]),
            replica: uuid::Uuid::new_v4().to_string(),
            redis,
        }
    }

    /// Tells the other replicas; `false` when Redis did not take it (they keep their L1 until
    /// its ttl ends, or until their subscription is renewed).
    pub async fn publish(&self, purge: Purge) -> bool {
        let message = Message {
            origin: self.replica.clone(),
            purge,
        };
        let Ok(payload) = serde_json::to_string(&message) else {
            return false;
        };
        let sent = self
            .redis
            .query::<i64>(
                "purge_publish",
                redis::cmd("PUBLISH").arg(&self.channel).arg(payload),
            )
            .await
            .is_ok();
        if sent {
            self.redis.count(RedisEvent::PurgeSent);
        }
        sent
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
                            bus.redis.count(RedisEvent::PurgeResubscribed);
                            tracing::warn!(
                                "purge channel joined again; dropping L1, since purges may have been missed"
                            );
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
                            if let Some(purge) = bus.decode(&message) {
                                bus.redis.count(RedisEvent::PurgeReceived);
                                handler(BusEvent::Purge(purge)).await;
                            }
                        }
                        bus.redis.metrics().count_redis_error("purge_subscribe");
                        tracing::warn!("purge channel lost; reconnecting");
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

    async fn subscribe(&self) -> Result<redis::aio::PubSub, String> {
        let connect = async {
            let mut pubsub = self.redis.client()?.get_async_pubsub().await?;
            pubsub.subscribe(&self.channel).await?;
            Ok::<_, redis::RedisError>(pubsub)
        };
        match tokio::time::timeout(RECONNECT_MAX, connect).await {
            Ok(Ok(pubsub)) => Ok(pubsub),
            Ok(Err(err)) => Err(err.to_string()),
            Err(_) => Err("no answer".to_owned()),
        }
    }

    /// The purge in `message`, unless this replica sent it or it does not parse.
    fn decode(&self, message: &redis::Msg) -> Option<Purge> {
        let payload: String = message.get_payload().ok()?;
        let message: Message = match serde_json::from_str(&payload) {
            Ok(message) => message,
            Err(error) => {
                tracing::warn!(%error, "purge message ignored: not understood");
                return None;
            }
        };
        (message.origin != self.replica).then_some(message.purge)
    }
}
