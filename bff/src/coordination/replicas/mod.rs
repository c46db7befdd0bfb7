//! What the replicas share, through Redis: the second cache tier and its fill locks, purge
//! fan-out, session refresh leases, checkout idempotency keys and the auth rate limits.
//!
//! Redis is optional and never trusted to be there: every command has a timeout of a few
//! milliseconds, and a command that fails or times out is counted in
//! `bff_redis_errors_total{operation}`, logged, and answered with [`Unavailable`], on which each
//! feature falls back to what a single replica does on its own. Connections are made lazily and
//! remade in the background, so the BFF starts, and keeps answering, with Redis down; the
//! [`monitor`] says so.

pub mod cause;
pub mod credentials;
pub mod endpoint;
pub mod monitor;
pub mod pending_writes;
pub mod purge_bus;
pub mod replication;
pub mod sentinel;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use redis::FromRedisValue;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use self::cause::Cause;
use self::credentials::Credentials;
use self::endpoint::Endpoint;
use self::replication::Replication;
use self::sentinel::Sentinels;
use crate::config::secrets::RedisCredentials;
use crate::config::{ConfigError, RedisConfig};
use crate::observe::metrics::{Metrics, RedisEvent};

/// The tiers one Redis serves when the configuration names one: the cache (L2 values) and the
/// coordination data (leases, idempotency keys, limits, revocations), as the gauges name them.
pub const BOTH_TIERS: &[&str] = &["cache", "coordination"];
const CACHE_TIER: &[&str] = &["cache"];
const COORDINATION_TIER: &[&str] = &["coordination"];

/// The two roles Redis plays, each a handle (one and the same when one Redis holds both).
#[derive(Debug, Clone)]
pub struct Tiers {
    /// L2 entries and documents, their purge versions and fill locks, and the purge channel:
    /// all of it may be evicted (a purge version's loss is caught by the replicas' memory of
    /// versions) or lost without harm beyond a refetch.
    pub cache: Redis,
    /// Leases, checkout idempotency keys, rate limits, sign-out revocations, the rollout
    /// window: what a shopper would miss, never evicted.
    pub coordination: Redis,
}

impl Tiers {
    /// The tiers of `[redis]`: `redis.url` for the cache, `redis.coordination.url` (else the
    /// same) for coordination. `None` without Redis.
    pub fn from_config(
        config: &RedisConfig,
        credentials: Option<&RedisCredentials>,
        metrics: Arc<Metrics>,
    ) -> Result<Option<Self>, ConfigError> {
        if !config.enabled() {
            return Ok(None);
        }
        if !config.coordination.is_separate() {
            let both = Redis::connect(
                "redis.url",
                config.url.trim(),
                config,
                credentials,
                metrics,
                BOTH_TIERS,
            )?;
            return Ok(Some(Self {
                cache: both.clone(),
                coordination: both,
            }));
        }
        let cache = Redis::connect(
            "redis.url",
            config.url.trim(),
            config,
            credentials,
            metrics.clone(),
            CACHE_TIER,
        )?;
        let coordination = Redis::connect(
            "redis.coordination.url",
            config.coordination.url.trim(),
            config,
            credentials,
            metrics,
            COORDINATION_TIER,
        )?;
        Ok(Some(Self {
            cache,
            coordination,
        }))
    }

