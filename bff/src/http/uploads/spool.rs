//! Upload bodies held on disk while they are read: a temporary file per upload (under `TMPDIR`,
//! the pod's `/tmp` volume, removed when the upload is done), so twenty 20 MB uploads cost disk,
//! not memory. Two caps, each given back when the upload's request ends: all spooled bytes
//! together (`uploads.spool_capacity_bytes`, past it 503 with `Retry-After`), and the bytes one
//! client has in flight (`uploads.client_in_flight_bytes`, past it 429 with `Retry-After`).
//!
//! Only bytes that have arrived are reserved, never a declared length: a `Content-Length` costs
//! nothing to send, so a few clients declaring 21 MiB each and sending almost nothing could
//! otherwise hold the whole spool against everyone else.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::body::Body;
use futures::StreamExt;
use http_body_util::BodyExt;
use hyper::body::Frame;
use tokio::io::{AsyncSeekExt, AsyncWriteExt};
use tokio_util::io::ReaderStream;

use super::UploadsConfig;
use crate::http::error::ApiError;
use crate::http::request_body::{DeadlineBody, unreadable};

/// The wait a refused upload is told to observe.
pub const RETRY_AFTER_SECONDS: u64 = 5;

/// How large the chunks read back from the file are.
const READ_CHUNK: usize = 64 * 1024;

/// The spooled bytes of this process, and of each client.
#[derive(Debug, Clone)]
pub struct Spool {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    capacity: u64,
    used: AtomicU64,
    per_client: u64,
    clients: Mutex<HashMap<IpAddr, u64>>,
}

impl Inner {
    fn clients(&self) -> MutexGuard<'_, HashMap<IpAddr, u64>> {
        self.clients.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Why an upload was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The spool is full: 503.
    Full,
    /// The client has as many bytes in flight as it may: 429.
    ClientBusy,
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Full => Self::Overloaded {
                retry_after_seconds: RETRY_AFTER_SECONDS,
            },
            Refusal::ClientBusy => Self::TooManyRequests {
                retry_after_seconds: RETRY_AFTER_SECONDS,
            },
        }
    }
}

/// Bytes reserved for one upload, given back when it is dropped.
#[derive(Debug)]
struct Held {
    spool: Arc<Inner>,
    ip: IpAddr,
    bytes: u64,
}

impl Held {
    /// Reserves `more` bytes on both caps, or neither.
    fn grow(&mut self, more: u64) -> Result<(), Refusal> {
        let spool = &self.spool;
        {
            let mut clients = spool.clients();
            let client = clients.entry(self.ip).or_insert(0);
            if client.saturating_add(more) > spool.per_client {
                if *client == 0 {
                    clients.remove(&self.ip);
                }
                return Err(Refusal::ClientBusy);
            }
            *client += more;
        }
        let taken = spool
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(more)
                    .filter(|total| *total <= spool.capacity)
            });
        if taken.is_err() {
            self.give_back_client(more);
            return Err(Refusal::Full);
        }
        self.bytes += more;
        Ok(())
    }

    fn give_back_client(&self, bytes: u64) {
        let mut clients = self.spool.clients();
        if let Some(client) = clients.get_mut(&self.ip) {
            *client = client.saturating_sub(bytes);
            if *client == 0 {
                clients.remove(&self.ip);
            }
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if self.bytes > 0 {
            self.spool.used.fetch_sub(self.bytes, Ordering::AcqRel);
            self.give_back_client(self.bytes);
        }
    }
}

