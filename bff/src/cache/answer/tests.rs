//! Tests of [`CachedAnswer`](super::CachedAnswer): the encoding, validators and cache headers
//! of one entry and of a composition, per request. Beside `answer.rs` to keep that file short.

use super::*;
use crate::cache::entry::{CachedResponse, Fetched};
use crate::cache::http::*;
use crate::cache::policy::{CachePolicy, RouteKind};
use crate::cache::tag::CacheTag;
use std::sync::Arc;
use std::time::Duration;

fn lookup() -> Lookup {
    let body = "{\"title\":\"".to_owned() + &"x".repeat(2000) + "\"}";
    let policy = CachePolicy {
        jitter: 0.0,
        ..CachePolicy::default()
    };
    let entry = CachedResponse::new(
        RouteKind::Pages,
        Fetched {
            status: StatusCode::OK,
            body: Bytes::from(body),
            content_type: HeaderValue::from_static("application/json"),
            extra_tags: vec![],
            no_store: false,
        },
        vec![CacheTag::Page("home".into())],
        &policy,
    );
    Lookup {
        key: "test:key".to_owned(),
        freshness: entry.freshness(&policy),
        entry: Arc::new(entry),
        state: CacheState::Hit,
        stored: false,
        forward_status: None,
        stale_copy: false,
        from_l2: false,
        miss_reason: None,
    }
}

fn respond(lookup: &Lookup, request_headers: &HeaderMap) -> Response<Body> {
    CachedAnswer::entry(lookup).send(request_headers)
}

fn respond_composed(parts: &[&Lookup], body: Bytes, request_headers: &HeaderMap) -> Response<Body> {
    CachedAnswer::json(parts.iter().copied(), body).send(request_headers)
}

fn request(pairs: &[(&'static str, &str)]) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for (name, value) in pairs {
        headers.append(*name, HeaderValue::from_str(value).unwrap());
    }
    headers
}

#[test]
fn serves_the_stored_variant_the_client_prefers() {
    let lookup = lookup();
    let br = respond(
        &lookup,
        &request(&[("accept-encoding", "gzip, deflate, br")]),
    );
    assert_eq!(br.headers()[header::CONTENT_ENCODING], "br");
    let gzip = respond(&lookup, &request(&[("accept-encoding", "gzip, br;q=0")]));
    assert_eq!(gzip.headers()[header::CONTENT_ENCODING], "gzip");
    let plain = respond(&lookup, &request(&[]));
    assert!(plain.headers().get(header::CONTENT_ENCODING).is_none());
    assert_eq!(plain.headers()[header::VARY], "accept-encoding");
}

#[test]
fn a_matching_etag_is_a_304_without_a_body() {
    let lookup = lookup();
    let etag = lookup.entry.etag.to_str().unwrap().to_owned();
    for candidate in [
        etag.clone(),
        format!("W/{etag}"),
        format!("\"other\", {etag}"),
    ] {
        let response = respond(&lookup, &request(&[("if-none-match", &candidate)]));
        assert_eq!(response.status(), StatusCode::NOT_MODIFIED, "{candidate}");
        assert!(response.headers().get(header::CONTENT_TYPE).is_none());
    }
    let other = respond(&lookup, &request(&[("if-none-match", "\"other\"")]));
    assert_eq!(other.status(), StatusCode::OK);
}

#[test]
fn surrogate_keys_keep_spaces_inside_tags() {
    let value = surrogate_key(["product:vanguard 15", "prices", "page:50%"]).unwrap();
    assert_eq!(value, "product:vanguard%2015 prices page:50%25");
}

#[test]
fn a_surrogate_key_reads_back_as_the_tags_it_was_written_from() {
    let tags = ["product:vanguard 15", "prices", "page:50%", "page:100% 20%"];
    let value = surrogate_key(tags).unwrap();
    let read: Vec<String> = value
        .to_str()
        .unwrap()
        .split(' ')
        .map(surrogate_key_tag)
        .collect();
    assert_eq!(read, tags);
    // a `%` that starts no escape is the tag's own
    assert_eq!(surrogate_key_tag("page:50%"), "page:50%");
    assert_eq!(surrogate_key_tag("page:%2"), "page:%2");
    assert_eq!(surrogate_key_tag("page:%41"), "page:%41");
}

#[test]
fn headers_describe_freshness_and_tags() {
    let response = respond(&lookup(), &request(&[]));
    let control = response.headers()[header::CACHE_CONTROL].to_str().unwrap();
    assert!(control.starts_with("public, max-age=29"), "{control}");
    assert!(
        control.ends_with("stale-while-revalidate=600, stale-if-error=86400"),
        "{control}"
    );
    assert_eq!(response.headers()[&SURROGATE_KEY], "page:home");
    assert!(
        response.headers()[&CACHE_STATUS]
            .to_str()
            .unwrap()
            .contains("detail=hit")
    );
}

/// A part of a composed answer: `ttl_s` fresh, stale windows of twice and three times that.
fn part(route: RouteKind, tag: CacheTag, ttl_s: u64, state: CacheState) -> Lookup {
    let policy = CachePolicy {
        ttl: Duration::from_millis(ttl_s * 1000),
        stale_while_revalidate: Duration::from_millis(ttl_s * 2000),
        stale_if_error: Duration::from_millis(ttl_s * 3000),
        jitter: 0.0,
        ..CachePolicy::default()
    };
    let entry = CachedResponse::new(
        route,
        Fetched {
            status: StatusCode::OK,
            body: Bytes::from_static(b"{}"),
            content_type: HeaderValue::from_static("application/json"),
            extra_tags: vec![],
            no_store: false,
        },
        vec![tag, CacheTag::Search],
        &policy,
    );
    Lookup {
        key: "test:key".to_owned(),
        freshness: entry.freshness(&policy),
        entry: Arc::new(entry),
        state,
        stored: state == CacheState::Miss,
        forward_status: (state == CacheState::Miss).then_some(200),
        stale_copy: false,
        from_l2: false,
        miss_reason: None,
    }
}

fn header<'a>(response: &'a Response<Body>, name: &str) -> &'a str {
    response
        .headers()
        .get(name)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
}

