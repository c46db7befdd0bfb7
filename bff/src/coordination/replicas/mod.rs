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
mod connection;
pub mod credentials;
pub mod endpoint;
pub mod monitor;
pub mod pending_writes;
pub mod purge_bus;
pub mod purge_log;
mod replay;
pub mod replication;
pub mod reply_desk;
pub mod sentinel;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use redis::FromRedisValue;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

/// The shared clock, read by many as `replicas::unix_ms`.
pub use super::clock::unix_ms;

use self::cause::Cause;
use self::connection::Connection;
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
    connections: RwLock<Vec<Connection>>,
    /// How the connections are made, to make them again.
    manager_config: ConnectionManagerConfig,
    /// `redis.cluster.enabled`: the URL is a Redis Cluster endpoint, and keys carry hash tags.
    cluster: bool,
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
        crate::config::tls::install_crypto_provider();
        let endpoint = Endpoint::new(url_key, url, config)?;
        // The sentinels name the cache tier's primary (one Redis for both, or the cache alone)
        // and, under a name of its own, the coordination tier's.
        let sentinels = Sentinels::from_config(
            &config.sentinel,
            credentials.and_then(|secrets| secrets.sentinel_password.as_ref()),
            config.connect_timeout,
        )
        .and_then(|sentinels| match url_key {
            "redis.url" => Some(sentinels),
            _ => config
                .coordination
                .sentinel_primary()
                .map(|name| sentinels.for_primary(name)),
        });
        let credentials = credentials.and_then(Credentials::from_secrets);
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
        let connections = pool(
            &endpoint,
            credentials.as_ref(),
            &manager_config,
            config.cluster.enabled,
            config.pool_size,
        )
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
                cluster: config.cluster.enabled,
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

    /// A key under this storefront's prefix, as [`Self::key`] makes it, whose part at `tag` is
    /// its hash tag on a cluster (`prefix` + `a:{b}:c`): keys one script or command touches
    /// together are made with the same tagged part, so they share a slot. On a single server
    /// the key is exactly [`Self::key`]'s, so a rolling deploy of this build reads and writes
    /// the keys the previous one did. The parts before `tag` are the BFF's own names (a
    /// caller's text, which may hold braces, comes after it), and the prefix holds no brace
    /// (refused in cluster mode), so the first `{` is always this one.
    pub fn tagged_key(&self, parts: &[&str], tag: usize) -> String {
        if !self.inner.cluster {
            return self.key(parts);
        }
        let mut key = self.inner.prefix.clone();
        for (index, part) in parts.iter().enumerate() {
            if index > 0 {
                key.push(':');
            }
            if index == tag {
                key.push('{');
                key.push_str(part);
                key.push('}');
            } else {
                key.push_str(part);
            }
        }
        key
    }

    /// Whether the URL is a Redis Cluster endpoint.
    pub fn is_cluster(&self) -> bool {
        self.inner.cluster
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

    fn connection(&self) -> Connection {
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
        let endpoint = self.endpoint();
        let renewed = pool(
            &endpoint,
            self.inner.credentials.as_ref(),
            &self.inner.manager_config,
            self.inner.cluster,
            self.inner.pool_size,
        );
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

    /// Runs `command` (its first argument the key it writes), then waits for a replica to
    /// acknowledge it (see [`replication`]).
    pub async fn query_replicated<T: FromRedisValue>(
        &self,
        operation: &'static str,
        command: &redis::Cmd,
    ) -> Result<(T, Replication), Unavailable> {
        let mut connection = self.connection();
        let value = self
            .within_timeout(operation, command.query_async(&mut connection))
            .await?;
        Ok((
            value,
            self.replicated(operation, &mut connection, &written_key(command))
                .await,
        ))
    }

    /// Runs a Lua script, then waits for a replica to acknowledge its writes (see
    /// [`replication`]). `written_key`: one of its keys (on a cluster they share a slot, whose
    /// primary took the writes).
    pub async fn invoke_replicated<T: FromRedisValue>(
        &self,
        operation: &'static str,
        invocation: &redis::ScriptInvocation<'_>,
        written_key: &str,
    ) -> Result<(T, Replication), Unavailable> {
        let mut connection = self.connection();
        let value = self
            .within_timeout(operation, invocation.invoke_async(&mut connection))
            .await?;
        Ok((
            value,
            self.replicated(operation, &mut connection, written_key.as_bytes())
                .await,
        ))
    }

    /// `WAIT 1` on the connection that made the write (WAIT counts that connection's writes;
    /// on a cluster, at the primary of `written_key`'s slot), when the server has replicas (on
    /// a cluster: when every primary has one); bounded by `redis.replica_ack_timeout`.
    async fn replicated(
        &self,
        operation: &'static str,
        connection: &mut Connection,
        written_key: &[u8],
    ) -> Replication {
        if self.inner.replicas.load(Ordering::Relaxed) == 0 {
            return Replication::NoReplicas;
        }
        let timeout = self.inner.replica_ack_timeout;
        let answered = tokio::time::timeout(
            timeout + self.inner.command_timeout,
            connection.wait(
                written_key,
                1,
                crate::config::duration::millis(timeout).max(1),
            ),
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
        let answered =
            tokio::time::timeout(self.inner.command_timeout, connection.replicas()).await;
        if let Ok(Some(count)) = answered {
            self.inner.replicas.store(count, Ordering::Relaxed);
        }
    }

    /// Clients for the purge channel's subscription, to try in turn: the URL's server, then, on
    /// a cluster, every node serving slots (classic `PUBLISH` reaches every node of a cluster,
    /// so any one of them hears every purge; another is taken when one is lost).
    pub async fn subscriber_clients(&self) -> Vec<redis::Client> {
        let endpoint = self.endpoint();
        let mut endpoints = vec![endpoint.clone()];
        if self.inner.cluster {
            let mut connection = self.connection();
            let nodes =
                tokio::time::timeout(self.inner.command_timeout, connection.cluster_nodes())
                    .await
                    .unwrap_or_default();
            endpoints.extend(
                nodes
                    .into_iter()
                    .filter(|node| endpoint.address().as_ref() != Some(node))
                    .map(|(host, port)| endpoint.at(&host, port)),
            );
        }
        endpoints
            .iter()
            .filter_map(|endpoint| endpoint.client(self.inner.credentials.as_ref()).ok())
            .collect()
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
    /// the one in use, moves every connection there. `true` when it moved. The monitor asks
    /// every second; `bff check-config --connect` once, before its probe.
    pub async fn follow_primary(&self) -> bool {
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

/// The key a one-key write (`SET key …`) writes: its first argument.
fn written_key(command: &redis::Cmd) -> Vec<u8> {
    match command.args_iter().nth(1) {
        Some(redis::Arg::Simple(key)) => key.to_vec(),
        _ => Vec::new(),
    }
}

/// `size` lazy connections to `endpoint` (none connects before its first command): connection
/// managers, or on a cluster connections to every node, learnt from `endpoint`.
fn pool(
    endpoint: &Endpoint,
    credentials: Option<&Credentials>,
    config: &ConnectionManagerConfig,
    cluster: bool,
    size: usize,
) -> redis::RedisResult<Vec<Connection>> {
    if cluster {
        let client = endpoint.cluster_client(credentials)?;
        let mut cluster_config = redis::cluster::ClusterConfig::new();
        if let Some(timeout) = config.connection_timeout() {
            cluster_config = cluster_config.set_connection_timeout(timeout);
        }
        if let Some(timeout) = config.response_timeout() {
            cluster_config = cluster_config.set_response_timeout(timeout);
        }
        return Ok((0..size.max(1))
            .map(|_| {
                Connection::Cluster(
                    client.get_pending_async_connection_with_config(cluster_config.clone()),
                )
            })
            .collect());
    }
    let client = endpoint.client(credentials)?;
    (0..size.max(1))
        .map(|_| {
            ConnectionManager::new_lazy_with_config(client.clone(), config.clone())
                .map(Connection::Single)
        })
        .collect()
}
