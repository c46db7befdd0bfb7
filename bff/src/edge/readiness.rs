//! Readiness: both upstreams reachable (and Redis reported when configured), the verdict reused for a short while so probes from
//! every kubelet and load balancer do not each hit the upstreams.

use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::Mutex;

use crate::coordination::replicas::Redis;
use crate::http::request_id::RequestId;
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
    /// Whether Redis answers, when `[redis]` is set. Reported, not required: every replica
    /// shares the one Redis, so failing readiness on it would take them all out of service at
    /// once, which is the outage the in-process fallbacks exist to avoid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redis: Option<bool>,
}

impl Readiness {
    /// The verdict: the last one while younger than `ttl`, else a new probe of both upstreams.
    pub async fn check(
        &self,
        commerce: &Upstream,
        content: &Upstream,
        redis: Option<&Redis>,
        ttl: Duration,
        request_id: &RequestId,
    ) -> Report {
        let mut last = self.last.lock().await;
        if let Some((checked, report)) = last.as_ref()
            && checked.elapsed() < ttl
        {
            return report.clone();
        }
        let redis_probe = async {
            match redis {
                Some(redis) => Some(redis.ping().await),
                None => None,
            }
        };
        let (commerce, content, redis) = tokio::join!(
            commerce.probe(request_id),
            content.probe(request_id),
            redis_probe
        );
        let report = Report {
            ready: commerce && content,
            commerce,
            content,
            redis,
        };
        *last = Some((Instant::now(), report.clone()));
        report
    }
}