    /// Each distinct handle once (one when both tiers share a Redis).
    pub fn distinct(&self) -> Vec<&Redis> {
        if Arc::ptr_eq(&self.cache.inner, &self.coordination.inner) {
            vec![&self.cache]
        } else {
            vec![&self.cache, &self.coordination]
        }
    }
}

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
    /// The server and how it is reached, for connections of their own (the purge subscriber's,
    /// the monitor's probe). Moved to the primary the sentinels name, with them.
    endpoint: RwLock<Endpoint>,
    /// With Sentinel: who to ask for the primary.
    sentinels: Option<Sentinels>,
    /// Woken when a server answers `READONLY`: the monitor asks the sentinels at once.
    primary_moved: tokio::sync::Notify,
    /// With Sentinel: whether the sentinels have named a primary yet. The first answer moves
    /// the connections off the URL's placeholder host, which is start-up, not a failover, and
    /// is not counted in `bff_redis_failovers_total` (else every rollout would look like one).
    primary_known: AtomicBool,
    /// The configuration key of its URL, for causes.
    url_key: &'static str,
    /// The ACL user and password of the moment (`None`: no `AUTH`).
    credentials: Option<Credentials>,
    connect_timeout: Duration,
    /// The tiers this server holds, as `bff_redis_connected{tier}` names them.
    tiers: &'static [&'static str],
    /// `redis.l2_max_bytes`: what L2 values may take here (0: no budget of their own).
    l2_max_bytes: u64,
    /// `redis.replica_ack_timeout`: how long `WAIT` waits for a replica.
    replica_ack_timeout: Duration,
    /// Writes a shopper would miss that Redis did not take (or no replica acknowledged), to
    /// be written again once it answers.
    pending_writes: pending_writes::PendingWrites,
    /// The server's replicas as its `INFO replication` last said (the monitor asks every
    /// second): without any, `WAIT` is not sent.
    replicas: AtomicUsize,
    /// Multiplexed connections, each reconnecting on its own; commands go round-robin. Remade
    /// by the monitor when they fail while a fresh connection works: a manager whose
    /// connection was refused for a reason other than I/O (a password since rotated) keeps
    /// that refusal instead of trying again.
    connections: RwLock<Vec<ConnectionManager>>,
    /// How the connections are made, to make them again.
    manager_config: ConnectionManagerConfig,
    pool_size: usize,
    next: AtomicUsize,
    prefix: String,
    command_timeout: Duration,
    metrics: Arc<Metrics>,
}

impl std::fmt::Debug for Redis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redis")
            .field("prefix", &self.inner.prefix)
            .field("pool_size", &self.inner.pool_size)
            .finish_non_exhaustive()
    }
}

impl Redis {
    /// The handle for `[redis]`'s `url`, holding both tiers, or `None` when no URL is set.
    /// Connects nothing yet; a file the configuration names (the CA, the client certificate
    /// or key) that cannot be read is refused naming its key.
    pub fn from_config(
        config: &RedisConfig,
        credentials: Option<&RedisCredentials>,
        metrics: Arc<Metrics>,
    ) -> Result<Option<Self>, ConfigError> {
        if !config.enabled() {
            return Ok(None);
        }
        Self::connect(
            "redis.url",
            config.url.trim(),
            config,
            credentials,
            metrics,
            BOTH_TIERS,
        )
        .map(Some)
    }

