//! The listeners' connection loop: hyper's HTTP/1.1 with a header-read timer (axum's `serve`
//! sets no timer, so hyper's header timeout never fires there and a client could hold a
//! connection open forever with half a request line), a cap on the connections one peer
//! address may hold, and a graceful drain on shutdown. The public listener adds a `Host` check
//! (RFC 9112 §3.2), each connection served by the [`Storefront`] for its peer, and counts the
//! requests it is still waiting for; the admin listener serves its router through the same loop
//! with limits of its own (`[admin]`): the kubelet's probes share that port, so anything the
//! network policy admits to it must not be able to hold it open.
//!
//! HTTP/1.1 only: browsers speak HTTP/2 over TLS, which the ingress terminates, and sniffing
//! for cleartext HTTP/2 would wait for bytes before any timer runs (a silent connection would
//! never be closed).
//!
//! The header timer runs from the moment a connection is accepted and again from the end of
//! each answer, so it is also the keep-alive idle limit: a connection that sends nothing, half
//! a head, or nothing more after an answer is closed once `server.header_read_timeout` has
//! passed. (The body has its own deadline: [`crate::http::request_body`].)

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::{Ready, ready};
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, Version, header};
use axum::response::{IntoResponse, Response};
use futures::future::Either;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tower::Service;

use crate::config::{AdminConfig, ServerConfig};
use crate::edge::storefront::Storefront;
use crate::http::error::ApiError;

/// How long to wait before accepting again after an accept error (out of file descriptors,
/// say), so a full table does not spin the loop.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// What the connection loop enforces, from `[server]`.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    pub header_read_timeout: Duration,
    /// 0: no cap.
    pub max_connections_per_ip: usize,
}

impl ConnectionLimits {
    pub fn new(config: &ServerConfig) -> Self {
        Self {
            header_read_timeout: config.header_read_timeout,
            max_connections_per_ip: config.max_connections_per_ip,
        }
    }

    pub fn admin(config: &AdminConfig) -> Self {
        Self {
            header_read_timeout: config.header_read_timeout,
            max_connections_per_ip: config.max_connections_per_ip,
        }
    }
}

/// How many requests of the public listener are being answered right now: at the end of the
/// shutdown grace, the number dropped.
#[derive(Debug, Clone, Default)]
pub struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    pub fn count(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }

    fn start(&self) -> InFlightGuard {
        self.0.fetch_add(1, Ordering::AcqRel);
        InFlightGuard(self.0.clone())
    }
}

/// One request being answered; counted until its answer is ready (or it is dropped).
#[derive(Debug)]
struct InFlightGuard(Arc<AtomicUsize>);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Open connections per peer address.
#[derive(Debug)]
struct PeerConnections {
    cap: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
}

impl PeerConnections {
    /// The counts; a panic while they were held leaves them as good as they were.
    fn open(&self) -> MutexGuard<'_, HashMap<IpAddr, usize>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for one more connection from `ip`, or `None` when it holds the cap already.
    fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<PeerSlot> {
        if self.cap == 0 {
            return Some(PeerSlot(None));
        }
        let mut open = self.open();
        let count = open.entry(ip).or_insert(0);
        if *count >= self.cap {
            return None;
        }
        *count += 1;
        Some(PeerSlot(Some((self.clone(), ip))))
    }
}

/// One admitted connection; its place is given back when the connection ends.
struct PeerSlot(Option<(Arc<PeerConnections>, IpAddr)>);

impl Drop for PeerSlot {
    fn drop(&mut self) {
        if let Some((peers, ip)) = self.0.take() {
            let mut open = peers.open();
            if let Some(count) = open.get_mut(&ip) {
                *count -= 1;
                if *count == 0 {
                    open.remove(&ip);
                }
            }
        }
    }
}

/// Serves `listener` with the [`Storefront`] until `shutdown`, then stops accepting and waits
/// for open connections to finish their requests (the caller bounds that wait with the shutdown
/// grace, and reads `in_flight` when it runs out).
pub async fn storefront(
    listener: TcpListener,
    storefront: Storefront,
    limits: ConnectionLimits,
    in_flight: InFlight,
    shutdown: CancellationToken,
) -> io::Result<()> {
    let service_for = move |peer| Connection {
        storefront: storefront.for_peer(peer),
        in_flight: in_flight.clone(),
    };
    serve(listener, limits, shutdown, service_for).await
}

/// Serves `listener` with the admin router until `shutdown`, then drains as the public
/// listener does.
pub async fn admin(
    listener: TcpListener,
    router: axum::Router,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
) -> io::Result<()> {
    serve(listener, limits, shutdown, move |_| router.clone()).await
}

