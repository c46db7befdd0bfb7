//! The render's API reads: what the app's loaders ask for while the BFF renders a document is
//! answered in process by the BFF's own API router (the same handlers, cache lookups and problem
//! answers a browser gets), never by a hand-written copy of what a page reads.
//!
//! Only `GET`s of the public, cacheable routes are read (the allowlist is the route templates
//! of the router's readable group, `routes::readable_operations`). A read carries none of the
//! shopper's cookies, `Authorization` or other headers: only the shopper's client address, so
//! per-client limits (search's) count the shopper who asked. Anything else (`/api/session`,
//! `/api/cart`, a `POST`, an unknown path) is refused before any handler runs: nothing personal
//! can enter a document, which is shared by every shopper.
//!
//! Each answer is recorded with the cache entries it is made from ([`AnswerParts`], set by
//! `CachedAnswer::send`), so the document's `ETag`, `Surrogate-Key` and freshness are composed
//! from them as a composed API answer is from its parts.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request, Uri};
use bytes::Bytes;
use serde::Deserialize;
use tower::ServiceExt;

use crate::cache::{AnswerParts, Lookup};

/// The largest answer body a render reads (a collection with every card is far below it).
const MAX_ANSWER_BYTES: usize = 8 * 1024 * 1024;

/// A read the render asked for and had no answer to, as the bundle reports it.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct Need {
    /// `GET` for a loader's read; anything else is refused.
    #[serde(default = "get")]
    pub method: String,
    /// The request's path and query, as the app sent it (`/api/search?q=red%20dot`).
    pub url: String,
    /// The key the app looks its answer up by (`answerKey` in `web/src/lib/document-data.ts`).
    pub key: String,
}

fn get() -> String {
    "GET".to_owned()
}

/// One answer, recorded for the document.
#[derive(Debug, Clone)]
pub struct ApiAnswer {
    /// The app's key for it (see [`Need::key`]).
    pub key: String,
    pub status: u16,
    pub body: Bytes,
    /// The cache entries it is made from; `None` when nothing describes its freshness (a
    /// problem answer with no entry behind it): a document that inlines it is not kept.
    pub parts: Option<Vec<Lookup>>,
}

/// Why a read was not answered. Both fail the render.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unread {
    /// Not a `GET` of a readable route: `template` is the route's template (`/api/cart`), or
    /// `unmatched`; never the path or the query (a search term is personal).
    #[error("the render may not read {method} {template}")]
    Refused {
        method: &'static str,
        template: String,
    },
    #[error("the read of {template} failed: {reason}")]
    Failed {
        template: String,
        reason: &'static str,
    },
}

impl Unread {
    /// The route template the read named.
    pub fn template(&self) -> &str {
        match self {
            Self::Refused { template, .. } | Self::Failed { template, .. } => template,
        }
    }
}

/// The in-process reader. Cheap to clone.
#[derive(Clone)]
pub struct ApiReads {
    inner: Arc<Inner>,
}

struct Inner {
    /// The API router, `/api` included, its state applied.
    router: Router,
    /// Every API route's template, to name a refused read.
    known: Vec<Template>,
    /// The templates a render may read.
    readable: Vec<String>,
    timeout: Duration,
}

impl std::fmt::Debug for ApiReads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiReads")
            .field("readable", &self.inner.readable)
            .finish_non_exhaustive()
    }
}

