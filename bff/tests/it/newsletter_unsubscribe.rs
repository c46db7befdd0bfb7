//! Issue 30, finding 3: anyone could unsubscribe any address (no session, 200 for any e-mail).
//! Now the BFF unsubscribes only the signed-in user's own address, taken from the session's
//! profile; an address in the body is ignored and a visitor who is not signed in is refused.
//! Over real sockets, against the embedded sandbox; the victim's subscription is read from the
//! sandbox itself.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::SandboxHooks;
use common::TestServer;
use common::browser::{Browser, CAPTCHA, SHOPPER};
use serde_json::{Value, json};

const VICTIM: &str = "victim@talonforge.example";

/// The sandbox's own record of `email`'s subscription.
async fn subscribed_upstream(server: &TestServer, email: &str) -> bool {
    let status: Value = server
        .client
        .get(format!("{}/Newsletter/status/{email}", server.sandbox))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    status["isSubscribed"].as_bool().unwrap()
}

#[tokio::test]
async fn unsubscribing_another_persons_address_is_refused() {
    let server = common::start().await;
    let mut victim = Browser::new(&server);
    let subscribed = victim
        .post(
            "/api/newsletter/subscribe",
            json!({"email": VICTIM, "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(subscribed.status, 200, "{}", subscribed.text);
    assert!(subscribed_upstream(&server, VICTIM).await);

    // A visitor who is not signed in (no cookie), and a guest (with a cart), are refused.
    let mut stranger = Browser::new(&server);
    let refused = stranger
        .post("/api/newsletter/unsubscribe", json!({"email": VICTIM}))
        .await;
    assert_eq!(refused.status, 401, "{}", refused.text);
    assert_eq!(refused.content_type, "application/problem+json");
    let mut guest = Browser::new(&server);
    guest.cookie = Some(common::shopping::guest_with_a_cart(&server).await);
    let refused = guest
        .post("/api/newsletter/unsubscribe", json!({"email": VICTIM}))
        .await;
    assert_eq!(refused.status, 401, "{}", refused.text);
    assert!(
        subscribed_upstream(&server, VICTIM).await,
        "still subscribed"
    );

    // A signed-in user naming the victim unsubscribes only themself.
    let mut shopper = Browser::new(&server);
    shopper.login().await;
    assert!(subscribed_upstream(&server, SHOPPER).await);
    let own = shopper
        .post("/api/newsletter/unsubscribe", json!({"email": VICTIM}))
        .await;
    assert_eq!(own.status, 200, "{}", own.text);
    assert!(
        subscribed_upstream(&server, VICTIM).await,
        "the address in the body is ignored"
    );
    assert!(
        !subscribed_upstream(&server, SHOPPER).await,
        "the user's own address is unsubscribed"
    );
    let unsubscribes: Vec<Value> = server
        .sandbox_requests()
        .await
        .into_iter()
        .filter(|request| request["path"] == "/Newsletter/unsubscribe")
        .collect();
    assert_eq!(unsubscribes.len(), 1, "{unsubscribes:?}");
    server.stop().await;
}
