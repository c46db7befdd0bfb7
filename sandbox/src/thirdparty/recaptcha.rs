//! The captcha widget double: `api.js` with the reCAPTCHA v2 browser API, the endpoint its
//! checkbox calls for a token, and Google's server-side `siteverify`.

use std::sync::Arc;

use axum::extract::State;
use axum::extract::rejection::{FormRejection, JsonRejection};
use axum::response::Response;
use axum::{Form, Json};
use serde::Deserialize;
use serde_json::{Value, json};

use super::captcha::{self, TokenCheck};
use super::script_response;
use crate::SandboxState;
use crate::clock::now_rfc3339;
use crate::error::SandboxError;

const SCRIPT: &str = include_str!("../../assets/3p/recaptcha.js");

/// `GET /3p/recaptcha/api.js[?onload=fn&render=explicit|onload]`
pub async fn script(State(state): State<Arc<SandboxState>>) -> Response {
    script_response(SCRIPT, state.public_url())
}

#[derive(Debug, Deserialize)]
pub struct TokenRequest {
    sitekey: String,
}

/// `POST /3p/recaptcha/api/token` `{sitekey}` → `{token, expiresIn}`: what the widget's
/// checkbox asks for when it is ticked.
pub async fn token(
    State(state): State<Arc<SandboxState>>,
    request: Result<Json<TokenRequest>, JsonRejection>,
) -> Result<Json<Value>, SandboxError> {
    let Json(request) =
        request.map_err(|rejection| SandboxError::BadRequest(rejection.body_text()))?;
    if request.sitekey != captcha::SITE_KEY {
        return Err(SandboxError::field("sitekey", "Invalid site key"));
    }
    let token = format!("sandbox-captcha-{}", uuid::Uuid::new_v4().simple());
    state
        .db
        .call(|conn| captcha::issue(conn, &token, &now_rfc3339()))?;
    Ok(Json(
        json!({"token": token, "expiresIn": captcha::TOKEN_TTL_SECONDS}),
    ))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SiteVerifyRequest {
    secret: Option<String>,
    response: Option<String>,
}

/// `POST /3p/recaptcha/api/siteverify` (form `secret`, `response`) → Google's answer:
/// `{success, challenge_ts?, "error-codes"?}`, always with status 200.
pub async fn siteverify(
    State(state): State<Arc<SandboxState>>,
    form: Result<Form<SiteVerifyRequest>, FormRejection>,
) -> Result<Json<Value>, SandboxError> {
    let Ok(Form(request)) = form else {
        return Ok(Json(failure("bad-request")));
    };
    match request.secret.as_deref() {
        None | Some("") => return Ok(Json(failure("missing-input-secret"))),
        Some(secret) if secret != captcha::SECRET_KEY => {
            return Ok(Json(failure("invalid-input-secret")));
        }
        Some(_) => {}
    }
    let Some(response) = request.response.filter(|response| !response.is_empty()) else {
        return Ok(Json(failure("missing-input-response")));
    };
    let checked = state.db.call(|conn| captcha::check(conn, &response))?;
    Ok(Json(match checked {
        TokenCheck::Valid { issued_at } => json!({"success": true, "challenge_ts": issued_at}),
        TokenCheck::Unknown => failure("invalid-input-response"),
        TokenCheck::SpentOrExpired => failure("timeout-or-duplicate"),
    }))
}

fn failure(code: &str) -> Value {
    json!({"success": false, "error-codes": [code]})
}
