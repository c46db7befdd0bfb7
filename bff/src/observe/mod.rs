//! What SREs read: Prometheus metrics (the app's and the process's), logs and OTLP traces, the
//! `bff healthcheck` probe, and how a shopper's text is kept out of operators' views. It names
//! only the configuration: readiness (which asks Redis and the upstreams) is the edge's, the
//! trace budget (a per-client limit) is `http`'s.

pub mod healthcheck;
pub mod metrics;
pub mod process_metrics;
pub mod request_id;
pub mod shopper_text;
pub mod telemetry;
