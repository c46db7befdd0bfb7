//! In front of the concurrency limit, for every route that does slow work: a body declared
//! larger than its route takes is refused (413) before a byte of it is read. An upload is then
//! checked for everything it can be refused for without its body: the CSRF check (a
//! `multipart/form-data` post is CORS-safelisted, so any page could otherwise make its
//! visitors' browsers send uploads, each a different client), Pro Deal's sign-in, and the rate
//! limits (dealer registrations per client; Pro Deal per client and per account). Only then is
//! it spooled to disk ([`crate::http::uploads::spool`], reserving what arrives, at the upload's minimum rate)
//! and given one of `uploads.max_concurrent_forms` before it goes on to take a slot, so uploads
//! arriving slowly or in numbers hold neither slots nor memory, and cost their senders the time
//! it takes to send them.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{MatchedPath, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::sync::Semaphore;

use super::MULTIPART_MAX_BODY_BYTES;
use crate::config::Config;
use crate::coordination::replicas::Redis;
use crate::http::error::ApiError;
use crate::http::rate_limit::ClientRateLimit;
use crate::http::rate_limit::budget::Budget;
use crate::http::request_body::BodyReading;
use crate::http::uploads::spool::{RETRY_AFTER_SECONDS, Spool};
use crate::observe::metrics::Metrics;
use crate::session::csrf::Csrf;
use crate::session::handle::SessionHandle;

/// The multipart upload routes (their body limit is [`MULTIPART_MAX_BODY_BYTES`]).
pub const UPLOAD_ROUTES: [&str; 2] = [DEALER_REGISTRATIONS, PRO_DEAL];

/// The route whose anonymous uploads are rate limited per client before they are read.
const DEALER_REGISTRATIONS: &str = "/api/dealer-registrations";

/// The route whose uploads need a signed-in session, limited per client and per account.
const PRO_DEAL: &str = "/api/pro-deal";

/// What the gate needs, built once.
#[derive(Debug, Clone)]
pub struct UploadGate {
    max_body_bytes: usize,
    /// The upload bodies' reading: the grace, the minimum rate and the absolute deadline.
    reading: BodyReading,
    spool: Spool,
    forms: Arc<Semaphore>,
    form_wait: Duration,
    csrf: Arc<Csrf>,
    dealer_registrations: Arc<ClientRateLimit>,
    pro_deal_clients: Budget,
    pro_deal_accounts: Budget,
}

impl UploadGate {
    pub fn new(
        config: &Config,
        metrics: Arc<Metrics>,
        redis: Option<Redis>,
        csrf: Arc<Csrf>,
    ) -> Self {
        let limits = &config.rate_limit;
        Self {
            max_body_bytes: config.server.max_body_bytes,
            reading: BodyReading::for_uploads(&config.server, &config.uploads),
            spool: Spool::new(&config.uploads),
            forms: Arc::new(Semaphore::new(config.uploads.max_concurrent_forms.max(1))),
            form_wait: config.uploads.form_wait,
            csrf,
            pro_deal_clients: Budget::new(
                "pro_deal_client",
                limits.pro_deal_per_client_per_minute,
                metrics.clone(),
                redis.clone(),
            ),
            pro_deal_accounts: Budget::new(
                "pro_deal_account",
                limits.pro_deal_per_account_per_minute,
                metrics.clone(),
                redis.clone(),
            ),
            dealer_registrations: Arc::new(ClientRateLimit::dealer_registrations(
                limits, metrics, redis,
            )),
        }
    }

    /// The checks on the request itself, before anything is awaited (a request is not `Sync`):
    /// the CSRF check, and Pro Deal's session. `Some(account)` for a Pro Deal application, the
    /// account it is counted under. The handler checks the session again (and its
    /// revocation); this check only spares the spool an anonymous upload.
    fn check(&self, route: &str, request: &Request) -> Result<Option<String>, ApiError> {
        self.csrf.check(request)?;
        if route != PRO_DEAL {
            return Ok(None);
        }
        request
            .extensions()
            .get::<SessionHandle>()
            .and_then(|session| session.get().user().map(account_name))
            .map(Some)
            .ok_or_else(|| ApiError::Unauthorized("Please sign in.".to_owned()))
    }

    /// The rate limits: dealer registrations per client, Pro Deal applications per client and
    /// per account.
    async fn count(&self, ip: IpAddr, account: Option<String>) -> Result<(), ApiError> {
        let Some(account) = account else {
            return self
                .dealer_registrations
                .count(ip)
                .await
                .map_err(|retry_after_seconds| ApiError::TooManyRequests {
                    retry_after_seconds,
                });
        };
        self.pro_deal_clients.spend(&ip.to_string()).await?;
        self.pro_deal_accounts.spend(&account).await
    }
}

/// The account's name in the Pro Deal budget: its e-mail address, or, for an account without
/// one, its refresh token (both hashed by the budget).
fn account_name(user: &crate::session::model::UserTokens) -> String {
    if user.email.is_empty() {
        user.refresh_token.clone()
    } else {
        user.email.to_lowercase()
    }
}

/// The declared `Content-Length`, when there is a valid one.
fn declared_length(request: &Request) -> Option<u64> {
    request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok())
}

/// The gate itself (see the module's documentation).
pub async fn gate(State(gate): State<Arc<UploadGate>>, request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|path| path.as_str().to_owned());
    let upload = route
        .as_deref()
        .filter(|route| UPLOAD_ROUTES.contains(route));
    let limit = if upload.is_some() {
        MULTIPART_MAX_BODY_BYTES
    } else {
        gate.max_body_bytes
    };
    let declared = declared_length(&request);
    if declared.is_some_and(|length| length > limit as u64) {
        return ApiError::PayloadTooLarge(format!(
            "The request body may be at most {limit} bytes."
        ))
        .into_response();
    }
    let Some(route) = upload else {
        return next.run(request).await;
    };
    let ip = gate.dealer_registrations.client_of(&request);
    let account = match gate.check(route, &request) {
        Ok(account) => account,
        Err(refused) => return refused.into_response(),
    };
    if let Err(refused) = gate.count(ip, account).await {
        return refused.into_response();
    }
    let (parts, body) = request.into_parts();
    // Small declared bodies are read into memory by `read_first`, as on every route.
    let small = declared.is_some_and(|length| length <= gate.max_body_bytes as u64);
    let body = if small {
        body
    } else {
        match gate.spool.take(ip, gate.reading.deadline(body)).await {
            Ok(body) => body,
            Err(problem) => return problem.into_response(),
        }
    };
    // Held while the form is parsed and sent on: at most `server.request_timeout`, the
    // timeout inside this gate (past it, 504).
    let Ok(Ok(_permit)) = tokio::time::timeout(gate.form_wait, gate.forms.acquire()).await else {
        return ApiError::Overloaded {
            retry_after_seconds: RETRY_AFTER_SECONDS,
        }
        .into_response();
    };
    next.run(Request::from_parts(parts, body)).await
}