impl ApiReads {
    /// A reader over `router` (which answers `/api/…`), knowing every template in `known`, and
    /// reading only those in `readable` (all spelled as `MatchedPath` spells them:
    /// `/api/products/{title}`), each read within `timeout`.
    pub fn new(
        router: Router,
        known: Vec<String>,
        readable: Vec<String>,
        timeout: Duration,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                router,
                known: known.iter().map(|spelled| Template::new(spelled)).collect(),
                readable,
                timeout,
            }),
        }
    }

    /// The route template `path` matches, if any (the most literal one).
    pub fn template_of(&self, path: &str) -> Option<&str> {
        self.inner
            .known
            .iter()
            .filter(|template| template.matches(path))
            .max_by_key(|template| template.literals())
            .map(|template| template.spelled.as_str())
    }

    /// Reads `need` as `client` would, with no other header or cookie.
    pub async fn read(&self, need: &Need, client: IpAddr) -> Result<ApiAnswer, Unread> {
        let uri: Uri = need.url.parse().map_err(|_| Unread::Refused {
            method: "GET",
            template: "unmatched".to_owned(),
        })?;
        let template = match (uri.scheme(), uri.authority()) {
            (None, None) => self.template_of(uri.path()),
            // only the BFF's own API, by path
            _ => None,
        }
        .unwrap_or("unmatched")
        .to_owned();
        if need.method != "GET" {
            return Err(Unread::Refused {
                method: "other",
                template,
            });
        }
        if !self.inner.readable.contains(&template) {
            return Err(Unread::Refused {
                method: "GET",
                template,
            });
        }
        let mut request = Request::new(Body::empty());
        *request.method_mut() = Method::GET;
        *request.uri_mut() = uri;
        request
            .extensions_mut()
            .insert(ConnectInfo(SocketAddr::new(client, 0)));
        let failed = |reason| Unread::Failed {
            template: template.clone(),
            reason,
        };
        let answered = tokio::time::timeout(
            self.inner.timeout,
            self.inner.router.clone().oneshot(request),
        )
        .await
        .map_err(|_| failed("timeout"))?;
        let response = match answered {
            Ok(response) => response,
            Err(never) => match never {},
        };
        let (head, body) = response.into_parts();
        let body = tokio::time::timeout(
            self.inner.timeout,
            axum::body::to_bytes(body, MAX_ANSWER_BYTES),
        )
        .await
        .map_err(|_| failed("timeout"))?
        .map_err(|_| failed("body"))?;
        Ok(ApiAnswer {
            key: need.key.clone(),
            status: head.status.as_u16(),
            body,
            parts: head
                .extensions
                .get::<AnswerParts>()
                .map(|parts| parts.0.clone())
                .filter(|parts| !parts.is_empty()),
        })
    }
}

/// A route template, by segment (`{name}` matches any one segment).
struct Template {
    spelled: String,
    segments: Vec<Option<String>>,
}

impl Template {
    fn new(spelled: &str) -> Self {
        let segments = spelled
            .split('/')
            .map(|segment| {
                (!(segment.starts_with('{') && segment.ends_with('}'))).then(|| segment.to_owned())
            })
            .collect();
        Self {
            spelled: spelled.to_owned(),
            segments,
        }
    }

    fn matches(&self, path: &str) -> bool {
        let mut given = path.split('/');
        for segment in &self.segments {
            match (segment, given.next()) {
                (Some(literal), Some(actual)) if literal == actual => {}
                (None, Some(actual)) if !actual.is_empty() => {}
                _ => return false,
            }
        }
        given.next().is_none()
    }

    fn literals(&self) -> usize {
        self.segments
            .iter()
            .filter(|segment| segment.is_some())
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads() -> ApiReads {
        ApiReads::new(
            Router::new(),
            vec![
                "/api/products/{title}".to_owned(),
                "/api/cart".to_owned(),
                "/api/cart/items/{id}".to_owned(),
                "/api/cart/items/compute".to_owned(),
            ],
            vec!["/api/products/{title}".to_owned()],
            Duration::from_secs(1),
        )
    }

    #[test]
    fn a_path_is_named_by_its_most_literal_template() {
        let reads = reads();
        assert_eq!(
            reads.template_of("/api/products/summit%20lr"),
            Some("/api/products/{title}")
        );
        assert_eq!(
            reads.template_of("/api/cart/items/compute"),
            Some("/api/cart/items/compute")
        );
        assert_eq!(
            reads.template_of("/api/cart/items/7"),
            Some("/api/cart/items/{id}")
        );
        assert_eq!(reads.template_of("/api/products/"), None);
        assert_eq!(reads.template_of("/api/products/a/b"), None);
    }

    #[tokio::test]
    async fn only_gets_of_readable_routes_are_read() {
        let reads = reads();
        let client = IpAddr::from([192, 0, 2, 1]);
        let need = |method: &str, url: &str| Need {
            method: method.to_owned(),
            url: url.to_owned(),
            key: url.to_owned(),
        };
        for (method, url, refused) in [
            ("GET", "/api/cart", "/api/cart"),
            ("POST", "/api/products/a", "/api/products/{title}"),
            ("GET", "/api/nowhere?q=secret", "unmatched"),
            ("GET", "http://elsewhere.test/api/products/a", "unmatched"),
        ] {
            let unread = reads.read(&need(method, url), client).await.unwrap_err();
            assert_eq!(unread.template(), refused, "{method} {url}");
            assert!(matches!(unread, Unread::Refused { .. }));
        }
    }
}
