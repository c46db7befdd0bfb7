//! The account area (profile and address book), the newsletter and LE/MIL verification. Account
//! calls use the signed-in user's bearer token (refreshed and retried once by
//! `tokens::with_user`); a visitor who is not signed in gets a 401 problem.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use utoipa::{IntoParams, ToSchema};
use validator::{Validate, ValidateEmail};

use crate::commerce::MessageAnswer;
use crate::commerce::Shopper;
use crate::error::ApiError;
use crate::openapi::problems;
use crate::openapi::schemas::account::{
    MilitaryOutcome, MilitarySession, NewsletterStatus, Profile, StoredAddress,
};
use crate::request_id::RequestId;
use crate::session::{SessionHandle, UserTokens};
use crate::state::SharedState;
use crate::upstream::{Call, UpstreamError, UpstreamPath};
use crate::validation::Validated;

/// The verification service behind `/api/military/*`.
const MILITARY_SERVICE: &str = "veripass";

/// The signed-in user's tokens, or 401 for a visitor who is not signed in.
pub(crate) async fn signed_in(
    state: &SharedState,
    session: &SessionHandle,
    request_id: &RequestId,
) -> Result<UserTokens, ApiError> {
    Shopper::of(state, session, request_id)
        .user()
        .await?
        .ok_or_else(|| ApiError::Unauthorized("Please sign in.".to_owned()))
}

/// One commerce call with the signed-in user's bearer token; the decoded JSON answer (`Null`
/// for an empty one).
async fn user_call(
    state: &SharedState,
    session: &SessionHandle,
    request_id: &RequestId,
    method: reqwest::Method,
    path: UpstreamPath,
    query: Vec<(&'static str, String)>,
    body: Option<Value>,
) -> Result<Value, ApiError> {
    let user = signed_in(state, session, request_id).await?;
    let mut call = Call::new(method, &path);
    for (name, value) in query {
        call = call.query(name, value);
    }
    if let Some(body) = &body {
        call = call.json(body);
    }
    Shopper::of(state, session, request_id)
        .as_user::<Value>(user, call)
        .await
}

/// Removes anything token- or password-like from an upstream answer, at any depth.
fn without_secrets(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(key, _)| {
                    let key = key.to_ascii_lowercase();
                    !key.contains("token") && !key.contains("password")
                })
                .map(|(key, value)| (key, without_secrets(value)))
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_secrets).collect()),
        other => other,
    }
}

fn to_body<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Keeps the session's copy of the user's name in step with the profile.
fn remember_names(session: &SessionHandle, profile: &Value) {
    if let Some(mut user) = session.get().user().cloned() {
        let text = |field: &str| {
            profile
                .get(field)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        if let Some(first) = text("firstName") {
            user.first_name = first;
        }
        if let Some(last) = text("lastName") {
            user.last_name = last;
        }
        session.update(|current| current.with_tokens(user));
    }
}

/// `GET /api/account`: the profile (addresses, orders, favorites, builds included).
#[utoipa::path(get, operation_id = "getAccount", path = "/account", tag = "account",
    responses(
        (status = 200, description = "The profile.", body = Profile),
        (status = 401, response = problems::Unauthorized),
    )
)]
pub async fn get(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
) -> Result<Json<Value>, ApiError> {
    let profile = user_call(
        &state,
        &session,
        &request_id,
        reqwest::Method::GET,
        UpstreamPath::fixed("User/profile"),
        Vec::new(),
        None,
    )
    .await?;
    Ok(Json(without_secrets(profile)))
}

/// The editable profile fields. The e-mail cannot be changed: when sent, the upstream accepts
/// only the current address (and refuses any other with 'Email cannot be changed').
#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileUpdate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    first_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    phone_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    email: Option<String>,
}

