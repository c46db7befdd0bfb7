//! Issue 50, finding 1: with a signing secret configured, the content webhook's bearer secret
//! still worked alone (a bearer match returned before the signature was looked at), a call with
//! a bad signature and a 56-year-old timestamp was accepted beside it, and no signature was
//! remembered, so a call seen in flight could be replayed for five minutes.
//!
//! Now a signing secret makes the signature required; each signature is accepted once, on any
//! replica (Redis `SET NX`); and one cap holds the webhook's purges, whatever tags they name.
//! Two replicas, one sandbox, one real Redis.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{SystemTime, UNIX_EPOCH};

use bff::content::webhook_signature::{SIGNATURE_HEADER, TIMESTAMP_HEADER, sign};
use common::TestServer;
use common::redis::RedisServer;
use common::replicas::{Replicas, SHARED_SECRETS, Setup};
use serde_json::{Value, json};

const SIGNING_SECRET: &str = "replica-test-webhook-signing-secret-0123";

async fn two_signing_replicas(redis: &RedisServer, purges_per_minute: u32) -> Replicas {
    Replicas::start_with_secrets(
        Setup::on(redis.url(), 2),
        &[("BFF_WEBHOOK_SIGNING_SECRET", SIGNING_SECRET.to_owned())],
        |config| config.content.webhook.purges_per_minute = purges_per_minute,
    )
    .await
}

/// The webhook on `replica`, with `headers`: its status, content type and body.
async fn webhook(
    replica: &TestServer,
    body: &str,
    headers: &[(&str, String)],
) -> (u16, String, Value) {
    let mut request = replica
        .client
        .post(format!("{}/admin/webhooks/content", replica.admin))
        .header("content-type", "application/json")
        .body(body.to_owned());
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let answer = request.send().await.unwrap();
    let status = answer.status().as_u16();
    let content_type = answer
        .headers()
        .get("content-type")
        .map(|value| value.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (
        status,
        content_type,
        answer.json().await.unwrap_or(Value::Null),
    )
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn signed(body: &str, timestamp: u64) -> Vec<(&'static str, String)> {
    vec![
        (TIMESTAMP_HEADER, timestamp.to_string()),
        (
            SIGNATURE_HEADER,
            sign(SIGNING_SECRET.as_bytes(), timestamp, body.as_bytes()),
        ),
    ]
}

fn bearer() -> (&'static str, String) {
    let secret = SHARED_SECRETS
        .iter()
        .find(|(name, _)| *name == "BFF_WEBHOOK_SECRET")
        .map(|(_, secret)| *secret)
        .unwrap();
    ("authorization", format!("Bearer {secret}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_a_signing_secret_a_bearer_alone_is_refused_and_a_replay_on_another_replica_too() {
    let redis = RedisServer::start();
    let replicas = two_signing_replicas(&redis, 60).await;
    let (first, second) = (&replicas.replicas[0], &replicas.replicas[1]);
    let body =
        json!({"event": "entry.publish", "model": "page", "entry": {"name": "home"}}).to_string();

    let (status, content_type, problem) = webhook(first, &body, &[bearer()]).await;
    assert_eq!(status, 401, "bearer only: {problem}");
    assert_eq!(content_type, "application/problem+json");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("X-Webhook-Signature"),
        "names the header: {problem}"
    );
    // The reproduction's forgery: the bearer, a wrong signature and a 1970 timestamp.
    let forged = [
        bearer(),
        (TIMESTAMP_HEADER, "0".to_owned()),
        (SIGNATURE_HEADER, "sha256=00".to_owned()),
    ];
    let (status, _, problem) = webhook(first, &body, &forged).await;
    assert_eq!(status, 401, "forged: {problem}");
    let (status, _, problem) = webhook(first, &body, &signed(&body, now() + 400)).await;
    assert_eq!(status, 401, "from the future: {problem}");

    let call = signed(&body, now());
    let (status, _, answer) = webhook(first, &body, &call).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["tags"], json!(["page:home"]));
    for (name, replica) in [("the other replica", second), ("the same replica", first)] {
        let (status, content_type, problem) = webhook(replica, &body, &call).await;
        assert_eq!(status, 401, "replayed on {name}: {problem}");
        assert_eq!(content_type, "application/problem+json");
    }
    let seen = redis.cli(&[
        "--scan",
        "--pattern",
        &format!("{}webhook:seen:*", replicas.key_prefix),
    ]);
    assert_eq!(seen.lines().count(), 1, "one signature remembered: {seen}");
    // A new call (a new timestamp, so a new signature) is accepted.
    let (status, _, answer) = webhook(second, &body, &signed(&body, now() + 1)).await;
    assert_eq!(status, 200, "{answer}");
    replicas.stop().await;
}

/// The coalescer holds each tag set to a purge a second; naming a new set each call got
/// around it. `content.webhook.purges_per_minute` caps them all together.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_webhook_purge_cap_holds_across_tag_sets() {
    let redis = RedisServer::start();
    let replicas = two_signing_replicas(&redis, 2).await;
    let replica = &replicas.replicas[0];
    let mut statuses = Vec::new();
    for (index, title) in ["Summit LR", "Ridgeline", "Talon 9"].iter().enumerate() {
        let body = json!({"event": "entry.update", "model": "product", "entry": {"title": title}})
            .to_string();
        let (status, _, answer) =
            webhook(replica, &body, &signed(&body, now() + index as u64)).await;
        statuses.push((status, answer));
    }
    assert_eq!(statuses[0].0, 200, "{:?}", statuses[0].1);
    assert_eq!(statuses[1].0, 200, "{:?}", statuses[1].1);
    assert_eq!(statuses[2].0, 429, "{:?}", statuses[2].1);
    assert_eq!(statuses[2].1["code"], "rate_limited", "{:?}", statuses[2].1);
    replicas.stop().await;
}
