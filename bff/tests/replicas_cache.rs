//! Three replicas, one sandbox, one real Redis: the shared cache tier, cross-replica
//! coalescing and purge fan-out.

mod common;

use common::redis::RedisServer;
use common::replicas::{Replicas, Setup};
use serde_json::Value;

async fn three(redis: &RedisServer) -> Replicas {
    Replicas::start(
        Setup {
            replicas: 3,
            redis_url: redis.url(),
            access_token_ttl_seconds: 900,
        },
        |_| {},
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_replica_reports_redis_in_its_readiness() {
    let redis = RedisServer::start();
    let replicas = three(&redis).await;
    for replica in &replicas.replicas {
        let report: Value = replica.get("/readyz").await.json().await.unwrap();
        assert_eq!(report["ready"], true, "{report}");
        assert_eq!(report["redis"], true, "{report}");
    }
    replicas.stop().await;
}
