//! One trace from the browser to the upstream, proven against a real OTLP/HTTP receiver: the
//! BFF's production tracing pipeline (`telemetry::tracer_provider` + `telemetry::subscriber`)
//! exports over HTTP to a small server here that decodes the protobuf with
//! `opentelemetry-proto`, and the sandbox records the `traceparent` each upstream call carried.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "it/common/mod.rs"]
mod common;
use common::SandboxHooks;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use bff::config::Config;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use opentelemetry_sdk::trace::SdkTracerProvider;
use prost::Message;
use tracing_subscriber::EnvFilter;

/// A span as the collector received it, ids in hex.
#[derive(Debug, Clone)]
struct Received {
    trace_id: String,
    span_id: String,
    parent_span_id: String,
    name: String,
    kind: i32,
    status: i32,
    attributes: HashMap<String, String>,
}

impl Received {
    fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).map(String::as_str)
    }
}

type Spans = Arc<Mutex<Vec<Received>>>;

/// The process's tracing: one receiver (on a thread and runtime of its own, so it outlives each
/// test's runtime), one provider exporting to it, one global subscriber.
struct Telemetry {
    provider: SdkTracerProvider,
    spans: Spans,
    config: bff::config::Config,
}

impl Telemetry {
    /// The shared telemetry settings for one more server, with state of its own: in the Redis
    /// run of `make test`, servers sharing a key prefix would share cache entries.
    fn server_config(&self) -> Config {
        let mut config = self.config.clone();
        config.redis.key_prefix = common::test_config().redis.key_prefix;
        config
    }
}

fn telemetry() -> &'static Telemetry {
    static TELEMETRY: OnceLock<Telemetry> = OnceLock::new();
    TELEMETRY.get_or_init(|| {
        let spans = Spans::default();
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let receiver_spans = spans.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                addr_tx.send(listener.local_addr().unwrap()).unwrap();
                let app = Router::new()
                    .route("/v1/traces", post(receive))
                    .with_state(receiver_spans);
                axum::serve(listener, app).await.unwrap();
            });
        });
        let addr = addr_rx.recv().unwrap();
        let mut config = common::test_config();
        config.telemetry.otlp_endpoint = format!("http://{addr}/v1/traces");
        config.telemetry.sample_ratio = 1.0;
        // The configuration alone: the test process's environment plays no part.
        let trace = bff::observe::telemetry::TraceSettings::resolve(&config.telemetry, |_| None);
        let provider = bff::observe::telemetry::tracer_provider(&trace).unwrap();
        bff::observe::telemetry::install_globals(&provider, &trace);
        tracing::dispatcher::set_global_default(bff::observe::telemetry::subscriber(
            EnvFilter::new("info"),
            &provider,
            std::io::sink,
            true,
            false,
        ))
        .unwrap();
        Telemetry {
            provider,
            spans,
            config,
        }
    })
}

async fn receive(State(spans): State<Spans>, body: Bytes) {
    let request = ExportTraceServiceRequest::decode(body).unwrap();
    let mut spans = spans.lock().unwrap();
    for resource in request.resource_spans {
        for scope in resource.scope_spans {
            for span in scope.spans {
                let attributes = span
                    .attributes
                    .into_iter()
                    .map(|attribute| {
                        let value = match attribute.value.and_then(|value| value.value) {
                            Some(AnyValue::StringValue(text)) => text,
                            Some(AnyValue::IntValue(number)) => number.to_string(),
                            Some(AnyValue::BoolValue(flag)) => flag.to_string(),
                            Some(AnyValue::DoubleValue(number)) => number.to_string(),
                            other => format!("{other:?}"),
                        };
                        (attribute.key, value)
                    })
                    .collect();
                spans.push(Received {
                    trace_id: hex::encode(&span.trace_id),
                    span_id: hex::encode(&span.span_id),
                    parent_span_id: hex::encode(&span.parent_span_id),
                    name: span.name,
                    kind: span.kind,
                    status: span.status.map_or(0, |status| status.code),
                    attributes,
                });
            }
        }
    }
}

