//! Issue 30, finding 7: the content webhook ignores (and logs) a model it does not know instead
//! of purging all content, coalesces a burst for the same tags, and accepts an HMAC-SHA256
//! signature over timestamp and body (five minutes' window) when a signing secret is set; then
//! (issue 50) the bearer secret alone is refused. Over real sockets, against the real sandbox.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{SystemTime, UNIX_EPOCH};

use bff::content::webhook_signature::{SIGNATURE_HEADER, TIMESTAMP_HEADER, sign};
use common::SandboxHooks;
use common::TestServer;
use serde_json::{Value, json};

const ADMIN_TOKEN: &str = "test-admin-token";
const WEBHOOK_SECRET: &str = "test-webhook-secret";
const SIGNING_SECRET: &str = "test-webhook-signing-secret";
const PRODUCT_ROUTE: &str = "/strapi/products/{title}";

/// A server with the bearer secret, and the signing secret when `signing`.
async fn start(signing: bool) -> TestServer {
    let mut secrets = vec![
        ("BFF_ADMIN_TOKEN", ADMIN_TOKEN),
        ("BFF_WEBHOOK_SECRET", WEBHOOK_SECRET),
    ];
    if signing {
        secrets.push(("BFF_WEBHOOK_SIGNING_SECRET", SIGNING_SECRET));
    }
    common::start_with(common::test_config(), &secrets).await
}

async fn cached_entries(server: &TestServer) -> u64 {
    let stats: Value = server
        .client
        .get(format!("{}/admin/cache", server.admin))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    stats["entries"].as_u64().unwrap()
}

async fn webhook(server: &TestServer, body: &Value, headers: &[(&str, String)]) -> (u16, Value) {
    let mut request = server
        .client
        .post(format!("{}/admin/webhooks/content", server.admin))
        .header("content-type", "application/json")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let answer = request.send().await.unwrap();
    (
        answer.status().as_u16(),
        answer.json().await.unwrap_or(Value::Null),
    )
}

fn bearer() -> Vec<(&'static str, String)> {
    vec![("authorization", format!("Bearer {WEBHOOK_SECRET}"))]
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[tokio::test]
async fn a_webhook_naming_an_unknown_model_purges_nothing() {
    let server = start(false).await;
    for path in [
        "/api/pages/home",
        "/api/products/summit%20lr",
        "/api/collections/rifles",
    ] {
        assert_eq!(server.get(path).await.status(), 200);
    }
    let before = cached_entries(&server).await;
    assert!(before >= 4, "{before}");
    for payload in [
        json!({"event": "entry.publish", "model": "dealer", "entry": {"id": 3, "name": "x"}}),
        json!({"event": "entry.update", "model": "no-such-model", "entry": {}}),
        json!({"event": "entry.update", "entry": {"title": "Summit LR"}}),
    ] {
        let (status, answer) = webhook(&server, &payload, &bearer()).await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["purged"], 0, "{answer}");
        assert!(
            answer["ignored"]
                .as_str()
                .unwrap()
                .starts_with("unknown model"),
            "{answer}"
        );
    }
    assert_eq!(cached_entries(&server).await, before, "nothing purged");
    server.stop().await;
}

#[tokio::test]
async fn a_burst_of_webhooks_for_the_same_tags_is_coalesced() {
    let server = start(false).await;
    assert_eq!(server.get("/api/products/summit%20lr").await.status(), 200);
    let calls = server.upstream_calls(PRODUCT_ROUTE).await;
    let payload =
        json!({"event": "entry.update", "model": "product", "entry": {"title": "Summit LR"}});
    let authorization = bearer();
    let burst: Vec<_> = (0..20)
        .map(|_| webhook(&server, &payload, &authorization))
        .collect();
    let answers = futures::future::join_all(burst).await;
    let purges = answers
        .iter()
        .filter(|(status, answer)| {
            assert_eq!(*status, 200, "{answer}");
            answer.get("coalesced").is_none()
        })
        .count();
    println!("20 webhooks for the same tags: {purges} purge(s)");
    assert!((1..=2).contains(&purges), "{answers:?}");
    // Purged all the same: the next request fetches again.
    assert_eq!(server.get("/api/products/summit%20lr").await.status(), 200);
    assert_eq!(server.upstream_calls(PRODUCT_ROUTE).await, calls + 1);
    server.stop().await;
}

#[tokio::test]
async fn a_signed_webhook_is_accepted_within_five_minutes_and_the_bearer_alone_is_not() {
    let server = start(true).await;
    let payload = json!({"event": "entry.publish", "model": "page", "entry": {"name": "home"}});
    let body = payload.to_string();
    let signed = |timestamp: u64, key: &str| {
        vec![
            (TIMESTAMP_HEADER, timestamp.to_string()),
            (
                SIGNATURE_HEADER,
                sign(key.as_bytes(), timestamp, body.as_bytes()),
            ),
        ]
    };
    let (status, answer) = webhook(&server, &payload, &signed(now(), SIGNING_SECRET)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["tags"], json!(["page:home"]));
    for (case, headers) in [
        ("six minutes old", signed(now() - 360, SIGNING_SECRET)),
        ("another key", signed(now(), "not-the-signing-secret")),
        ("unsigned", Vec::new()),
    ] {
        let (status, _) = webhook(&server, &payload, &headers).await;
        assert_eq!(status, 401, "{case}");
    }
    // Signed for another body.
    let other = json!({"event": "entry.publish", "model": "page", "entry": {"name": "faq"}});
    let (status, _) = webhook(&server, &other, &signed(now(), SIGNING_SECRET)).await;
    assert_eq!(status, 401, "another body");
    let (status, _) = webhook(&server, &payload, &bearer()).await;
    assert_eq!(
        status, 401,
        "the bearer secret alone, once the webhook is signed"
    );
    server.stop().await;
}