/// The loop itself: each accepted connection, within its peer's cap, served by
/// `service_for(peer)` under the header timer.
async fn serve<S>(
    listener: TcpListener,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
    service_for: impl Fn(SocketAddr) -> S,
) -> io::Result<()>
where
    S: Service<Request<Incoming>, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let peers = Arc::new(PeerConnections {
        cap: limits.max_connections_per_ip,
        open: Mutex::new(HashMap::new()),
    });
    let graceful = GracefulShutdown::new();
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    tracing::warn!(error = %err, "accept failed");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
            () = shutdown.cancelled() => break,
        };
        let Some(slot) = peers.admit(peer.ip()) else {
            // Closed at once, unread: the peer holds as many connections as one client may.
            tracing::debug!(%peer, cap = limits.max_connections_per_ip, "connection refused: too many from this address");
            drop(stream);
            continue;
        };
        let connection = builder.serve_connection(
            TokioIo::new(stream),
            TowerToHyperService::new(service_for(peer)),
        );
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                // A client that went away or timed out: nothing to answer, nothing to alarm.
                tracing::debug!(error = %err, %peer, "connection ended with an error");
            }
            drop(slot);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// The service of one connection: the `Host` check, then the storefront, each request counted
/// while it is answered.
#[derive(Clone)]
struct Connection {
    storefront: Storefront,
    in_flight: InFlight,
}

impl Service<Request<Incoming>> for Connection {
    type Response = Response;
    type Error = Infallible;
    type Future = Either<
        Ready<Result<Response, Infallible>>,
        Counted<<Storefront as Service<Request<Body>>>::Future>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.storefront.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Incoming>) -> Self::Future {
        if let Err(problem) = check_host(&request) {
            return Either::Left(ready(Ok(problem.into_response())));
        }
        let guard = self.in_flight.start();
        Either::Right(Counted {
            inner: self.storefront.call(request.map(Body::new)),
            _guard: guard,
        })
    }
}

pin_project_lite::pin_project! {
    /// A request's answer, counted in [`InFlight`] until it is ready.
    struct Counted<F> {
        #[pin]
        inner: F,
        _guard: InFlightGuard,
    }
}

impl<F: Future> Future for Counted<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.project().inner.poll(cx)
    }
}

/// RFC 9112 §3.2: an HTTP/1.1 request without a `Host`, any request with more than one, or
/// one whose `Host` is not an authority, is a 400.
fn check_host<B>(request: &Request<B>) -> Result<(), ApiError> {
    let mut hosts = request.headers().get_all(header::HOST).iter();
    let refuse = |detail: &str| ApiError::BadRequest {
        code: "invalid_host",
        detail: detail.to_owned(),
    };
    match (hosts.next(), hosts.next()) {
        (None, _) if request.version() == Version::HTTP_11 => {
            Err(refuse("The request has no Host header."))
        }
        (None, _) => Ok(()),
        (Some(_), Some(_)) => Err(refuse("The request has more than one Host header.")),
        (Some(host), None) => match axum::http::uri::Authority::try_from(host.as_bytes()) {
            Ok(_) => Ok(()),
            Err(_) => Err(refuse("The request's Host header is not a host name.")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(version: Version, hosts: &[&str]) -> Request<()> {
        let mut builder = Request::get("/").version(version);
        for host in hosts {
            builder = builder.header(header::HOST, *host);
        }
        builder.body(()).unwrap_or_else(|_| unreachable!())
    }

    #[test]
    fn one_valid_host_is_required_of_http_1_1() {
        assert!(check_host(&request(Version::HTTP_11, &["shop.example.com"])).is_ok());
        assert!(check_host(&request(Version::HTTP_11, &["localhost:8080"])).is_ok());
        assert!(check_host(&request(Version::HTTP_11, &[])).is_err());
        assert!(check_host(&request(Version::HTTP_11, &["a.example", "b.example"])).is_err());
        assert!(check_host(&request(Version::HTTP_11, &["a b"])).is_err());
        // HTTP/1.0 had no Host; it may still send only one.
        assert!(check_host(&request(Version::HTTP_10, &[])).is_ok());
        assert!(check_host(&request(Version::HTTP_10, &["a", "a"])).is_err());
    }

    #[test]
    fn a_peer_gets_no_more_connections_than_the_cap_and_its_places_come_back() {
        let peers = Arc::new(PeerConnections {
            cap: 2,
            open: Mutex::new(HashMap::new()),
        });
        let one: IpAddr = [127, 0, 0, 1].into();
        let two: IpAddr = [127, 0, 0, 2].into();
        let first = peers.admit(one);
        let second = peers.admit(one);
        assert!(first.is_some() && second.is_some());
        assert!(peers.admit(one).is_none());
        assert!(peers.admit(two).is_some());
        drop(first);
        assert!(peers.admit(one).is_some());
        drop(second);
        assert!(peers.open().is_empty(), "every place is given back");
    }
}
