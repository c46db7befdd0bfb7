//! Request bodies from slow clients: a deadline for the whole body, and the body read before a
//! concurrency slot is taken.
//!
//! A client that sends its body one byte every few seconds costs a connection and a small
//! buffer, never a slot of `server.max_concurrent_requests`: [`read_first`] sits in front of the
//! limit and hands the handler a body that is already here. The deadline (`server.
//! body_read_timeout`, extended for every `body_min_bytes_per_second` received, as Apache's
//! `mod_reqtimeout` does) ends a trickle with a 408, the client's slowness, rather than the 504
//! a gateway timeout would say. A body larger than `server.max_body_bytes` (the multipart
//! uploads, whose routes allow more) is not held back: its handler reads it under the same
//! deadline.

use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::BoxError;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::StreamExt;
use http_body_util::{BodyExt, BodyStream, StreamBody};
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use tokio::time::{Instant, Sleep};

use crate::config::ServerConfig;
use crate::config::UploadsConfig;
use crate::http::error::ApiError;

/// The error a body read past its deadline ends with.
#[derive(Debug, thiserror::Error)]
#[error("the request body was not received in time")]
pub struct BodyReadTimeout;

/// Whether `error` or any error it wraps is an `E` (axum wraps a body's error in its own, and
/// the extractors' rejections wrap that again).
pub fn caused_by<E: std::error::Error + 'static>(
    error: &(dyn std::error::Error + 'static),
) -> bool {
    let mut current = Some(error);
    while let Some(error) = current {
        if error.is::<E>() {
            return true;
        }
        current = error.source();
    }
    false
}

/// How request bodies are read: `server.body_read_timeout`, `body_min_bytes_per_second`
/// and `max_body_bytes`; for uploads, `uploads.min_bytes_per_second` and `body_deadline`.
#[derive(Debug, Clone, Copy)]
pub struct BodyReading {
    timeout: Duration,
    min_bytes_per_second: u64,
    /// However fast the body comes, it is cut this long after it began: a body that keeps
    /// just above the minimum rate is still bounded.
    absolute: Duration,
    /// The most read before the handler runs; a larger body is the handler's to read.
    read_first_up_to: usize,
}

impl BodyReading {
    pub fn new(config: &ServerConfig) -> Self {
        Self {
            timeout: config.body_read_timeout,
            min_bytes_per_second: config.body_min_bytes_per_second.max(1),
            absolute: Duration::MAX,
            read_first_up_to: config.max_body_bytes,
        }
    }

    /// An upload's body: the same grace (`server.body_read_timeout`), then at least
    /// `uploads.min_bytes_per_second` on average (a slow mobile uplink's rate, not the 1 KiB/s
    /// that lets a trickle hold its spool place for hours), and never past
    /// `uploads.body_deadline`.
    pub fn for_uploads(server: &ServerConfig, uploads: &UploadsConfig) -> Self {
        Self {
            min_bytes_per_second: uploads.min_bytes_per_second.max(1),
            absolute: uploads.body_deadline,
            ..Self::new(server)
        }
    }

    /// `body` with the deadline, counted from now.
    pub fn deadline(&self, body: Body) -> DeadlineBody {
        let started = Instant::now();
        DeadlineBody {
            inner: body,
            sleep: Box::pin(tokio::time::sleep_until(later(
                started,
                self.timeout.min(self.absolute),
            ))),
            started,
            timeout: self.timeout,
            min_bytes_per_second: self.min_bytes_per_second,
            absolute: self.absolute,
            received: 0,
        }
    }
}

/// A request body that fails with [`BodyReadTimeout`] once its deadline has passed.
pub struct DeadlineBody {
    inner: Body,
    sleep: Pin<Box<Sleep>>,
    started: Instant,
    timeout: Duration,
    min_bytes_per_second: u64,
    absolute: Duration,
    received: u64,
}

