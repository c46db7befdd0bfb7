//! The public listener's service: the hit path first, the router for everything else.

use std::convert::Infallible;
use std::future::{Future, Ready, ready};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::response::Response;
use axum::routing::future::RouteFuture;
use futures::future::Either;
use prometheus_client::metrics::gauge::Gauge;
use tower::Service;

use crate::edge::hit_path::HitPath;
use crate::edge::state::SharedState;
use crate::http::trace_budget::TraceBudget;

/// The storefront as one service: a remembered cache hit is answered at once, anything else goes
/// through the public router (the composition root's `crate::app`) with the peer's address (`ConnectInfo`) for per-client limits.
#[derive(Clone)]
pub struct Storefront {
    router: Router,
    hits: Arc<HitPath>,
    peer: Option<SocketAddr>,
    /// `http_server_active_requests`.
    in_flight: Gauge,
    /// How many requests a client's `traceparent` may have traced.
    traces: Arc<TraceBudget>,
}

impl Storefront {
    /// The storefront of `state`, with `router` (made from the same state) behind its hit path.
    pub fn new(state: SharedState, router: Router) -> Self {
        let hits = HitPath::new(
            state.cache.clone(),
            state.security.clone(),
            &state.metrics,
            state.web.build_id(),
        );
        Self {
            in_flight: state.metrics.active_requests(),
            traces: Arc::new(TraceBudget::new(&state.config, state.metrics.clone())),
            router,
            hits: Arc::new(hits),
            peer: None,
        }
    }

    /// The service for one connection from `peer`.
    pub fn for_peer(&self, peer: SocketAddr) -> Self {
        Self {
            peer: Some(peer),
            ..self.clone()
        }
    }
}

impl Service<Request<Body>> for Storefront {
    type Response = Response;
    type Error = Infallible;
    type Future = Either<Ready<Result<Response, Infallible>>, InFlight>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // The router is always ready; limits sit inside it, around the work that is slow.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: Request<Body>) -> Self::Future {
        // A hit is answered before this returns: in flight for the length of `answer`.
        let guard = InFlightGuard::new(&self.in_flight);
        if let Some(peer) = self.peer {
            request.extensions_mut().insert(ConnectInfo(peer));
        }
        // Before the hit path and the server span read the header.
        self.traces.apply(&mut request);
        if let Some(response) = self.hits.answer(&request) {
            return Either::Left(ready(Ok(response)));
        }
        Either::Right(InFlight {
            inner: self.router.call(request),
            _guard: guard,
        })
    }
}

/// Counts one request in flight until dropped (answered, or abandoned by its client).
struct InFlightGuard(Gauge);

impl InFlightGuard {
    fn new(gauge: &Gauge) -> Self {
        gauge.inc();
        Self(gauge.clone())
    }
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// The router's answer, counted in flight until it is ready or dropped.
pub struct InFlight {
    inner: RouteFuture<Infallible>,
    _guard: InFlightGuard,
}

impl Future for InFlight {
    type Output = Result<Response, Infallible>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.inner).poll(cx)
    }
}
