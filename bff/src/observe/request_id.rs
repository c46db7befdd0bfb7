//! `X-Request-ID`: accepted from the client when well-formed, generated otherwise, echoed on the
//! response and sent upstream, so one id follows a request through every hop and log line.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

pub static X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The longest id we accept; longer ones are replaced rather than truncated.
const MAX_LEN: usize = 128;

/// The request's id, as it travels with the request's work to every upstream call (the
/// handlers, the cache's fetches and the upstream stack all carry it), and so also the meter of
/// the time the request spent waiting on upstreams, for its `Server-Timing` answer.
#[derive(Debug, Clone)]
pub struct RequestId(HeaderValue, Option<Arc<UpstreamMeter>>);

/// Upstream calls made for one request and their total time.
#[derive(Debug, Default)]
pub struct UpstreamMeter {
    calls: AtomicU64,
    micros: AtomicU64,
}

impl RequestId {
    /// A new UUID v4. Its randomness comes from a fast thread-local generator, not the OS's
    /// CSPRNG: an id must be unique, not unpredictable (it guards nothing), and a CSPRNG draw
    /// per request showed up in the hit path's profile.
    pub fn generate() -> Self {
        let id = uuid::Builder::from_random_bytes(fastrand::u128(..).to_le_bytes()).into_uuid();
        let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
        let text = id.hyphenated().encode_lower(&mut text);
        // A hyphenated UUID is always a valid header value.
        Self(
            HeaderValue::from_str(text).unwrap_or_else(|_| HeaderValue::from_static("invalid")),
            None,
        )
    }

    /// Keeps `value` only if it is 1–128 characters of `[A-Za-z0-9._:-]`: enough for UUIDs,
    /// ULIDs and trace ids, and nothing that could forge a log line or smuggle a header.
    pub fn accept(value: &HeaderValue) -> Option<Self> {
        let bytes = value.as_bytes();
        let well_formed = !bytes.is_empty()
            && bytes.len() <= MAX_LEN
            && bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'));
        well_formed.then(|| Self(value.clone(), None))
    }

    /// The caller's id when it sent a well-formed one, else a new one.
    pub fn of(headers: &HeaderMap) -> Self {
        headers
            .get(&X_REQUEST_ID)
            .and_then(Self::accept)
            .unwrap_or_else(Self::generate)
    }

    /// This id with a meter of upstream time (the router's requests; a hit calls no upstream).
    pub fn metered(self) -> Self {
        Self(self.0, Some(Arc::default()))
    }

    /// Counts one upstream call of `elapsed` made for this request.
    pub fn add_upstream_time(&self, elapsed: Duration) {
        if let Some(meter) = &self.1 {
            meter.calls.fetch_add(1, Ordering::Relaxed);
            let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
            meter.micros.fetch_add(micros, Ordering::Relaxed);
        }
    }

    /// The total time of this request's upstream calls; `None` when it made none.
    pub fn upstream_time(&self) -> Option<Duration> {
        let meter = self.1.as_ref()?;
        (meter.calls.load(Ordering::Relaxed) > 0)
            .then(|| Duration::from_micros(meter.micros.load(Ordering::Relaxed)))
    }

    pub fn header_value(&self) -> &HeaderValue {
        &self.0
    }

    pub fn as_str(&self) -> &str {
        // Only ASCII ever gets in (see `accept` and `generate`).
        self.0.to_str().unwrap_or_default()
    }
}

/// Middleware: settles the request's id before anything else runs.
pub async fn assign(mut request: Request, next: Next) -> Response {
    let id = RequestId::of(request.headers()).metered();
    request
        .headers_mut()
        .insert(X_REQUEST_ID.clone(), id.header_value().clone());
    request.extensions_mut().insert(id.clone());
    let mut response = next.run(request).await;
    response
        .headers_mut()
        .insert(X_REQUEST_ID.clone(), id.header_value().clone());
    response
}

impl<S: Send + Sync> FromRequestParts<S> for RequestId {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Infallible> {
        // The middleware always runs first; a handler called without it still gets an id.
        Ok(parts
            .extensions
            .get::<RequestId>()
            .cloned()
            .unwrap_or_else(RequestId::generate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_uuids_and_trace_ids() {
        for id in [
            "4bf92f35-77b3-4da6-a3ce-929d0e0e4736",
            "01HZX3J5Q8",
            "a.b_c:d-e",
        ] {
            assert!(
                RequestId::accept(&HeaderValue::from_static(id)).is_some(),
                "{id}"
            );
        }
    }

    #[test]
    fn rejects_empty_long_and_odd_ids() {
        let long = "a".repeat(MAX_LEN + 1);
        for id in ["", "has space", "semi;colon", "quote\"", long.as_str()] {
            let value = HeaderValue::from_str(id).unwrap_or_else(|_| HeaderValue::from_static(""));
            assert!(RequestId::accept(&value).is_none(), "{id:?}");
        }
    }

    #[test]
    fn the_meter_adds_up_upstream_calls_across_clones() {
        let id = RequestId::generate();
        id.add_upstream_time(Duration::from_millis(5));
        assert_eq!(id.upstream_time(), None, "an unmetered id counts nothing");
        let id = id.metered();
        assert_eq!(id.upstream_time(), None, "no call yet");
        let clone = id.clone();
        clone.add_upstream_time(Duration::from_millis(5));
        id.add_upstream_time(Duration::from_micros(2500));
        assert_eq!(id.upstream_time(), Some(Duration::from_micros(7500)));
    }

    #[test]
    fn generated_ids_are_accepted_and_unique() {
        let (a, b) = (RequestId::generate(), RequestId::generate());
        assert!(RequestId::accept(a.header_value()).is_some());
        assert_ne!(a.as_str(), b.as_str());
    }

    #[test]
    fn generated_ids_are_version_4_uuids_and_do_not_repeat() {
        let ids: std::collections::HashSet<String> = (0..10_000)
            .map(|_| RequestId::generate().as_str().to_owned())
            .collect();
        assert_eq!(ids.len(), 10_000);
        for id in ids.iter().take(50) {
            let parsed = uuid::Uuid::parse_str(id).unwrap();
            assert_eq!(parsed.get_version_num(), 4, "{id}");
        }
    }
}
