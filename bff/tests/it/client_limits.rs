//! Issue 30, finding 5: limits with holes. Over real sockets, clients named by a trusted proxy
//! (`X-Forwarded-For` from loopback), against the embedded sandbox; with `BFF_TEST_REDIS_URL`
//! set, the counts are Redis's (`make test` runs both ways).
//!
//! - IPv6 clients were keyed by their full address: one /64 had 2^64 budgets.
//! - The per-account sign-in failure check and its count were two steps, so parallel guesses
//!   all passed the check before any was counted.
//! - Promo codes could be guessed without limit.
//! - Every cookie-less add-to-cart created an upstream guest, without limit.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::SandboxHooks;
use common::browser::{CAPTCHA, SHOPPER};
use common::{TestServer, test_config};
use serde_json::{Value, json};

async fn behind_a_trusted_proxy(configure: impl FnOnce(&mut bff::config::Config)) -> TestServer {
    common::early_in_a_rate_limit_window().await;
    let mut config = test_config();
    config.rate_limit.trusted_client_ip_header = "x-forwarded-for".to_owned();
    config.rate_limit.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    configure(&mut config);
    common::start_with(config, &[]).await
}

/// `method path` as the client `forwarded`, with `body` and `cookie`: status and body.
async fn send(
    server: &TestServer,
    path: &str,
    forwarded: &str,
    body: &Value,
    cookie: Option<&str>,
) -> (u16, Value, Option<String>) {
    let mut request = server
        .client
        .post(server.url(path))
        .header("x-forwarded-for", forwarded)
        .header("x-csrf", "1")
        .json(body);
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let set_cookie = response.headers().get("set-cookie").map(|value| {
        value
            .to_str()
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_owned()
    });
    (
        status,
        response.json().await.unwrap_or(Value::Null),
        set_cookie,
    )
}

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

#[tokio::test]
async fn two_addresses_in_one_ipv6_64_share_a_budget() {
    let server = behind_a_trusted_proxy(|config| config.rate_limit.search_per_minute = 3).await;
    for (attempt, address) in [
        "2001:db8:1:2::1",
        "2001:db8:1:2::2",
        "2001:db8:1:2:ffff:0:0:9",
    ]
    .iter()
    .enumerate()
    {
        assert_eq!(search(&server, &format!("t{attempt}"), address).await, 200);
    }
    assert_eq!(
        search(&server, "more", "2001:db8:1:2:abcd::77").await,
        429,
        "a fourth address of the same /64 finds the budget spent"
    );
    assert_eq!(
        search(&server, "more", "2001:db8:1:3::1").await,
        200,
        "the next /64 is another client"
    );
    server.stop().await;
}

