//! One client must not take the store down (issue 22): random-term searches cannot flush the
//! edge cache, search is rate limited per client IP, the auth limits hold behind a proxy (and
//! without its header), sign-in failures are counted per account too, and a search that cannot
//! run is an error the page can show. Against the real sandbox: in process where no socket
//! matters, over TCP where the peer address is the point.

#![allow(clippy::unwrap_used)]

use crate::assert_metric;
use crate::common;

use bff::cache::entry::ENTRY_OVERHEAD_BYTES;
use bff::config::Config;
use common::SandboxHooks;
use common::browser::{CAPTCHA, PASSWORD, SHOPPER};
use common::cache_stats::{cache_stats, catalogue_and_pages, entries};
use common::in_process::{InProcess, start_with_secrets};
use common::test_config;
use serde_json::{Value, json};

const SEARCH_ROUTE: &str = "/strapi/products/search/{query}";
const LOGIN_ROUTE: &str = "/Auth/login";
/// An account no other test here signs in to (the per-account count is keyed by e-mail).
const SHOPPER_ELSEWHERE: &str = "peer-fallback@talonforge.example";
const ADMIN_TOKEN: &str = "test-admin-token";
const SECRETS: &[(&str, &str)] = &[("BFF_ADMIN_TOKEN", ADMIN_TOKEN)];

/// A search term nobody searched before.
fn random_term(rng: &mut fastrand::Rng) -> String {
    (0..12).map(|_| rng.lowercase()).collect()
}

/// The flood of issue 22 (defect 4), scaled down: a cache holding every page, product and
/// collection, then random-term searches worth twice its capacity (before the search budget:
/// 0 of the 75 pages, products and collections were left). They land in the
/// search budget, so everything else stays.
#[tokio::test]
async fn random_term_searches_past_the_search_budget_leave_every_page_product_and_collection_cached()
 {
    const CAPACITY: u64 = 2 * 1024 * 1024;
    let mut config: Config = test_config();
    config.cache.capacity_bytes = CAPACITY;
    config.cache.search_capacity_bytes = 256 * 1024;
    config.rate_limit.search_per_minute = u32::MAX;
    let app = start_with_secrets(config, SECRETS);

    let mut warmed = 0;
    for path in catalogue_and_pages() {
        if app.get(&path).await.status == 200 {
            warmed += 1;
        }
    }
    let before = cache_stats(&app, ADMIN_TOKEN).await;
    let kept_routes = ["pages", "product", "collection", "prices"];
    let kept_before: Vec<u64> = kept_routes
        .iter()
        .map(|route| entries(&before, route))
        .collect();
    assert!(
        before["bytes"].as_u64().unwrap() < CAPACITY,
        "everything fits before the flood: {before}"
    );
    println!("warmed: {} bytes", before["bytes"]);
    assert!(warmed > 60, "{warmed}");

    let mut rng = fastrand::Rng::with_seed(22);
    let mut searched_bytes = 0;
    let mut searches = 0;
    while searched_bytes < 2 * CAPACITY {
        let term = random_term(&mut rng);
        let answer = app.get(&format!("/api/search?q={term}")).await;
        assert_eq!(answer.status, 200, "{}", answer.text());
        searches += 1;
        // What one search entry weighs at least: its key, (empty) results and overhead.
        searched_bytes += ("search:".len() + term.len() + 2 + ENTRY_OVERHEAD_BYTES) as u64;
    }

    let after = cache_stats(&app, ADMIN_TOKEN).await;
    let kept_after: Vec<u64> = kept_routes
        .iter()
        .map(|route| entries(&after, route))
        .collect();
    println!(
        "flood: {searches} searches; entries (pages, products, collections, prices) before \
         {kept_before:?}, after {kept_after:?}; search entries after {}",
        entries(&after, "search")
    );
    assert_eq!(kept_after, kept_before, "{after}");
    assert!(
        entries(&after, "search") < searches,
        "the search budget is bounded: {after}"
    );
}

/// A POST of `body` as the storefront sends it (`X-CSRF: 1`), from `forwarded_for` when given.
async fn post_from(
    app: &InProcess,
    path: &str,
    body: Value,
    forwarded_for: Option<&str>,
) -> (u16, Value, String) {
    let mut headers = vec![("x-csrf", "1")];
    if let Some(address) = forwarded_for {
        headers.push(("x-forwarded-for", address));
    }
    let answer = app.post_json(path, &body, &headers).await;
    (
        answer.status.as_u16(),
        serde_json::from_slice(&answer.body).unwrap_or(Value::Null),
        answer.header("retry-after").to_owned(),
    )
}

