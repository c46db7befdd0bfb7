//! Issue 45: the audit log in the coordination tier, shared by the replicas: each one's
//! changes, newest first, at most `admin.audit_entries` of them (oldest dropped first); with
//! Redis gone, a change still succeeds and is kept in the replica, which says so.

#![allow(clippy::unwrap_used)]

use crate::admin_tokens::{PURGER, admin_call, tokens_file};
use crate::common;

use common::redis::RedisServer;
use common::replicas::{Replicas, Setup};
use serde_json::json;

#[tokio::test]
async fn replicas_share_a_bounded_audit_log_in_redis() {
    let mut redis = RedisServer::start();
    let file = tokens_file();
    let path = file.path().display().to_string();
    let fleet = Replicas::start_with_secrets(
        Setup::on(redis.url(), 2),
        // beside the shared BFF_ADMIN_TOKEN (the token `admin`)
        &[("BFF_ADMIN_TOKENS_FILE", path)],
        |config| config.admin.audit_entries = 3,
    )
    .await;
    let (a, b) = (&fleet.replicas[0], &fleet.replicas[1]);
    let post = reqwest::Method::POST;
    let shared_admin = common::replicas::SHARED_SECRETS[1].1;

    // five purges, alternating replicas and callers: the log keeps the last three
    let calls = [
        (a, PURGER, "page:one"),
        (b, shared_admin, "page:two"),
        (a, PURGER, "page:three"),
        (b, PURGER, "page:four"),
        (a, shared_admin, "page:five"),
    ];
    for (replica, token, tag) in calls {
        let (status, answer) = admin_call(
            replica,
            post.clone(),
            "/admin/cache/purge",
            Some(token),
            Some(&json!({"tags": [tag]})),
        )
        .await;
        assert_eq!(status, 200, "{tag}: {answer}");
    }
    let (status, audit) =
        admin_call(b, reqwest::Method::GET, "/admin/audit", Some(PURGER), None).await;
    assert_eq!(status, 200, "{audit}");
    assert_eq!(audit["source"], "redis", "{audit}");
    assert_eq!(audit["bound"], 3, "{audit}");
    let kept: Vec<(String, String)> = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["actor"].as_str().unwrap().to_owned(),
                entry["arguments"]["body"]["tags"][0]
                    .as_str()
                    .unwrap()
                    .to_owned(),
            )
        })
        .collect();
    assert_eq!(
        kept,
        [
            ("admin".to_owned(), "page:five".to_owned()),
            ("purger".to_owned(), "page:four".to_owned()),
            ("purger".to_owned(), "page:three".to_owned()),
        ],
        "{audit}"
    );
    let entries = audit["entries"].as_array().unwrap();
    assert_ne!(entries[0]["replica"], entries[1]["replica"], "{audit}");
    let key = format!("{}admin:audit", fleet.key_prefix);
    assert_eq!(redis.cli(&["LLEN", &key]), "3");

    // Redis gone: the purge is applied here and kept for Redis (202, `fanOut: pending`), and
    // the log says it is this replica's own
    redis.stop();
    let (status, answer) = admin_call(
        a,
        post.clone(),
        "/admin/cache/purge",
        Some(PURGER),
        Some(&json!({"tags": ["page:six"]})),
    )
    .await;
    assert_eq!(status, 202, "{answer}");
    assert_eq!(answer["fanOut"], "pending", "{answer}");
    let (status, audit) =
        admin_call(a, reqwest::Method::GET, "/admin/audit", Some(PURGER), None).await;
    assert_eq!(status, 200, "{audit}");
    assert_eq!(audit["source"], "local", "{audit}");
    assert!(audit["note"].as_str().unwrap().contains("Redis"), "{audit}");
    assert!(audit["unshared"].as_u64().unwrap() >= 1, "{audit}");
    assert_eq!(
        audit["entries"][0]["arguments"]["body"]["tags"][0], "page:six",
        "{audit}"
    );
    fleet.stop().await;
}
