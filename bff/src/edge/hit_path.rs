//! The hit path: a `GET` of a content page, a product or a collection whose answer the edge
//! cache remembers (see [`crate::cache::rendered`]) is answered before the router.
//!
//! A hit is the one request worth making cheap: it is most of the traffic and needs none of
//! what the router's stack does for the rest (routing, the session, the body limit, the
//! timeout, the concurrency limit, compression). It still gets what every answer carries, from
//! the same code the stack uses: the request id, the security headers, the hit counted per
//! part, and the request's duration in `http_server_request_duration_seconds` under its route
//! template. Its access log line is at DEBUG (the router's is at INFO): at production's `info`
//! a hit writes no log line, so logging costs a hit nothing. It makes a server span (and a
//! `cache.lookup` child) only when the request is sampled (see
//! [`crate::observe::telemetry::hit_path_sampled`]): an unsampled hit pays a header look-up for tracing.
//!
//! Anything else (a stale or missing answer, another method, a request to be redirected to
//! https) goes on to the router, which answers it and remembers the answer for the next hit.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::http::{Method, Request, Response, StatusCode};
use percent_encoding::percent_decode_str;
use prometheus_client::metrics::histogram::Histogram;

use crate::cache::key::request_key;
use crate::cache::{CachedAnswer, EdgeCache, RouteKind};
use crate::http::request_id::{RequestId, X_REQUEST_ID};
use crate::http::security::SecurityHeaders;
use crate::http::server_timing::TRACERESPONSE;
use crate::observe::metrics::{DOCUMENT_ROUTE, Metrics};

/// One route the hit path answers: `{prefix}{title}`.
#[derive(Debug)]
struct HitRoute {
    prefix: &'static str,
    kind: RouteKind,
    /// The router's template for the route, the metric's `http_route`.
    template: &'static str,
    ok: Histogram,
    not_modified: Histogram,
}

#[derive(Debug)]
pub struct HitPath {
    cache: EdgeCache,
    security: Arc<SecurityHeaders>,
    routes: Vec<HitRoute>,
    /// Server-rendered documents: remembered under the web build's id (`None`: not built).
    documents: Option<(String, HitRoute)>,
}

impl HitPath {
    pub fn new(
        cache: EdgeCache,
        security: Arc<SecurityHeaders>,
        metrics: &Metrics,
        web_build: Option<&str>,
    ) -> Self {
        let route = |prefix, kind, template| HitRoute {
            prefix,
            kind,
            template,
            ok: metrics.server_histogram(template, Method::GET.as_str(), 200),
            not_modified: metrics.server_histogram(template, Method::GET.as_str(), 304),
        };
        Self {
            documents: web_build.map(|build| {
                (
                    build.to_owned(),
                    route("/", RouteKind::Pages, DOCUMENT_ROUTE),
                )
            }),
            cache,
            security,
            routes: vec![
                route("/api/pages/", RouteKind::Pages, "/api/pages/{name}"),
                route(
                    "/api/products/",
                    RouteKind::Product,
                    "/api/products/{title}",
                ),
                route(
                    "/api/collections/",
                    RouteKind::Collection,
                    "/api/collections/{title}",
                ),
            ],
        }
    }

    /// The answer to `request` when the cache remembers it; `None` sends it to the router.
    pub fn answer(&self, request: &Request<Body>) -> Option<Response<Body>> {
        if request.method() != Method::GET || self.security.redirects(request) {
            return None;
        }
        let path = request.uri().path();
        let started = Instant::now();
        let (route, answer) = match self.document(path, request.uri().query(), started) {
            Some(found) => found,
            None => {
                let (route, segment) = self.routes.iter().find_map(|route| {
                    path.strip_prefix(route.prefix)
                        .map(|segment| (route, segment))
                })?;
                if segment.is_empty() || segment.contains('/') {
                    return None;
                }
                // Decoded once, as the router's `Path` decodes it, and normalised as the route
                // does, so both name the same key.
                let title = percent_decode_str(segment).decode_utf8().ok()?;
                let answer = self
                    .cache
                    .remembered(&request_key(route.kind, &title), started)?;
                (route, answer)
            }
        };
        let span = crate::observe::telemetry::hit_path_sampled(request.headers())
            .map(|presampled| server_span(request, route, presampled));
        let mut response = CachedAnswer::remembered(&answer)
            .at(started)
            .send(request.headers());
        self.cache.count_served(&answer);
        let id = RequestId::of(request.headers());
        let headers = response.headers_mut();
        self.security.apply_to(headers, request.uri().path());
        headers.insert(X_REQUEST_ID.clone(), id.header_value().clone());
        let status = response.status();
        if let Some(span) = &span {
            span.record("http.response.status_code", status.as_u16());
            span.record("request_id", id.as_str());
            if let Some(value) = crate::observe::telemetry::traceresponse(span) {
                response.headers_mut().insert(TRACERESPONSE.clone(), value);
            }
        }
        let histogram = if status == StatusCode::NOT_MODIFIED {
            &route.not_modified
        } else {
            &route.ok
        };
        let elapsed = started.elapsed();
        histogram.observe(elapsed.as_secs_f64());
        let log = || {
            tracing::debug!(
                http.route = route.template,
                http.response.status_code = status.as_u16(),
                request_id = id.as_str(),
                latency_us = elapsed.as_micros() as u64,
                "answered from the edge cache's hit path"
            );
        };
        // In the span when there is one, so the line carries the trace and span ids.
        match &span {
            Some(span) => span.in_scope(log),
            None => log(),
        }
        Some(response)
    }
}

impl HitPath {
    /// A remembered server-rendered document for `path`: any path outside the API and the
    /// static files (`/assets/…`, a last segment with a dot), in the variant its `query` asks
    /// for (only `sku` and `activeFilter` name one: any other parameter is ignored).
    fn document(
        &self,
        path: &str,
        query: Option<&str>,
        now: Instant,
    ) -> Option<(&HitRoute, Arc<crate::cache::Rendered>)> {
        let (build, route) = self.documents.as_ref()?;
        if path.starts_with("/api") || path.starts_with("/assets/") {
            return None;
        }
        if path
            .rsplit('/')
            .next()
            .is_some_and(|last| last.contains('.'))
        {
            return None;
        }
        let variant = crate::ssr::Variant::requested(path, query);
        let key = crate::ssr::document_key(build, path, variant.as_ref());
        let answer = self.cache.remembered_document(&key, now)?;
        Some((route, answer))
    }
}

/// The server span of a sampled hit, with its `cache.lookup` child, as the router's would be.
fn server_span(request: &Request<Body>, route: &HitRoute, presampled: bool) -> tracing::Span {
    let span = tracing::info_span!(
        "request",
        otel.kind = "server",
        otel.name = %format_args!("GET {}", route.template),
        http.request.method = "GET",
        http.route = route.template,
        http.response.status_code = tracing::field::Empty,
        request_id = tracing::field::Empty,
        { crate::observe::telemetry::PRESAMPLED } = presampled,
    );
    crate::observe::telemetry::join_caller_trace(&span, request.headers());
    tracing::info_span!(
        parent: &span,
        "cache.lookup",
        cache.route = route.kind.as_str(),
        cache.state = "hit",
    )
    .in_scope(|| {});
    span
}
