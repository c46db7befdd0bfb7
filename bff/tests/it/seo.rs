//! What crawlers and link unfurlers get without running JavaScript: each page's head in the
//! first HTML byte (from the edge cache), the status codes, `/robots.txt` and `/sitemap.xml`.
//! Over the real web build: a page's head is made from the answers its render read.
#![allow(clippy::unwrap_used)]

use crate::common;

use axum::Router;
use axum::routing::get;
use bff::edge::state::Transports;
use bff::upstream::transport::in_process;
use common::SandboxHooks;
use common::in_process::{Answer, InProcess, start_with_web_build, start_with_web_build_over};
use common::test_config;
use serde_json::{Value, json};

const ORIGIN: &str = "http://localhost:8080";

/// The `content` of `<meta data-seo {attribute}="{key}" content="…">`, as written (escaped).
fn meta(html: &str, attribute: &str, key: &str) -> Option<String> {
    let marker = format!(r#"{attribute}="{key}" content=""#);
    let start = html.find(&marker)? + marker.len();
    let end = html[start..].find('"')? + start;
    Some(html[start..end].to_owned())
}

fn title(html: &str) -> String {
    let start = html.find("<title data-seo>").unwrap() + "<title data-seo>".len();
    let end = html[start..].find("</title>").unwrap() + start;
    html[start..end].to_owned()
}

fn canonical(html: &str) -> String {
    let marker = r#"<link data-seo rel="canonical" href=""#;
    let start = html.find(marker).unwrap() + marker.len();
    let end = html[start..].find('"').unwrap() + start;
    html[start..end].to_owned()
}

fn json_ld(html: &str) -> Option<Value> {
    let marker = r#"<script data-seo type="application/ld+json">"#;
    let start = html.find(marker)? + marker.len();
    let end = html[start..].find("</script>")? + start;
    Some(serde_json::from_str(&html[start..end]).unwrap())
}

/// The head every page carries, whatever else it has.
fn assert_common_head(html: &str, path: &str) {
    assert_eq!(html.matches("<title").count(), 1, "{path}: one title");
    assert_eq!(
        html.matches(r#"name="description""#).count(),
        1,
        "{path}: one description"
    );
    for key in [
        "og:title",
        "og:description",
        "og:image",
        "og:url",
        "og:type",
    ] {
        assert!(meta(html, "property", key).is_some(), "{path}: {key}");
    }
    assert!(meta(html, "name", "twitter:card").is_some(), "{path}");
    assert_eq!(meta(html, "property", "og:url").unwrap(), canonical(html));
    assert!(html.contains(r#"<div id="root">"#), "{path}: the app shell");
    assert!(
        html.contains(r#"<script id="runtime-config" type="application/json">{"#),
        "{path}: the runtime config"
    );
}

/// The app over the sandbox, serving the real web build: documents are server-rendered, their
/// heads made from the answers their render read.
fn start() -> InProcess {
    start_with_web_build(test_config(), &[])
}

async fn page(app: &InProcess, path: &str) -> (Answer, String) {
    let answer = app.get(path).await;
    let html = answer.text();
    (answer, html)
}

#[tokio::test]
async fn home_and_content_pages_carry_their_metadata_and_cache_headers() {
    let app = start();
    for (path, name) in [("/", "home"), ("/about-us", "aboutus"), ("/faq", "faq")] {
        let content = app.get(&format!("/api/pages/{name}")).await.json();
        let (answer, html) = page(&app, path).await;
        assert_eq!(answer.status, 200, "{path}");
        assert!(answer.header("content-type").starts_with("text/html"));
        assert_common_head(&html, path);
        assert_eq!(title(&html), content["metaData"]["title"].as_str().unwrap());
        assert_eq!(
            meta(&html, "name", "description").unwrap(),
            content["metaData"]["description"].as_str().unwrap()
        );
        assert_eq!(canonical(&html), format!("{ORIGIN}{path}"));
        assert_eq!(meta(&html, "property", "og:type").unwrap(), "website");
        assert_eq!(meta(&html, "name", "robots"), None, "{path}: indexable");
        assert!(answer.header("etag").starts_with('"'), "{path}");
        assert!(
            answer
                .header("surrogate-key")
                .split(' ')
                .any(|tag| tag == format!("page:{name}")),
            "{path}: {}",
            answer.header("surrogate-key")
        );
        // towards browsers a document is revalidated on every visit (agreed with the deploys
        // issue): its ETag makes that a 304; the parts' windows stay with the edge cache
        assert_eq!(answer.header("cache-control"), "no-cache", "{path}");
    }
}

#[tokio::test]
async fn a_product_carries_its_price_availability_and_json_ld() {
    let app = start();
    for (path, api, in_stock) in [
        (
            "/product/vanguard%2015",
            "/api/products/vanguard%2015",
            true,
        ),
        (
            "/product/falcon%2010mm",
            "/api/products/falcon%2010mm",
            false,
        ),
    ] {
        let product = app.get(api).await.json();
        let displayed = product["displayedSku"].as_str().unwrap();
        let sku = product["skus"]
            .as_array()
            .unwrap()
            .iter()
            .find(|sku| sku["sku"] == displayed)
            .unwrap();
        assert_eq!(sku["inStock"], in_stock, "{path}: the fixture");
        let final_price = sku["finalPrice"].as_f64().unwrap();

        let (answer, html) = page(&app, path).await;
        assert_eq!(answer.status, 200, "{path}");
        assert_common_head(&html, path);
        assert_eq!(title(&html), product["metaData"]["title"].as_str().unwrap());
        assert_eq!(meta(&html, "property", "og:type").unwrap(), "product");
        let canonical_url = canonical(&html);
        assert_eq!(
            canonical_url,
            format!(
                "{ORIGIN}/product/{}",
                path.rsplit('/').next().unwrap().to_lowercase()
            )
        );
        assert_eq!(
            meta(&html, "property", "product:price:amount").unwrap(),
            format!("{final_price:.2}")
        );
        assert_eq!(
            meta(&html, "property", "product:availability").unwrap(),
            if in_stock { "in stock" } else { "out of stock" }
        );
        let ld = json_ld(&html).unwrap();
        assert_eq!(ld["@type"], "Product");
        assert_eq!(ld["name"], product["title"]);
        assert_eq!(ld["sku"], displayed);
        assert_eq!(ld["brand"]["name"], "Talonforge Arms");
        assert!(ld["image"].as_str().unwrap().starts_with("http"), "{ld}");
        assert!(!ld["description"].as_str().unwrap().is_empty());
        assert_eq!(ld["offers"]["priceCurrency"], "USD");
        assert_eq!(
            ld["offers"]["price"]
                .as_str()
                .unwrap()
                .parse::<f64>()
                .unwrap(),
            final_price
        );
        assert_eq!(
            ld["offers"]["availability"],
            if in_stock {
                "https://schema.org/InStock"
            } else {
                "https://schema.org/OutOfStock"
            }
        );
        let keys = answer.header("surrogate-key");
        assert!(keys.contains("prices"), "{keys}");
        assert!(keys.contains("product:"), "{keys}");
    }
    // a discounted sku: the composed final price, not the listed one
    let html = app.get("/product/vanguard%2015").await.text();
    assert_eq!(json_ld(&html).unwrap()["offers"]["price"], "1169.99");
}

#[tokio::test]
async fn the_second_request_for_a_products_html_makes_no_upstream_call() {
    let app = start();
    let first = app.get("/product/summit%20lr").await;
    assert_eq!(first.status, 200);
    let products = app.upstream_calls("/strapi/products/{title}").await;
    let prices = app.upstream_calls("/Products").await;
    assert_eq!((products, prices), (1, 1));
    // another spelling is a redirect to the page's one URL: nothing looked up
    let spelled = app.get("/product/Summit%20LR").await;
    assert_eq!(spelled.status, 301);
    assert_eq!(spelled.header("location"), "/product/summit%20lr");
    let again = app.get("/product/summit%20lr").await;
    assert_eq!(again.status, 200);
    assert_eq!(app.upstream_calls("/strapi/products/{title}").await, 1);
    assert_eq!(app.upstream_calls("/Products").await, 1);
    assert!(
        again.header("cache-status").contains("hit"),
        "{}",
        again.header("cache-status")
    );
    assert_eq!(again.header("etag"), first.header("etag"));
    let not_modified = app
        .get_if_none_match("/product/summit%20lr", first.header("etag"))
        .await;
    assert_eq!(not_modified.status, 304);
}

#[tokio::test]
async fn a_content_purge_refreshes_the_html() {
    let app = start();
    app.get("/about-us").await;
    // the page and the frame's (`app`, `footer`), each fetched once
    let calls = app.upstream_calls("/strapi/page/{name}").await;
    assert_eq!(calls, 3);
    app.get("/about-us").await;
    assert_eq!(app.upstream_calls("/strapi/page/{name}").await, calls);
    app.state
        .cache
        .purge_tags(&["page:aboutus".to_owned()])
        .await;
    let after = app.get("/about-us").await;
    assert_eq!(app.upstream_calls("/strapi/page/{name}").await, calls + 1);
    assert!(
        after.header("cache-status").contains("miss"),
        "{:?}",
        after.headers
    );
}

#[tokio::test]
async fn a_collection_and_a_search_page_carry_their_heads() {
    let app = start();
    let collection = app.get("/api/collections/rifles").await.json();
    let (answer, html) = page(&app, "/collection/rifles").await;
    assert_eq!(answer.status, 200);
    assert_common_head(&html, "/collection/rifles");
    assert_eq!(
        title(&html),
        collection["metaData"]["title"].as_str().unwrap()
    );
    assert_eq!(
        meta(&html, "name", "description").unwrap(),
        collection["metaData"]["description"].as_str().unwrap()
    );
    assert_eq!(canonical(&html), format!("{ORIGIN}/collection/rifles"));
    assert!(answer.header("surrogate-key").contains("collection:rifles"));

    let spelled = app.get("/about-us/?utm_source=x").await;
    assert_eq!(spelled.status, 301);
    assert_eq!(spelled.header("location"), "/about-us?utm_source=x");
    let html = app.get("/about-us?utm_source=x").await.text();
    assert_eq!(
        canonical(&html),
        format!("{ORIGIN}/about-us"),
        "one URL per page"
    );

    let (answer, html) = page(&app, "/search/summit").await;
    assert_eq!(answer.status, 200);
    assert_common_head(&html, "/search/summit");
    assert_eq!(
        title(&html),
        "Results for &quot;summit&quot; | Talonforge Arms",
        "as the app's search page titles itself"
    );
    assert_eq!(canonical(&html), format!("{ORIGIN}/search/summit"));
}

#[tokio::test]
async fn unknown_paths_products_and_collections_are_404s_with_the_app_shell() {
    let app = start();
    for path in [
        "/no/such/page",
        "/About-Us",
        "/product/no%20such%20rifle",
        "/collection/no%20such%20collection",
    ] {
        let (answer, html) = page(&app, path).await;
        assert_eq!(answer.status, 404, "{path}");
        assert!(
            answer.header("content-type").starts_with("text/html"),
            "{path}"
        );
        assert_common_head(&html, path);
        assert!(title(&html).starts_with("Page not found"), "{path}");
        assert_eq!(meta(&html, "name", "robots").as_deref(), Some("noindex"));
    }
    // the unknown product's 404 is the cache's negative entry: no second upstream call
    let calls = app.upstream_calls("/strapi/products/{title}").await;
    // a title longer than any is a 404 at once, with no upstream call either
    let long = format!("/product/{}x", "a".repeat(200));
    let (answer, html) = page(&app, &long).await;
    assert_eq!(answer.status, 404, "{long}");
    assert!(title(&html).starts_with("Page not found"), "{long}");
    assert_eq!(app.upstream_calls("/strapi/products/{title}").await, calls);
    let again = app.get("/product/no%20such%20rifle").await;
    assert_eq!(again.status, 404);
    assert_eq!(app.upstream_calls("/strapi/products/{title}").await, calls);
    assert!(
        app.upstream_calls("/Products").await <= 1,
        "the price map is looked up beside the content (concurrently), then cached"
    );
}

#[tokio::test]
async fn home_is_a_permanent_redirect_to_the_root() {
    let app = start();
    let answer = app.get("/home").await;
    assert_eq!(answer.status, 301);
    assert_eq!(answer.header("location"), "/");
}

#[tokio::test]
async fn private_pages_are_noindex_and_shop_pages_are_not() {
    let app = start();
    for path in [
        "/checkout",
        "/confirm/42",
        "/profile",
        "/profile/orders/7",
        "/login",
        "/register",
        "/forgot-password",
        "/auth/reset-password",
        "/verify-email",
        "/Newsletter/verify/abc",
    ] {
        let (answer, html) = page(&app, path).await;
        assert_eq!(answer.status, 200, "{path}");
        assert_eq!(
            meta(&html, "name", "robots").as_deref(),
            Some("noindex"),
            "{path}"
        );
    }
    for path in [
        "/",
        "/product/summit%20lr",
        "/collection/rifles",
        "/support",
    ] {
        let html = app.get(path).await.text();
        assert_eq!(meta(&html, "name", "robots"), None, "{path}");
    }
}

/// The content service, with one product whose title tries to break out of every context.
fn with_hostile_product(sandbox: Router) -> Transports {
    let hostile = || async {
        axum::Json(json!([{
            "title": r#"Evil <b>"Rifle"</b> </script><script>alert(1)</script>"#,
            "subtitle": "A & B",
            "metaData": {"title": r#"<Evil> "Rifle" </script>"#, "description": r#"</script><!-- "x""#},
            "imgUrl": {"src": "/media/x.svg\"><script>", "alt": ""},
            "skus": [{"sku": "TF-SLR-65CM-24-BLK", "price": 10, "variants": []}],
        }]))
    };
    let content = Router::new()
        .route("/strapi/products/evil", get(hostile))
        .fallback_service(sandbox.clone());
    Transports {
        commerce: Some(in_process("commerce", sandbox)),
        content: Some(in_process("content", content)),
    }
}

#[tokio::test]
async fn titles_cannot_break_out_of_the_head() {
    let app = start_with_web_build_over(test_config(), &[], with_hostile_product);
    let (answer, html) = page(&app, "/product/evil").await;
    assert_eq!(answer.status, 200);
    let head = &html[..html.find("</head>").unwrap()];
    assert!(!head.contains("<Evil>") && !head.contains("<b>"), "{head}");
    assert!(!head.contains("<script>alert"), "{head}");
    assert!(!head.contains("<!--"), "{head}");
    assert!(!head.contains(r#"svg"><script>"#), "{head}");
    assert_eq!(
        title(&html),
        "&lt;Evil&gt; &quot;Rifle&quot; &lt;/script&gt;"
    );
    // one script for the JSON-LD, one for the config, one for the app: no injected ones
    assert_eq!(head.matches("<script").count(), 3, "{head}");
    let ld = json_ld(&html).unwrap();
    assert_eq!(
        ld["name"],
        r#"Evil <b>"Rifle"</b> </script><script>alert(1)</script>"#
    );
    assert_eq!(ld["description"], r#"</script><!-- "x""#);
}

#[tokio::test]
async fn robots_txt_is_plain_text_from_the_config() {
    let app = start();
    let answer = app.get("/robots.txt").await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("content-type"), "text/plain; charset=utf-8");
    assert_eq!(answer.header("cache-control"), "public, max-age=3600");
    let text = answer.text();
    assert!(text.starts_with("User-agent: *\nAllow: /\n"), "{text}");
    for prefix in [
        "/checkout",
        "/confirm/",
        "/profile",
        "/login",
        "/auth/",
        "/verify-email",
        "/search/",
    ] {
        assert!(
            text.contains(&format!("\nDisallow: {prefix}\n")),
            "{prefix}: {text}"
        );
    }
    assert!(
        text.contains(&format!("Sitemap: {ORIGIN}/sitemap.xml\n")),
        "{text}"
    );
    assert!(!text.contains("<"), "not the app shell");
}

/// Every product and collection title in the sandbox's catalogue fixtures.
fn fixture_titles() -> (Vec<String>, Vec<String>) {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sandbox/fixtures/catalogue");
    let mut products = Vec::new();
    let mut collections = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let items: Vec<Value> = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let titles = items
            .iter()
            .map(|item| item["title"].as_str().unwrap().to_lowercase());
        if path.file_name().unwrap() == "collections.json" {
            collections.extend(titles);
        } else {
            products.extend(titles);
        }
    }
    (products, collections)
}

fn encoded(title: &str) -> String {
    title.replace('%', "%25").replace(' ', "%20")
}

#[tokio::test]
async fn the_sitemap_lists_every_product_collection_and_content_page() {
    let app = start();
    let answer = app.get("/sitemap.xml").await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.header("content-type"),
        "application/xml; charset=utf-8"
    );
    assert!(
        answer
            .header("cache-control")
            .starts_with("public, max-age=")
    );
    assert!(answer.header("etag").starts_with('"'));
    let xml = answer.text();
    assert!(xml.starts_with("<?xml"), "{xml}");
    let (products, collections) = fixture_titles();
    assert!(products.len() > 40 && collections.len() >= 10);
    for title in &products {
        let loc = format!("<loc>{ORIGIN}/product/{}</loc>", encoded(title));
        assert!(xml.contains(&loc), "{loc}");
    }
    for title in &collections {
        let loc = format!("<loc>{ORIGIN}/collection/{}</loc>", encoded(title));
        assert!(xml.contains(&loc), "{loc}");
    }
    for path in ["/", "/about-us", "/faq", "/warranty", "/terms-of-service"] {
        assert!(
            xml.contains(&format!("<loc>{ORIGIN}{path}</loc>")),
            "{path}"
        );
    }
    for private in ["/checkout", "/profile", "/login", "/search/", "/home<"] {
        assert!(!xml.contains(&format!("{ORIGIN}{private}")), "{private}");
    }
    let keys = answer.header("surrogate-key");
    assert!(keys.contains("collection:rifles"), "{keys}");
    assert!(
        keys.contains("product:summit%20lr"),
        "purging a product reaches it: {keys}"
    );
}

#[tokio::test]
async fn the_sitemap_is_cached_and_a_catalogue_purge_refreshes_it() {
    let app = start();
    let first = app.get("/sitemap.xml").await;
    let groups = app.upstream_calls("/strapi/product-groups/{title}").await;
    assert!(groups >= 10, "{groups}");
    let again = app.get("/sitemap.xml").await;
    assert_eq!(
        app.upstream_calls("/strapi/product-groups/{title}").await,
        groups,
        "served from the cache"
    );
    assert_eq!(again.header("etag"), first.header("etag"));
    assert!(again.header("cache-status").contains("hit"));
    app.state
        .cache
        .purge_tags(&["product:summit lr".to_owned()])
        .await;
    let after = app.get("/sitemap.xml").await;
    assert!(
        app.upstream_calls("/strapi/product-groups/{title}").await > groups,
        "the collections listing the product are fetched again"
    );
    assert!(
        after.header("cache-status").contains("miss"),
        "{}",
        after.header("cache-status")
    );
    assert_eq!(after.text(), first.text());
}