fn behind_the_ingress(configure: impl FnOnce(&mut Config)) -> InProcess {
    let mut config = test_config();
    config.rate_limit.trusted_client_ip_header = "x-forwarded-for".to_owned();
    config.rate_limit.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    configure(&mut config);
    start_with_secrets(config, SECRETS)
}

fn wrong_password(email: &str) -> Value {
    json!({"email": email, "password": "wrong-password", "captcha": CAPTCHA})
}

/// Issue 22 (defect 4): one address searching past `search_per_minute` gets 429 problem+json
/// with `Retry-After`, without another upstream call; another address is not affected.
#[tokio::test]
async fn searches_past_the_quota_from_one_address_are_refused_with_retry_after() {
    let app = behind_the_ingress(|config| config.rate_limit.search_per_minute = 5);
    common::early_in_a_rate_limit_window().await;
    let search = |term: String, from: &'static str| {
        let app = &app;
        async move {
            app.get_with(
                &format!("/api/search?q={term}"),
                &[("x-forwarded-for", from)],
            )
            .await
        }
    };
    for attempt in 0..5 {
        let answer = search(format!("term{attempt}"), "203.0.113.7").await;
        assert_eq!(answer.status, 200, "search {attempt}");
    }
    let calls = app.upstream_calls(SEARCH_ROUTE).await;
    let refused = search("term5".to_owned(), "203.0.113.7").await;
    assert_eq!(refused.status, 429);
    assert_eq!(refused.header("content-type"), "application/problem+json");
    assert_eq!(refused.json()["code"], "rate_limited");
    let wait: u64 = refused.header("retry-after").parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    assert_eq!(
        app.upstream_calls(SEARCH_ROUTE).await,
        calls,
        "no upstream call"
    );
    assert_eq!(
        search("term5".to_owned(), "198.51.100.4").await.status,
        200,
        "per address"
    );
    assert_metric!(app.metrics().await, "bff_rate_limited_total", {"limit" => "search"}, 1);
}

/// Issue 22 (defect 5): change-password (which tells whether the current password is right)
/// and verify-registration share the auth limit per address.
#[tokio::test]
async fn change_password_and_verify_registration_are_limited_per_address() {
    let app = behind_the_ingress(|config| config.rate_limit.auth_per_minute = 3);
    common::early_in_a_rate_limit_window().await;
    let cases = [
        (
            "/api/auth/change-password",
            json!({"currentPassword": "guess", "newPassword": "Another-password-1", "confirmPassword": "Another-password-1"}),
            "203.0.113.21",
        ),
        (
            "/api/auth/verify-registration",
            json!({"token": "guessed-token"}),
            "203.0.113.22",
        ),
    ];
    for (path, body, from) in cases {
        for attempt in 1..=3 {
            let (status, problem, _) = post_from(&app, path, body.clone(), Some(from)).await;
            assert!(
                status != 429 && status >= 400,
                "{path} attempt {attempt}: {status} {problem}"
            );
        }
        let (status, problem, retry_after) = post_from(&app, path, body, Some(from)).await;
        assert_eq!(status, 429, "{path}: {problem}");
        assert_eq!(problem["code"], "rate_limited");
        assert!(retry_after.parse::<u64>().unwrap() >= 1);
    }
}

/// Issue 22 (defect 5): wrong passwords for one account from ever new addresses (each within
/// its own per-address budget) still lock that account after `sign_in_failures_per_account`;
/// the right password is refused too until the window ends, other accounts are not affected,
/// and the upstream sees no further attempt.
#[tokio::test]
async fn sign_in_failures_are_limited_per_account_across_addresses() {
    let app = behind_the_ingress(|config| {
        config.rate_limit.sign_in_failures_per_account = 3;
        config.rate_limit.auth_per_minute = 100;
    });
    for attempt in 1..=3 {
        let from = format!("198.51.100.{attempt}");
        let (status, problem, _) = post_from(
            &app,
            "/api/auth/login",
            wrong_password(SHOPPER),
            Some(&from),
        )
        .await;
        assert_eq!(status, 401, "attempt {attempt}: {problem}");
    }
    let logins = app.upstream_calls(LOGIN_ROUTE).await;
    let (status, problem, retry_after) = post_from(
        &app,
        "/api/auth/login",
        wrong_password(&SHOPPER.to_uppercase()),
        Some("198.51.100.4"),
    )
    .await;
    assert_eq!(status, 429, "{problem}");
    assert_eq!(problem["code"], "rate_limited");
    let wait: u64 = retry_after.parse().unwrap();
    assert!((1..=900).contains(&wait), "{wait}");
    let right = json!({"email": SHOPPER, "password": PASSWORD, "captcha": CAPTCHA});
    let (status, _, _) = post_from(&app, "/api/auth/login", right, Some("198.51.100.5")).await;
    assert_eq!(status, 429, "the account is locked for the window");
    assert_eq!(app.upstream_calls(LOGIN_ROUTE).await, logins);
    let (status, _, _) = post_from(
        &app,
        "/api/auth/login",
        wrong_password("someone-else@talonforge.example"),
        Some("198.51.100.4"),
    )
    .await;
    assert_eq!(status, 401, "another account");
    assert_metric!(app.metrics().await, "bff_rate_limited_total", {"limit" => "sign_in_account"}, 2);
}

