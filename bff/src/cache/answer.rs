//! The one way to send an answer from the edge cache: [`CachedAnswer`], built from what the
//! answer is made of (one stored entry, a body composed from several, a remembered answer),
//! with its options, then sent given the request's headers.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use bytes::Bytes;

use super::entry::strong_etag;
use super::http::{
    Described, Encoding, StoredEncoding, matches_etag, negotiate, not_modified, surrogate_key, tags,
};
use super::lookup::Lookup;
use super::rendered::{Epochs, Rendered};
use super::status::CacheState;
use super::store::EdgeCache;

/// The cache entries an answer sent by [`CachedAnswer`] is made from (a response extension, never
/// on the wire): what an in-process reader of the API composes its own answer's `ETag`,
/// `Surrogate-Key` and freshness from (see `crate::ssr`).
#[derive(Debug, Clone)]
pub struct AnswerParts(pub Vec<Lookup>);

/// An answer from the edge cache, and the one way to send one: built from what it is made of,
/// with options, then [`sent`](Self::send) given the request's headers. Every cached answer
/// carries the same derived headers (`ETag`, `Cache-Control`, `Cache-Status`, `Surrogate-Key`,
/// `Age`, `Vary`), and a matching `If-None-Match` is a 304.
///
/// - [`Self::entry`]: one cache entry as it is stored, in the stored gzip/brotli variant the
///   client accepts (marked [`StoredEncoding`]), with the entry's status, type and `ETag`.
/// - [`Self::json`] and [`Self::document`]: a body made from several cache entries (content and
///   the price map, a page and the answer made from it), with the headers derived from all the
///   parts:
///   - `ETag`: a strong hash of the body, so it changes exactly when what the client sees
///     changes;
///   - `Cache-Control`: the shortest remaining freshness and stale windows of the parts, so no
///     browser or CDN keeps a part longer than its own policy allows;
///   - `Cache-Status`: one member for this cache, in the state of the part that did the most
///     work;
///   - `Surrogate-Key`: every part's tags, each once, so purging any part reaches CDNs;
///   - `Age`: the oldest part's.
///
///   Without parts nothing describes the body's freshness: it is answered `no-store`. A body made
///   from one remembered 404 keeps that entry's short caching with no stale windows; only a 200
///   can be a 304. Not marked [`StoredEncoding`]: the body was never stored, so the compression
///   layer compresses it like any other answer.
/// - [`Self::remembered`]: an answer remembered for the hit path ([`Rendered`]), sent again.
///
/// With [`Self::remember`], an answer whose parts are all fresh 200s is remembered for the hit
/// path; when every part was an L1 hit, it is sent as the hit path will send it from now on.
#[must_use]
pub struct CachedAnswer<'a> {
    made_of: MadeOf<'a>,
    remember: Option<(&'a EdgeCache, Epochs)>,
    cache_control: Option<HeaderValue>,
    now: Option<Instant>,
}

