//! Issue 48: what a server render reads is what its loaders ask for. The render reports the
//! reads it has no answer to (`{kind: 'needs'}`), the BFF answers them in process from its own
//! API router, off the render thread, and renders again; the document is composed from the
//! recorded answers (inlined data, `Surrogate-Key`, freshness). Driven by a small stand-in
//! bundle with the entry's contract, so the reads are the test's, not the web app's.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::SandboxHooks;
use common::in_process::{InProcess, capture_logs};
use common::test_config;
use serde_json::{Value, json};
use tempfile::TempDir;

const ADMIN_TOKEN: &str = "test-admin-token";
const SECRETS: &[(&str, &str)] = &[("BFF_ADMIN_TOKEN", ADMIN_TOKEN)];
const PRODUCT_ROUTE: &str = "/strapi/products/{title}";

/// A stand-in server bundle: each page's "loader" reads the URL `READS` names for its path, and
/// the page renders that answer's JSON into `#root`. A read with no answer yet is reported as
/// needed, as `entry-server.tsx` reports it.
const BUNDLE: &str = r#"
    const READS = {
        '/about-us': '/api/dealers?zip=78701',
        '/support': '/api/session',
        '/faq': '/api/cart',
        '/warranty': '/api/products/summit%20lr',
    };
    globalThis.__ssrHost = { runNextTimer: () => false };
    globalThis.__ssrRender = (input) => {
        const { url, answers } = JSON.parse(input);
        const path = url.replace(/^https?:\/\/[^/]+/, '').split('?')[0];
        const read = READS[path];
        const state = { done: true, result: '', error: '' };
        if (read === undefined) {
            state.result = JSON.stringify({ kind: 'html', status: 200, html: '<p>static</p>', chunks: [] });
        } else if (answers[read] === undefined) {
            state.result = JSON.stringify({ kind: 'needs', needs: [{ method: 'GET', url: read, key: read }] });
        } else {
            const html = '<pre id="read">' + JSON.stringify(answers[read]) + '</pre>';
            state.result = JSON.stringify({ kind: 'html', status: 200, html, chunks: [] });
        }
        return state;
    };
"#;

/// The app over the sandbox with the stand-in bundle (and the directory it lives in).
fn start(configure: impl FnOnce(&mut bff::config::Config)) -> (InProcess, TempDir) {
    let dist = TempDir::new().unwrap();
    common::write_dist(dist.path());
    std::fs::create_dir_all(dist.path().join("ssr")).unwrap();
    std::fs::write(dist.path().join("ssr/render.js"), BUNDLE).unwrap();
    let mut config = test_config();
    config.web.dist_dir = dist.path().to_owned();
    configure(&mut config);
    (
        common::in_process::start_with_secrets(config, SECRETS),
        dist,
    )
}

