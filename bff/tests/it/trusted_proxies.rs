//! Issue 29: the client-IP header counts only from `rate_limit.trusted_proxies`. Over real
//! sockets, because the peer address is the point: the test's client is always 127.0.0.1, so
//! "a trusted proxy" is a configuration that lists loopback, and "any other pod" is one that
//! does not. The limit observed is search's (per client IP and minute).

#![allow(clippy::unwrap_used)]

use crate::common;

use common::{TestServer, test_config};

/// Searches allowed per client and minute in these tests.
const QUOTA: u32 = 3;

async fn server_trusting(proxies: &[&str]) -> TestServer {
    common::early_in_a_rate_limit_window().await;
    let mut config = test_config();
    config.rate_limit.trusted_client_ip_header = "x-forwarded-for".to_owned();
    config.rate_limit.trusted_proxies = proxies.iter().map(|net| net.parse().unwrap()).collect();
    config.rate_limit.search_per_minute = QUOTA;
    common::start_with(config, &[]).await
}

/// One search with `X-Forwarded-For: forwarded`; its status.
async fn search(server: &TestServer, term: &str, forwarded: &str) -> u16 {
    server
        .client
        .get(server.url(&format!("/api/search?q={term}")))
        .header("x-forwarded-for", forwarded)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// `QUOTA` searches for `forwarded`, each answered 200.
async fn use_up(server: &TestServer, forwarded: &str) {
    for attempt in 0..QUOTA {
        let status = search(server, &format!("term{attempt}"), forwarded).await;
        assert_eq!(status, 200, "search {attempt} as {forwarded:?}");
    }
}

#[tokio::test]
async fn from_a_trusted_peer_the_header_names_the_client() {
    let server = server_trusting(&["127.0.0.1/32"]).await;
    use_up(&server, "203.0.113.10").await;
    assert_eq!(
        search(&server, "more", "203.0.113.10").await,
        429,
        "over quota"
    );
    assert_eq!(
        search(&server, "more", "203.0.113.11").await,
        200,
        "another client named by the trusted proxy has its own budget"
    );
    server.stop().await;
}

#[tokio::test]
async fn from_a_peer_outside_trusted_proxies_the_header_is_ignored() {
    // A cluster range that excludes loopback: the test's connections are "some other pod".
    let server = server_trusting(&["10.0.0.0/8", "fd00::/8"]).await;
    for attempt in 0..QUOTA {
        let forwarded = format!("203.0.113.{}", 20 + attempt);
        let status = search(&server, &format!("term{attempt}"), &forwarded).await;
        assert_eq!(status, 200, "search {attempt}");
    }
    assert_eq!(
        search(&server, "more", "198.51.100.99").await,
        429,
        "every request counted under the peer, whatever address it claims"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_header_is_read_right_to_left_skipping_trusted_hops() {
    // The peer (loopback) and a second proxy tier (10/8) are trusted.
    let server = server_trusting(&["127.0.0.1/32", "10.0.0.0/8"]).await;
    use_up(&server, "198.51.100.1, 203.0.113.30, 10.1.1.1").await;
    assert_eq!(
        search(
            &server,
            "more",
            "192.0.2.77, 203.0.113.30, 10.2.2.2, 10.3.3.3"
        )
        .await,
        429,
        "the first untrusted entry from the right is the client: neither the spoofable left \
         part nor the trusted hops change it"
    );
    assert_eq!(
        search(&server, "more", "203.0.113.30, 203.0.113.31, 10.1.1.1").await,
        200,
        "203.0.113.31 is the client here; 203.0.113.30 left of it is not believed"
    );
    server.stop().await;
}