/// `PUT /api/account`.
#[utoipa::path(put, operation_id = "updateAccount", path = "/account", tag = "account", request_body = ProfileUpdate,
    responses(
        (status = 200, description = "The updated profile.", body = Profile),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn update(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
    Validated(body): Validated<ProfileUpdate>,
) -> Result<Json<Value>, ApiError> {
    let profile = user_call(
        &state,
        &session,
        &request_id,
        reqwest::Method::PUT,
        UpstreamPath::fixed("User/profile"),
        Vec::new(),
        Some(to_body(&body)),
    )
    .await?;
    remember_names(&session, &profile);
    Ok(Json(without_secrets(profile)))
}

/// An address of the address book, with the account spec's rules.
#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Address {
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Address name is required"))]
    address_name: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "First name is required"))]
    first_name: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Last name is required"))]
    last_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    company: Option<String>,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Phone is required"))]
    main_contact: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fax_contact: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    address_contact: Option<String>,
    #[serde(default)]
    #[schema(required = true)]
    #[validate(required(message = "Address type is required"))]
    address_type: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    is_default_shipping: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    is_default_billing: Option<bool>,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Street address is required"))]
    address_line1: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    address_line2: Option<String>,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "City is required"))]
    city: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "State is required"))]
    state: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Zip is required"))]
    postal_code: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Country is required"))]
    country: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    residential: Option<bool>,
}

fn address_path(id: &str) -> Result<UpstreamPath, ApiError> {
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::NotFound("Address not found".to_owned()));
    }
    Ok(UpstreamPath::fixed("User/addresses")
        .segment(id)
        .map_err(UpstreamError::from)?)
}

/// `POST /api/account/addresses`: 201 with the stored address.
#[utoipa::path(post, operation_id = "createAddress", path = "/account/addresses", tag = "account", request_body = Address,
    responses(
        (status = 201, description = "The stored address.", body = StoredAddress,
            links(
                ("updateAddress" = (operation_id = "updateAddress", parameters(("id" = "$response.body#/id")))),
                ("deleteAddress" = (operation_id = "deleteAddress", parameters(("id" = "$response.body#/id")))),
            )),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn create_address(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
    Validated(body): Validated<Address>,
) -> Result<Response, ApiError> {
    let stored = user_call(
        &state,
        &session,
        &request_id,
        reqwest::Method::POST,
        UpstreamPath::fixed("User/addresses"),
        Vec::new(),
        Some(to_body(&body)),
    )
    .await?;
    Ok((StatusCode::CREATED, Json(stored)).into_response())
}

/// `PUT /api/account/addresses/{id}`: replaces the address.
#[utoipa::path(put, operation_id = "updateAddress", path = "/account/addresses/{id}", tag = "account", request_body = Address,
    params(("id" = String, Path, description = "The address's id (digits).")),
    responses(
        (status = 200, description = "The stored address.", body = StoredAddress),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn update_address(
    State(state): State<SharedState>,
    Path(id): Path<String>,
    session: SessionHandle,
    request_id: RequestId,
    Validated(body): Validated<Address>,
) -> Result<Json<Value>, ApiError> {
    let path = address_path(&id)?;
    let stored = user_call(
        &state,
        &session,
        &request_id,
        reqwest::Method::PUT,
        path,
        Vec::new(),
        Some(to_body(&body)),
    )
    .await?;
    Ok(Json(stored))
}

/// `DELETE /api/account/addresses/{id}`: 204.
#[utoipa::path(delete, operation_id = "deleteAddress", path = "/account/addresses/{id}", tag = "account",
    params(("id" = String, Path, description = "The address's id (digits).")),
    responses(
        (status = 204, description = "The address is deleted."),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
    )
)]
pub async fn delete_address(
    State(state): State<SharedState>,
    Path(id): Path<String>,
    session: SessionHandle,
    request_id: RequestId,
) -> Result<StatusCode, ApiError> {
    let path = address_path(&id)?;
    user_call(
        &state,
        &session,
        &request_id,
        reqwest::Method::DELETE,
        path,
        Vec::new(),
        None,
    )
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

fn invalid_email(message: &str) -> ApiError {
    ApiError::Validation(std::collections::BTreeMap::from([(
        "email".to_owned(),
        message.to_owned(),
    )]))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatusQuery {
    /// The address to look up; the signed-in user's when absent.
    email: Option<String>,
}

/// `GET /api/newsletter/status[?email=]`: `{email, isSubscribed, isVerified}` for the given
/// address, or the signed-in user's.
#[utoipa::path(get, operation_id = "getNewsletterStatus", path = "/newsletter/status", tag = "newsletter", params(StatusQuery),
    responses(
        (status = 200, description = "The address's subscription.", body = NewsletterStatus),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn newsletter_status(
    State(state): State<SharedState>,
    Query(query): Query<StatusQuery>,
    session: SessionHandle,
    request_id: RequestId,
) -> Result<Json<Value>, ApiError> {
    let email = match query.email.map(|email| email.trim().to_owned()) {
        Some(email) if !email.is_empty() => email,
        _ => Shopper::of(&state, &session, &request_id)
            .user()
            .await?
            .map(|user| user.email)
            .filter(|email| !email.is_empty())
            .ok_or_else(|| invalid_email("Email is required"))?,
    };
    if !email.validate_email() {
        return Err(invalid_email("Email must be a valid email address"));
    }
    let path = UpstreamPath::fixed("Newsletter/status")
        .segment(&email)
        .map_err(UpstreamError::from)?;
    let answer = state
        .commerce
        .call_json(Call::get(&path), &request_id)
        .await?;
    Ok(Json(json!({
        "email": answer.get("email").cloned().unwrap_or(Value::String(email)),
        "isSubscribed": answer.get("isSubscribed").and_then(Value::as_bool).unwrap_or(false),
        "isVerified": answer.get("isVerified").and_then(Value::as_bool).unwrap_or(false),
    })))
}

#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subscribe {
    #[serde(default)]
    #[schema(required = true, min_length = 1, format = Email)]
    #[validate(
        length(min = 1, message = "Email is required"),
        email(message = "Email must be a valid email address")
    )]
    email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    first_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_name: Option<String>,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Captcha is required"))]
    captcha: String,
}

