//! Readiness: both upstreams reachable, the verdict reused for a short while so probes from
//! every kubelet and load balancer do not each hit the upstreams.

use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::Mutex;

use crate::request_id::RequestId;
use crate::upstream::Upstream;

/// The last readiness verdict. An async mutex on purpose: it is held across the upstream probes,
/// so concurrent probes wait for one check instead of each hitting the upstreams.
#[derive(Debug, Default)]
pub struct Readiness {
    last: Mutex<Option<(Instant, Report)>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub ready: bool,
    pub commerce: bool,
    pub content: bool,
}

impl Readiness {
    /// The verdict: the last one while younger than `ttl`, else a new probe of both upstreams.
    pub async fn check(
        &self,
        commerce: &Upstream,
        content: &Upstream,
        ttl: Duration,
        request_id: &RequestId,
    ) -> Report {
        let mut last = self.last.lock().await;
        if let Some((checked, report)) = last.as_ref()
            && checked.elapsed() < ttl
        {
            return report.clone();
        }
        let (commerce, content) =
            tokio::join!(commerce.probe(request_id), content.probe(request_id));
        let report = Report {
            ready: commerce && content,
            commerce,
            content,
        };
        *last = Some((Instant::now(), report.clone()));
        report
    }
}
