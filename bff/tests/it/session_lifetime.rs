//! Issue 30, finding 4, on one replica: a session's absolute lifetime, and sign-out revoking
//! the session on this replica (with Redis or without: `make test` runs both ways).

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::SandboxHooks;
use common::browser::Browser;
use common::test_config;
use serde_json::Value;

/// The cookie's `Max-Age`, in seconds.
fn max_age(set_cookie: &str) -> u64 {
    set_cookie
        .split("Max-Age=")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn a_signed_in_session_ends_at_its_absolute_lifetime_whatever_its_tokens() {
    const LIFETIME_MS: u64 = 3_000;
    let mut config = test_config();
    config.session.absolute_lifetime = Duration::from_millis(LIFETIME_MS);
    let server = common::start_with(config, &[]).await;
    let mut browser = Browser::new(&server);
    let signed_in = browser.login().await;
    let cookie = signed_in.set_cookie.last().unwrap();
    assert!(
        max_age(cookie) <= 3,
        "the cookie never outlasts the session: {cookie}"
    );
    let copy = browser.cookie.clone().unwrap();
    assert_eq!(browser.get("/api/session").await.body["signedIn"], true);

    tokio::time::sleep(Duration::from_millis(LIFETIME_MS + 300)).await;
    // The browser would have dropped the cookie; a copy replayed is ended by the server.
    browser.cookie = Some(copy);
    let after = browser.get("/api/session").await;
    assert_eq!(after.body["signedIn"], false, "{}", after.text);
    assert!(after.set_cookie.iter().any(|c| c.contains("Max-Age=0")));
    let scrape = server.metrics().await;
    assert_eq!(
        scrape.value("bff_session_events_total", &[("event", "lifetime_ended")]),
        Some(1.0)
    );
    server.stop().await;
}

#[tokio::test]
async fn on_one_replica_a_cookie_replayed_after_sign_out_is_signed_out() {
    let server = common::start().await;
    let mut browser = Browser::new(&server);
    browser.login().await;
    let copy = browser.cookie.clone().unwrap();
    assert_eq!(browser.get("/api/session").await.body["signedIn"], true);
    let out = browser.post("/api/auth/logout", Value::Null).await;
    assert_eq!(out.status, 204, "{}", out.text);

    let mut replay = Browser::new(&server);
    replay.cookie = Some(copy);
    let session = replay.get("/api/session").await;
    assert_eq!(session.status, 401, "{}", session.text);
    assert_eq!(session.body["code"], "session_expired");
    assert!(!session.text.contains("Jordan"), "{}", session.text);
    assert!(session.set_cookie.iter().any(|c| c.contains("Max-Age=0")));
    assert_eq!(replay.get("/api/session").await.body["signedIn"], false);
    server.stop().await;
}