/// `POST /api/newsletter/subscribe`: a signed-in user's names fill the absent ones.
#[utoipa::path(post, operation_id = "subscribeNewsletter", path = "/newsletter/subscribe", tag = "newsletter", request_body = Subscribe,
    responses(
        (status = 200, description = "Subscribed; a verification e-mail is on its way.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 409, response = problems::Conflict),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn newsletter_subscribe(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
    Validated(mut body): Validated<Subscribe>,
) -> Result<Json<MessageAnswer>, ApiError> {
    if let Some(user) = session.get().user().cloned() {
        let fill = |name: &mut Option<String>, known: &str| {
            if name.as_deref().is_none_or(|n| n.trim().is_empty()) && !known.is_empty() {
                *name = Some(known.to_owned());
            }
        };
        fill(&mut body.first_name, &user.first_name);
        fill(&mut body.last_name, &user.last_name);
    }
    let path = UpstreamPath::fixed("Newsletter/subscribe");
    let body = to_body(&body);
    let answer = state
        .commerce
        .call_json(Call::post(&path, &body), &request_id)
        .await?;
    Ok(MessageAnswer::of(&answer))
}

#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Unsubscribe {
    #[serde(default)]
    #[schema(required = true, min_length = 1, format = Email)]
    #[validate(
        length(min = 1, message = "Email is required"),
        email(message = "Email must be a valid email address")
    )]
    email: String,
}

