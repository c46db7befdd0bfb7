//! Server-rendered documents: React's first screen in the body, rendered once per cache fill by
//! the embedded engine from the real web build's server bundle (`npm run build` in web/ first:
//! `make test` builds it), remembered in the edge cache and answered by the hit path.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::SandboxHooks;
use common::browser::{Browser, CAPTCHA};
use common::in_process::{InProcess, capture_logs, start_with_web_build};
use common::redis::RedisServer;
use common::test_config;
use serde_json::{Value, json};

const ADMIN_TOKEN: &str = "test-admin-token";
const SECRETS: &[(&str, &str)] = &[("BFF_ADMIN_TOKEN", ADMIN_TOKEN)];

/// The markup inside `#root` (React's), up to the page's data.
fn root(html: &str) -> &str {
    let start = html.find(r#"<div id="root">"#).unwrap() + r#"<div id="root">"#.len();
    let end = html
        .find(r#"<script type="application/json" id="document-data">"#)
        .unwrap();
    &html[start..end]
}

/// The page's data element's JSON.
fn document_data(html: &str) -> Value {
    let marker = r#"<script type="application/json" id="document-data">"#;
    let start = html.find(marker).unwrap() + marker.len();
    let end = html[start..].find("</script>").unwrap() + start;
    serde_json::from_str(&html[start..end]).unwrap()
}

/// `$1,234.50`, as the app prints prices.
fn usd(amount: f64) -> String {
    let cents = (amount * 100.0).round() as u64;
    let whole = (cents / 100).to_string();
    let mut grouped = String::new();
    for (index, digit) in whole.chars().enumerate() {
        if index > 0 && (whole.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    format!("${grouped}.{:02}", cents % 100)
}

/// `text` as React writes it in an element (`"` is `&quot;`, `&` is `&amp;`).
fn html_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The displayed sku's final price of a product or card.
fn displayed_price(product: &Value) -> f64 {
    let displayed = &product["displayedSku"];
    let skus = product["skus"].as_array().unwrap();
    let sku = skus.iter().find(|sku| &sku["sku"] == displayed).unwrap();
    sku["finalPrice"].as_f64().unwrap()
}

async fn renders(app: &InProcess, outcome: &str) -> f64 {
    app.metrics()
        .await
        .value("bff_ssr_renders_total", &[("outcome", outcome)])
        .unwrap_or(0.0)
}

#[tokio::test]
async fn a_product_document_carries_its_first_screen() {
    let app = start_with_web_build(test_config(), &[]);
    let product = app.get("/api/products/summit%20lr").await.json();
    let answer = app.get("/product/summit%20lr").await;
    assert_eq!(answer.status, 200);
    let html = answer.text();
    let body = root(&html);
    assert!(
        body.contains(r#"<h1 class="product-page__title">Summit LR</h1>"#),
        "{body}"
    );
    assert!(body.contains(&usd(displayed_price(&product))), "{body}");
    let main_image = product["skus"]
        .as_array()
        .unwrap()
        .iter()
        .find(|sku| sku["sku"] == product["displayedSku"])
        .unwrap()["imgUrl"]["src"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        body.contains(r#"class="product-images__main product-images__open""#)
            && body.contains(&format!(r#"<img src="{main_image}""#)),
        "{body}"
    );
    // the frame's navigation, from the `app` content page
    assert!(body.contains("<header class=\"site-header\""), "{body}");
    assert!(body.contains(r#"href="/collection/rifles""#), "{body}");
    // the LCP image is preloaded first, from the head
    assert!(html.contains(&format!(
        r#"<link data-seo rel="preload" as="image" href="{main_image}" fetchpriority="high">"#
    )));
    // the page's data travels with it: the composed product and the frame's pages
    let data = document_data(&html);
    assert_eq!(data["/api/products/summit lr"]["body"], product);
    assert_eq!(data["/api/pages/app"]["status"], 200);
    // the route's scripts are listed for the boot script, which fetches them after the first
    // paint: nothing in the document has the browser fetch a script beside the image
    let chunks = route_chunks(&html);
    assert!(
        chunks
            .iter()
            .any(|chunk| chunk.starts_with("/assets/product-")),
        "{chunks:?}"
    );
    assert!(!html.contains("modulepreload"), "{html}");
    assert!(!html.contains(r#"as="script""#), "{html}");
    assert_eq!(
        html.matches(r#"<script type="module""#).count(),
        1,
        "{html}"
    );
    assert_eq!(renders(&app, "ok").await, 1.0);
}

/// The document's `#route-chunks` list.
fn route_chunks(html: &str) -> Vec<String> {
    let start = r#"<script type="application/json" id="route-chunks">"#;
    let Some(at) = html.find(start) else {
        return Vec::new();
    };
    let rest = &html[at + start.len()..];
    let end = rest.find("</script>").unwrap();
    serde_json::from_str(&rest[..end]).unwrap()
}

#[tokio::test]
async fn a_collection_document_carries_its_cards_with_titles_and_prices() {
    let app = start_with_web_build(test_config(), &[]);
    let collection = app.get("/api/collections/rifles").await.json();
    let html = app.get("/collection/rifles").await.text();
    let body = root(&html);
    assert!(body.contains(">Rifles</h1>"), "{body}");
    let cards = collection["products"].as_array().unwrap();
    assert!(!cards.is_empty());
    for card in cards {
        let title = html_text(card["title"].as_str().unwrap());
        assert!(
            body.contains(&format!(">{title}</")),
            "{title} is not on the first screen"
        );
        let price = displayed_price(card);
        if price > 0.0 {
            let price = usd(price);
            assert!(
                body.contains(&price),
                "{title}: {price} is not on the first screen"
            );
        }
    }
    assert!(body.contains(r#"class="product-card""#), "{body}");
}

#[tokio::test]
async fn the_home_document_carries_the_first_slide_and_the_ribbon() {
    let app = start_with_web_build(test_config(), &[]);
    let home = app.get("/api/pages/home").await.json();
    let html = app.get("/").await.text();
    let body = root(&html);
    let slide = &home["carousel"][0];
    assert!(
        body.contains(&format!(
            r#"<h2 class="carousel__title">{}</h2>"#,
            html_text(slide["title"].as_str().unwrap())
        )),
        "{body}"
    );
    let hero = slide["image"]["src"].as_str().unwrap();
    assert!(body.contains(&format!(r#"src="{hero}""#)), "{body}");
    assert!(html.contains(&format!(
        r#"<link data-seo rel="preload" as="image" href="{hero}" fetchpriority="high">"#
    )));
    assert!(body.contains(r#"<section class="ribbon""#), "{body}");
    for item in home["ribbon"].as_array().unwrap() {
        let title = html_text(item["title"].as_str().unwrap());
        assert!(
            body.contains(&format!(r#"<span class="ribbon__title">{title}</span>"#)),
            "{title}"
        );
    }
}

#[tokio::test]
async fn a_search_results_document_carries_the_results_in_its_body() {
    let app = start_with_web_build(test_config(), &[]);
    let found = app.get("/api/search?q=summit").await.json();
    let results = found["results"].as_array().unwrap();
    assert!(results.len() >= 2, "{found}");
    let answer = app.get("/search/Summit").await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("cache-control"), "no-cache");
    assert!(
        answer.header("surrogate-key").contains("search"),
        "{:?}",
        answer.headers
    );
    let html = answer.text();
    let body = root(&html);
    assert!(
        body.contains(r#"Results for &quot;Summit&quot;</h1>"#),
        "{body}"
    );
    for card in results {
        let title = html_text(card["title"].as_str().unwrap());
        assert!(body.contains(&format!(">{title}</")), "{title}: {body}");
        let price = displayed_price(card);
        if price > 0.0 {
            assert!(body.contains(&usd(price)), "{title}: {}", usd(price));
        }
    }
    assert!(!body.contains("Search is unavailable"), "{body}");
    // the answer the app asks for travels with it (its query as shown, trimmed)
    assert_eq!(document_data(&html)["/api/search?q=Summit"]["body"], found);
    assert_eq!(renders(&app, "ok").await, 1.0);
    // remembered, in the search results' own budget: the next one is a hit, not a render
    let again = app.get("/search/Summit").await;
    assert!(
        again.header("cache-status").contains("; hit"),
        "{:?}",
        again.headers
    );
    assert_eq!(again.text(), html);
    assert_eq!(renders(&app, "ok").await, 1.0);
}

#[tokio::test]
async fn a_search_the_api_would_refuse_is_the_shell() {
    let mut config = test_config();
    config.rate_limit.search_per_minute = 1;
    let app = start_with_web_build(config, &[]);
    // too short for the API (422): nothing looked up, nothing rendered
    let short = app.get("/search/s").await;
    assert_eq!(short.status, 200);
    assert!(short.text().contains(r#"<div id="root"></div>"#));
    // over the search limit: the shell, the app asks the API (which answers 429)
    let first = app.get("/search/falcon").await.text();
    assert!(root(&first).contains("Results for"), "{first}");
    let limited = app.get("/search/ridgeline").await;
    assert_eq!(limited.status, 200);
    let html = limited.text();
    assert!(html.contains(r#"<div id="root"></div>"#), "{html}");
    assert!(!html.contains("document-data"), "{html}");
    assert_eq!(renders(&app, "ok").await, 1.0);
}

#[tokio::test]
async fn documents_are_no_cache_and_a_matching_etag_is_a_304_from_the_hit_path() {
    let app = start_with_web_build(test_config(), &[]);
    let first = app.get("/product/summit%20lr").await;
    assert_eq!(first.header("cache-control"), "no-cache");
    assert_eq!(first.header("content-type"), "text/html; charset=utf-8");
    let etag = first.header("etag").to_owned();
    assert!(etag.starts_with('"'), "a strong ETag: {etag}");
    assert!(first.header("surrogate-key").contains("product:"));

    let again = app.get("/product/summit%20lr").await;
    assert_eq!(again.header("etag"), etag);
    assert_eq!(again.header("cache-control"), "no-cache");
    // remembered: answered as a hit (from the hit path, which answers before the router)
    assert!(
        again.header("cache-status").contains("; hit"),
        "{:?}",
        again.headers
    );
    assert_eq!(again.header("server-timing"), "cache;desc=hit");
    let revisit = app.get_if_none_match("/product/summit%20lr", &etag).await;
    assert_eq!(revisit.status, 304, "{:?} {etag}", revisit.headers);
    assert!(revisit.body.is_empty());
    assert_eq!(revisit.header("cache-control"), "no-cache");
    let other = app
        .get_if_none_match("/product/summit%20lr", "\"something-else\"")
        .await;
    assert_eq!(other.status, 200);
    assert_eq!(renders(&app, "ok").await, 1.0, "rendered once, then hits");
}

#[tokio::test]
async fn a_purge_of_a_products_tag_renders_its_document_again_once() {
    let app = start_with_web_build(test_config(), SECRETS);
    let first = app.get("/product/summit%20lr").await;
    let tag = first
        .header("surrogate-key")
        .split(' ')
        .find(|tag| tag.starts_with("product:"))
        .unwrap()
        .to_owned();
    app.get("/product/summit%20lr").await;
    assert_eq!(renders(&app, "ok").await, 1.0);

    let purged = app
        .admin_post("/admin/cache/purge", ADMIN_TOKEN, &json!({"tags": [tag]}))
        .await;
    assert_eq!(purged.status, 200, "{}", purged.text());
    let requests: Vec<_> = (0..4).map(|_| app.get("/product/summit%20lr")).collect();
    for answer in futures::future::join_all(requests).await {
        assert_eq!(answer.status, 200);
        assert!(root(&answer.text()).contains("Summit LR</h1>"));
    }
    for _ in 0..3 {
        app.get("/product/summit%20lr").await;
    }
    assert_eq!(renders(&app, "ok").await, 2.0, "one render after the purge");
}

#[tokio::test]
async fn a_failed_render_serves_the_shell_with_the_data_inlined() {
    let (logs, _guard) = capture_logs();
    let mut config = test_config();
    config.ssr.fault_for_tests = true;
    let app = start_with_web_build(config, &[]);
    let product = app.get("/api/products/summit%20lr").await.json();
    for _ in 0..2 {
        let answer = app.get("/product/summit%20lr").await;
        assert_eq!(answer.status, 200);
        assert_eq!(answer.header("cache-control"), "no-cache");
        let html = answer.text();
        assert!(html.contains(r#"<div id="root"></div>"#), "{html}");
        assert_eq!(
            document_data(&html)["/api/products/summit lr"]["body"],
            product
        );
        // the head is still the page's
        assert!(html.contains("<title data-seo>Summit LR"), "{html}");
        // no first screen, no route list: the app's router loads the route itself
        assert!(route_chunks(&html).is_empty(), "{html}");
    }
    assert_eq!(renders(&app, "fault").await, 2.0);
    assert_eq!(renders(&app, "ok").await, 0.0);
    let warnings = logs
        .lines()
        .into_iter()
        .filter(|line| {
            line["fields"]["message"]
                .as_str()
                .is_some_and(|message| message.starts_with("server render failed"))
        })
        .count();
    assert_eq!(warnings, 2, "one line per key and fill");

    app.state.ssr.set_fault(false);
    let html = app.get("/product/summit%20lr").await.text();
    assert!(root(&html).contains("Summit LR</h1>"));
}

/// Issue 46, finding 5: a failed render's warning named the document by its path, so what a
/// shopper searched for reached a WARN line. It names the route template instead.
#[tokio::test]
async fn a_failed_render_logs_the_route_template_never_the_path() {
    let (logs, _guard) = capture_logs();
    let mut config = test_config();
    config.ssr.fault_for_tests = true;
    let app = start_with_web_build(config, &[]);
    let answer = app.get("/search/Summit%20Rimfire%20Gift").await;
    assert_eq!(answer.status, 200);
    let warnings: Vec<String> = logs
        .lines()
        .into_iter()
        .filter(|line| {
            line["fields"]["message"]
                .as_str()
                .is_some_and(|message| message.starts_with("server render failed"))
        })
        .map(|line| line.to_string())
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        !warnings[0].contains("Rimfire") && !warnings[0].contains("/search/"),
        "{}",
        warnings[0]
    );
    assert!(
        warnings[0].contains(r#""route":"search/:query""#),
        "{}",
        warnings[0]
    );
}

#[tokio::test]
async fn shoppers_never_see_each_others_name_or_cart_in_a_document() {
    let app = start_with_web_build(test_config(), &[]);
    let mut first = Browser::new(&app);
    first.login().await;
    let first_session = first.get("/api/session").await.body;
    first
        .post(
            "/api/cart/items",
            json!({"productId": "TF-CAP-BLK-SM", "productName": "Talon Logo Cap", "quantity": 3}),
        )
        .await;
    let mut second = Browser::new(&app);
    let created = second
        .post(
            "/api/auth/register",
            json!({"firstName": "Quentinella", "lastName": "Zywiecka", "email": "quentinella@example.com",
                   "password": "Correct-Horse-9", "confirmPassword": "Correct-Horse-9",
                   "newsletter": false, "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let mut guest = Browser::new(&app);

    let first_name = first_session["user"]["firstName"]
        .as_str()
        .or_else(|| first_session["firstName"].as_str())
        .unwrap_or_default()
        .to_owned();
    let personal = [
        first_name.as_str(),
        common::browser::SHOPPER,
        "Quentinella",
        "Zywiecka",
        "quentinella@example.com",
    ];
    for path in ["/product/summit%20lr", "/", "/collection/apparel"] {
        let mut seen = Vec::new();
        for browser in [&mut first, &mut second, &mut guest] {
            let answer = browser.get(path).await;
            assert_eq!(answer.status, 200);
            for word in personal.iter().filter(|word| !word.is_empty()) {
                assert!(!answer.text.contains(word), "{path}: {word}");
            }
            seen.push(answer.text);
        }
        // one shared document: whoever filled it, everyone gets the same bytes
        assert!(seen.windows(2).all(|pair| pair[0] == pair[1]), "{path}");
    }
}

/// The test configuration of a replica sharing `redis` under `prefix` with the others.
fn sharing(redis: &RedisServer, prefix: &str) -> bff::config::Config {
    let mut config = test_config();
    config.redis.url = redis.url();
    config.redis.key_prefix = prefix.to_owned();
    config.redis.command_timeout = common::BUSY_MACHINE_REDIS_TIMEOUT;
    config
}

#[tokio::test]
async fn a_document_rendered_on_one_replica_reaches_the_others_through_l2_under_its_build_id() {
    let redis = RedisServer::start();
    let prefix = format!("ssr-l2-{}:", uuid::Uuid::new_v4());
    let config = || sharing(&redis, &prefix);
    let first = start_with_web_build(config(), SECRETS);
    let answer = first.get("/product/summit%20lr").await;
    let html = answer.text();
    assert!(root(&html).contains("Summit LR</h1>"));
    assert_eq!(renders(&first, "ok").await, 1.0);
    let build = first.state.web.build_id().unwrap().to_owned();
    let stored = redis.cli(&["--scan", "--pattern", &format!("{prefix}*document*")]);
    assert_eq!(
        stored,
        format!("{prefix}cache:entry:document:{build}:/product/summit%20lr"),
        "one document in L2, keyed by the build id"
    );

    // another replica answers it from L2: no render, the same bytes, a hit from then on
    let second = start_with_web_build(config(), &[]);
    let shared = second.get("/product/summit%20lr").await;
    assert_eq!(shared.status, 200);
    assert_eq!(shared.text(), html);
    assert_eq!(shared.header("etag"), answer.header("etag"));
    assert_eq!(renders(&second, "ok").await, 0.0, "not rendered again");
    let again = second.get("/product/summit%20lr").await;
    assert!(
        again.header("cache-status").contains("; hit"),
        "{:?}",
        again.headers
    );

    // a purge of one of its parts' tags outdates it in L2: the next replica renders it
    // (`Surrogate-Key` writes a tag's spaces as `%20`)
    let tag = answer
        .header("surrogate-key")
        .split(' ')
        .find(|tag| tag.starts_with("product:"))
        .unwrap()
        .replace("%20", " ");
    assert_eq!(tag, "product:summit lr");
    let purged = first
        .admin_post("/admin/cache/purge", ADMIN_TOKEN, &json!({"tags": [tag]}))
        .await;
    assert_eq!(purged.status, 200, "{}", purged.text());
    let third = start_with_web_build(config(), &[]);
    let rendered = third.get("/product/summit%20lr").await;
    assert!(root(&rendered.text()).contains("Summit LR</h1>"));
    assert_eq!(renders(&third, "ok").await, 1.0, "rendered after the purge");

    // search results' documents stay out of the shared tier, as search results do
    let search = first.get("/search/summit").await;
    assert!(root(&search.text()).contains("Results for"));
    let documents = redis.cli(&["--scan", "--pattern", &format!("{prefix}*document*")]);
    assert!(!documents.contains("/search/"), "{documents}");
}

/// `app`'s count of `bff_redis_events_total{event}`.
async fn redis_events(app: &InProcess, event: &str) -> f64 {
    app.metrics()
        .await
        .value("bff_redis_events_total", &[("event", event)])
        .unwrap_or(0.0)
}

/// Waits (a bounded poll: the purge channel is asynchronous) until `app` has applied `count`
/// purges made on other replicas.
async fn until_purges_received(app: &InProcess, count: f64) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while redis_events(app, "purge_received").await < count {
        assert!(
            std::time::Instant::now() < deadline,
            "purge {count} never arrived"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// The answer to `path` on `app`: a product document with its first screen.
async fn product_document(app: &InProcess, path: &str) -> common::in_process::Answer {
    let answer = app.get(path).await;
    assert_eq!(answer.status, 200);
    assert!(root(&answer.text()).contains("Summit LR</h1>"));
    answer
}

#[tokio::test]
async fn a_purge_after_a_document_was_shared_through_l2_renders_it_once_for_both_replicas() {
    let redis = RedisServer::start();
    let prefix = format!("ssr-l2-purge-{}:", uuid::Uuid::new_v4());
    let config = || sharing(&redis, &prefix);
    let path = "/product/summit%20lr";
    let a = start_with_web_build(config(), SECRETS);
    let b = start_with_web_build(config(), SECRETS);

    // A renders; B serves A's document from L2, rendering nothing
    let rendered = product_document(&a, path).await;
    let shared = product_document(&b, path).await;
    assert_eq!(shared.text(), rendered.text());
    assert_eq!(
        (renders(&a, "ok").await, renders(&b, "ok").await),
        (1.0, 0.0)
    );

    // a purge on A of the product's tag, as `Surrogate-Key` spells it (what an operator or a
    // CDN's purge hook copies): the next request on B renders, once; A then serves B's render
    let tag = rendered
        .header("surrogate-key")
        .split(' ')
        .find(|tag| tag.starts_with("product:"))
        .unwrap()
        .to_owned();
    assert_eq!(tag, "product:summit%20lr");
    let purged = a
        .admin_post("/admin/cache/purge", ADMIN_TOKEN, &json!({"tags": [tag]}))
        .await;
    assert_eq!(purged.status, 200, "{}", purged.text());
    assert_eq!(purged.json()["purged"], 1, "A's entry of the product");
    until_purges_received(&b, 1.0).await;
    let after_tag = product_document(&b, path).await;
    assert_eq!(
        renders(&b, "ok").await,
        1.0,
        "B renders after the tag purge"
    );
    let on_a = product_document(&a, path).await;
    assert_eq!(on_a.header("etag"), after_tag.header("etag"));
    assert_eq!(renders(&a, "ok").await, 1.0, "A serves B's render from L2");
    for app in [&a, &b] {
        product_document(app, path).await;
    }
    assert_eq!(
        (renders(&a, "ok").await, renders(&b, "ok").await),
        (1.0, 1.0)
    );

    // a purge on B of one of its parts by key: A asks first and renders; B serves it
    let purged = b
        .admin_post(
            "/admin/cache/purge",
            ADMIN_TOKEN,
            &json!({"keys": ["product:summit lr"]}),
        )
        .await;
    assert_eq!(purged.status, 200, "{}", purged.text());
    until_purges_received(&a, 1.0).await;
    product_document(&a, path).await;
    product_document(&b, path).await;
    assert_eq!(
        (renders(&a, "ok").await, renders(&b, "ok").await),
        (2.0, 1.0)
    );

    // a purge of everything on A: B renders, A serves it
    let purged = a
        .admin_post("/admin/cache/purge", ADMIN_TOKEN, &json!({"all": true}))
        .await;
    assert_eq!(purged.status, 200, "{}", purged.text());
    until_purges_received(&b, 2.0).await;
    product_document(&b, path).await;
    product_document(&a, path).await;
    assert_eq!(
        (renders(&a, "ok").await, renders(&b, "ok").await),
        (2.0, 2.0)
    );
}

/// The `ttl=` `Cache-Status` gives, in seconds.
fn cache_status_ttl(answer: &common::in_process::Answer) -> i64 {
    let status = answer.header("cache-status");
    let ttl = status
        .split(';')
        .find_map(|param| param.trim().strip_prefix("ttl="))
        .unwrap_or_else(|| panic!("no ttl in {status}"));
    ttl.parse().unwrap()
}

#[tokio::test]
async fn a_policy_reload_rebuilds_a_document_from_l2_under_the_new_windows_without_rendering() {
    let redis = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bff.toml");
    let write = |ttl: &str| {
        let policy = format!("ttl = \"{ttl}\"\nstale_while_revalidate = \"0s\"\njitter = 0.0\n");
        let routes =
            ["pages", "product", "prices"].map(|route| format!("[cache.{route}]\n{policy}"));
        std::fs::write(&path, routes.concat()).unwrap();
    };
    write("1m");
    let mut config = bff::config::Config::load(&path).unwrap();
    let defaults = test_config();
    config.server = defaults.server;
    config.admin = defaults.admin;
    config.sandbox = defaults.sandbox;
    config.redis.url = redis.url();
    config.redis.key_prefix = format!("ssr-l2-reload-{}:", uuid::Uuid::new_v4());
    config.redis.command_timeout = common::BUSY_MACHINE_REDIS_TIMEOUT;
    config.web.dist_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/dist");
    config.ssr.timeout = Duration::from_millis(20_000);
    let app = common::in_process::start_reloadable(config, SECRETS, path.clone());
    let document = "/product/summit%20lr";
    let before = app.get(document).await;
    assert_eq!(before.status, 200);
    assert!(cache_status_ttl(&app.get(document).await) <= 60);
    assert_eq!(renders(&app, "ok").await, 1.0);

    // a reload changes every remembered answer's windows, never a document's bytes: the next
    // request builds it again from L2 with the new ones, and renders nothing
    write("10m");
    let reloaded = app
        .admin_post("/admin/config/reload", ADMIN_TOKEN, &json!({}))
        .await;
    assert_eq!(reloaded.status, 200, "{}", reloaded.text());
    let after = app.get(document).await;
    assert_eq!(after.text(), before.text());
    assert!(cache_status_ttl(&after) > 500, "{:?}", after.headers);
    assert_eq!(renders(&app, "ok").await, 1.0, "not rendered again");
}