    /// The handle for `url` (the configuration's `url_key`), holding `tiers`.
    fn connect(
        url_key: &'static str,
        url: &str,
        config: &RedisConfig,
        credentials: Option<&RedisCredentials>,
        metrics: Arc<Metrics>,
        tiers: &'static [&'static str],
    ) -> Result<Self, ConfigError> {
        // The client's TLS config takes the process's provider: ring, as for every other
        // connection (a test binary links aws-lc too, and rustls then cannot choose alone).
        crate::upstream::tls::install_crypto_provider();
        let endpoint = Endpoint::new(url_key, url, config)?;
        // Sentinel follows the cache tier's URL (one Redis for both, or the cache alone).
        let sentinels = (url_key == "redis.url")
            .then(|| {
                Sentinels::from_config(
                    &config.sentinel,
                    credentials.and_then(|secrets| secrets.sentinel_password.as_ref()),
                    config.connect_timeout,
                )
            })
            .flatten();
        let credentials = credentials.and_then(Credentials::from_secrets);
        let client = endpoint
            .client(credentials.as_ref())
            .map_err(|err| ConfigError(format!("{url_key}: {err}")))?;
        let command_timeout = config.command_timeout;
        let mut manager_config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(config.connect_timeout))
            .set_response_timeout(Some(command_timeout))
            // Reconnection happens in the background; a command never waits on more than one
            // attempt, and our own timeout bounds it anyway.
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_secs(2));
        if let Some(credentials) = &credentials {
            manager_config = manager_config.set_credentials_provider(credentials.clone());
        }
        let connections = pool(&client, &manager_config, config.pool_size)
            .map_err(|err| ConfigError(format!("{url_key}: {err}")))?;
        Ok(Self {
            inner: Arc::new(Inner {
                endpoint: RwLock::new(endpoint),
                sentinels,
                primary_moved: tokio::sync::Notify::new(),
                primary_known: AtomicBool::new(false),
                url_key,
                credentials,
                connect_timeout: config.connect_timeout,
                tiers,
                l2_max_bytes: config.l2_max_bytes,
                replica_ack_timeout: config.replica_ack_timeout,
                pending_writes: pending_writes::PendingWrites::default(),
                replicas: AtomicUsize::new(0),
                connections: RwLock::new(connections),
                manager_config,
                pool_size: config.pool_size,
                next: AtomicUsize::new(0),
                prefix: config.key_prefix.clone(),
                command_timeout,
                metrics,
            }),
        })
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
        let connections = self
            .inner
            .connections
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let index = self.inner.next.fetch_add(1, Ordering::Relaxed) % connections.len();
        connections[index].clone()
    }

    /// Makes the pooled connections again, with the credentials of the moment.
    fn renew_pool(&self) {
        let renewed = self
            .client()
            .and_then(|client| pool(&client, &self.inner.manager_config, self.inner.pool_size));
        match renewed {
            Ok(connections) => {
                *self
                    .inner
                    .connections
                    .write()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = connections;
            }
            Err(error) => tracing::warn!(%error, "redis: cannot remake the pooled connections"),
        }
    }

    /// Whether a pooled connection answers `PING` within the command timeout; unlike
    /// [`Self::ping`], neither counted nor logged (the monitor reports what it finds).
    async fn pool_answers(&self) -> bool {
        let mut connection = self.connection();
        let ping = redis::cmd("PING");
        matches!(
            tokio::time::timeout(
                self.inner.command_timeout,
                ping.query_async::<String>(&mut connection)
            )
            .await,
            Ok(Ok(_))
        )
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

    /// Runs `command`, then waits for a replica to acknowledge it (see [`replication`]).
    pub async fn query_replicated<T: FromRedisValue>(
        &self,
        operation: &'static str,
        command: &redis::Cmd,
    ) -> Result<(T, Replication), Unavailable> {
        let mut connection = self.connection();
        let value = self
            .within_timeout(operation, command.query_async(&mut connection))
            .await?;
        Ok((value, self.replicated(operation, &mut connection).await))
    }

    /// Runs a Lua script, then waits for a replica to acknowledge its writes (see
    /// [`replication`]).
    pub async fn invoke_replicated<T: FromRedisValue>(
        &self,
        operation: &'static str,
        invocation: &redis::ScriptInvocation<'_>,
    ) -> Result<(T, Replication), Unavailable> {
        let mut connection = self.connection();
        let value = self
            .within_timeout(operation, invocation.invoke_async(&mut connection))
            .await?;
        Ok((value, self.replicated(operation, &mut connection).await))
    }

    /// `WAIT 1` on the connection that made the write (WAIT counts that connection's writes),
    /// when the server has replicas; bounded by `redis.replica_ack_timeout`.
    async fn replicated(
        &self,
        operation: &'static str,
        connection: &mut impl redis::aio::ConnectionLike,
    ) -> Replication {
        if self.inner.replicas.load(Ordering::Relaxed) == 0 {
            return Replication::NoReplicas;
        }
        let timeout = self.inner.replica_ack_timeout;
        let wait = redis::cmd("WAIT")
            .arg(1)
            .arg(crate::config::duration::millis(timeout).max(1))
            .clone();
        let answered = tokio::time::timeout(
            timeout + self.inner.command_timeout,
            wait.query_async::<i64>(connection),
        )
        .await;
        if let Ok(Ok(acknowledged)) = answered
            && acknowledged >= 1
        {
            return Replication::Acknowledged;
        }
        self.inner.metrics.count_unacknowledged_write(operation);
        tracing::warn!(
            operation,
            "no replica acknowledged the write in time; a failover now would lose it"
        );
        Replication::Unacknowledged
    }

    /// Asks the server how many replicas it has, for [`Self::replicated`]; neither counted
    /// nor logged when it fails (the monitor asks again).
    async fn learn_replicas(&self) {
        let mut connection = self.connection();
        let info = redis::cmd("INFO").arg("replication").clone();
        let answered = tokio::time::timeout(
            self.inner.command_timeout,
            info.query_async::<String>(&mut connection),
        )
        .await;
        if let Ok(Ok(info)) = answered
            && let Some(count) = info
                .lines()
                .find_map(|line| line.strip_prefix("connected_slaves:"))
                .and_then(|count| count.trim().parse().ok())
        {
            self.inner.replicas.store(count, Ordering::Relaxed);
        }
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
        let started = std::time::Instant::now();
        let result = tokio::time::timeout(self.inner.command_timeout, call).await;
        self.inner
            .metrics
            .observe_redis_command(operation, started.elapsed());
        self.settle(operation, result)
    }

    fn settle<T>(
        &self,
        operation: &'static str,
        result: Result<redis::RedisResult<T>, tokio::time::error::Elapsed>,
    ) -> Result<T, Unavailable> {
        let error = match result {
            Ok(Ok(value)) => return Ok(value),
            Ok(Err(err)) => {
                // An old primary back as a replica: not to be retried, but found again.
                if err.to_string().contains("READONLY") {
                    self.inner.primary_moved.notify_one();
                }
                err.to_string()
            }
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

    /// A client signing in with the credentials of the moment, for connections of their own
    /// (the purge subscriber).
    pub fn client(&self) -> redis::RedisResult<redis::Client> {
        self.endpoint().client(self.inner.credentials.as_ref())
    }

    fn endpoint(&self) -> Endpoint {
        self.inner
            .endpoint
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// With Sentinel: asks the sentinels for the primary and, when it is another server than
    /// the one in use, moves every connection there. `true` when it moved.
    async fn follow_primary(&self) -> bool {
        let Some(sentinels) = &self.inner.sentinels else {
            return false;
        };
        let Some((host, port)) = sentinels.primary().await else {
            return false;
        };
        let known_before = self.inner.primary_known.swap(true, Ordering::Relaxed);
        let current = self.endpoint();
        if current.address() == Some((host.clone(), port)) {
            return false;
        }
        *self
            .inner
            .endpoint
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = current.at(&host, port);
        self.renew_pool();
        if !known_before {
            tracing::info!(%host, port, "redis: the sentinels name the primary; connected to it");
            return true;
        }
        for tier in self.inner.tiers {
            self.inner.metrics.count_redis_failover(tier);
        }
        tracing::warn!(%host, port, "redis: the sentinels name a new primary; connections moved to it");
        true
    }

    /// Waits until `delay` passes or a server answers `READONLY`.
    async fn until_primary_moves(&self, delay: Duration) {
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = self.inner.primary_moved.notified() => {}
        }
    }

    /// The tiers this server holds.
    pub fn tiers(&self) -> &'static [&'static str] {
        self.inner.tiers
    }

    /// The bytes L2 values may take on this server (0: no budget of their own).
    pub fn l2_max_bytes(&self) -> u64 {
        self.inner.l2_max_bytes
    }

    /// Connects afresh and sends `PING`, within `redis.connect_timeout` each: what the
    /// monitor and `bff check-config --connect` ask, with the cause when it fails.
    pub async fn probe(&self) -> Result<(), Cause> {
        let tls = self.endpoint().uses_tls();
        let timeout = self.inner.connect_timeout;
        let attempt = async {
            let client = self.client()?;
            let config = redis::AsyncConnectionConfig::new()
                .set_connection_timeout(Some(timeout))
                .set_response_timeout(Some(timeout));
            let mut connection = client
                .get_multiplexed_async_connection_with_config(&config)
                .await?;
            redis::cmd("PING")
                .query_async::<String>(&mut connection)
                .await
        };
        match tokio::time::timeout(timeout * 2, attempt).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(error)) => Err(Cause::of(&error, self.inner.url_key, tls)),
            Err(_) => Err(Cause::timed_out(self.inner.url_key)),
        }
    }
}

/// `size` lazy connection managers for `client` (none connects before its first command).
fn pool(
    client: &redis::Client,
    config: &ConnectionManagerConfig,
    size: usize,
) -> redis::RedisResult<Vec<ConnectionManager>> {
    (0..size.max(1))
        .map(|_| ConnectionManager::new_lazy_with_config(client.clone(), config.clone()))
        .collect()
}

/// Unix time in milliseconds: what replicas agree on (an `Instant` means nothing to another
/// process).
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, crate::config::duration::millis)
}