#[test]
fn the_shortest_windows_and_every_tag_describe_a_composition() {
    let product = part(
        RouteKind::Product,
        CacheTag::Product("a".into()),
        120,
        CacheState::Hit,
    );
    let prices = part(RouteKind::Prices, CacheTag::Prices, 30, CacheState::Hit);
    let response = respond_composed(
        &[&product, &prices],
        Bytes::from_static(b"{\"a\":1}"),
        &HeaderMap::new(),
    );
    assert_eq!(response.status(), StatusCode::OK);
    let control = header(&response, "cache-control");
    assert!(control.starts_with("public, max-age=29"), "{control}");
    assert!(
        control.ends_with("stale-while-revalidate=60, stale-if-error=90"),
        "{control}"
    );
    assert_eq!(
        header(&response, "surrogate-key"),
        "product:a search prices"
    );
    assert!(header(&response, "cache-status").ends_with("detail=hit"));
    assert_eq!(header(&response, "content-type"), "application/json");
    assert_eq!(header(&response, "vary"), "accept-encoding");
    assert_eq!(header(&response, "age"), "0");
}

#[test]
fn the_part_that_did_the_most_work_names_the_state() {
    let product = part(
        RouteKind::Product,
        CacheTag::Product("a".into()),
        120,
        CacheState::Hit,
    );
    let prices = part(RouteKind::Prices, CacheTag::Prices, 30, CacheState::Miss);
    let response = respond_composed(&[&product, &prices], Bytes::new(), &HeaderMap::new());
    let status = header(&response, "cache-status");
    assert!(status.contains("fwd=uri-miss"), "{status}");
    assert!(status.contains("stored"), "{status}");
    assert!(status.ends_with("detail=miss"), "{status}");
    let stale = part(RouteKind::Prices, CacheTag::Prices, 30, CacheState::Stale);
    let response = respond_composed(&[&product, &stale], Bytes::new(), &HeaderMap::new());
    assert!(header(&response, "cache-status").ends_with("detail=stale"));
}

#[test]
fn a_composed_etag_follows_the_body_and_a_match_is_a_304() {
    let product = part(
        RouteKind::Product,
        CacheTag::Product("a".into()),
        120,
        CacheState::Hit,
    );
    let first = respond_composed(
        &[&product],
        Bytes::from_static(b"{\"inStock\":true}"),
        &HeaderMap::new(),
    );
    let changed = respond_composed(
        &[&product],
        Bytes::from_static(b"{\"inStock\":false}"),
        &HeaderMap::new(),
    );
    let etag = header(&first, "etag").to_owned();
    assert!(etag.starts_with('"') && etag.ends_with('"'));
    assert_ne!(etag, header(&changed, "etag"));
    let again = respond_composed(
        &[&product],
        Bytes::from_static(b"{\"inStock\":true}"),
        &request(&[("if-none-match", &format!("W/{etag}"))]),
    );
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(again.headers().get(header::CONTENT_TYPE).is_none());
    assert_eq!(header(&again, "etag"), etag);
    assert!(header(&again, "cache-control").starts_with("public, max-age="));
}

