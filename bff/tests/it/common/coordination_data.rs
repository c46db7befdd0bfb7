//! Coordination data a shopper would miss if it were lost (a sign-out revocation, a sign-in
//! failure count, a checkout's idempotency key and answer), written through the replicas, then
//! asked of the others: the checks of the eviction and failover tests. Replicas started with
//! `rate_limit.sign_in_failures_per_account` at [`FAILURES_ALLOWED`], three or more.

use super::TestServer;
use super::browser::{Browser, CAPTCHA};
use super::redis::RedisServer;
use super::replicas::Replicas;
use super::shopping::{checkout, checkout_body, guest_with_a_cart};
use serde_json::{Value, json};

/// The account whose sign-ins are locked by failures before the fill (or the failover).
pub const LOCKED: &str = "locked-before-the-fill@talonforge.example";
pub const FAILURES_ALLOWED: u32 = 3;

/// Coordination data written through the replicas before the fill (or the failover).
pub struct Written {
    /// A session cookie signed out on replica 0.
    revoked_cookie: String,
    /// A guest's cookie, the checkout's key and body, and the order it placed.
    checkout: (String, String, Value, Value),
}

async fn sign_in(replica: &TestServer, email: &str, password: &str) -> u16 {
    let mut browser = Browser::new(replica);
    browser
        .post(
            "/api/auth/login",
            json!({"email": email, "password": password, "captcha": CAPTCHA}),
        )
        .await
        .status
}

pub async fn write_coordination_data(replicas: &Replicas) -> Written {
    let servers = &replicas.replicas;
    let mut browser = Browser::new(&servers[0]);
    browser.login().await;
    let revoked_cookie = browser.cookie.clone().unwrap();
    assert_eq!(
        browser.post("/api/auth/logout", json!({})).await.status,
        204
    );

    for _ in 0..FAILURES_ALLOWED {
        assert_eq!(sign_in(&servers[0], LOCKED, "wrong-password").await, 401);
    }
    assert_eq!(sign_in(&servers[1], LOCKED, "wrong-password").await, 429);

    let cookie = guest_with_a_cart(&servers[0]).await;
    let body = checkout_body(replicas).await;
    let key = "placed-before-the-fill".to_owned();
    let placed = checkout(&servers[0], &cookie, &key, &body).await;
    assert_eq!(placed.status, 200, "{}", placed.text);
    Written {
        revoked_cookie,
        checkout: (cookie, key, body, placed.body),
    }
}

/// Every piece of `written` still holds, asked of replicas 1 and 2.
pub async fn assert_honoured(replicas: &Replicas, written: &Written) {
    for replica in &replicas.replicas[1..] {
        let session = replica
            .client
            .get(replica.url("/api/session"))
            .header("cookie", &written.revoked_cookie)
            .send()
            .await
            .unwrap();
        assert_eq!(
            session.status(),
            401,
            "{}: a signed-out cookie works again",
            replica.base
        );
        assert_eq!(
            sign_in(replica, LOCKED, "wrong-password").await,
            429,
            "{}: the failure count was lost",
            replica.base
        );
    }
    let (cookie, key, body, order) = &written.checkout;
    let again = checkout(&replicas.replicas[2], cookie, key, body).await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert!(again.replayed, "the key's answer was lost: {}", again.text);
    assert_eq!(&again.body, order, "one order, replayed");
}

pub fn coordination_keys(redis: &RedisServer, prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    for pattern in ["session:revoked:*", "idempotency:*", "ratelimit:account:*"] {
        let keys = redis.cli(&["--scan", "--pattern", &format!("{prefix}{pattern}")]);
        found.extend(
            keys.lines()
                .filter(|key| !key.is_empty())
                .map(str::to_owned),
        );
    }
    found
}
