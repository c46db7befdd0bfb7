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
    let answer = app.get("/search/summit").await;
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
        body.contains(r#"Results for &quot;summit&quot;</h1>"#),
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
    assert_eq!(document_data(&html)["/api/search?q=summit"]["body"], found);
    assert_eq!(renders(&app, "ok").await, 1.0);
    // remembered, in the search results' own budget: the next one is a hit, not a render
    let again = app.get("/search/summit").await;
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
    // the document's read of the search counts as the page's search, as the browser's own would
    config.rate_limit.search_per_minute = 2;
    let app = start_with_web_build(config, &[]);
    // too short for the API (422): nothing looked up, no first screen rendered
    let short = app.get("/search/s").await;
    assert_eq!(short.status, 200);
    let html = short.text();
    assert!(html.contains(r#"<div id="root"></div>"#), "{html}");
    assert!(!html.contains("document-data"), "{html}");
    assert_eq!(
        app.upstream_calls("/strapi/products/search/{query}").await,
        0
    );
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
async fn a_document_made_from_an_answer_the_upstream_forbids_storing_is_not_kept() {
    let app = start_with_web_build(test_config(), &[]);
    app.inject_fault(json!({"route": "/strapi/products/{title}", "cacheControl": "no-store"}))
        .await;
    for _ in 0..2 {
        let answer = app.get("/product/summit%20lr").await;
        assert_eq!(answer.status, 200);
        assert!(root(&answer.text()).contains("Summit LR</h1>"));
        // no-store wins over the documents' no-cache: no browser or CDN keeps it either
        assert_eq!(answer.header("cache-control"), "no-store");
        assert!(
            !answer.header("cache-status").contains("; hit"),
            "{:?}",
            answer.headers
        );
    }
    assert_eq!(renders(&app, "ok").await, 2.0, "rendered for each request");
    assert_eq!(app.upstream_calls("/strapi/products/{title}").await, 2);
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
    config.ssr.failed_render_ttl = Duration::from_millis(500);
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
    // the failure is remembered for the document's key: the second request renders nothing
    assert_eq!(renders(&app, "fault").await, 1.0);
    assert_eq!(renders(&app, "ok").await, 0.0);
    assert_eq!(fallbacks(&app, "failed_recently").await, 1.0);
    let warnings = logs
        .lines()
        .into_iter()
        .filter(|line| {
            line["fields"]["message"]
                .as_str()
                .is_some_and(|message| message.starts_with("server render failed"))
        })
        .count();
    assert_eq!(warnings, 1, "one line per key and fill");

    // once the failure's window has passed, the document renders again
    app.state.ssr.set_fault(false);
    tokio::time::sleep(Duration::from_millis(600)).await;
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
    let answer = app.get("/search/summit%20rimfire%20gift").await;
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
        !warnings[0].contains("rimfire") && !warnings[0].contains("/search/summit"),
        "{}",
        warnings[0]
    );
    assert!(
        warnings[0].contains(r#""http.route":"/search/:query""#),
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

// ---------------------------------------------------------------------------------------------
// Issue 43: one document per page a shopper can see.

const SUMMIT: &str = "/product/summit%20lr";

/// Every server render, whatever its outcome.
async fn all_renders(app: &InProcess) -> f64 {
    app.metrics()
        .await
        .by_label("bff_ssr_renders_total", &[], "outcome")
        .values()
        .sum()
}

/// Renders of a first screen, whatever their outcome: every render but the loaders' passes
/// (`outcome="needs"`), which run a page's loaders to learn its reads and render nothing.
async fn screen_renders(app: &InProcess) -> f64 {
    all_renders(app).await - renders(app, "needs").await
}

async fn fallbacks(app: &InProcess, reason: &str) -> f64 {
    app.metrics()
        .await
        .value("bff_ssr_fallbacks_total", &[("reason", reason)])
        .unwrap_or(0.0)
}

/// The documents this replica remembers (`/admin/cache`).
async fn documents_in_l1(app: &InProcess) -> u64 {
    common::cache_stats::cache_stats(app, ADMIN_TOKEN).await["documents"]
        .as_u64()
        .unwrap()
}

/// The `href` of the document's `<link rel=canonical>`.
fn canonical_link(html: &str) -> &str {
    let marker = r#"<link data-seo rel="canonical" href=""#;
    let start = html.find(marker).unwrap() + marker.len();
    let end = html[start..].find('"').unwrap() + start;
    &html[start..end]
}

#[tokio::test]
async fn thirty_spellings_of_a_product_path_redirect_to_one_document_rendered_once() {
    let redis = RedisServer::start();
    let prefix = format!("ssr-spellings-{}:", uuid::Uuid::new_v4());
    let app = start_with_web_build(sharing(&redis, &prefix), SECRETS);
    let spellings = [
        "/product/Summit%20LR",
        "/product/SUMMIT%20LR",
        "/product/summit%20LR",
        "/product/sUMMIT%20lR",
        "/product/%73ummit%20lr",
        "/product/%53UMMIT%20LR",
        "/product/summi%74%20lr",
        "/product/summit%20%6Cr",
        "/product/%20summit%20lr",
        "/product/summit%20lr%20",
        "/product/%20summit%20lr%20",
        "/product/%20%20summit%20lr",
        "/product/summit%20lr%20%20",
        "/product/%09summit%20lr",
        "/product/summit%20lr%09",
        "/product/%09summit%20lr%09",
        "/product/%20%09summit%20lr",
        "/product/summit%20lr%09%20",
        "/product/Summit%20LR%20",
        "/product/%09SUMMIT%20LR",
        "/product/%73ummit%20lr%09",
        "/product/summit%20lr/",
        "/product/SUMMIT%20LR/",
        "/product/%20Summit%20Lr/",
        "/product/Summit%20LR?utm_source=newsletter&utm_medium=email",
        "/product/%73ummit%20lr?gclid=abc123",
        "/product/summit%20lr%20?ref=footer&utm_content=x",
        "/product/%20summit%20lr?fbclid=x&made_up=1",
        "/product/SUMMIT%20lr%09?utm_campaign=spring%20sale",
        "/product/%09%73UMMIT%20LR%20?q=a&sort=title-asc",
    ];
    assert_eq!(spellings.len(), 30);
    for spelling in spellings {
        let answer = app.get(spelling).await;
        assert_eq!(answer.status, 301, "{spelling}: {:?}", answer.headers);
        let query = spelling.split_once('?').map(|(_, query)| query);
        let expected = match query {
            Some(query) => format!("{SUMMIT}?{query}"),
            None => SUMMIT.to_owned(),
        };
        assert_eq!(answer.header("location"), expected, "{spelling}");
        assert!(!answer.text().contains("aria-busy"), "{spelling}");
    }
    assert_eq!(all_renders(&app).await, 0.0, "no spelling renders");
    assert_eq!(documents_in_l1(&app).await, 0);

    // the redirect's target is the canonical URL, and its document has its first screen
    let canonical = app.get(SUMMIT).await;
    let html = canonical.text();
    assert_eq!(canonical.status, 200);
    assert!(root(&html).contains("Summit LR</h1>"), "{html}");
    assert!(!root(&html).contains(r#"aria-busy="true""#), "{html}");
    assert!(canonical_link(&html).ends_with(SUMMIT), "{html}");
    for spelling in spellings {
        let location = app.get(spelling).await.header("location").to_owned();
        let answer = app.get(&location).await;
        assert_eq!(answer.status, 200, "{location}");
    }
    assert_eq!(
        screen_renders(&app).await,
        1.0,
        "one render for every spelling"
    );
    assert_eq!(
        renders(&app, "needs").await,
        1.0,
        "one loaders' pass, the first time the page was asked for"
    );
    assert_eq!(documents_in_l1(&app).await, 1);
    let stored = redis.cli(&["--scan", "--pattern", &format!("{prefix}*document*")]);
    assert_eq!(stored.lines().count(), 1, "{stored}");
}

/// The values of the `<option>`s the markup marks selected.
fn selected_options(markup: &str) -> Vec<String> {
    markup
        .split("<option")
        .skip(1)
        .filter(|option| option[..option.find('>').unwrap()].contains(r#"selected="""#))
        .map(|option| {
            let start = option.find(r#"value=""#).unwrap() + r#"value=""#.len();
            let end = option[start..].find('"').unwrap() + start;
            option[start..end].to_owned()
        })
        .collect()
}

/// The markup of the price group.
fn price_group(markup: &str) -> &str {
    let start = markup.find(r#"aria-label="Price""#).unwrap();
    let end = markup[start..].find("</div>").unwrap() + start;
    &markup[start..end]
}

#[tokio::test]
async fn a_variant_link_shows_its_sku_or_tab_on_the_first_screen() {
    let app = start_with_web_build(test_config(), SECRETS);
    let product = app.get("/api/products/summit%20lr").await.json();
    let default_price = displayed_price(&product);
    let sku = product["skus"]
        .as_array()
        .unwrap()
        .iter()
        .find(|sku| {
            sku["finalPrice"].as_f64().unwrap() != default_price
                && sku["discountPercentage"].as_f64() == Some(0.0)
        })
        .unwrap()
        .clone();
    let code = sku["sku"].as_str().unwrap();
    // as a shared link may spell it (the app compares skus ignoring case)
    let path = format!("{SUMMIT}?sku={}&utm_source=share", code.to_lowercase());
    let answer = app.get(&path).await;
    assert_eq!(answer.status, 200);
    let html = answer.text();
    let body = root(&html);
    let price = price_group(body);
    assert!(
        price.contains(&usd(sku["finalPrice"].as_f64().unwrap())),
        "{price}"
    );
    assert!(!price.contains(&usd(default_price)), "{price}");
    let options: Vec<String> = sku["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|variant| html_text(variant["label"].as_str().unwrap()))
        .collect();
    assert_eq!(selected_options(body), options, "{body}");
    // one page, one canonical URL
    assert_eq!(
        canonical_link(&html),
        format!("http://localhost:8080{SUMMIT}")
    );
    assert_eq!(renders(&app, "ok").await, 1.0);
    // the variant is a document of its own: remembered, a hit from the hit path, whatever
    // the case of its value
    let again = app.get(&format!("{SUMMIT}?sku={code}")).await;
    assert!(
        again.header("cache-status").contains("; hit"),
        "{:?}",
        again.headers
    );
    assert_eq!(again.text(), html);
    let canonical = app.get(SUMMIT).await.text();
    assert!(price_group(root(&canonical)).contains(&usd(default_price)));
    assert_eq!(renders(&app, "ok").await, 2.0);

    // a tab of a tabbed collection: that tab selected, with its products
    let collection = app.get("/api/collections/rifles").await.json();
    let tab = collection["filterCategories"][0]["options"][1]["value"]
        .as_str()
        .unwrap()
        .to_owned();
    let category = collection["filterCategories"][0]["title"].as_str().unwrap();
    let in_tab: Vec<&str> =
        collection["products"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|card| {
                card["filterOptions"].as_array().unwrap().iter().any(|tag| {
                    tag["filterCategory"] == category && tag["filterValue"] == tab.as_str()
                })
            })
            .map(|card| card["title"].as_str().unwrap())
            .collect();
    assert!(!in_tab.is_empty() && in_tab.len() < collection["products"].as_array().unwrap().len());
    let html = app
        .get(&format!(
            "/collection/rifles?activeFilter={}",
            tab.to_lowercase()
        ))
        .await
        .text();
    let body = root(&html);
    let selected = &body[body.find(r#"aria-selected="true""#).unwrap()..];
    let selected = &selected[selected.find('>').unwrap() + 1..selected.find("</button>").unwrap()];
    assert_eq!(selected, html_text(&tab));
    assert_eq!(
        body.matches(r#"class="product-card""#).count(),
        in_tab.len(),
        "{body}"
    );
    for title in in_tab {
        assert!(
            body.contains(&format!(">{}</", html_text(title))),
            "{title}"
        );
    }
    assert_eq!(
        canonical_link(&html),
        "http://localhost:8080/collection/rifles"
    );
}

#[tokio::test]
async fn made_up_parameters_and_unknown_values_make_no_render_and_no_entry() {
    let app = start_with_web_build(test_config(), SECRETS);
    let product = app.get(SUMMIT).await;
    let collection = app.get("/collection/rifles").await;
    assert_eq!(renders(&app, "ok").await, 2.0);
    assert_eq!(documents_in_l1(&app).await, 2);
    let rendered = all_renders(&app).await;
    let displayed = app.get("/api/products/summit%20lr").await.json()["displayedSku"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut rng = fastrand::Rng::with_seed(43);
    for request in 0..50 {
        let word: String = (0..8).map(|_| rng.lowercase()).collect();
        let (path, same_as) = match request % 10 {
            0 => (
                format!("{SUMMIT}?utm_source={word}&utm_medium=cpc"),
                &product,
            ),
            1 => (format!("{SUMMIT}?gclid={word}"), &product),
            2 => (format!("{SUMMIT}?fbclid={word}&{word}=1"), &product),
            3 => (format!("{SUMMIT}?sku=TF-{word}"), &product),
            4 => (format!("{SUMMIT}?sku={displayed}&x={word}"), &product),
            5 => (
                format!("{SUMMIT}?activeFilter=Semi-Auto&{word}={word}"),
                &product,
            ),
            6 => (format!("/collection/rifles?{word}={word}"), &collection),
            7 => (
                format!("/collection/rifles?activeFilter={word}"),
                &collection,
            ),
            8 => (
                format!("/collection/rifles?activeFilter=All&sku={word}"),
                &collection,
            ),
            _ => (
                format!("/collection/rifles?utm_campaign={word}"),
                &collection,
            ),
        };
        let answer = app.get(&path).await;
        assert_eq!(answer.status, 200, "{path}");
        assert_eq!(answer.header("etag"), same_as.header("etag"), "{path}");
    }
    assert_eq!(
        all_renders(&app).await,
        rendered,
        "no new render, not even a loaders' pass"
    );
    assert_eq!(documents_in_l1(&app).await, 2, "no new entry");
}

#[tokio::test]
async fn one_client_renders_no_more_than_its_budget() {
    const BUDGET: u32 = 10;
    let mut config = test_config();
    config.rate_limit.renders_per_minute = BUDGET;
    config.rate_limit.search_per_minute = 1_000;
    let app = start_with_web_build(config, SECRETS);
    // distinct real variants: every non-default sku of every product, every tab of the rifles
    let mut paths = Vec::new();
    for api in common::cache_stats::catalogue_and_pages() {
        let Some(title) = api.strip_prefix("/api/products/") else {
            continue;
        };
        let product = app.get(&api).await.json();
        for sku in product["skus"].as_array().into_iter().flatten() {
            if sku["sku"] != product["displayedSku"] {
                paths.push(format!(
                    "/product/{title}?sku={}",
                    sku["sku"].as_str().unwrap()
                ));
            }
        }
    }
    for tab in ["bolt%20action", "semi-auto", "rimfire", "lever%20action"] {
        paths.push(format!("/collection/rifles?activeFilter={tab}"));
    }
    // and distinct search terms
    let mut term = 0;
    while paths.len() < 200 {
        term += 1;
        paths.push(format!("/search/rifle{term}"));
    }
    paths.truncate(200);
    let before = screen_renders(&app).await;
    let needs_before = renders(&app, "needs").await;
    let started = std::time::Instant::now();
    let mut shells = 0u32;
    for path in &paths {
        let answer = app.get(path).await;
        assert_eq!(answer.status, 200, "{path}");
        let html = answer.text();
        assert!(
            html.contains(r#"id="document-data""#),
            "{path}: the page's data"
        );
        if html.contains(r#"<div id="root"></div>"#) {
            shells += 1;
        }
    }
    let screens = screen_renders(&app).await - before;
    // the budget counts first screens; a page's loaders' pass (a few ms that render nothing)
    // runs once per page, however many variants of it are asked for
    let pages: std::collections::HashSet<&str> = paths
        .iter()
        .map(|path| path.split_once('?').map_or(path.as_str(), |(path, _)| path))
        .collect();
    let passes = renders(&app, "needs").await - needs_before;
    assert!(
        passes <= pages.len() as f64,
        "{passes} loaders' passes for {} pages",
        pages.len()
    );
    // the budget refills at BUDGET a minute
    let refilled = (started.elapsed().as_secs_f64() * f64::from(BUDGET) / 60.0).floor();
    assert!(
        screens <= f64::from(BUDGET) + refilled,
        "{screens} renders, budget {BUDGET} + {refilled}"
    );
    assert!(
        f64::from(shells) >= 200.0 - f64::from(BUDGET) - refilled,
        "{shells}"
    );
    assert_eq!(fallbacks(&app, "over_budget").await, f64::from(shells));
}

#[tokio::test]
async fn a_footer_that_cannot_render_costs_one_render_per_document_and_window() {
    let (logs, _guard) = capture_logs();
    let app = start_with_web_build(test_config(), SECRETS);
    let (status, _) = app
        .sandbox_call(
            axum::http::Method::PUT,
            "/sandbox/pages/footer/variant",
            Some(&json!({"variant": "unrenderable"})),
        )
        .await;
    assert!(status.is_success());
    let pages = [
        "/",
        SUMMIT,
        "/collection/rifles",
        "/about-us",
        "/search/summit",
    ];
    let mut took = Vec::new();
    for request in 0..100 {
        let path = pages[request % pages.len()];
        let started = std::time::Instant::now();
        let answer = app.get(path).await;
        took.push(started.elapsed());
        assert_eq!(answer.status, 200, "{path}");
        let html = answer.text();
        // the shell with the data inlined, the broken footer's among it
        assert!(html.contains(r#"<div id="root"></div>"#), "{path}: {html}");
        assert!(
            document_data(&html)["/api/pages/footer"]["status"] == 200,
            "{path}"
        );
    }
    took.sort_unstable();
    println!(
        "100 documents under a broken footer: p50 {:?}, p99 {:?} (in process)",
        took[49], took[98]
    );
    let failed = screen_renders(&app).await;
    assert!((1.0..=pages.len() as f64).contains(&failed), "{failed}");
    let passes = renders(&app, "needs").await;
    assert!(
        passes <= pages.len() as f64,
        "one loaders' pass per page at most: {passes}"
    );
    assert_eq!(renders(&app, "ok").await, 0.0);
    assert_eq!(fallbacks(&app, "failed_recently").await, 100.0 - failed);
    let loads = app
        .metrics()
        .await
        .value("bff_ssr_engine_loads_total", &[("outcome", "ok")])
        .unwrap_or(0.0);
    assert_eq!(loads, 1.0, "no engine reload after the first load");
    let lines: Vec<Value> = logs
        .lines()
        .into_iter()
        .filter(|line| {
            line["fields"]["message"]
                .as_str()
                .is_some_and(|message| message.starts_with("server render failed"))
        })
        .collect();
    assert_eq!(lines.len() as f64, failed, "one line per key and fill");
    for line in &lines {
        let route = line["fields"]["http.route"].as_str().unwrap();
        assert!(
            route.starts_with('/') && !route.contains("summit"),
            "{line}"
        );
        let text = line.to_string();
        assert!(
            !text.contains("summit%20lr") && !text.contains("/search/summit"),
            "{line}"
        );
    }
}

fn unbrotli(body: &[u8]) -> Vec<u8> {
    let mut decoded = Vec::new();
    std::io::Read::read_to_end(&mut brotli::Decompressor::new(body, 4096), &mut decoded).unwrap();
    decoded
}

/// A document is compressed at brotli's quality 9 while its first shopper waits, then again at
/// the best quality in the background: the hits after that get fewer bytes of the same page
/// (the same `ETag`), here and, through L2, on the other replicas.
#[tokio::test]
async fn a_documents_hits_get_brotlis_best_once_it_is_recompressed_here_and_in_l2() {
    let redis = RedisServer::start();
    let prefix = format!("ssr-br-{}:", uuid::Uuid::new_v4());
    let first = start_with_web_build(sharing(&redis, &prefix), &[]);
    let browser = [("accept-encoding", "br, gzip")];
    let filled = first.get_with("/product/summit%20lr", &browser).await;
    assert_eq!(filled.header("content-encoding"), "br");
    let page = unbrotli(&filled.body);
    assert!(String::from_utf8_lossy(&page).contains("Summit LR</h1>"));

    let mut hit = first.get_with("/product/summit%20lr", &browser).await;
    for _ in 0..100 {
        if hit.body.len() < filled.body.len() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        hit = first.get_with("/product/summit%20lr", &browser).await;
    }
    assert!(
        hit.body.len() < filled.body.len(),
        "recompressed: {} bytes, as filled {}",
        hit.body.len(),
        filled.body.len()
    );
    assert!(
        hit.header("cache-status").contains("; hit"),
        "{:?}",
        hit.headers
    );
    assert_eq!(unbrotli(&hit.body), page, "the same page");
    assert_eq!(hit.header("etag"), filled.header("etag"));

    // another replica reads the smaller variant from L2, and renders nothing
    let second = start_with_web_build(sharing(&redis, &prefix), &[]);
    let shared = second.get_with("/product/summit%20lr", &browser).await;
    assert_eq!(shared.body, hit.body, "L2 holds the recompressed variant");
    assert_eq!(renders(&second, "ok").await, 0.0);
    assert_eq!(renders(&first, "ok").await, 1.0);
}

/// Issue 48, "Done when": a real product page whose upstream is 4 s slow. Its reads are waited
/// for off the render thread: the render's time limit (3 s, below the upstream's latency) is
/// never reached, no engine is reloaded, the document renders once with the product's data, and
/// the one render thread fills another page's document meanwhile.
#[tokio::test]
async fn a_slow_products_cold_document_renders_once_and_never_holds_the_thread() {
    let latency = Duration::from_secs(4);
    let mut config = test_config();
    config.ssr.threads = 1;
    config.ssr.timeout = Duration::from_secs(3);
    let app = start_with_web_build(config, &[]);
    // a content page whose parts are cached, its document not rendered yet
    for page in ["aboutus", "app", "footer"] {
        assert_eq!(app.get(&format!("/api/pages/{page}")).await.status, 200);
    }
    // the thread's engine, loaded once at start
    let engine_loads = || async {
        app.metrics()
            .await
            .value("bff_ssr_engine_loads_total", &[("outcome", "ok")])
            .unwrap_or(0.0)
    };
    for _ in 0..200 {
        if engine_loads().await > 0.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(engine_loads().await, 1.0);
    app.inject_fault(
        json!({"route": "/strapi/products/{title}", "latencyMs": latency.as_millis() as u64}),
    )
    .await;
    let started = std::time::Instant::now();
    let slow = common::in_process::spawn_get(&app, SUMMIT, started);
    // the slow document's loaders' pass has given the thread back: another document fills
    tokio::time::sleep(Duration::from_millis(500)).await;
    let other = app.get("/about-us").await;
    let other_done = started.elapsed();
    assert_eq!(other.status, 200);
    assert!(root(&other.text()).contains("<h1"), "{}", other.text());
    let (html, slow_done) = slow.await.unwrap();
    assert!(slow_done >= latency, "{slow_done:?}");
    assert!(
        other_done < latency,
        "the cached page's document ({other_done:?}) waited behind the slow one ({slow_done:?})"
    );
    assert!(root(&html).contains("Summit LR</h1>"), "{html}");
    assert_eq!(
        renders(&app, "ok").await,
        2.0,
        "each document rendered once"
    );
    assert_eq!(renders(&app, "timeout").await, 0.0);
    assert_eq!(engine_loads().await, 1.0, "no engine reloaded");
    app.clear_faults().await;
}
