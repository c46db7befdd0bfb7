//! The request plumbing every route shares: problem+json errors, extractors, bodies read under a
//! deadline, request ids, security headers, `Server-Timing`, validation, rate limits and uploads.

pub mod error;
pub mod extract;
pub mod json_in_html;
pub mod rate_limit;
pub mod request_body;
pub mod request_id;
pub mod security;
pub mod server_timing;
pub mod uploads;
pub mod validation;
