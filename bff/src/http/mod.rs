//! The request plumbing every route shares: problem+json errors, extractors, bodies read under a
//! deadline, request ids, the budget of traces a client may ask for, security headers,
//! `Server-Timing`, validation, rate limits and uploads.

pub mod bearer;
pub mod camel_case;
pub mod error;
pub mod extract;
pub mod json_in_html;
pub mod rate_limit;
pub mod request_body;
/// Request ids are the logs' and the traces' as much as the routes': they live in `observe`.
pub use crate::observe::request_id;
pub mod security;
pub mod server_timing;
pub mod trace_budget;
pub mod uploads;
pub mod validation;
