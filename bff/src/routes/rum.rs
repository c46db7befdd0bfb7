//! `POST /api/rum`: Web Vitals from shoppers' browsers (sampled there, sent only after analytics
//! consent), exported as `bff_web_vitals_*` histograms by the app's route template.
//!
//! No personal data: a report names a route template of the app's route table (anything else
//! is counted as `unmatched`, so a client cannot grow the label set), a metric name and a number;
//! nothing is stored or logged. Browsers send it with `navigator.sendBeacon`, which cannot set
//! `X-CSRF`, so this one route is outside the CSRF layer and checks instead that the request
//! comes from the storefront's own pages (see [`crate::session::csrf::beacon_violation`]); all
//! a forged report could do is skew a histogram, and it carries no session effect.

use std::sync::LazyLock;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::edge::state::SharedState;
use crate::http::error::ApiError;
use crate::observe::metrics::{UNMATCHED_ROUTE, WebVital};
use crate::routes::openapi::problems;
use crate::seo::routes::routes;

/// The largest report body accepted: a batch of a page's vitals is a few hundred bytes.
pub const MAX_BODY_BYTES: usize = 8 * 1024;

/// The most reports one batch may carry.
const MAX_REPORTS: usize = 64;

/// The app's route templates as the browser names them (`/product/:title`).
static TEMPLATES: LazyLock<Vec<String>> = LazyLock::new(|| {
    routes()
        .iter()
        .map(|route| format!("/{}", route.pattern))
        .collect()
});

/// A batch of Web Vitals measured on the storefront's pages.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RumBatch {
    /// At most 64 reports.
    pub reports: Vec<RumReport>,
}

/// One measurement.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RumReport {
    /// The app's route template the page was rendered by (`/product/:title`), never its path.
    pub route: String,
    pub name: VitalName,
    /// Milliseconds for LCP and INP (0 to 600000), the unitless score for CLS (0 to 100).
    pub value: f64,
}

/// The Web Vital measured.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
pub enum VitalName {
    #[serde(rename = "LCP")]
    Lcp,
    #[serde(rename = "INP")]
    Inp,
    #[serde(rename = "CLS")]
    Cls,
}

impl RumReport {
    /// The vital, its value in the histogram's unit, and the route label; `None` when the value
    /// is out of range.
    fn observation(&self) -> Option<(WebVital, f64)> {
        let finite = self.value.is_finite() && self.value >= 0.0;
        match self.name {
            VitalName::Lcp if finite && self.value <= 600_000.0 => {
                Some((WebVital::Lcp, self.value / 1000.0))
            }
            VitalName::Inp if finite && self.value <= 600_000.0 => {
                Some((WebVital::Inp, self.value / 1000.0))
            }
            VitalName::Cls if finite && self.value <= 100.0 => Some((WebVital::Cls, self.value)),
            _ => None,
        }
    }
}

/// The route label of `template`: itself when it is in the app's route table, else `unmatched`.
pub fn route_label(template: &str) -> &'static str {
    TEMPLATES
        .iter()
        .find(|known| known.as_str() == template)
        .map_or(UNMATCHED_ROUTE, String::as_str)
}

fn invalid(detail: &str) -> ApiError {
    ApiError::BadRequest {
        code: "invalid_report",
        detail: detail.to_owned(),
    }
}

/// Report Web Vitals.
///
/// Sent by the web app with `navigator.sendBeacon` (a `text/plain` body holding JSON is accepted
/// as well as `application/json`), so it needs no `X-CSRF` header; it must come from the
/// storefront's own origin (`Origin`, and `Sec-Fetch-Site` when sent: `cross-site` is a 403).
/// Bodies over 8 KiB are refused; past `rate_limit.rum_reports_per_minute` for the client, 429.
#[utoipa::path(post, operation_id = "reportWebVitals", path = "/rum", tag = "rum",
    request_body(content = RumBatch, content_type = "application/json"),
    responses(
        (status = 204, description = "Counted."),
        (status = 400, response = problems::BadRequest),
        (status = 403, response = problems::CsrfRejected),
        (status = 413, response = problems::PayloadTooLarge),
        (status = 429, response = problems::TooManyRequests),
    )
)]
pub async fn report(
    State(state): State<SharedState>,
    headers: HeaderMap,
    body: Body,
) -> Result<StatusCode, ApiError> {
    if let Some(reason) = crate::session::csrf::beacon_violation(&headers, &state.csrf.origin) {
        state
            .metrics
            .count_session_event(crate::observe::metrics::SessionEvent::CsrfRejected);
        return Err(ApiError::Forbidden {
            code: "csrf_rejected",
            detail: reason.to_owned(),
        });
    }
    let bytes = axum::body::to_bytes(body, MAX_BODY_BYTES)
        .await
        .map_err(|_| {
            ApiError::PayloadTooLarge(format!("A report may be at most {MAX_BODY_BYTES} bytes."))
        })?;
    let batch: RumBatch =
        serde_json::from_slice(&bytes).map_err(|_| invalid("The report is not a valid batch."))?;
    if batch.reports.len() > MAX_REPORTS {
        return Err(invalid("Too many reports in one batch."));
    }
    let observations = batch
        .reports
        .iter()
        .map(|report| {
            report
                .observation()
                .map(|(vital, value)| (vital, route_label(&report.route), value))
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| invalid("A value is out of range."))?;
    for (vital, route, value) in observations {
        state.metrics.observe_web_vital(vital, route, value);
    }
    Ok(StatusCode::NO_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_templates_of_the_route_table_become_labels() {
        assert_eq!(route_label("/product/:title"), "/product/:title");
        assert_eq!(route_label("/"), "/");
        assert_eq!(route_label("/product/summit-lr"), UNMATCHED_ROUTE);
        assert_eq!(route_label("alice@example.com"), UNMATCHED_ROUTE);
    }

    #[test]
    fn values_are_converted_to_seconds_and_bounded() {
        let report = |name, value| RumReport {
            route: "/".to_owned(),
            name,
            value,
        };
        assert_eq!(
            report(VitalName::Lcp, 2500.0).observation(),
            Some((WebVital::Lcp, 2.5))
        );
        assert_eq!(
            report(VitalName::Cls, 0.12).observation(),
            Some((WebVital::Cls, 0.12))
        );
        for bad in [
            report(VitalName::Inp, -1.0),
            report(VitalName::Inp, f64::NAN),
            report(VitalName::Lcp, 1e9),
            report(VitalName::Cls, 1000.0),
        ] {
            assert_eq!(bad.observation(), None, "{bad:?}");
        }
    }
}