#[test]
fn a_stale_part_makes_the_composition_stale_for_browsers() {
    let mut prices = part(RouteKind::Prices, CacheTag::Prices, 30, CacheState::Stale);
    prices.freshness.fresh_until = Instant::now() - Duration::from_secs(5);
    let product = part(
        RouteKind::Product,
        CacheTag::Product("a".into()),
        120,
        CacheState::Hit,
    );
    let response = respond_composed(&[&product, &prices], Bytes::new(), &HeaderMap::new());
    assert!(header(&response, "cache-control").starts_with("public, max-age=0,"));
}

#[test]
fn a_composition_without_parts_is_not_stored() {
    let response = respond_composed(&[], Bytes::from_static(b"{}"), &HeaderMap::new());
    assert_eq!(header(&response, "cache-control"), "no-store");
    assert!(header(&response, "etag").starts_with('"'));
    assert!(response.headers().get(&CACHE_STATUS).is_none());
}

#[test]
fn one_entry_and_a_composition_of_it_carry_the_same_cache_headers() {
    let lookup = lookup();
    let single = respond(&lookup, &request(&[]));
    let composed = respond_composed(&[&lookup], lookup.entry.body.clone(), &request(&[]));
    for name in [
        "cache-status",
        "cache-control",
        "surrogate-key",
        "etag",
        "vary",
        "age",
        "content-type",
    ] {
        assert_eq!(header(&single, name), header(&composed, name), "{name}");
    }
}

#[test]
fn a_revalidated_document_is_no_cache_also_as_a_304_and_keeps_its_other_headers() {
    let lookup = lookup();
    let html = HeaderValue::from_static("text/html; charset=utf-8");
    let body = Bytes::from_static(b"<!doctype html>");
    let response = CachedAnswer::document([&lookup], StatusCode::OK, html.clone(), body.clone())
        .revalidated()
        .send(&request(&[]));
    assert_eq!(header(&response, "cache-control"), "no-cache");
    assert_eq!(
        header(&response, "content-type"),
        "text/html; charset=utf-8"
    );
    assert_eq!(header(&response, "surrogate-key"), "page:home");
    assert!(response.extensions().get::<StoredEncoding>().is_none());
    let etag = header(&response, "etag").to_owned();
    let again = CachedAnswer::document([&lookup], StatusCode::OK, html, body)
        .revalidated()
        .send(&request(&[("if-none-match", &etag)]));
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(header(&again, "cache-control"), "no-cache");
}

#[test]
fn only_a_stored_entry_is_marked_as_sent_in_a_stored_encoding() {
    let lookup = lookup();
    let stored = respond(&lookup, &request(&[]));
    assert!(stored.extensions().get::<StoredEncoding>().is_some());
    let composed = respond_composed(&[&lookup], lookup.entry.body.clone(), &request(&[]));
    assert!(composed.extensions().get::<StoredEncoding>().is_none());
}

#[test]
fn a_remembered_404_offers_no_stale_windows() {
    let policy = CachePolicy {
        jitter: 0.0,
        ..CachePolicy::default()
    };
    let entry = CachedResponse::new(
        RouteKind::Product,
        Fetched {
            status: StatusCode::NOT_FOUND,
            body: Bytes::from_static(b"{}"),
            content_type: HeaderValue::from_static("application/problem+json"),
            extra_tags: vec![],
            no_store: false,
        },
        vec![CacheTag::Product("x".into())],
        &policy,
    );
    let lookup = Lookup {
        key: "test:key".to_owned(),
        freshness: entry.freshness(&policy),
        entry: Arc::new(entry),
        state: CacheState::Miss,
        stored: true,
        forward_status: Some(404),
        stale_copy: false,
        from_l2: false,
        miss_reason: None,
    };
    let response = respond(&lookup, &request(&[]));
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let control = header(&response, "cache-control");
    assert!(!control.contains("stale"), "{control}");
}
