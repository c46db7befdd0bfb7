//! Issue 50, finding 2: sign-out's revocation failed open across replicas whenever Redis was
//! slow, full or down. The sign-out was then recorded on its own replica only, and a copied
//! cookie kept working on every other one (counted, but nothing alerted on it).
//!
//! Now a sign-out is also announced on the purge channel into every replica's memory, so a
//! replica that cannot reach Redis later still finds it; and a replica that cannot ask Redis
//! about a session it knows nothing of checks it with the upstream (a refresh, once per
//! `session.revocation_check_interval`), where the sign-out revoked its tokens. Three replicas,
//! one sandbox, one real Redis, frozen with SIGSTOP (it holds its connections and answers
//! nothing, as a stalled or overloaded server does).

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::SandboxHooks;
use common::browser::Browser;
use common::redis::RedisServer;
use common::replicas::{Replicas, Setup};
use common::shared_tier::{replay, session_event};

/// A command timeout short enough to keep the frozen-Redis requests quick, long enough for a
/// busy machine's answers while Redis runs.
const COMMAND_TIMEOUT: Duration = Duration::from_millis(750);

async fn three_replicas(redis: &RedisServer) -> Replicas {
    Replicas::start(Setup::on(redis.url(), 3), |config| {
        config.redis.command_timeout = COMMAND_TIMEOUT
    })
    .await
}

/// Signs in on `replicas[0]` and shows the session signed in on every replica: the cookie.
async fn signed_in_everywhere(replicas: &Replicas, browser: &mut Browser<'_>) -> String {
    browser.login().await;
    let copy = browser.cookie.clone().unwrap();
    for (index, replica) in replicas.replicas.iter().enumerate() {
        let (status, body, _) = replay(replica, "/api/session", &copy).await;
        assert_eq!(status, 200, "replica {index}: {body}");
        assert_eq!(body["signedIn"], true, "replica {index}: {body}");
    }
    copy
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn signed_out_then_redis_frozen_the_copy_is_refused_on_all_three_replicas() {
    let redis = RedisServer::start();
    let replicas = three_replicas(&redis).await;
    let servers = &replicas.replicas;
    let mut browser = Browser::new(&servers[0]);
    let copy = signed_in_everywhere(&replicas, &mut browser).await;

    let answer = browser
        .post("/api/auth/logout", serde_json::json!({}))
        .await;
    assert_eq!(answer.status, 204, "{}", answer.text);
    // The announcement is in flight on the channel for well under a millisecond here; the
    // margin is for a busy machine.
    tokio::time::sleep(Duration::from_millis(500)).await;
    redis.freeze(true);
    for (index, replica) in servers.iter().enumerate() {
        let (status, body, removed) = replay(replica, "/api/session", &copy).await;
        assert_eq!(status, 401, "replica {index}: {body}");
        assert_eq!(body["code"], "session_expired", "replica {index}: {body}");
        assert!(removed, "replica {index}: the cookie is removed");
    }
    // The other replicas knew it from the channel: none needed Redis, nor the upstream.
    for (index, replica) in servers.iter().enumerate().skip(1) {
        let scrape = replica.metrics().await;
        assert_eq!(session_event(&scrape, "revoked"), 1.0, "replica {index}");
        assert_eq!(
            session_event(&scrape, "revocation_checked_upstream"),
            0.0,
            "replica {index}: found in memory"
        );
    }
    redis.freeze(false);
    replicas.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn redis_frozen_before_sign_out_the_copy_is_refused_on_the_other_replicas() {
    let redis = RedisServer::start();
    let replicas = three_replicas(&redis).await;
    let servers = &replicas.replicas;
    let mut browser = Browser::new(&servers[0]);
    let copy = signed_in_everywhere(&replicas, &mut browser).await;

    redis.freeze(true);
    let answer = browser
        .post("/api/auth/logout", serde_json::json!({}))
        .await;
    assert_eq!(answer.status, 204, "{}", answer.text);
    assert_eq!(
        session_event(&servers[0].metrics().await, "revocation_local_only"),
        1.0
    );
    for (index, replica) in servers.iter().enumerate().skip(1) {
        // The copy's next request that uses the session: Redis cannot be asked, so the
        // upstream is, and it refuses the signed-out session's refresh token.
        let (status, body, removed) = replay(replica, "/api/session", &copy).await;
        assert_eq!(status, 401, "replica {index}: {body}");
        assert_eq!(body["code"], "session_expired", "replica {index}: {body}");
        assert!(removed, "replica {index}: the cookie is removed");
        let scrape = replica.metrics().await;
        assert!(session_event(&scrape, "revocation_unchecked") >= 1.0);
        assert_eq!(
            session_event(&scrape, "revocation_checked_upstream"),
            1.0,
            "replica {index}"
        );
        // Remembered: the next request is refused without asking the upstream again.
        let (status, _, _) = replay(replica, "/api/cart", &copy).await;
        assert_eq!(status, 401, "replica {index}");
        assert_eq!(
            session_event(&replica.metrics().await, "revocation_checked_upstream"),
            1.0,
            "replica {index}: asked once"
        );
    }
    redis.freeze(false);
    replicas.stop().await;
}
