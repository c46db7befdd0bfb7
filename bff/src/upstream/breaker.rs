//! A circuit breaker per upstream: after `failure_threshold` consecutive failures (server errors,
//! timeouts, no connection) the upstream is left alone for `cool_off`, and calls fail at once
//! with [`UpstreamError::CircuitOpen`] instead of each waiting for the upstream's timeout. Then
//! one probe goes through (half-open): its success closes the circuit, its failure opens it for
//! another cool-off.
//!
//! ```text
//!   closed ──(threshold consecutive failures)──▶ open ──(cool-off over, next call)──▶ half-open
//!     ▲                                           ▲                                      │
//!     └───────────────(probe succeeds)────────────┼──────────────────────────────────────┤
//!                                                 └────────────(probe fails)─────────────┘
//! ```
//!
//! A 4xx is an answer, not a failure: the upstream is up and said no. Calls this replica refused
//! itself (its own concurrency limit) say nothing about the upstream and count neither way.
//! Only calls let through while closed, and the probe, are counted: a slow call started before
//! the circuit opened cannot close it again, nor re-open it.
//!
//! The cache turns `CircuitOpen` into a stale copy at once (stale-if-error) where it has one;
//! without one the client gets a 503 whose `Retry-After` is the rest of the cool-off.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tower::ServiceExt;
use tower::util::BoxCloneSyncService;

use super::UpstreamError;
use super::exchange::{Stack, UpstreamRequest, UpstreamResponse};
use crate::observe::metrics::Metrics;

/// When a breaker opens and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerSettings {
    /// Consecutive failures that open the circuit; 0 never opens it.
    pub failure_threshold: u32,
    /// How long an open circuit refuses calls before one probe is let through.
    pub cool_off: Duration,
}

/// The breaker's state: `/admin/upstreams` names it in kebab case (`half-open`), the metrics in
/// snake case (`half_open`, [`BreakerState::label`]) like their other label values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BreakerState {
    Closed,
    Open,
    HalfOpen,
}

impl BreakerState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Closed => "closed",
            Self::Open => "open",
            Self::HalfOpen => "half-open",
        }
    }

    /// Every state: `bff_upstream_breaker_state` has one series for each.
    pub const ALL: [Self; 3] = [Self::Closed, Self::Open, Self::HalfOpen];

    /// The state's label value in `bff_upstream_breaker_state{state}` and
    /// `bff_upstream_breaker_transitions_total{to}`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Closed => "closed",
            Self::Open => "open",
            Self::HalfOpen => "half_open",
        }
    }

    fn record(self, metrics: &Metrics, upstream: &'static str) {
        metrics.set_breaker_state(upstream, self.label(), &Self::ALL.map(Self::label));
    }
}

/// What a breaker looks like now, for `/admin/upstreams`.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BreakerSnapshot {
    pub upstream: &'static str,
    pub state: BreakerState,
    /// Failures in a row while closed; while open or half-open, the threshold that opened it.
    pub consecutive_failures: u32,
    /// While open: how long until a probe may go through.
    pub retry_after_ms: Option<u64>,
    pub failure_threshold: u32,
    pub cool_off_ms: u64,
}

#[derive(Debug, Clone, Copy)]
enum Phase {
    Closed {
        failures: u32,
    },
    Open {
        until: Instant,
    },
    /// `probing`: the one probe is in flight; every other call is refused meanwhile.
    HalfOpen {
        probing: bool,
    },
}

impl Phase {
    fn state(self) -> BreakerState {
        match self {
            Self::Closed { .. } => BreakerState::Closed,
            Self::Open { .. } => BreakerState::Open,
            Self::HalfOpen { .. } => BreakerState::HalfOpen,
        }
    }
}

/// How one call ended, as the breaker counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Success,
    Failure,
    /// Says nothing about the upstream (refused by this replica's own limit, a request that
    /// could not be built).
    Neither,
}

impl Verdict {
    fn of(result: &Result<UpstreamResponse, UpstreamError>) -> Self {
        match result {
            Ok(response) if response.status.is_server_error() => Self::Failure,
            Ok(_) => Self::Success,
            Err(UpstreamError::Timeout { .. } | UpstreamError::Unreachable { .. }) => Self::Failure,
            Err(_) => Self::Neither,
        }
    }
}