/// `POST /api/newsletter/unsubscribe`.
#[utoipa::path(post, operation_id = "unsubscribeNewsletter", path = "/newsletter/unsubscribe", tag = "newsletter", request_body = Unsubscribe,
    responses(
        (status = 200, description = "Unsubscribed.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn newsletter_unsubscribe(
    State(state): State<SharedState>,
    request_id: RequestId,
    Validated(body): Validated<Unsubscribe>,
) -> Result<Json<MessageAnswer>, ApiError> {
    let path = UpstreamPath::fixed("Newsletter/unsubscribe");
    let body = to_body(&body);
    let answer = state
        .commerce
        .call_json(Call::post(&path, &body), &request_id)
        .await?;
    Ok(MessageAnswer::of(&answer))
}

/// `POST /api/newsletter/verify/{token}`: confirms a subscription from the e-mailed link.
#[utoipa::path(post, operation_id = "verifyNewsletter", path = "/newsletter/verify/{token}", tag = "newsletter",
    params(("token" = String, Path, description = "The token from the verification e-mail.")),
    responses(
        (status = 200, description = "The subscription is verified.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn newsletter_verify(
    State(state): State<SharedState>,
    Path(token): Path<String>,
    request_id: RequestId,
) -> Result<Json<MessageAnswer>, ApiError> {
    let path = UpstreamPath::fixed("Newsletter/verify")
        .segment(&token)
        .map_err(UpstreamError::from)?;
    let answer = state
        .commerce
        .call_json(Call::get(&path), &request_id)
        .await?;
    Ok(MessageAnswer::of(&answer))
}

/// `POST /api/military/session`: starts LE/MIL verification; `{authorizationUrl}`.
#[utoipa::path(post, operation_id = "startMilitaryVerification", path = "/military/session", tag = "account",
    responses(
        (status = 200, description = "Where to verify.", body = MilitarySession),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 409, response = problems::Conflict),
    )
)]
pub async fn military_session(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
) -> Result<Json<Value>, ApiError> {
    let email = signed_in(&state, &session, &request_id).await?.email;
    let path = UpstreamPath::fixed("military")
        .segment(MILITARY_SERVICE)
        .and_then(|path| path.segment("session"))
        .map_err(UpstreamError::from)?;
    let answer = user_call(
        &state,
        &session,
        &request_id,
        reqwest::Method::POST,
        path,
        Vec::new(),
        Some(json!({"email": email, "display": "popup", "goto": "login"})),
    )
    .await?;
    Ok(Json(json!({
        "authorizationUrl": answer.get("authorizationUrl").cloned().unwrap_or(Value::Null)
    })))
}

#[derive(Debug, Deserialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MilitaryCallback {
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Code is required"))]
    code: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "State is required"))]
    state: String,
}

/// `POST /api/military/callback` `{code, state}`: completes verification; `{message,
/// militaryStatus}`.
#[utoipa::path(post, operation_id = "completeMilitaryVerification", path = "/military/callback", tag = "account", request_body = MilitaryCallback,
    responses(
        (status = 200, description = "The verification outcome.", body = MilitaryOutcome),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 409, response = problems::Conflict),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn military_callback(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
    Validated(body): Validated<MilitaryCallback>,
) -> Result<Json<Value>, ApiError> {
    let path = UpstreamPath::fixed("military")
        .segment(MILITARY_SERVICE)
        .and_then(|path| path.segment("callback"))
        .map_err(UpstreamError::from)?;
    let answer = user_call(
        &state,
        &session,
        &request_id,
        reqwest::Method::GET,
        path,
        vec![("code", body.code), ("state", body.state)],
        None,
    )
    .await?;
    Ok(Json(json!({
        "message": answer.get("message").cloned().unwrap_or(Value::Null),
        "militaryStatus": answer.get("militaryStatus").cloned().unwrap_or(Value::Null),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_leave_the_profile() {
        let profile = json!({"firstName": "J", "accessToken": "a",
            "nested": [{"refresh_token": "r", "passwordHash": "h", "id": 1}]});
        assert_eq!(
            without_secrets(profile),
            json!({"firstName": "J", "nested": [{"id": 1}]})
        );
    }
}