impl Spool {
    pub fn new(config: &UploadsConfig) -> Self {
        Self {
            inner: Arc::new(Inner {
                capacity: config.spool_capacity_bytes,
                used: AtomicU64::new(0),
                per_client: config.client_in_flight_bytes,
                clients: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// Bytes spooled right now, by every upload.
    pub fn used(&self) -> u64 {
        self.inner.used.load(Ordering::Acquire)
    }

    /// Reads `body` from `ip` to a temporary file, and returns a body that reads it back. The
    /// caps are checked as the bytes arrive, each frame reserved before it is written; what is
    /// reserved is held until the returned body is dropped (the end of the request), or given
    /// back at once when the body fails (cut for its slowness, say).
    pub async fn take(&self, ip: IpAddr, mut body: DeadlineBody) -> Result<Body, ApiError> {
        let mut held = Held {
            spool: self.inner.clone(),
            ip,
            bytes: 0,
        };
        let file = tempfile::tempfile().map_err(|err| {
            tracing::error!(error = %err, "cannot create an upload spool file");
            ApiError::Overloaded {
                retry_after_seconds: RETRY_AFTER_SECONDS,
            }
        })?;
        let mut file = tokio::fs::File::from_std(file);
        let written_fails = |err: std::io::Error| {
            tracing::error!(error = %err, "cannot write an upload spool file");
            ApiError::Overloaded {
                retry_after_seconds: RETRY_AFTER_SECONDS,
            }
        };
        let mut written = 0u64;
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|err| unreadable(err.as_ref()))?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            written += data.len() as u64;
            if written > held.bytes {
                held.grow(written - held.bytes)?;
            }
            file.write_all(&data).await.map_err(written_fails)?;
        }
        file.flush().await.map_err(written_fails)?;
        file.rewind().await.map_err(written_fails)?;
        let stream = ReaderStream::with_capacity(file, READ_CHUNK).map(move |chunk| {
            // The reservation lives as long as the body does.
            let _held = &held;
            chunk.map(Frame::data)
        });
        Ok(Body::new(http_body_util::StreamBody::new(stream)))
    }
}

/// `Bytes` read back from a spool file, for tests.
#[cfg(test)]
async fn read_back(body: Body) -> bytes::Bytes {
    body.collect()
        .await
        .map(http_body_util::Collected::to_bytes)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ServerConfig;
    use crate::http::request_body::BodyReading;

    fn spool(capacity: u64, per_client: u64) -> Spool {
        Spool::new(&UploadsConfig {
            spool_capacity_bytes: capacity,
            client_in_flight_bytes: per_client,
            ..UploadsConfig::default()
        })
    }

    fn body(bytes: &'static [u8]) -> DeadlineBody {
        BodyReading::new(&ServerConfig::default()).deadline(Body::from(bytes))
    }

    #[tokio::test]
    async fn a_spooled_body_reads_back_whole_and_its_bytes_come_back_when_dropped() {
        let spool = spool(100, 100);
        let ip: IpAddr = [203, 0, 113, 1].into();
        let back = spool.take(ip, body(b"hello world")).await.unwrap();
        assert_eq!(spool.used(), 11);
        assert_eq!(
            read_back(back).await,
            bytes::Bytes::from_static(b"hello world")
        );
        assert_eq!(spool.used(), 0);
        assert!(spool.inner.clients().is_empty());
    }

    /// A body that sends `first`, then nothing until `release` is dropped.
    fn stalled(first: &'static [u8], release: tokio::sync::oneshot::Receiver<()>) -> DeadlineBody {
        let chunks = futures::stream::iter([Ok::<_, std::io::Error>(Frame::data(
            bytes::Bytes::from_static(first),
        ))])
        .chain(futures::stream::once(async move {
            let _ = release.await;
            Err(std::io::Error::other("the client went away"))
        }));
        BodyReading::new(&ServerConfig::default())
            .deadline(Body::new(http_body_util::StreamBody::new(chunks)))
    }

    #[tokio::test]
    async fn only_the_bytes_that_arrived_are_reserved_never_the_declared_length() {
        // Capacity for 100 bytes; a client that declared 21 MiB and sent 5 holds 5 of them,
        // and gives them back when its body fails.
        let spool = spool(100, 100);
        let ip: IpAddr = [203, 0, 113, 1].into();
        let (release, released) = tokio::sync::oneshot::channel();
        let slow = tokio::spawn({
            let spool = spool.clone();
            async move { spool.take(ip, stalled(b"hello", released)).await.is_ok() }
        });
        for _ in 0..100 {
            if spool.used() == 5 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert_eq!(spool.used(), 5);
        let other: IpAddr = [203, 0, 113, 2].into();
        let whole = spool.take(other, body(b"hello world")).await.unwrap();
        assert_eq!(spool.used(), 16);
        drop(whole);
        drop(release);
        assert!(!slow.await.unwrap(), "the failed body is refused");
        assert_eq!(spool.used(), 0, "and its reservation given back");
    }

    #[tokio::test]
    async fn past_the_global_cap_is_503_and_past_the_clients_cap_429() {
        let spool = spool(20, 15);
        let one: IpAddr = [203, 0, 113, 1].into();
        let two: IpAddr = [203, 0, 113, 2].into();
        let first = spool.take(one, body(b"hello world")).await.unwrap();
        let busy = spool.take(one, body(b"hello")).await.err().unwrap();
        assert_eq!(busy.status(), 429);
        let full = spool.take(two, body(b"hello world")).await.err().unwrap();
        assert_eq!(full.status(), 503);
        assert_eq!(spool.used(), 11, "a refusal keeps nothing");
        drop(first);
        assert_eq!(spool.used(), 0);
        assert!(spool.take(two, body(b"hello world")).await.is_ok());
    }
}
