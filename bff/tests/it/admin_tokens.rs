//! Issue 45: named, scoped admin tokens and the audit log on one replica. A `read` token reads
//! and cannot purge (403 naming the scope), an unknown token is a 401, and the audit log names
//! the token of each change (the content webhook's as `content-webhook`), never a search term.

#![allow(clippy::unwrap_used)]

use crate::common;

use serde_json::{Value, json};

pub const READER: &str = "reader-token-0123456789abcdef0123456789";
pub const PURGER: &str = "purger-token-0123456789abcdef0123456789";
pub const SINGLE: &str = "single-admin-token-0123456789abcdef0123";
const WEBHOOK_SECRET: &str = "admin-tokens-test-webhook-secret";

/// A tokens file with `reader` (read, given as its digest) and `purger` (read, purge).
pub fn tokens_file() -> tempfile::NamedTempFile {
    use sha2::Digest;
    let digest = hex::encode(sha2::Sha256::digest(READER.as_bytes()));
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        file.path(),
        format!(
            "[[tokens]]\nname = \"reader\"\nscopes = [\"read\"]\ntoken = \"sha256:{digest}\"\n\n\
             [[tokens]]\nname = \"purger\"\nscopes = [\"read\", \"purge\"]\ntoken = \"{PURGER}\"\n"
        ),
    )
    .unwrap();
    file
}