/// The spans of `trace_id`, once the server span has arrived (the last to end).
async fn trace(telemetry: &Telemetry, trace_id: &str) -> Vec<Received> {
    for _ in 0..100 {
        telemetry.provider.force_flush().unwrap();
        let spans: Vec<Received> = telemetry
            .spans
            .lock()
            .unwrap()
            .iter()
            .filter(|span| span.trace_id == trace_id)
            .cloned()
            .collect();
        if spans
            .iter()
            .any(|span| span.kind == SpanKind::Server as i32)
        {
            return spans;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no server span of trace {trace_id} reached the collector");
}

/// `path` asked in a new sampled trace (a 200 expected): that trace's spans as exported.
async fn traced_get(
    telemetry: &Telemetry,
    server: &common::TestServer,
    path: &str,
) -> Vec<Received> {
    let trace_id = random_hex(16);
    let answer = server
        .client
        .get(server.url(path))
        .header("traceparent", format!("00-{trace_id}-{}-01", random_hex(8)))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200, "{path}");
    trace(telemetry, &trace_id).await
}

fn random_hex(bytes: usize) -> String {
    (0..bytes)
        .map(|_| format!("{:02x}", fastrand::u8(..)))
        .collect()
}

/// The chain of names from `span` up to the root of its trace.
fn ancestry(spans: &[Received], span: &Received) -> Vec<String> {
    let by_id: HashMap<&str, &Received> = spans
        .iter()
        .map(|span| (span.span_id.as_str(), span))
        .collect();
    let mut chain = vec![span.name.clone()];
    let mut parent = span.parent_span_id.as_str();
    while let Some(next) = by_id.get(parent) {
        chain.push(next.name.clone());
        parent = next.parent_span_id.as_str();
    }
    chain
}

#[tokio::test]
async fn a_cold_product_page_is_one_trace_from_the_browser_through_the_cache_to_the_upstream() {
    let telemetry = telemetry();
    let server = common::start_with(telemetry.server_config(), &[]).await;
    let trace_id = random_hex(16);
    let browser_span = random_hex(8);
    let answer = server
        .client
        .get(server.url("/api/products/summit%20lr"))
        .header("traceparent", format!("00-{trace_id}-{browser_span}-01"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let header = |name: &str| {
        answer
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let traceresponse = header("traceresponse");
    let server_timing = header("server-timing");
    assert!(
        traceresponse.starts_with(&format!("00-{trace_id}-")) && traceresponse.ends_with("-01"),
        "traceresponse names the browser's trace: {traceresponse}"
    );
    assert!(
        server_timing.contains("cache;desc=miss") && server_timing.contains("upstream;dur="),
        "a cold page names the miss and the upstream time: {server_timing}"
    );

    let spans = trace(telemetry, &trace_id).await;
    let servers: Vec<&Received> = spans
        .iter()
        .filter(|span| span.kind == SpanKind::Server as i32)
        .collect();
    assert_eq!(servers.len(), 1, "one server span: {spans:#?}");
    let server_span = servers[0];
    assert_eq!(
        server_span.parent_span_id, browser_span,
        "the browser's span is the server span's parent"
    );
    assert_eq!(
        server_span.attribute("http.route"),
        Some("/api/products/{title}")
    );
    assert_eq!(
        server_span.attribute("http.response.status_code"),
        Some("200")
    );
    assert!(
        server_span
            .attribute("request_id")
            .is_some_and(|id| !id.is_empty())
    );
    assert_eq!(
        traceresponse,
        format!("00-{trace_id}-{}-01", server_span.span_id),
        "traceresponse names the server span"
    );

    let lookups: Vec<&Received> = spans
        .iter()
        .filter(|span| span.name == "cache.lookup")
        .collect();
    assert!(!lookups.is_empty(), "cache spans: {spans:#?}");
    for lookup in &lookups {
        assert_eq!(
            lookup.parent_span_id, server_span.span_id,
            "a cache lookup is a child of the server span: {lookup:?}"
        );
        assert!(
            matches!(
                lookup.attribute("cache.state"),
                Some("miss" | "hit" | "stale" | "stale-if-error" | "coalesced")
            ),
            "{lookup:?}"
        );
    }
    assert!(
        lookups
            .iter()
            .any(|lookup| lookup.attribute("cache.state") == Some("miss")),
        "a cold page misses: {lookups:#?}"
    );

    let upstream_spans: Vec<&Received> = spans
        .iter()
        .filter(|span| span.kind == SpanKind::Client as i32)
        .collect();
    assert!(!upstream_spans.is_empty(), "upstream spans: {spans:#?}");
    for upstream in &upstream_spans {
        let chain = ancestry(&spans, upstream);
        assert_eq!(
            chain.last().map(String::as_str),
            Some(server_span.name.as_str()),
            "the upstream span descends from the server span: {chain:?}"
        );
        assert!(
            chain.iter().any(|name| name == "cache.lookup"),
            "the upstream call was made for a cache lookup: {chain:?}"
        );
        for key in [
            "http.request.method",
            "url.template",
            "server.address",
            "http.response.status_code",
        ] {
            assert!(upstream.attribute(key).is_some(), "{key} on {upstream:?}");
        }
        let template = upstream.attribute("url.template").unwrap();
        assert!(
            !template.contains("summit"),
            "the template names no value: {template}"
        );
        assert_ne!(upstream.status, StatusCode::Error as i32, "{upstream:?}");
    }

    // The upstream saw the same trace, each call with its own span as the parent.
    let recorded = server.sandbox_requests().await;
    let upstream_ids: Vec<&str> = upstream_spans
        .iter()
        .map(|span| span.span_id.as_str())
        .collect();
    let propagated: Vec<String> = recorded
        .iter()
        .filter_map(|request| request["traceparent"].as_str())
        .filter(|traceparent| traceparent.contains(&trace_id))
        .map(str::to_owned)
        .collect();
    assert_eq!(
        propagated.len(),
        upstream_spans.len(),
        "every upstream call carried the trace: {recorded:#?}"
    );
    assert_eq!(
        propagated.len(),
        recorded.len(),
        "this fresh sandbox saw nothing outside the trace (one trace): {recorded:#?}"
    );
    for traceparent in &propagated {
        let parent = traceparent.split('-').nth(2).unwrap_or_default();
        assert!(
            upstream_ids.contains(&parent),
            "{traceparent} names an upstream span"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn an_upstream_failure_marks_the_upstream_and_server_spans_as_errors() {
    let telemetry = telemetry();
    let server = common::start_with(telemetry.server_config(), &[]).await;
    server
        .inject_fault(serde_json::json!({"route": "/strapi/page/{name}", "errorStatus": 500}))
        .await;
    let trace_id = random_hex(16);
    let answer = server
        .client
        .get(server.url("/api/pages/home"))
        .header("traceparent", format!("00-{trace_id}-{}-01", random_hex(8)))
        .send()
        .await
        .unwrap();
    assert!(answer.status().is_server_error(), "{}", answer.status());
    let spans = trace(telemetry, &trace_id).await;
    let server_span = spans
        .iter()
        .find(|span| span.kind == SpanKind::Server as i32)
        .unwrap();
    assert_eq!(
        server_span.status,
        StatusCode::Error as i32,
        "{server_span:?}"
    );
    let failed: Vec<&Received> = spans
        .iter()
        .filter(|span| span.kind == SpanKind::Client as i32)
        .collect();
    assert!(!failed.is_empty(), "{spans:#?}");
    for upstream in failed {
        assert_eq!(upstream.status, StatusCode::Error as i32, "{upstream:?}");
        assert_eq!(upstream.attribute("url.template"), Some("page/{}"));
    }
    server.stop().await;
}

#[tokio::test]
async fn an_unsampled_browser_trace_is_not_exported_but_still_named_in_the_answer() {
    let telemetry = telemetry();
    let server = common::start_with(telemetry.server_config(), &[]).await;
    let trace_id = random_hex(16);
    let answer = server
        .client
        .get(server.url("/api/pages/home"))
        .header("traceparent", format!("00-{trace_id}-{}-00", random_hex(8)))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let traceresponse = answer.headers()["traceresponse"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        traceresponse.starts_with(&format!("00-{trace_id}-")) && traceresponse.ends_with("-00"),
        "{traceresponse}"
    );
    // A sampled request after it, flushed: the unsampled one's spans would have been exported by
    // now.
    let sampled = random_hex(16);
    server
        .client
        .get(server.url("/api/pages/home"))
        .header("traceparent", format!("00-{sampled}-{}-01", random_hex(8)))
        .send()
        .await
        .unwrap();
    trace(telemetry, &sampled).await;
    let unsampled = telemetry
        .spans
        .lock()
        .unwrap()
        .iter()
        .filter(|span| span.trace_id == trace_id)
        .count();
    assert_eq!(unsampled, 0, "the browser's decision not to sample holds");
    server.stop().await;
}

/// A document is answered by the router's fallback, after the server span was named: the span
/// still carries the documents' template, not "unmatched".
#[tokio::test]
async fn a_document_miss_has_its_server_span_named_by_the_documents_template() {
    let telemetry = telemetry();
    let server = common::start_with(telemetry.server_config(), &[]).await;
    let spans = traced_get(telemetry, &server, "/product/summit%20lr").await;
    let server_span = spans
        .iter()
        .find(|span| span.kind == SpanKind::Server as i32)
        .unwrap();
    assert_eq!(
        server_span.attribute("http.route"),
        Some("/{*path}"),
        "{server_span:?}"
    );
    assert_eq!(server_span.name, "GET /{*path}");
    server.stop().await;
}

#[tokio::test]
async fn a_search_lookups_span_names_its_key_by_route_and_hash_never_the_term() {
    let telemetry = telemetry();
    let server = common::start_with(telemetry.server_config(), &[]).await;
    let spans = traced_get(telemetry, &server, "/api/search?q=summit").await;
    let keys: Vec<&str> = spans
        .iter()
        .filter(|span| span.name == "cache.lookup")
        .filter_map(|span| span.attribute("cache.key"))
        .collect();
    assert!(
        keys.iter().any(|key| key.starts_with("search:sha256:")),
        "{spans:#?}"
    );
    for key in keys {
        assert!(!key.contains("summit"), "the term in a span: {key}");
    }
    server.stop().await;
}

#[tokio::test]
async fn a_sampled_hit_on_the_hit_path_gets_a_server_span_and_an_unsampled_one_none() {
    let telemetry = telemetry();
    let server = common::start_with(telemetry.server_config(), &[]).await;
    for _ in 0..2 {
        assert_eq!(server.get("/api/pages/home").await.status(), 200);
    }

    // Sampled by the caller: the hit path's span joins the caller's trace.
    let trace_id = random_hex(16);
    let caller = random_hex(8);
    let answer = server
        .client
        .get(server.url("/api/pages/home"))
        .header("traceparent", format!("00-{trace_id}-{caller}-01"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.headers()["server-timing"], "cache;desc=hit");
    let traceresponse = answer.headers()["traceresponse"]
        .to_str()
        .unwrap()
        .to_owned();
    let spans = trace(telemetry, &trace_id).await;
    let server_span = spans
        .iter()
        .find(|span| span.kind == SpanKind::Server as i32)
        .unwrap();
    assert_eq!(
        server_span.attribute("bff.presampled"),
        Some("false"),
        "answered by the hit path: {server_span:?}"
    );
    assert_eq!(server_span.parent_span_id, caller);
    assert_eq!(
        server_span.attribute("http.route"),
        Some("/api/pages/{name}")
    );
    assert_eq!(
        server_span.attribute("http.response.status_code"),
        Some("200")
    );
    assert_eq!(
        traceresponse,
        format!("00-{trace_id}-{}-01", server_span.span_id)
    );
    let lookup = spans
        .iter()
        .find(|span| span.name == "cache.lookup")
        .unwrap();
    assert_eq!(lookup.parent_span_id, server_span.span_id);
    assert_eq!(lookup.attribute("cache.state"), Some("hit"));

    // A root, drawn at the ratio (1.0 here): a span of its own trace.
    let answer = server.get("/api/pages/home").await;
    let root = answer.headers()["traceresponse"]
        .to_str()
        .unwrap()
        .to_owned();
    let root_trace = root.split('-').nth(1).unwrap().to_owned();
    let spans = trace(telemetry, &root_trace).await;
    assert!(
        spans
            .iter()
            .any(|span| span.attribute("bff.presampled") == Some("true")),
        "{spans:#?}"
    );

    // Not sampled by the caller: no span, no traceresponse, the hit still answered.
    let answer = server
        .client
        .get(server.url("/api/pages/home"))
        .header(
            "traceparent",
            format!("00-{}-{}-00", random_hex(16), random_hex(8)),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers()["server-timing"], "cache;desc=hit");
    assert!(answer.headers().get("traceresponse").is_none());
    server.stop().await;
}

/// Issue 30, finding 8: a client's sampled `traceparent` is honoured within
/// `telemetry.traceparent_sampled_per_minute`; past it the request is sampled at
/// `telemetry.sample_ratio` (0 here: not at all), keeping the caller's trace id. Other clients
/// keep their own budget.
#[tokio::test]
async fn a_clients_sampled_traceparent_is_honoured_only_within_its_budget() {
    let telemetry = telemetry();
    let mut config = telemetry.server_config();
    config.telemetry.sample_ratio = 0.0;
    config.telemetry.traceparent_sampled_per_minute = 3;
    config.rate_limit.trusted_client_ip_header = "x-forwarded-for".to_owned();
    config.rate_limit.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    let server = common::start_with(config, &[]).await;
    let traced = |from: &'static str| {
        let trace_id = random_hex(16);
        let request = server
            .client
            .get(server.url("/api/config"))
            .header("x-forwarded-for", from)
            .header("traceparent", format!("00-{trace_id}-{}-01", random_hex(8)));
        async move {
            let answer = request.send().await.unwrap();
            assert_eq!(answer.status(), 200);
            let traceresponse = answer.headers()["traceresponse"]
                .to_str()
                .unwrap()
                .to_owned();
            assert!(
                traceresponse.starts_with(&format!("00-{trace_id}-")),
                "the caller's trace id is kept: {traceresponse}"
            );
            traceresponse.ends_with("-01")
        }
    };
    let mut sampled = Vec::new();
    for _ in 0..5 {
        sampled.push(traced("203.0.113.80").await);
    }
    assert_eq!(sampled, [true, true, true, false, false]);
    assert!(traced("203.0.113.81").await, "another client's budget");
    assert_metric!(server.metrics().await, "bff_rate_limited_total", {"limit" => "traceparent"}, 2);
    server.stop().await;
}