fn wrong_password() -> Value {
    json!({"email": SHOPPER, "password": "not-the-password", "captcha": CAPTCHA})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_parallel_wrong_passwords_from_twenty_addresses_get_at_most_the_allowance() {
    const ALLOWED: u32 = 5;
    let server = behind_a_trusted_proxy(|config| {
        config.rate_limit.sign_in_failures_per_account = ALLOWED;
    })
    .await;
    let body = wrong_password();
    let guesses = (0..20).map(|i| {
        let (server, body) = (&server, &body);
        async move {
            send(
                server,
                "/api/auth/login",
                &format!("198.51.100.{}", 10 + i),
                body,
                None,
            )
            .await
            .0
        }
    });
    let statuses = futures::future::join_all(guesses).await;
    let tried = statuses.iter().filter(|s| **s == 401).count();
    let refused = statuses.iter().filter(|s| **s == 429).count();
    eprintln!("20 parallel wrong passwords: {tried} answered 401, {refused} answered 429");
    assert!(tried <= ALLOWED as usize, "{statuses:?}");
    assert_eq!(tried + refused, 20, "{statuses:?}");
    assert!(tried >= 1, "{statuses:?}");
    assert_eq!(
        server.upstream_calls("/Auth/login").await,
        tried,
        "only the tried ones reached the upstream"
    );
    // The right password, from yet another address, is refused too until the window ends.
    let right =
        json!({"email": SHOPPER, "password": common::browser::PASSWORD, "captcha": CAPTCHA});
    let (status, _, _) = send(&server, "/api/auth/login", "198.51.100.99", &right, None).await;
    assert_eq!(status, 429);
    server.stop().await;
}

#[tokio::test]
async fn a_right_password_gives_back_what_its_attempt_took() {
    let server = behind_a_trusted_proxy(|config| {
        config.rate_limit.sign_in_failures_per_account = 2;
        config.rate_limit.auth_per_minute = 100;
    })
    .await;
    let right =
        json!({"email": SHOPPER, "password": common::browser::PASSWORD, "captcha": CAPTCHA});
    for _ in 0..4 {
        let (status, body, _) =
            send(&server, "/api/auth/login", "198.51.100.5", &right, None).await;
        assert_eq!(status, 200, "{body}");
    }
    server.stop().await;
}

/// A guest with a cart, made as client `forwarded`: its cookie.
async fn guest_cart(server: &TestServer, forwarded: &str) -> String {
    let item = json!({"productId": "TF-QDS", "productName": "QD Sling Mount", "quantity": 1,
                      "options": [{"label": "Color", "value": "Black"}]});
    let (status, body, cookie) = send(server, "/api/cart/items", forwarded, &item, None).await;
    assert_eq!(status, 200, "{body}");
    cookie.unwrap()
}

#[tokio::test]
async fn promo_codes_are_limited_per_cart_and_per_client() {
    let server = behind_a_trusted_proxy(|config| {
        config.rate_limit.promo_codes_per_cart_per_minute = 2;
        config.rate_limit.promo_codes_per_client_per_minute = 3;
    })
    .await;
    let guess = |n: usize| json!({"promoCode": format!("GUESS{n}")});

    // One cart, guessed at from three clients: the cart's budget holds across them.
    let cart = guest_cart(&server, "203.0.113.1").await;
    let statuses: Vec<u16> = futures::future::join_all((0..3).map(|i| {
        let (server, cart, body) = (&server, &cart, guess(i));
        async move {
            let forwarded = format!("203.0.113.{}", 10 + i);
            send(
                server,
                "/api/cart/promo-code",
                &forwarded,
                &body,
                Some(cart),
            )
            .await
            .0
        }
    }))
    .await;
    let mut sorted = statuses.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, vec![422, 422, 429], "{statuses:?}");

    // One client, guessing on many carts: the client's budget holds across them.
    let client = "203.0.113.50";
    let mut statuses = Vec::new();
    for n in 0..4 {
        let cart = guest_cart(&server, &format!("203.0.113.{}", 100 + n)).await;
        statuses.push(
            send(
                &server,
                "/api/cart/promo-code",
                client,
                &guess(n),
                Some(&cart),
            )
            .await
            .0,
        );
    }
    assert_eq!(statuses, vec![422, 422, 422, 429]);
    let (status, body, _) = send(
        &server,
        "/api/cart/promo-code",
        client,
        &guess(9),
        Some(&cart),
    )
    .await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["code"], "rate_limited");
    server.stop().await;
}

#[tokio::test]
async fn cookie_less_adds_to_cart_create_at_most_the_guest_budget() {
    let server = behind_a_trusted_proxy(|config| config.rate_limit.guests_per_minute = 3).await;
    let item = json!({"productId": "TF-QDS", "productName": "QD Sling Mount", "quantity": 1,
                      "options": [{"label": "Color", "value": "Black"}]});
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(
            send(&server, "/api/cart/items", "2001:db8:9:9::1", &item, None)
                .await
                .0,
        );
    }
    assert_eq!(statuses, vec![200, 200, 200, 429, 429]);
    assert_eq!(
        server.upstream_calls("/Auth/guest").await,
        3,
        "three guests upstream"
    );

    // A guest that keeps its cookie adds on without creating another.
    let (status, _, cookie) =
        send(&server, "/api/cart/items", "2001:db8:7:7::1", &item, None).await;
    assert_eq!(status, 200);
    let cookie = cookie.unwrap();
    for _ in 0..4 {
        let (status, body, _) = send(
            &server,
            "/api/cart/items",
            "2001:db8:7:7::1",
            &item,
            Some(&cookie),
        )
        .await;
        assert_eq!(status, 200, "{body}");
    }
    assert_eq!(server.upstream_calls("/Auth/guest").await, 4);
    server.stop().await;
}