/// The answer the stand-in rendered into `#root`.
fn rendered_read(html: &str) -> Value {
    let start = html.find(r#"<pre id="read">"#).unwrap() + r#"<pre id="read">"#.len();
    let end = html[start..].find("</pre>").unwrap() + start;
    serde_json::from_str(&html[start..end]).unwrap()
}

/// The page's data inlined in the document.
fn document_data(html: &str) -> Value {
    let marker = r#"<script type="application/json" id="document-data">"#;
    let start = html.find(marker).unwrap() + marker.len();
    let end = html[start..].find("</script>").unwrap() + start;
    serde_json::from_str(&html[start..end]).unwrap()
}

async fn metric(app: &InProcess, name: &str, labels: &[(&str, &str)]) -> f64 {
    app.metrics().await.value(name, labels).unwrap_or(0.0)
}

async fn documents_in_l1(app: &InProcess) -> u64 {
    common::cache_stats::cache_stats(app, ADMIN_TOKEN).await["documents"]
        .as_u64()
        .unwrap()
}

#[tokio::test]
async fn a_loaders_read_of_an_endpoint_no_document_named_is_answered_in_process_with_its_tags_and_freshness()
 {
    let (app, _dist) = start(|_| {});
    let api = app.get("/api/dealers?zip=78701").await;
    assert_eq!(api.status, 200);
    let first = app.get("/about-us").await;
    assert_eq!(first.status, 200);
    let html = first.text();
    // the render got the API's own answer, and the document carries it for hydration
    assert_eq!(rendered_read(&html)["body"], api.json());
    assert_eq!(
        document_data(&html)["/api/dealers?zip=78701"]["body"],
        api.json()
    );
    // its tags are the document's: a purge of the locator page reaches it
    let keys = first.header("surrogate-key");
    for tag in api.header("surrogate-key").split(' ') {
        assert!(keys.split(' ').any(|key| key == tag), "{tag} in {keys}");
    }
    assert_eq!(
        metric(&app, "bff_ssr_renders_total", &[("outcome", "needs")]).await,
        1.0
    );
    assert_eq!(
        metric(&app, "bff_ssr_renders_total", &[("outcome", "ok")]).await,
        1.0
    );
    // remembered: the hit path answers it from now on, nothing renders
    let again = app.get("/about-us").await;
    assert_eq!(again.header("etag"), first.header("etag"));
    assert_eq!(
        metric(&app, "bff_ssr_renders_total", &[("outcome", "ok")]).await,
        1.0
    );
    // its freshness is the read's too: purging the answer's own tag renders the document again
    let tag = api
        .header("surrogate-key")
        .split(' ')
        .find(|tag| tag.starts_with("page:"))
        .unwrap()
        .to_owned();
    let purged = app
        .admin_post("/admin/cache/purge", ADMIN_TOKEN, &json!({"tags": [tag]}))
        .await;
    assert_eq!(purged.status, 200, "{}", purged.text());
    let after = app.get("/about-us").await;
    assert_eq!(rendered_read(&after.text())["body"], api.json());
    app.get("/about-us").await;
    assert_eq!(
        metric(&app, "bff_ssr_renders_total", &[("outcome", "ok")]).await,
        2.0,
        "one render after the purge of the read's tag"
    );
}

#[tokio::test]
async fn a_loader_that_reads_the_session_or_the_cart_fails_the_render_counted_and_nothing_is_kept()
{
    let (logs, _guard) = capture_logs();
    let (app, _dist) = start(|_| {});
    for (path, template) in [("/support", "/api/session"), ("/faq", "/api/cart")] {
        for _ in 0..2 {
            let answer = app
                .get_with(path, &[("cookie", "bff_session=not-for-a-document")])
                .await;
            assert_eq!(answer.status, 200);
            let html = answer.text();
            assert!(
                html.contains(r#"<div id="root"></div>"#),
                "the shell: {html}"
            );
            assert!(!html.contains(template), "{html}");
        }
        assert_eq!(
            metric(
                &app,
                "bff_ssr_refused_reads_total",
                &[("http_route", template)]
            )
            .await,
            1.0,
            "{template}: once, then the failure is remembered for the document"
        );
    }
    assert_eq!(
        metric(
            &app,
            "bff_ssr_fallbacks_total",
            &[("reason", "read_refused")]
        )
        .await,
        2.0
    );
    assert_eq!(
        metric(&app, "bff_ssr_renders_total", &[("outcome", "ok")]).await,
        0.0
    );
    assert_eq!(documents_in_l1(&app).await, 0, "nothing kept");
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
    assert_eq!(warnings.len(), 2, "one per document key: {warnings:?}");
    assert!(warnings[0].contains("/api/session"), "{}", warnings[0]);
    assert!(warnings[1].contains("/api/cart"), "{}", warnings[1]);
}

#[tokio::test]
async fn a_slow_upstream_never_holds_the_render_thread_nor_reloads_the_engine() {
    let latency = Duration::from_secs(2);
    let (app, _dist) = start(|config| {
        // one thread, and a time limit far below the upstream's latency: had the wait been on
        // the render thread, the render would time out and its engine be reloaded
        config.ssr.threads = 1;
        config.ssr.timeout = Duration::from_millis(500);
    });
    // a page whose parts are cached, its document not rendered yet
    assert_eq!(app.get("/api/pages/dealerlocator").await.status, 200);
    let loads = metric(&app, "bff_ssr_engine_loads_total", &[("outcome", "ok")]).await;
    app.inject_fault(json!({"route": PRODUCT_ROUTE, "latencyMs": latency.as_millis() as u64}))
        .await;
    let started = Instant::now();
    let slow = common::in_process::spawn_get(&app, "/warranty", started);
    // the slow document's first pass has given the thread back: another document fills
    tokio::time::sleep(Duration::from_millis(200)).await;
    let other = app.get("/dealer-locator").await;
    let other_done = started.elapsed();
    assert_eq!(other.status, 200);
    assert!(other.text().contains("<p>static</p>"), "{}", other.text());
    let (html, slow_done) = slow.await.unwrap();
    assert!(slow_done >= latency, "{slow_done:?}");
    assert!(
        other_done < slow_done,
        "the cached page's document ({other_done:?}) waited behind the slow one ({slow_done:?})"
    );
    let product = rendered_read(&html);
    assert_eq!(product["status"], 200, "{product}");
    assert_eq!(product["body"]["title"], "Summit LR", "{product}");
    assert_eq!(
        metric(&app, "bff_ssr_renders_total", &[("outcome", "ok")]).await,
        2.0
    );
    assert_eq!(
        metric(&app, "bff_ssr_renders_total", &[("outcome", "timeout")]).await,
        0.0
    );
    assert_eq!(
        metric(&app, "bff_ssr_engine_loads_total", &[("outcome", "ok")]).await,
        loads,
        "no engine reloaded"
    );
    app.clear_faults().await;
}

/// Explain (`/admin/cache/explain`) names what a rendered page's document is made of as its
/// render read it: here the stand-in's `/warranty` reads one product, so its document's parts
/// are that product and the price map, and no content page.
#[tokio::test]
async fn explain_names_the_entries_a_rendered_page_read() {
    let (app, _dist) = start(|_| {});
    assert_eq!(app.get("/warranty").await.status, 200);
    let bearer = format!("Bearer {ADMIN_TOKEN}");
    let answer = app
        .admin_send(common::in_process::get_request(
            "/admin/cache/explain?url=/warranty",
            &[("authorization", &bearer)],
        ))
        .await;
    assert_eq!(answer.status, 200);
    let explained = answer.json();
    let keys: Vec<&str> = explained["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|key| key["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys.len(), 3, "{explained}");
    assert_eq!(
        &keys[1..],
        ["product:summit lr", "prices:all"],
        "{explained}"
    );
    assert!(
        keys[0].contains("/warranty"),
        "the document first: {explained}"
    );
}