/// One upstream's breaker.
#[derive(Debug)]
pub struct Breaker {
    upstream: &'static str,
    settings: BreakerSettings,
    /// A std `Mutex`: held for a few comparisons, never across an await.
    phase: Mutex<Phase>,
    metrics: Arc<Metrics>,
}

/// A call let through: reports its verdict once. Dropped without one (the caller went away),
/// a probe frees the half-open slot for the next call.
struct Admission<'a> {
    breaker: &'a Breaker,
    probe: bool,
    reported: bool,
}

impl Admission<'_> {
    fn report(mut self, verdict: Verdict) {
        self.reported = true;
        self.breaker.settle(self.probe, verdict);
    }
}

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        if !self.reported {
            self.breaker.settle(self.probe, Verdict::Neither);
        }
    }
}

impl Breaker {
    pub fn new(upstream: &'static str, settings: BreakerSettings, metrics: Arc<Metrics>) -> Self {
        BreakerState::Closed.record(&metrics, upstream);
        Self {
            upstream,
            settings,
            phase: Mutex::new(Phase::Closed { failures: 0 }),
            metrics,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Phase> {
        // Every critical section leaves a whole `Phase` behind: a poisoned lock is still valid.
        self.phase
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Lets a call through (as the probe, when half-open), or refuses it with the time left
    /// before one may go.
    fn admit(&self, now: Instant) -> Result<Admission<'_>, Duration> {
        let mut phase = self.lock();
        let probe = match *phase {
            Phase::Closed { .. } => false,
            Phase::Open { until } if now < until => return Err(until - now),
            Phase::Open { .. } | Phase::HalfOpen { probing: false } => {
                self.enter(&mut phase, Phase::HalfOpen { probing: true });
                true
            }
            // The probe's answer is at most one upstream timeout away; ask for a second.
            Phase::HalfOpen { probing: true } => return Err(Duration::from_secs(1)),
        };
        Ok(Admission {
            breaker: self,
            probe,
            reported: false,
        })
    }

    fn settle(&self, probe: bool, verdict: Verdict) {
        let mut phase = self.lock();
        let open = Phase::Open {
            until: Instant::now() + self.settings.cool_off,
        };
        match (*phase, probe, verdict) {
            (Phase::HalfOpen { .. }, true, Verdict::Success) => {
                self.enter(&mut phase, Phase::Closed { failures: 0 });
            }
            (Phase::HalfOpen { .. }, true, Verdict::Failure) => self.enter(&mut phase, open),
            (Phase::HalfOpen { .. }, true, Verdict::Neither) => {
                *phase = Phase::HalfOpen { probing: false };
            }
            (Phase::Closed { .. }, false, Verdict::Success) => {
                *phase = Phase::Closed { failures: 0 };
            }
            (Phase::Closed { failures }, false, Verdict::Failure) => {
                let failures = failures.saturating_add(1);
                if self.settings.failure_threshold > 0
                    && failures >= self.settings.failure_threshold
                {
                    tracing::warn!(
                        upstream = self.upstream,
                        failures,
                        cool_off_ms = self.settings.cool_off.as_millis() as u64,
                        "circuit opened: calls fail at once until the cool-off ends"
                    );
                    self.enter(&mut phase, open);
                } else {
                    *phase = Phase::Closed { failures };
                }
            }
            // A call admitted in another phase than the current one: it describes the
            // upstream as it was, not as it is.
            _ => {}
        }
    }

    /// Moves to `next`, counting the transition and setting the gauge.
    fn enter(&self, phase: &mut Phase, next: Phase) {
        let changed = phase.state() != next.state();
        *phase = next;
        if changed {
            let state = next.state();
            tracing::info!(
                upstream = self.upstream,
                state = state.as_str(),
                "circuit breaker"
            );
            state.record(&self.metrics, self.upstream);
            self.metrics
                .count_breaker_transition(self.upstream, state.label());
        }
    }

    pub fn snapshot(&self) -> BreakerSnapshot {
        let phase = *self.lock();
        let (consecutive_failures, retry_after) = match phase {
            Phase::Closed { failures } => (failures, None),
            Phase::Open { until } => (
                self.settings.failure_threshold,
                Some(until.saturating_duration_since(Instant::now())),
            ),
            Phase::HalfOpen { .. } => (self.settings.failure_threshold, None),
        };
        BreakerSnapshot {
            upstream: self.upstream,
            state: phase.state(),
            consecutive_failures,
            retry_after_ms: retry_after.map(|left| left.as_millis() as u64),
            failure_threshold: self.settings.failure_threshold,
            cool_off_ms: self.settings.cool_off.as_millis() as u64,
        }
    }

    /// Runs `call` unless the circuit is open.
    async fn call<F>(&self, call: F) -> Result<UpstreamResponse, UpstreamError>
    where
        F: Future<Output = Result<UpstreamResponse, UpstreamError>>,
    {
        let admission =
            self.admit(Instant::now())
                .map_err(|retry_after| UpstreamError::CircuitOpen {
                    upstream: self.upstream,
                    retry_after,
                })?;
        let result = call.await;
        admission.report(Verdict::of(&result));
        result
    }
}

/// The breaker as a layer of the upstream stack (see [`super::stack`]).
pub fn layer(breaker: Arc<Breaker>, inner: Stack) -> Stack {
    BoxCloneSyncService::new(tower::service_fn(move |request: UpstreamRequest| {
        let (breaker, inner) = (breaker.clone(), inner.clone());
        async move { breaker.call(inner.oneshot(request)).await }
    }))
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;
    use bytes::Bytes;

    use super::*;

    const COOL_OFF: Duration = Duration::from_millis(50);

    fn breaker(threshold: u32) -> (Breaker, Arc<Metrics>) {
        let metrics = Arc::new(Metrics::new());
        let settings = BreakerSettings {
            failure_threshold: threshold,
            cool_off: COOL_OFF,
        };
        (Breaker::new("content", settings, metrics.clone()), metrics)
    }

    fn answered(status: u16) -> Result<UpstreamResponse, UpstreamError> {
        Ok(UpstreamResponse {
            status: StatusCode::from_u16(status).unwrap(),
            body: Bytes::new(),
            content_type: None,
            no_store: false,
        })
    }

    fn timed_out() -> Result<UpstreamResponse, UpstreamError> {
        Err(UpstreamError::Timeout {
            upstream: "content",
        })
    }

    async fn send(
        breaker: &Breaker,
        result: Result<UpstreamResponse, UpstreamError>,
    ) -> Result<UpstreamResponse, UpstreamError> {
        breaker.call(async { result }).await
    }

    /// The content breaker's `bff_upstream_breaker_state` series, sorted by state (every line
    /// of the family is parsed, so a missing or extra series shows).
    fn breaker_series(text: &str) -> Vec<(&str, i64)> {
        let prefix = "bff_upstream_breaker_state{upstream=\"content\",state=\"";
        let mut series: Vec<(&str, i64)> = text
            .lines()
            .filter(|line| line.starts_with("bff_upstream_breaker_state{"))
            .map(|line| {
                let rest = line.strip_prefix(prefix).expect(line);
                let (state, value) = rest.split_once("\"} ").expect(line);
                (state, value.parse().expect(line))
            })
            .collect();
        series.sort_unstable();
        series
    }

    fn is_open(result: &Result<UpstreamResponse, UpstreamError>) -> bool {
        matches!(result, Err(UpstreamError::CircuitOpen { .. }))
    }

    #[tokio::test]
    async fn consecutive_failures_open_it_and_a_success_in_between_starts_the_count_again() {
        let (breaker, _) = breaker(3);
        send(&breaker, timed_out()).await.unwrap_err();
        send(&breaker, answered(503)).await.unwrap();
        send(&breaker, answered(200)).await.unwrap();
        for _ in 0..2 {
            send(&breaker, timed_out()).await.unwrap_err();
        }
        assert_eq!(breaker.snapshot().state, BreakerState::Closed);
        send(&breaker, answered(502)).await.unwrap();
        assert_eq!(breaker.snapshot().state, BreakerState::Open);
        let refused = send(&breaker, answered(200)).await;
        let Err(UpstreamError::CircuitOpen { retry_after, .. }) = refused else {
            panic!("not refused: {refused:?}");
        };
        assert!(retry_after <= COOL_OFF);
    }

    #[tokio::test]
    async fn a_client_error_is_an_answer_not_a_failure() {
        let (breaker, _) = breaker(2);
        for status in [400, 401, 404, 409, 422, 429, 400, 404] {
            send(&breaker, answered(status)).await.unwrap();
        }
        let overloaded = Err(UpstreamError::Overloaded {
            upstream: "content",
        });
        send(&breaker, overloaded.clone()).await.unwrap_err();
        send(&breaker, overloaded).await.unwrap_err();
        assert_eq!(breaker.snapshot().state, BreakerState::Closed);
        assert_eq!(breaker.snapshot().consecutive_failures, 0);
    }

    #[tokio::test]
    async fn after_the_cool_off_one_probe_goes_through_and_its_success_closes_it() {
        let (breaker, metrics) = breaker(1);
        send(&breaker, timed_out()).await.unwrap_err();
        tokio::time::sleep(COOL_OFF).await;
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let probe = breaker.call(async {
            let _ = released.await;
            answered(200)
        });
        let others = async {
            tokio::task::yield_now().await;
            assert_eq!(breaker.snapshot().state, BreakerState::HalfOpen);
            assert_eq!(
                breaker_series(&metrics.render()),
                [("closed", 0), ("half_open", 1), ("open", 0)]
            );
            let refused = send(&breaker, answered(200)).await;
            assert!(is_open(&refused), "only one probe: {refused:?}");
            let _ = release.send(());
        };
        let (probed, ()) = tokio::join!(probe, others);
        probed.unwrap();
        assert_eq!(breaker.snapshot().state, BreakerState::Closed);
        let text = metrics.render();
        for to in ["open", "half_open", "closed"] {
            assert!(
                text.contains(&format!(
                    "bff_upstream_breaker_transitions_total{{upstream=\"content\",to=\"{to}\"}} 1"
                )),
                "{text}"
            );
        }
        assert_eq!(
            breaker_series(&text),
            [("closed", 1), ("half_open", 0), ("open", 0)]
        );
    }

    #[tokio::test]
    async fn a_failed_probe_opens_it_for_another_cool_off() {
        let (breaker, metrics) = breaker(1);
        send(&breaker, timed_out()).await.unwrap_err();
        tokio::time::sleep(COOL_OFF).await;
        send(&breaker, answered(500)).await.unwrap();
        assert_eq!(breaker.snapshot().state, BreakerState::Open);
        assert!(is_open(&send(&breaker, answered(200)).await));
        assert_eq!(
            breaker_series(&metrics.render()),
            [("closed", 0), ("half_open", 0), ("open", 1)]
        );
    }

    #[tokio::test]
    async fn a_probe_whose_caller_went_away_frees_the_slot_for_the_next_call() {
        let (breaker, _) = breaker(1);
        send(&breaker, timed_out()).await.unwrap_err();
        tokio::time::sleep(COOL_OFF).await;
        let abandoned = breaker.call(std::future::pending());
        assert!(
            tokio::time::timeout(Duration::from_millis(10), abandoned)
                .await
                .is_err()
        );
        send(&breaker, answered(200)).await.unwrap();
        assert_eq!(breaker.snapshot().state, BreakerState::Closed);
    }

    #[tokio::test]
    async fn a_slow_call_started_while_closed_cannot_close_an_open_circuit() {
        let (breaker, _) = breaker(1);
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let slow = breaker.call(async {
            let _ = released.await;
            answered(200)
        });
        let failing = async {
            send(&breaker, timed_out()).await.unwrap_err();
            let _ = release.send(());
        };
        let (slow, ()) = tokio::join!(slow, failing);
        slow.unwrap();
        assert_eq!(breaker.snapshot().state, BreakerState::Open);
    }

    #[tokio::test]
    async fn a_threshold_of_zero_never_opens() {
        let (breaker, _) = breaker(0);
        for _ in 0..20 {
            send(&breaker, timed_out()).await.unwrap_err();
        }
        assert_eq!(breaker.snapshot().state, BreakerState::Closed);
    }
}