impl DeadlineBody {
    /// The deadline once `received` bytes are here: the timeout, plus a second per
    /// `min_bytes_per_second` of them, and never later than the absolute deadline.
    fn deadline(&self) -> Instant {
        let earned_ms = self.received.saturating_mul(1000) / self.min_bytes_per_second;
        let earned = self
            .timeout
            .saturating_add(Duration::from_millis(earned_ms));
        later(self.started, earned.min(self.absolute))
    }
}

/// `from + by`, or a year on when that is past what an `Instant` holds (no absolute deadline).
fn later(from: Instant, by: Duration) -> Instant {
    from.checked_add(by)
        .unwrap_or_else(|| from + Duration::from_secs(365 * 86_400))
}

impl HttpBody for DeadlineBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.received = this.received.saturating_add(data.len() as u64);
                    let deadline = this.deadline();
                    this.sleep.as_mut().reset(deadline);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(err))) => Poll::Ready(Some(Err(err.into()))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => {
                ready!(this.sleep.as_mut().poll(cx));
                Poll::Ready(Some(Err(BodyReadTimeout.into())))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Reads the request body (up to `server.max_body_bytes`) under its deadline before the
/// request goes on to the concurrency limit and the handler: a slow body holds no slot, and
/// one that does not arrive in time is a 408.
pub async fn read_first(
    State(reading): State<BodyReading>,
    request: Request,
    next: Next,
) -> Response {
    let (parts, body) = request.into_parts();
    if body.is_end_stream() {
        return next.run(Request::from_parts(parts, body)).await;
    }
    let mut body = reading.deadline(body);
    let declared_larger = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok())
        .is_some_and(|length| length > reading.read_first_up_to as u64);
    if declared_larger {
        // An upload (or a body its route refuses at once): the handler reads it, under the
        // same deadline.
        return next.run(Request::from_parts(parts, Body::new(body))).await;
    }
    let mut chunks: Vec<Bytes> = Vec::new();
    let mut length = 0usize;
    while length <= reading.read_first_up_to {
        match body.frame().await {
            None => {
                let whole = match chunks.len() {
                    0 => Bytes::new(),
                    1 => chunks.swap_remove(0),
                    _ => Bytes::from(chunks.concat()),
                };
                return next
                    .run(Request::from_parts(parts, Body::from(whole)))
                    .await;
            }
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    length += data.len();
                    chunks.push(data);
                }
            }
            Some(Err(err)) => return unreadable(err.as_ref()).into_response(),
        }
    }
    // Longer than announced (chunked): what is here goes first, the handler reads the rest.
    let read = futures::stream::iter(chunks.into_iter().map(|chunk| Ok(Frame::data(chunk))));
    let rest = BodyStream::new(body);
    let body = Body::new(StreamBody::new(read.chain(rest)));
    next.run(Request::from_parts(parts, body)).await
}