/// Issue 46, finding 3: sign-in failures are counted per account and client, so no stranger
/// can lock an account. Ten wrong passwords from other clients leave the owner's right password
/// from a fresh client accepted; a client past its budget for an account gets 429 with
/// `Retry-After` for that account, and not for another one.
#[tokio::test]
async fn strangers_cannot_lock_the_owner_out_and_a_client_past_its_budget_is_refused_for_that_account_only()
 {
    let app = behind_the_ingress(|config| {
        config.rate_limit.sign_in_failures_per_client = 3;
        config.rate_limit.auth_per_minute = 100;
    });
    // Ten wrong passwords from four strangers: three, three, three and one.
    for attempt in 0..10 {
        let from = format!("198.51.100.{}", 20 + attempt / 3);
        let (status, problem, _) = post_from(
            &app,
            "/api/auth/login",
            wrong_password(SHOPPER),
            Some(&from),
        )
        .await;
        assert_eq!(status, 401, "attempt {attempt}: {problem}");
    }
    let (status, problem, retry_after) = post_from(
        &app,
        "/api/auth/login",
        wrong_password(SHOPPER),
        Some("198.51.100.20"),
    )
    .await;
    assert_eq!(status, 429, "past the client's budget: {problem}");
    assert_eq!(problem["code"], "rate_limited");
    assert!(retry_after.parse::<u64>().unwrap() >= 1);
    let (status, problem, _) = post_from(
        &app,
        "/api/auth/login",
        wrong_password("someone-else@talonforge.example"),
        Some("198.51.100.20"),
    )
    .await;
    assert_eq!(status, 401, "another account, from that client: {problem}");
    let right = json!({"email": SHOPPER, "password": PASSWORD, "captcha": CAPTCHA});
    let (status, problem, _) =
        post_from(&app, "/api/auth/login", right, Some("203.0.113.99")).await;
    assert_eq!(status, 200, "the owner, from a fresh client: {problem}");
    assert_metric!(app.metrics().await, "bff_rate_limited_total", {"limit" => "sign_in_client"}, 1);
}

// Over TCP: the fallback is the peer address, which only a socket gives.

/// Issue 22 (defect 5): with the trusted header configured, a request without it, or with a
/// value that is no address, is limited by its peer address, never let through unlimited;
/// requests the proxy stamped with other addresses keep their own budgets.
#[tokio::test]
async fn with_the_trusted_header_configured_requests_without_a_usable_one_are_limited_by_peer() {
    let mut config = test_config();
    config.rate_limit.trusted_client_ip_header = "x-forwarded-for".to_owned();
    config.rate_limit.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    config.rate_limit.auth_per_minute = 4;
    let server = common::start_with(config, &[]).await;
    let login = |forwarded: Option<&'static str>| {
        let mut request = server
            .client
            .post(server.url("/api/auth/login"))
            .header("x-csrf", "1")
            .json(&wrong_password(SHOPPER_ELSEWHERE));
        if let Some(value) = forwarded {
            request = request.header("x-forwarded-for", value);
        }
        async move { request.send().await.unwrap().status().as_u16() }
    };
    // The peer (127.0.0.1) gets 4, whether the header is missing, empty or nonsense.
    let unusable = [
        None,
        Some("unknown"),
        Some(""),
        Some("not-an-address"),
        None,
    ];
    common::early_in_a_rate_limit_window().await;
    let mut statuses = Vec::new();
    for forwarded in unusable {
        statuses.push(login(forwarded).await);
    }
    assert_eq!(statuses, [401, 401, 401, 401, 429]);
    // Stamped by the proxy: each address its own budget.
    assert_eq!(login(Some("203.0.113.50")).await, 401);
    assert_eq!(login(Some("10.1.1.1, 203.0.113.51")).await, 401);
    server.stop().await;
}
