//! Allocations per cached request on the hit path, counted by a counting allocator: a hit
//! costs a handful of small allocations (the answer's header map, the body handle, the
//! request id), never a copy of the body or a per-request string for metrics or logs.

#![allow(clippy::unwrap_used)]

#[path = "it/common/mod.rs"]
mod common;

use bff::edge::hit_path::HitPath;
use common::in_process::{get_request, start};

/// Allocations made by `work` (the `allocation-counter` crate's counting allocator).
fn allocations(work: impl FnOnce()) -> u64 {
    allocation_counter::measure(work).count_total
}

/// The most a hit may allocate (7 for a page, 9 for a percent-encoded product title when this
/// was written): the key, the decoded title, the answer's header map (indices, entries, one
/// growth for the security headers and the request id), the request id, the boxed body.
const MOST_PER_HIT: u64 = 10;

#[tokio::test]
async fn a_cached_page_or_product_is_answered_with_a_few_small_allocations() {
    let app = start();
    let hits = HitPath::new(
        app.state.cache.clone(),
        app.state.security.clone(),
        &app.state.metrics,
        app.state.web.build_id(),
    );
    for path in ["/api/pages/home", "/api/products/summit%20lr"] {
        for _ in 0..2 {
            assert_eq!(app.get(path).await.status, 200);
        }
        for accept in ["", "gzip, deflate, br"] {
            let request = get_request(path, &[("accept-encoding", accept)]);
            assert!(hits.answer(&request).is_some(), "{path} is remembered");
            let rounds = 1_000;
            let total = allocations(|| {
                for _ in 0..rounds {
                    let response = hits.answer(&request);
                    assert!(response.is_some());
                    drop(response);
                }
            });
            let per_hit = total as f64 / f64::from(rounds);
            println!("{path} accept-encoding={accept:?}: {per_hit:.2} allocations per hit");
            assert!(
                per_hit <= MOST_PER_HIT as f64,
                "{path}: {per_hit} allocations per hit"
            );
        }
    }
}