/// The answer to a body that could not be read: 408 past its deadline, else 400.
pub(crate) fn unreadable(error: &(dyn std::error::Error + 'static)) -> ApiError {
    if caused_by::<BodyReadTimeout>(error) {
        ApiError::RequestTimeout
    } else {
        ApiError::BadRequest {
            code: "invalid_body",
            detail: "The request body could not be read.".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(timeout_ms: u64, min_bytes_per_second: u64) -> BodyReading {
        BodyReading {
            timeout: Duration::from_millis(timeout_ms),
            min_bytes_per_second,
            absolute: Duration::MAX,
            read_first_up_to: 1024,
        }
    }

    #[tokio::test]
    async fn a_body_at_a_fair_rate_is_still_cut_at_the_absolute_deadline() {
        // 1 KiB every 0.1 s earns ten seconds a second; the absolute deadline (0.5 s) ends it.
        let chunk: &'static [u8] = &[b'x'; 1024];
        let upload = BodyReading {
            absolute: Duration::from_millis(500),
            ..reading(1_000, 1024)
        };
        let started = std::time::Instant::now();
        let body = upload.deadline(trickle(vec![chunk; 20], Duration::from_millis(100)));
        let err = body.collect().await.err().map(|err| err.to_string());
        assert_eq!(
            err.as_deref(),
            Some("the request body was not received in time")
        );
        assert!(started.elapsed() < Duration::from_millis(900));
    }

    /// A body that sends `chunks`, one every `every`, then ends.
    fn trickle(chunks: Vec<&'static [u8]>, every: Duration) -> Body {
        let stream = futures::stream::iter(chunks).then(move |chunk| async move {
            tokio::time::sleep(every).await;
            Ok::<_, std::io::Error>(Frame::data(Bytes::from_static(chunk)))
        });
        Body::new(StreamBody::new(stream))
    }

    #[tokio::test]
    async fn a_trickle_past_the_deadline_fails_with_body_read_timeout() {
        let body = reading(200, 1024).deadline(trickle(vec![b"a"; 10], Duration::from_secs(2)));
        let err = body.collect().await.err().map(|err| err.to_string());
        assert_eq!(
            err.as_deref(),
            Some("the request body was not received in time")
        );
    }

    #[tokio::test]
    async fn each_chunk_at_the_minimum_rate_extends_the_deadline() {
        // 1 KiB every 0.3 s against a 1 s timeout: each KiB earns a second more, so the fourth
        // (at 1.2 s) still counts.
        let chunk: &'static [u8] = &[b'x'; 1024];
        let body =
            reading(1_000, 1024).deadline(trickle(vec![chunk; 4], Duration::from_millis(300)));
        let bytes = body.collect().await.map(|body| body.to_bytes().len());
        assert_eq!(bytes.ok(), Some(4 * 1024));
    }

    /// A route answering how many body bytes its handler read, behind [`read_first`].
    async fn bytes_read(reading: BodyReading, body: Body) -> (u16, String) {
        use tower::ServiceExt;
        let app = axum::Router::new()
            .route(
                "/",
                axum::routing::post(|body: Bytes| async move { body.len().to_string() }),
            )
            .layer(axum::middleware::from_fn_with_state(reading, read_first));
        let request = Request::post("/")
            .body(body)
            .unwrap_or_else(|_| unreachable!());
        let response = app.oneshot(request).await.unwrap_or_else(|e| match e {});
        let status = response.status().as_u16();
        let text = response
            .into_body()
            .collect()
            .await
            .map(|body| String::from_utf8_lossy(&body.to_bytes()).into_owned())
            .unwrap_or_default();
        (status, text)
    }

    #[tokio::test]
    async fn the_handler_gets_the_whole_body_read_first_or_streamed_past_the_limit() {
        let chunk: &'static [u8] = &[b'x'; 600];
        let small = trickle(vec![chunk], Duration::ZERO);
        assert_eq!(
            bytes_read(reading(1_000, 1024), small).await,
            (200, "600".to_owned())
        );
        // Chunked past `read_first_up_to`: what was read goes first, the rest follows.
        let large = trickle(vec![chunk; 3], Duration::ZERO);
        assert_eq!(
            bytes_read(reading(1_000, 1024), large).await,
            (200, "1800".to_owned())
        );
    }

    #[tokio::test]
    async fn a_body_late_before_the_handler_is_a_408_problem() {
        let late = trickle(vec![b"a"; 10], Duration::from_secs(2));
        let (status, body) = bytes_read(reading(200, 1024), late).await;
        assert_eq!(status, 408);
        assert!(body.contains("request_timeout"), "{body}");
    }

    #[test]
    fn a_timeout_anywhere_in_the_cause_chain_is_a_408() {
        let wrapped = axum::Error::new(BoxError::from(BodyReadTimeout));
        assert_eq!(unreadable(&wrapped).status(), 408);
        let other = axum::Error::new(std::io::Error::other("connection reset"));
        assert_eq!(unreadable(&other).status(), 400);
    }
}
