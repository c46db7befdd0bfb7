//! The sandbox's test hooks and the admin port's metrics, written once for both harnesses: the
//! real-TCP [`super::TestServer`] and the in-process [`super::in_process::InProcess`] differ only
//! in how a request reaches the sandbox or the admin port, which is all each implements.

use axum::http::{Method, StatusCode};
use bytes::Bytes;
use serde_json::Value;

use super::metrics::Scrape;

// Test code awaited in place: the futures need no `Send` bound.
#[allow(async_fn_in_trait)]
pub trait SandboxHooks {
    /// The sandbox's answer to `method path`, with `body` sent as JSON when there is one.
    async fn sandbox_call(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> (StatusCode, Bytes);

    /// The admin port's body for `GET path`.
    async fn admin_body(&self, path: &str) -> Bytes;

    /// How many requests the sandbox received on its route template `route` (its counters, not
    /// the bounded list of recent requests); the one request-counting helper.
    async fn upstream_calls(&self, route: &str) -> usize {
        let (_, stats) = self.sandbox_call(Method::GET, "/sandbox/stats", None).await;
        route_count(&serde_json::from_slice(&stats).unwrap(), route)
    }

    /// What the sandbox received, most recent last.
    async fn sandbox_requests(&self) -> Vec<Value> {
        let (_, requests) = self
            .sandbox_call(Method::GET, "/sandbox/requests", None)
            .await;
        serde_json::from_slice(&requests).unwrap()
    }

    async fn inject_fault(&self, fault: Value) {
        let (status, _) = self
            .sandbox_call(Method::POST, "/sandbox/faults", Some(&fault))
            .await;
        assert!(status.is_success(), "fault not accepted: {fault}");
    }

    /// Clears every fault injected into the sandbox.
    async fn clear_faults(&self) {
        let (status, _) = self
            .sandbox_call(Method::DELETE, "/sandbox/faults", None)
            .await;
        assert!(status.is_success(), "faults not cleared");
    }

    /// The admin port's metrics, parsed.
    async fn metrics(&self) -> Scrape {
        Scrape::parse(&String::from_utf8_lossy(&self.admin_body("/metrics").await))
    }
}

/// The count of `route` (a sandbox route template, `/strapi/page/{name}`) in the sandbox's
/// `/sandbox/stats` answer.
fn route_count(stats: &Value, route: &str) -> usize {
    stats["routes"][route]
        .as_u64()
        .map_or(0, |count| usize::try_from(count).unwrap())
}