enum MadeOf<'a> {
    Entry(&'a Lookup),
    Body {
        parts: Vec<&'a Lookup>,
        status: StatusCode,
        content_type: HeaderValue,
        body: Bytes,
    },
    Remembered(&'a Rendered),
}

impl<'a> CachedAnswer<'a> {
    /// The entry `lookup` found, as it is stored.
    pub fn entry(lookup: &'a Lookup) -> Self {
        Self::of(MadeOf::Entry(lookup))
    }

    /// A JSON `body` (a 200) composed from `parts`.
    pub fn json(parts: impl IntoIterator<Item = &'a Lookup>, body: Bytes) -> Self {
        Self::document(
            parts,
            StatusCode::OK,
            HeaderValue::from_static("application/json"),
            body,
        )
    }

    /// A `body` of any type and status made from `parts` (a page's HTML document, whose head is
    /// built from the page's content and the price map; the sitemap).
    pub fn document(
        parts: impl IntoIterator<Item = &'a Lookup>,
        status: StatusCode,
        content_type: HeaderValue,
        body: Bytes,
    ) -> Self {
        Self::of(MadeOf::Body {
            parts: parts.into_iter().collect(),
            status,
            content_type,
            body,
        })
    }

    /// An answer remembered for the hit path: the headers a lookup's hit gets, with `Age`, the
    /// ttl and `max-age` as of now (see [`Self::at`]), and the stored variant the client
    /// accepts. Not marked [`StoredEncoding`] (the hit path has nothing downstream).
    pub fn remembered(answer: &'a Rendered) -> Self {
        Self::of(MadeOf::Remembered(answer))
    }

    fn of(made_of: MadeOf<'a>) -> Self {
        Self {
            made_of,
            remember: None,
            cache_control: None,
            now: None,
        }
    }

    /// Remembered in `cache` for the hit path, under the first part's key, when every part is a
    /// fresh 200 (and so is the answer); `epochs` were read before the parts were looked up.
    pub fn remember(mut self, cache: &'a EdgeCache, epochs: Epochs) -> Self {
        self.remember = Some((cache, epochs));
        self
    }

    /// Towards browsers revalidated on every visit (`Cache-Control: no-cache`; its `ETag` makes
    /// that a 304); the parts' windows stay for the edge cache (`Surrogate-Key`, `Age`). A
    /// remembered answer carries its own `Cache-Control`.
    pub fn revalidated(mut self) -> Self {
        self.cache_control = Some(HeaderValue::from_static("no-cache"));
        self
    }

    /// The timed headers (`Age`, `Cache-Control`, `Cache-Status`) as of `now` rather than the
    /// moment it is sent.
    pub fn at(mut self, now: Instant) -> Self {
        self.now = Some(now);
        self
    }

    /// The HTTP answer, given the request's headers.
    pub fn send(self, request_headers: &HeaderMap) -> Response<Body> {
        let now = self.now.unwrap_or_else(Instant::now);
        let parts: &[&Lookup] = match &self.made_of {
            MadeOf::Remembered(answer) => return answer.send(now, request_headers),
            MadeOf::Entry(lookup) => std::slice::from_ref(lookup),
            MadeOf::Body { parts, .. } => parts,
        };
        let remembered = self.remember.and_then(|(cache, epochs)| {
            Some((cache, Arc::new(self.rendered(parts, epochs, now)?)))
        });
        let response = match &remembered {
            // All hits: the very answer the hit path will give from now on.
            // (An L2 hit is told as such this once; the next request is an L1 hit.)
            Some((_, rendered))
                if parts
                    .iter()
                    .all(|part| part.state == CacheState::Hit && !part.from_l2) =>
            {
                let mut response = rendered.send(now, request_headers);
                response.extensions_mut().insert(StoredEncoding);
                response
            }
            _ => {
                let mut response = match &self.made_of {
                    MadeOf::Entry(lookup) => stored(lookup, now, request_headers),
                    MadeOf::Body {
                        status,
                        content_type,
                        body,
                        ..
                    } => made(
                        parts,
                        *status,
                        content_type.clone(),
                        body.clone(),
                        now,
                        request_headers,
                    ),
                    MadeOf::Remembered(answer) => answer.send(now, request_headers),
                };
                // A part the upstream forbade storing keeps its `no-store`.
                let no_store = parts.iter().any(|part| part.entry.no_store);
                if let Some(value) = self.cache_control.as_ref().filter(|_| !no_store) {
                    response
                        .headers_mut()
                        .insert(header::CACHE_CONTROL, value.clone());
                }
                response
            }
        };
        let mut response = response;
        // what the answer is made of, for an in-process reader (the server render) that composes
        // a document from answers as this composes an answer from parts
        response.extensions_mut().insert(AnswerParts(
            parts.iter().map(|part| (*part).clone()).collect(),
        ));
        if let (Some((cache, rendered)), Some(first)) = (remembered, parts.first()) {
            cache.remember_answer(first.key.clone(), rendered);
        }
        response
    }

    /// The answer as the hit path keeps it: `None` unless every part is a fresh 200 (and so is
    /// a made body).
    fn rendered(&self, parts: &[&Lookup], epochs: Epochs, now: Instant) -> Option<Rendered> {
        let composed = match &self.made_of {
            MadeOf::Body {
                status,
                content_type,
                body,
                ..
            } => {
                if *status != StatusCode::OK {
                    return None;
                }
                Some((body, content_type.clone()))
            }
            _ => None,
        };
        Rendered::new(parts, composed, epochs, now, self.cache_control.clone())
    }
}

/// The entry `lookup` found, as stored: a 304 when `If-None-Match` names its `ETag`, otherwise
/// the stored variant the client prefers.
fn stored(lookup: &Lookup, now: Instant, request_headers: &HeaderMap) -> Response<Body> {
    let entry = &lookup.entry;
    let mut headers = Described::lookup(lookup).headers(
        surrogate_key(entry.tags.iter().map(String::as_str)),
        entry.etag.clone(),
        now,
    );
    if matches_etag(request_headers, &entry.etag) {
        return not_modified(headers);
    }
    headers.insert(header::CONTENT_TYPE, entry.content_type.clone());
    let (encoding, variant) = match negotiate(
        request_headers,
        entry.brotli.is_some(),
        entry.gzip.is_some(),
    ) {
        Encoding::Brotli => ("br", entry.brotli.as_ref()),
        Encoding::Gzip => ("gzip", entry.gzip.as_ref()),
        Encoding::Identity => ("identity", None),
    };
    let body = match variant {
        Some(body) => {
            headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
            body.clone()
        }
        None => entry.body.clone(),
    };
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = entry.status;
    *response.headers_mut() = headers;
    response.extensions_mut().insert(StoredEncoding);
    response
}

/// A `body` made from `parts` (see [`CachedAnswer`]).
fn made(
    parts: &[&Lookup],
    status: StatusCode,
    content_type: HeaderValue,
    body: Bytes,
    now: Instant,
    request_headers: &HeaderMap,
) -> Response<Body> {
    let etag = strong_etag(&body);
    let described = match parts {
        [single] => Some(Described::lookup(single)),
        _ => Described::merged(parts),
    };
    let mut headers = match described {
        Some(described) => described.headers(surrogate_key(tags(parts)), etag.clone(), now),
        None => {
            let mut headers = HeaderMap::new();
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            headers.insert(header::ETAG, etag.clone());
            headers
        }
    };
    if status == StatusCode::OK && matches_etag(request_headers, &etag) {
        return not_modified(headers);
    }
    headers.insert(header::CONTENT_TYPE, content_type);
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

#[cfg(test)]
mod tests;
