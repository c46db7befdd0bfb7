//! A client's `traceparent` may ask for its request to be traced (the sampled flag), and the
//! server honours it, so a browser's trace continues through the BFF. Honoured without bound,
//! a client would choose the export volume. So the flag is honoured within a per-client budget
//! (`telemetry.traceparent_sampled_per_minute`, counted on this replica: it is checked on every
//! request, where a Redis round trip would cost more than the spans it saves); past it the
//! request is sampled at `telemetry.sample_ratio`, like one without the header. The caller's
//! trace id is kept either way, so logs and `traceresponse` still name its trace.

use axum::body::Body;
use axum::http::{HeaderValue, Request};

use crate::config::Config;
use crate::http::rate_limit::ClientRateLimit;
use crate::observe::metrics::Metrics;

/// The budget and the ratio past it.
#[derive(Debug, Clone)]
pub struct TraceBudget {
    limit: ClientRateLimit,
    ratio: f64,
}

/// The flags of a W3C `traceparent` (`00-{trace id}-{parent id}-{flags}`), when well formed.
fn flags(value: &[u8]) -> Option<u8> {
    if value.len() != 55 {
        return None;
    }
    let flags = std::str::from_utf8(value.get(53..)?).ok()?;
    u8::from_str_radix(flags, 16).ok()
}

impl TraceBudget {
    pub fn new(config: &Config, metrics: std::sync::Arc<Metrics>) -> Self {
        Self {
            limit: ClientRateLimit::traceparent(
                config.telemetry.traceparent_sampled_per_minute,
                &config.rate_limit,
                metrics,
                None,
            ),
            ratio: config.telemetry.sample_ratio,
        }
    }

    /// Clears the sampled flag of `request`'s `traceparent` when its client is past the budget
    /// and the ratio's draw says no. Call with the client's address in the request (its
    /// `ConnectInfo`), before anything reads the header.
    pub fn apply(&self, request: &mut Request<Body>) {
        let Some(value) = request.headers().get("traceparent") else {
            return;
        };
        let Some(flags) = flags(value.as_bytes()) else {
            return;
        };
        if flags & 1 == 0 {
            return;
        }
        let ip = self.limit.client_of(request);
        if self.limit.count_here(ip).is_ok() || fastrand::f64() < self.ratio {
            return;
        }
        let mut unsampled = value.as_bytes()[..53].to_vec();
        unsampled.extend_from_slice(format!("{:02x}", flags & !1).as_bytes());
        if let Ok(unsampled) = HeaderValue::from_bytes(&unsampled) {
            request.headers_mut().insert("traceparent", unsampled);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_well_formed_traceparent_has_flags() {
        let sampled = b"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        assert_eq!(flags(sampled), Some(1));
        assert_eq!(
            flags(b"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0"),
            None
        );
        assert_eq!(flags(b"nonsense"), None);
    }
}
