//! `[telemetry]`: where traces go, how many are sampled, and the browsers' Web Vitals share.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TelemetryConfig {
    /// OTLP/HTTP endpoint for traces (e.g. `http://otel-collector:4318/v1/traces`); empty is off.
    pub otlp_endpoint: String,
    pub service_name: String,
    pub sample_ratio: f64,
    /// Share of consenting visitors whose browsers report Web Vitals to `POST /api/rum`.
    pub rum_sample_ratio: f64,
    /// Requests per minute per client whose `traceparent` sampled flag is honoured; past them a
    /// request is sampled by `sample_ratio` like one without the header.
    pub traceparent_sampled_per_minute: u32,
}

impl Default for TelemetryConfig {
    fn default() -> Self {
        Self {
            otlp_endpoint: String::new(),
            service_name: "bff".to_owned(),
            sample_ratio: 1.0,
            rum_sample_ratio: 1.0,
            traceparent_sampled_per_minute: 10,
        }
    }
}

impl TelemetryConfig {
    /// What is wrong with its keys: the sampling ratios are shares.
    pub(super) fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if !(0.0..=1.0).contains(&self.sample_ratio) {
            problems.push("telemetry.sample_ratio: must be between 0 and 1".to_owned());
        }
        if !(0.0..=1.0).contains(&self.rum_sample_ratio) {
            problems.push("telemetry.rum_sample_ratio: must be between 0 and 1".to_owned());
        }
        problems
    }
}
