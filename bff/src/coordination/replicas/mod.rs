//! What the replicas share, through Redis: the second cache tier and its fill locks, purge
//! fan-out, session refresh leases, checkout idempotency keys and the auth rate limits.
//!
//! Redis is optional and never trusted to be there: every command has a timeout of a few
//! milliseconds, and a command that fails or times out is counted in
//! `bff_redis_errors_total{operation}`, logged, and answered with [`Unavailable`], on which each
//! feature falls back to what a single replica does on its own. Connections are made lazily and
//! remade in the background, so the BFF starts, and keeps answering, with Redis down.

pub mod purge_bus;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{FromRedisValue, IntoConnectionInfo};
use secrecy::{ExposeSecret, SecretString};

use crate::config::{ConfigError, RedisConfig};
use crate::observe::metrics::{Metrics, RedisEvent};

/// A Redis command did not answer in time, or failed: the caller falls back to its in-process
/// behaviour. Already counted and logged.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("redis unavailable ({operation})")]
pub struct Unavailable {
    pub operation: &'static str,
}

/// A handle on Redis, cheap to clone.
#[derive(Clone)]
pub struct Redis {
    inner: Arc<Inner>,
}

struct Inner {
    /// For the purge subscriber's own connection (a subscribed connection carries nothing else).
    client: redis::Client,
    /// Multiplexed connections, each reconnecting on its own; commands go round-robin.
    connections: Vec<ConnectionManager>,
    next: AtomicUsize,
    prefix: String,
    command_timeout: Duration,
    metrics: Arc<Metrics>,
}

impl std::fmt::Debug for Redis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redis")
            .field("prefix", &self.inner.prefix)
            .field("connections", &self.inner.connections.len())
            .finish_non_exhaustive()
    }
}

impl Redis {
    /// The handle for `[redis]`, or `None` when no URL is set. Connects nothing yet.
    pub fn from_config(
        config: &RedisConfig,
        password: Option<&SecretString>,
        metrics: Arc<Metrics>,
    ) -> Result<Option<Self>, ConfigError> {
        if !config.enabled() {
            return Ok(None);
        }
        let refuse = |err: redis::RedisError| ConfigError(format!("redis.url: {err}"));
        let mut info = config.url.trim().into_connection_info().map_err(refuse)?;
        if let Some(password) = password {
            let settings = info
                .redis_settings()
                .clone()
                .set_password(password.expose_secret());
            info = info.set_redis_settings(settings);
        }
        let client = redis::Client::open(info).map_err(refuse)?;
        let command_timeout = config.command_timeout;
        let manager_config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(config.connect_timeout))
            .set_response_timeout(Some(command_timeout))
            // Reconnection happens in the background; a command never waits on more than one
            // attempt, and our own timeout bounds it anyway.
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_secs(2));
        let connections = (0..config.pool_size.max(1))
            .map(|_| {
                ConnectionManager::new_lazy_with_config(client.clone(), manager_config.clone())
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(refuse)?;
        Ok(Some(Self {
            inner: Arc::new(Inner {
                client,
                connections,
                next: AtomicUsize::new(0),
                prefix: config.key_prefix.clone(),
                command_timeout,
                metrics,
            }),
        }))
    }

    /// A key under this storefront's prefix: `prefix` + the parts joined by `:`.
    pub fn key(&self, parts: &[&str]) -> String {
        let mut key = self.inner.prefix.clone();
        for (index, part) in parts.iter().enumerate() {
            if index > 0 {
                key.push(':');
            }
            key.push_str(part);
        }
        key
    }

    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.inner.metrics
    }

    pub fn count(&self, event: RedisEvent) {
        self.inner.metrics.count_redis_event(event);
    }

    pub fn command_timeout(&self) -> Duration {
        self.inner.command_timeout
    }

    fn connection(&self) -> ConnectionManager {
        let index = self.inner.next.fetch_add(1, Ordering::Relaxed) % self.inner.connections.len();
        self.inner.connections[index].clone()
    }

    /// Runs `command`, within the command timeout. `operation` names it in the error metric.
    pub async fn query<T: FromRedisValue>(
        &self,
        operation: &'static str,
        command: &redis::Cmd,
    ) -> Result<T, Unavailable> {
        let mut connection = self.connection();
        self.within_timeout(operation, command.query_async(&mut connection))
            .await
    }

    /// Runs a Lua script (loaded on first use), within the command timeout.
    pub async fn invoke<T: FromRedisValue>(
        &self,
        operation: &'static str,
        invocation: &redis::ScriptInvocation<'_>,
    ) -> Result<T, Unavailable> {
        let mut connection = self.connection();
        self.within_timeout(operation, invocation.invoke_async(&mut connection))
            .await
    }

    /// Runs `pipeline` atomically (`MULTI`/`EXEC`), within the command timeout.
    pub async fn pipeline<T: FromRedisValue>(
        &self,
        operation: &'static str,
        pipeline: &redis::Pipeline,
    ) -> Result<T, Unavailable> {
        let mut connection = self.connection();
        self.within_timeout(operation, pipeline.query_async(&mut connection))
            .await
    }

    async fn within_timeout<T>(
        &self,
        operation: &'static str,
        call: impl std::future::Future<Output = redis::RedisResult<T>>,
    ) -> Result<T, Unavailable> {
        let result = tokio::time::timeout(self.inner.command_timeout, call).await;
        self.settle(operation, result)
    }

    fn settle<T>(
        &self,
        operation: &'static str,
        result: Result<redis::RedisResult<T>, tokio::time::error::Elapsed>,
    ) -> Result<T, Unavailable> {
        let error = match result {
            Ok(Ok(value)) => return Ok(value),
            Ok(Err(err)) => err.to_string(),
            Err(_) => format!(
                "no answer within {} ms",
                self.inner.command_timeout.as_millis()
            ),
        };
        self.inner.metrics.count_redis_error(operation);
        tracing::warn!(operation, %error, "redis unavailable; falling back to this replica alone");
        Err(Unavailable { operation })
    }

    /// Whether Redis answers `PING`, for the readiness probe.
    pub async fn ping(&self) -> bool {
        self.query::<String>("ping", &redis::cmd("PING"))
            .await
            .is_ok()
    }

    /// The client, for connections of their own (the purge subscriber).
    pub fn client(&self) -> &redis::Client {
        &self.inner.client
    }
}

/// Unix time in milliseconds: what replicas agree on (an `Instant` means nothing to another
/// process).
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, crate::config::duration::millis)
}
