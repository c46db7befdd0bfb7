//! One pooled connection: to a single server (a [`ConnectionManager`], reconnecting on its own)
//! or to a Redis Cluster (a [`ClusterConnection`]: one multiplexed connection per node, routing
//! each command by its keys' slot and following `MOVED`, `ASK` and failovers).
//!
//! Keyless commands take a deliberate route on a cluster, not the client's default: `WAIT` goes
//! to the primary of the slot that took the write (it counts that connection's writes on that
//! node; the client would ask every primary and answer the least), and `INFO replication` to
//! every primary, the least replica count standing for all.

use redis::aio::{ConnectionLike, ConnectionManager};
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{
    MultipleNodeRoutingInfo, Route, RoutingInfo, SingleNodeRoutingInfo, Slot, SlotAddr,
};
use redis::{Cmd, RedisFuture, Value};

#[derive(Clone)]
pub enum Connection {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
}

impl Connection {
    /// `WAIT replicas timeout_ms` where `written_key` was written: on a cluster, that key's
    /// slot's primary (over the connection that wrote to it).
    pub async fn wait(
        &mut self,
        written_key: &[u8],
        replicas: u64,
        timeout_ms: u64,
    ) -> redis::RedisResult<i64> {
        let mut wait = redis::cmd("WAIT");
        wait.arg(replicas).arg(timeout_ms);
        match self {
            Self::Single(connection) => wait.query_async(connection).await,
            Self::Cluster(connection) => {
                let route = Route::with_slot(Slot::for_key(written_key), SlotAddr::Master);
                let answer = connection
                    .route_command(
                        wait,
                        RoutingInfo::SingleNode(SingleNodeRoutingInfo::SpecificNode(route)),
                    )
                    .await?;
                Ok(redis::from_redis_value(answer)?)
            }
        }
    }

    /// The replicas of the server (on a cluster: the fewest any primary has), from
    /// `INFO replication`.
    pub async fn replicas(&mut self) -> Option<usize> {
        let info = redis::cmd("INFO").arg("replication").clone();
        match self {
            Self::Single(connection) => {
                let info: String = info.query_async(connection).await.ok()?;
                connected_replicas(&info)
            }
            Self::Cluster(connection) => {
                let routing = RoutingInfo::MultiNode((MultipleNodeRoutingInfo::AllMasters, None));
                // One answer per primary, keyed by its address.
                let Value::Map(answers) = connection.route_command(info, routing).await.ok()?
                else {
                    return None;
                };
                answers
                    .into_iter()
                    .map(|(_, info)| {
                        redis::from_redis_value::<String>(info)
                            .ok()
                            .and_then(|info| connected_replicas(&info))
                    })
                    .collect::<Option<Vec<usize>>>()?
                    .into_iter()
                    .min()
            }
        }
    }

    /// On a cluster, the address of every node that serves slots (primaries and replicas) as
    /// `CLUSTER SLOTS` names them: where the purge channel may subscribe. Empty otherwise.
    pub async fn cluster_nodes(&mut self) -> Vec<(String, u16)> {
        let Self::Cluster(connection) = self else {
            return Vec::new();
        };
        let slots = redis::cmd("CLUSTER").arg("SLOTS").clone();
        let Ok(Value::Array(ranges)) = slots.query_async::<Value>(connection).await else {
            return Vec::new();
        };
        let mut nodes = Vec::new();
        for range in ranges {
            let Value::Array(fields) = range else {
                continue;
            };
            // start, end, then one [host, port, id, ...] per node.
            for node in fields.into_iter().skip(2) {
                if let Ok((host, port)) = redis::from_redis_value::<(String, u16)>(match node {
                    Value::Array(parts) => Value::Array(parts.into_iter().take(2).collect()),
                    other => other,
                }) && !nodes.contains(&(host.clone(), port))
                {
                    nodes.push((host, port));
                }
            }
        }
        nodes
    }
}

/// `connected_slaves:` of an `INFO replication` answer.
fn connected_replicas(info: &str) -> Option<usize> {
    info.lines()
        .find_map(|line| line.strip_prefix("connected_slaves:"))
        .and_then(|count| count.trim().parse().ok())
}

impl ConnectionLike for Connection {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Self::Single(connection) => connection.req_packed_command(cmd),
            Self::Cluster(connection) => connection.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Self::Single(connection) => connection.req_packed_commands(pipeline, offset, count),
            Self::Cluster(connection) => connection.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Self::Single(connection) => connection.get_db(),
            Self::Cluster(connection) => connection.get_db(),
        }
    }
}