pub async fn admin_call(
    server: &common::TestServer,
    method: reqwest::Method,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> (u16, Value) {
    let mut request = server
        .client
        .request(method, format!("{}{path}", server.admin));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn admin_tokens_scopes_refuse_and_the_audit_log_names_each_caller() {
    let file = tokens_file();
    let path = file.path().display().to_string();
    let server = common::start_with(
        common::test_config(),
        &[
            ("BFF_ADMIN_TOKENS_FILE", &path),
            ("BFF_ADMIN_TOKEN", SINGLE),
            ("BFF_WEBHOOK_SECRET", WEBHOOK_SECRET),
        ],
    )
    .await;
    let get = reqwest::Method::GET;
    let post = reqwest::Method::POST;
    let purge = json!({"tags": ["page:home"]});

    // read: reads, and is refused a purge naming the scope it lacks
    let (status, stats) =
        admin_call(&server, get.clone(), "/admin/cache", Some(READER), None).await;
    assert_eq!(status, 200, "{stats}");
    let (status, refused) = admin_call(
        &server,
        post.clone(),
        "/admin/cache/purge",
        Some(READER),
        Some(&purge),
    )
    .await;
    assert_eq!(status, 403, "{refused}");
    assert_eq!(refused["code"], "insufficient_scope", "{refused}");
    assert_eq!(refused["requiredScope"], "purge", "{refused}");
    assert!(
        refused["detail"].as_str().unwrap().contains("purge"),
        "{refused}"
    );

    // no token, an unknown one, or the digest itself: 401 (and no one's action)
    for token in [None, Some("not-a-token"), Some("sha256:whatever")] {
        let (status, answer) = admin_call(&server, get.clone(), "/admin/cache", token, None).await;
        assert_eq!(status, 401, "{token:?}: {answer}");
        let (status, _) = admin_call(
            &server,
            post.clone(),
            "/admin/cache/purge",
            token,
            Some(&purge),
        )
        .await;
        assert_eq!(status, 401, "{token:?}");
    }

    // purge and the single token's reload are allowed
    let search_key = json!({"keys": ["search:Red Boots"]});
    let (status, purged) = admin_call(
        &server,
        post.clone(),
        "/admin/cache/purge?url=%2Fsearch%2Fred%2520boots",
        Some(PURGER),
        Some(&search_key),
    )
    .await;
    assert_eq!(status, 200, "{purged}");
    let (status, reloaded) = admin_call(
        &server,
        post.clone(),
        "/admin/config/reload",
        Some(SINGLE),
        None,
    )
    .await;
    // no configuration file in this test: a 422, still an action of `admin`
    assert_eq!(status, 422, "{reloaded}");
    let (status, answer) = server
        .client
        .post(format!("{}/admin/webhooks/content", server.admin))
        .bearer_auth(WEBHOOK_SECRET)
        .json(&json!({"event": "entry.publish", "model": "page", "entry": {"name": "home"}}))
        .send()
        .await
        .map(|response| (response.status().as_u16(), response))
        .unwrap();
    assert_eq!(status, 200, "{:?}", answer.text().await);
    let (status, _) = server
        .client
        .post(format!("{}/admin/webhooks/content", server.admin))
        .bearer_auth("not-the-webhook-secret")
        .json(&json!({"event": "entry.publish", "model": "page", "entry": {"name": "home"}}))
        .send()
        .await
        .map(|response| (response.status().as_u16(), response))
        .unwrap();
    assert_eq!(status, 401);

    // the audit log, newest first: every change by its caller; reads and refused tokens not
    let (status, audit) = admin_call(
        &server,
        get.clone(),
        "/admin/audit?limit=50",
        Some(READER),
        None,
    )
    .await;
    assert_eq!(status, 200, "{audit}");
    let entries = audit["entries"].as_array().unwrap();
    let seen: Vec<(&str, &str, u64)> = entries
        .iter()
        .map(|entry| {
            (
                entry["actor"].as_str().unwrap(),
                entry["route"].as_str().unwrap(),
                entry["status"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("content-webhook", "/admin/webhooks/content", 200),
            ("admin", "/admin/config/reload", 422),
            ("purger", "/admin/cache/purge", 200),
            ("reader", "/admin/cache/purge", 403),
        ],
        "{audit}"
    );
    assert_eq!(
        entries[3]["result"]["code"], "insufficient_scope",
        "{audit}"
    );
    assert_eq!(
        entries[0]["result"]["tags"],
        Value::Null,
        "scalars only: {audit}"
    );
    assert_eq!(entries[0]["arguments"]["body"]["model"], "page", "{audit}");
    assert_eq!(entries[3]["arguments"]["body"], purge, "{audit}");
    // the search term is a hash, in the body's key and the query's URL alike
    let hash = bff::observe::shopper_text::term_hash("red boots");
    let arguments = &entries[2]["arguments"];
    assert_eq!(
        arguments["body"]["keys"],
        json!([format!("search:{hash}")]),
        "{audit}"
    );
    assert_eq!(
        arguments["query"]["url"],
        format!("/search/{hash}"),
        "{audit}"
    );
    let text = audit.to_string().to_lowercase();
    assert!(
        !text.contains("red boots") && !text.contains("red%20boots"),
        "{audit}"
    );
    // no token in the record
    for token in [READER, PURGER, SINGLE, WEBHOOK_SECRET] {
        assert!(!audit.to_string().contains(token));
    }
    assert!(
        (audit["source"] == "local" && audit["note"].is_string()) || audit["source"] == "redis",
        "{audit}"
    );
    assert_eq!(audit["bound"], 1000, "{audit}");
    server.stop().await;
}

/// The tokens file is read again on reload: a new token works at once, a removed one is a 401,
/// and a bad file changes nothing (422, the tokens in force stay).
#[tokio::test]
async fn admin_tokens_file_is_read_again_on_reload() {
    let file = tokens_file();
    let path = file.path().display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let config_path = dir.path().join("bff.toml");
    std::fs::write(&config_path, "").unwrap();
    let server = common::start_with_path(
        common::test_config(),
        &[
            ("BFF_ADMIN_TOKENS_FILE", &path),
            ("BFF_ADMIN_TOKEN", SINGLE),
        ],
        config_path,
    )
    .await;
    let get = reqwest::Method::GET;
    let reload = |server: &common::TestServer| {
        let request = server
            .client
            .post(format!("{}/admin/config/reload", server.admin))
            .bearer_auth(SINGLE);
        async move { request.send().await.unwrap() }
    };
    const ROTATED: &str = "rotated-reader-token-0123456789abcdef012";
    std::fs::write(
        file.path(),
        format!("[[tokens]]\nname = \"reader\"\nscopes = [\"read\"]\ntoken = \"{ROTATED}\"\n"),
    )
    .unwrap();
    let answer = reload(&server).await;
    assert_eq!(answer.status(), 200, "{:?}", answer.text().await);
    assert_eq!(
        admin_call(&server, get.clone(), "/admin/cache", Some(ROTATED), None)
            .await
            .0,
        200
    );
    assert_eq!(
        admin_call(&server, get.clone(), "/admin/cache", Some(READER), None)
            .await
            .0,
        401
    );

    std::fs::write(file.path(), "[[tokens]]\nname = \"reader\"\n").unwrap();
    let answer = reload(&server).await;
    assert_eq!(answer.status(), 422);
    let problem: Value = answer.json().await.unwrap();
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("BFF_ADMIN_TOKENS_FILE"),
        "{problem}"
    );
    assert_eq!(
        admin_call(&server, get.clone(), "/admin/cache", Some(ROTATED), None)
            .await
            .0,
        200
    );
    server.stop().await;
}
