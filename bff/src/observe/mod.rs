//! What SREs read: Prometheus metrics (the app's and the process's), logs and OTLP traces, the
//! trace budget, readiness and the `bff healthcheck` probe.

pub mod healthcheck;
pub mod metrics;
pub mod process_metrics;
pub mod readiness;
pub mod shopper_text;
pub mod telemetry;
pub mod trace_budget;
