//! The audit middleware: every admin request that is not a read (`GET`/`HEAD`) is recorded
//! when its answer is given, so a new admin route is audited without a line of its own. It
//! sits inside authentication (the caller's identity is in the request's extensions) and
//! outside authorisation (a refused attempt, 403, is recorded too). A handler that
//! authenticates its caller itself (the content webhook) names it in the answer's extensions;
//! an unauthenticated request is no one's action and is not recorded.

use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::extract::{MatchedPath, Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};

use super::entry::{AuditEntry, body_arguments, query_arguments, summarise};
use super::log::AuditLog;
use crate::admin::identity::AdminIdentity;
use crate::http::error::ApiError;

/// The largest admin request or answer body the audit reads (admin bodies are small JSON).
const MAX_AUDITED_BODY_BYTES: usize = 1 << 20;

pub async fn record_admin_actions(
    State(log): State<Arc<AuditLog>>,
    request: Request,
    next: Next,
) -> Response {
    if matches!(*request.method(), Method::GET | Method::HEAD) {
        return next.run(request).await;
    }
    let method = request.method().to_string();
    let route = request.extensions().get::<MatchedPath>().map_or_else(
        || request.uri().path().to_owned(),
        |matched| matched.as_str().to_owned(),
    );
    let caller = request.extensions().get::<AdminIdentity>().cloned();
    let mut arguments = Map::new();
    if let Some(query) = request.uri().query().filter(|query| !query.is_empty()) {
        arguments.insert("query".to_owned(), query_arguments(query));
    }
    let (parts, body) = request.into_parts();
    let Ok(body) = to_bytes(body, MAX_AUDITED_BODY_BYTES).await else {
        return ApiError::PayloadTooLarge(format!(
            "An admin request body is at most {MAX_AUDITED_BODY_BYTES} bytes."
        ))
        .into_response();
    };
    if !body.is_empty() {
        let recorded = serde_json::from_slice::<Value>(&body).map_or_else(
            // Not JSON: its size only (the handler refuses it; its text is no one's business).
            |_| serde_json::json!({ "bytes": body.len() }),
            body_arguments,
        );
        arguments.insert("body".to_owned(), recorded);
    }
    let response = next.run(Request::from_parts(parts, Body::from(body))).await;
    let Some(actor) = caller.or_else(|| response.extensions().get::<AdminIdentity>().cloned())
    else {
        return response;
    };
    let (parts, body) = response.into_parts();
    let status = parts.status.as_u16();
    let (response, result) = match to_bytes(body, MAX_AUDITED_BODY_BYTES).await {
        Ok(body) => {
            let result = summarise(&body);
            (Response::from_parts(parts, Body::from(body)), result)
        }
        // An answer that cannot be read whole is not sent in part either: the action's status
        // is recorded, the caller told it is unknown.
        Err(err) => (
            ApiError::Internal(format!("the admin answer could not be read: {err}"))
                .into_response(),
            serde_json::json!({ "unreadable": true }),
        ),
    };
    log.record(AuditEntry {
        at_ms: crate::coordination::replicas::unix_ms(),
        actor: actor.name.to_string(),
        replica: log.replica().to_owned(),
        method,
        route,
        arguments: Value::Object(arguments),
        status,
        result,
    })
    .await;
    response
}
