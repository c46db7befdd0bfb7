//! The public listener's connection loop: hyper's HTTP/1.1 with a header-read timer (axum's
//! `serve` sets no timer, so hyper's header timeout never fires there and a client could hold a
//! connection open forever with half a request line), each connection served by the
//! [`Storefront`] for its peer, and a graceful drain on shutdown.
//!
//! HTTP/1.1 only: browsers speak HTTP/2 over TLS, which the ingress terminates, and sniffing
//! for cleartext HTTP/2 would wait for bytes before any timer runs (a silent connection would
//! never be closed).

use std::io;
use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::storefront::Storefront;

/// How long to wait before accepting again after an accept error (out of file descriptors,
/// say), so a full table does not spin the loop.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Serves `listener` until `shutdown`, then stops accepting and waits for open connections to
/// finish their requests (the caller bounds that wait with the shutdown grace).
pub async fn storefront(
    listener: TcpListener,
    storefront: Storefront,
    header_read_timeout: Duration,
    shutdown: CancellationToken,
) -> io::Result<()> {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
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
        let service = storefront
            .for_peer(peer)
            .map_request(|request: Request<Incoming>| request.map(Body::new));
        let connection =
            builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                // A client that went away or timed out: nothing to answer, nothing to alarm.
                tracing::debug!(error = %err, %peer, "connection ended with an error");
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}
