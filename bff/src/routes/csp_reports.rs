//! `POST /api/csp-reports`: browsers' Content-Security-Policy violation reports (the document
//! CSP names it in `report-uri` and, through `Reporting-Endpoints`, `report-to`), counted in
//! `bff_csp_violations_total` by directive only: the directive names of CSP level 3 (anything
//! else is `other`), so a client cannot grow the label set. Nothing is stored or logged.
//!
//! Browsers send reports without `X-CSRF` (they cannot add it), so the route is outside the
//! CSRF layer; all a forged report could do is move a counter. Bodies are capped at
//! [`MAX_BODY_BYTES`] and each client IP at `rate_limit.csp_reports_per_minute`.

use std::collections::HashMap;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::edge::state::SharedState;
use crate::http::error::ApiError;
use crate::routes::openapi::problems;

/// The largest report body accepted.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// The `report-uri` media type (CSP level 2).
pub const CSP_REPORT: &str = "application/csp-report";
/// The Reporting API's media type (`report-to`).
pub const REPORTS_JSON: &str = "application/reports+json";

/// The directives counted by name; any other is `other`.
const DIRECTIVES: [&str; 24] = [
    "default-src",
    "script-src",
    "script-src-elem",
    "script-src-attr",
    "style-src",
    "style-src-elem",
    "style-src-attr",
    "img-src",
    "font-src",
    "connect-src",
    "media-src",
    "object-src",
    "frame-src",
    "child-src",
    "worker-src",
    "manifest-src",
    "base-uri",
    "form-action",
    "frame-ancestors",
    "navigate-to",
    "sandbox",
    "upgrade-insecure-requests",
    "require-trusted-types-for",
    "trusted-types",
];

/// The label of a reported directive: its name when it is one of `DIRECTIVES` (a
/// `violated-directive` may carry its sources after the name), else `other`.
pub fn directive_label(reported: &str) -> &'static str {
    let name = reported
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    DIRECTIVES
        .iter()
        .find(|known| **known == name)
        .copied()
        .unwrap_or("other")
}

/// A CSP level 2 report (`report-uri`): `{"csp-report": {...}}`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CspReportBody {
    #[serde(rename = "csp-report")]
    pub csp_report: CspViolation,
}

/// The fields read from a level 2 report; the others are ignored.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CspViolation {
    #[serde(rename = "effective-directive", default)]
    pub effective_directive: Option<String>,
    #[serde(rename = "violated-directive", default)]
    pub violated_directive: Option<String>,
}

/// One report of the Reporting API (`report-to`); only `csp-violation` reports are counted.
#[derive(Debug, Deserialize, ToSchema)]
pub struct Report {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    #[schema(value_type = Object)]
    pub body: Value,
}

fn invalid() -> ApiError {
    ApiError::BadRequest {
        code: "invalid_report",
        detail: "The report is not a CSP violation report.".to_owned(),
    }
}

/// The directive each report in `bytes` names.
fn directives(content_type: &str, bytes: &[u8]) -> Result<Vec<&'static str>, ApiError> {
    if content_type == CSP_REPORT {
        let report: CspReportBody = serde_json::from_slice(bytes).map_err(|_| invalid())?;
        let violation = report.csp_report;
        let named = violation
            .effective_directive
            .or(violation.violated_directive)
            .unwrap_or_default();
        return Ok(vec![directive_label(&named)]);
    }
    let reports: Vec<Report> = serde_json::from_slice(bytes).map_err(|_| invalid())?;
    Ok(reports
        .iter()
        .filter(|report| report.kind == "csp-violation")
        .map(|report| {
            directive_label(
                report
                    .body
                    .get("effectiveDirective")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            )
        })
        .collect())
}

/// Report CSP violations
///
/// Sent by browsers for the document CSP's `report-uri` (`application/csp-report`) and
/// `report-to` (`application/reports+json`, a batch); no `X-CSRF` needed. Counted by directive.
/// 415 for another content type; bodies over 16 KiB are refused; 429 past
/// `rate_limit.csp_reports_per_minute` for the client.
#[utoipa::path(post, operation_id = "reportCspViolations", path = "/csp-reports", tag = "rum",
    request_body(content(
        (CspReportBody = "application/csp-report"),
        (Vec<Report> = "application/reports+json"),
    )),
    responses(
        (status = 204, description = "Counted."),
        (status = 400, response = problems::BadRequest),
        (status = 413, response = problems::PayloadTooLarge),
        (status = 415, response = problems::UnsupportedMediaType),
        (status = 429, response = problems::TooManyRequests),
    )
)]
pub async fn report(
    State(state): State<SharedState>,
    headers: HeaderMap,
    body: Body,
) -> Result<StatusCode, ApiError> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .map(|value| value.trim().to_ascii_lowercase())
        .unwrap_or_default();
    if content_type != CSP_REPORT && content_type != REPORTS_JSON {
        return Err(ApiError::Refused {
            status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
            code: "unsupported_media_type",
            detail: format!("Reports are {CSP_REPORT} or {REPORTS_JSON}."),
            errors: None,
            members: serde_json::Map::new(),
        });
    }
    let bytes = axum::body::to_bytes(body, MAX_BODY_BYTES)
        .await
        .map_err(|_| {
            ApiError::PayloadTooLarge(format!("A report may be at most {MAX_BODY_BYTES} bytes."))
        })?;
    let mut counts: HashMap<&'static str, u64> = HashMap::new();
    for directive in directives(&content_type, &bytes)? {
        *counts.entry(directive).or_default() += 1;
    }
    for (directive, count) in counts {
        state.metrics.count_csp_violations(directive, count);
    }
    Ok(StatusCode::NO_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_directive_names_become_labels() {
        assert_eq!(directive_label("style-src-attr"), "style-src-attr");
        assert_eq!(
            directive_label("script-src 'self' https://x.example"),
            "script-src"
        );
        assert_eq!(directive_label("IMG-SRC"), "img-src");
        assert_eq!(directive_label("alice@example.com"), "other");
        assert_eq!(directive_label(""), "other");
    }
}
