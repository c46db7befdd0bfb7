//! The cart, guest or signed in by the session: the BFF picks the upstream path and injects the
//! identity; the browser never sees a guest token or a bearer token.

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;
use validator::Validate;

use crate::error::ApiError;
use crate::openapi::problems;
use crate::openapi::schemas::cart::{Cart, NewCartItem, ShippingMethod};
use crate::request_id::RequestId;
use crate::session::SessionHandle;
use crate::session::tokens;
use crate::state::SharedState;
use crate::upstream::{Call, UpstreamError, UpstreamPath};
use crate::validation::Validated;

/// The spec's default: a guest cart with no items and all amounts 0.
fn empty_cart() -> Value {
    json!({
        "id": null, "userId": null, "isAbandoned": false, "isGuest": true,
        "items": [], "inventoryWarnings": [], "subTotal": 0, "taxAmount": 0, "shipping": 0,
        "discountAmount": 0, "totalAmount": 0, "appliedDiscounts": []
    })
}

/// The upstream cart without the guest token it carries (the token is the guest's credential).
fn for_browser(mut cart: Value) -> Value {
    if let Value::Object(map) = &mut cart {
        map.remove("guestId");
    }
    cart
}

/// Merges the guest cart waiting in the session into the user's cart. On failure the guest
/// token stays in the session and the merge is retried on the next cart read: no cart is lost.
pub async fn merge_pending(
    state: &SharedState,
    session: &SessionHandle,
    request_id: &RequestId,
) -> bool {
    let current = session.get();
    let (Some(user), Some(guest_id)) = (current.user.clone(), current.pending_merge.clone()) else {
        return true;
    };
    let path = UpstreamPath::fixed("Cart/merge");
    let body = json!({"guestId": guest_id});
    let outcome = tokens::with_user(state, session, user, request_id, |bearer| {
        let state = state.clone();
        let body = body.clone();
        let path = path.clone();
        let guest_id = guest_id.clone();
        let request_id = request_id.clone();
        async move {
            let call = Call::post(&path, &body)
                .query("guestId", guest_id)
                .bearer(Some(&bearer));
            state.commerce.call(call, &request_id).await
        }
    })
    .await;
    let done = match outcome {
        Ok(_) => {
            state.metrics.count_session_event("merge_ok");
            true
        }
        // The guest (and so its cart) no longer exists upstream: nothing left to merge.
        Err(ApiError::Upstream(UpstreamError::NotFound { .. })) => true,
        Err(err) => {
            state.metrics.count_session_event("merge_failed");
            tracing::warn!(error = %err, "guest cart merge failed; kept for a retry");
            false
        }
    };
    if done {
        let mut updated = session.get();
        updated.pending_merge = None;
        session.set(updated);
    }
    done
}

/// `GET /api/cart`.
#[utoipa::path(get, operation_id = "getCart", path = "/cart", tag = "cart",
    responses(
        (status = 200, description = "The visitor's cart; the empty guest cart when there is none.", body = Cart),
        (status = 401, response = problems::Unauthorized),
    )
)]
pub async fn get(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
) -> Result<Json<Value>, ApiError> {
    if let Some(user) = tokens::access_token(&state, &session, &request_id).await? {
        if session.get().pending_merge.is_some() {
            state.metrics.count_session_event("merge_retried");
            merge_pending(&state, &session, &request_id).await;
        }
        let path = UpstreamPath::fixed("Cart");
        let cart =
            tokens::commerce_json(&state, &session, user, &request_id, Call::get(&path)).await?;
        return Ok(Json(for_browser(cart)));
    }
    let Some(guest_id) = session.get().guest_id else {
        return Ok(Json(empty_cart()));
    };
    let path = UpstreamPath::fixed("Cart/guest")
        .segment(&guest_id)
        .map_err(UpstreamError::from)?;
    match state
        .commerce
        .call_json(Call::get(&path), &request_id)
        .await
    {
        Ok(cart) => Ok(Json(for_browser(cart))),
        // The spec's silent 404: the guest is unknown upstream; start afresh.
        Err(UpstreamError::NotFound { .. }) => {
            let mut updated = session.get();
            updated.guest_id = None;
            session.set(updated);
            Ok(Json(empty_cart()))
        }
        Err(err) => Err(err.into()),
    }
}

#[derive(Debug, Deserialize, Serialize, Validate)]
#[serde(rename_all = "camelCase")]
pub struct NewItem {
    #[serde(default)]
    #[validate(length(min = 1, message = "Product is required"))]
    product_id: String,
    #[serde(default = "one")]
    #[validate(range(min = 1, max = 999, message = "Quantity must be between 1 and 999"))]
    quantity: i64,
    /// The rest of the spec's cart line payload, passed on as it is.
    #[serde(flatten)]
    rest: serde_json::Map<String, Value>,
}

fn one() -> i64 {
    1
}

/// The guest token of this session, creating a guest upstream on first need.
async fn guest_id(
    state: &SharedState,
    session: &SessionHandle,
    request_id: &RequestId,
) -> Result<String, ApiError> {
    if let Some(guest_id) = session.get().guest_id {
        return Ok(guest_id);
    }
    let path = UpstreamPath::fixed("Auth/guest");
    let answer = state
        .commerce
        .call_json(Call::post(&path, &json!({})), request_id)
        .await?;
    let guest_id = answer
        .get("guestId")
        .and_then(Value::as_str)
        .filter(|id| id.starts_with("gid_"))
        .ok_or_else(|| {
            ApiError::Upstream(UpstreamError::Decode {
                upstream: "commerce",
                reason: "guest token missing or malformed".to_owned(),
            })
        })?
        .to_owned();
    let mut updated = session.get();
    updated.guest_id = Some(guest_id.clone());
    session.set(updated);
    Ok(guest_id)
}

/// `POST /api/cart/items`.
#[utoipa::path(post, operation_id = "addCartItem", path = "/cart/items", tag = "cart", request_body = NewCartItem,
    responses(
        (status = 200, description = "The cart with the line added (or its quantity increased).", body = Cart,
            links(
                ("updateFirstLine" = (operation_id = "updateCartItem", parameters(("id" = "$response.body#/items/0/id")))),
                ("removeFirstLine" = (operation_id = "removeCartItem", parameters(("id" = "$response.body#/items/0/id")))),
            )),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn add_item(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
    Validated(item): Validated<NewItem>,
) -> Result<Json<Value>, ApiError> {
    let body = serde_json::to_value(&item).unwrap_or(Value::Null);
    if let Some(user) = tokens::access_token(&state, &session, &request_id).await? {
        let path = UpstreamPath::fixed("Cart/items");
        let cart = tokens::commerce_json(
            &state,
            &session,
            user,
            &request_id,
            Call::post(&path, &body),
        )
        .await?;
        return Ok(Json(for_browser(cart)));
    }
    let guest_id = guest_id(&state, &session, &request_id).await?;
    let path = UpstreamPath::fixed("Cart/guest")
        .segment(&guest_id)
        .map_err(UpstreamError::from)?
        .segment("items")
        .map_err(UpstreamError::from)?;
    let cart = state
        .commerce
        .call_json(Call::post(&path, &body), &request_id)
        .await?;
    Ok(Json(for_browser(cart)))
}

/// Whose cart a call addresses: a signed-in user's (bearer) or a guest's (token in the path).
enum Owner {
    User(crate::session::UserTokens),
    Guest(String),
}

/// The owner of this session's cart. A guest without a token gets one only when `create` is
/// set (a write); otherwise `None`: the visitor has no cart yet.
async fn owner(
    state: &SharedState,
    session: &SessionHandle,
    request_id: &RequestId,
    create: bool,
) -> Result<Option<Owner>, ApiError> {
    if let Some(user) = tokens::access_token(state, session, request_id).await? {
        return Ok(Some(Owner::User(user)));
    }
    if let Some(guest_id) = session.get().guest_id {
        return Ok(Some(Owner::Guest(guest_id)));
    }
    if create {
        return Ok(Some(Owner::Guest(
            guest_id(state, session, request_id).await?,
        )));
    }
    Ok(None)
}

/// One cart call, `Cart/{suffix…}` for users and `Cart/guest/{token}/{suffix…}` for guests.
/// `None` when the visitor has no cart and `create` is not set.
async fn cart_call(
    state: &SharedState,
    session: &SessionHandle,
    request_id: &RequestId,
    method: reqwest::Method,
    suffix: &[&str],
    body: Option<Value>,
    create: bool,
) -> Result<Option<Value>, ApiError> {
    let Some(owner) = owner(state, session, request_id, create).await? else {
        return Ok(None);
    };
    let mut path = match &owner {
        Owner::User(_) => UpstreamPath::fixed("Cart"),
        Owner::Guest(guest_id) => UpstreamPath::fixed("Cart/guest")
            .segment(guest_id)
            .map_err(UpstreamError::from)?,
    };
    for segment in suffix {
        path = path.segment(segment).map_err(UpstreamError::from)?;
    }
    let mut call = Call::new(method, &path);
    if let Some(body) = &body {
        call = call.json(body);
    }
    let cart = match owner {
        Owner::User(user) => tokens::commerce_json(state, session, user, request_id, call).await?,
        Owner::Guest(_) => state.commerce.call_json(call, request_id).await?,
    };
    Ok(Some(cart))
}

/// This session's cart as the upstream answers it (guest token included: for the BFF's own
/// use, never for the browser). `None` when the visitor has no cart yet.
pub async fn current(
    state: &SharedState,
    session: &SessionHandle,
    request_id: &RequestId,
) -> Result<Option<Value>, ApiError> {
    match cart_call(
        state,
        session,
        request_id,
        reqwest::Method::GET,
        &[],
        None,
        false,
    )
    .await
    {
        Err(ApiError::Upstream(UpstreamError::NotFound { .. })) => Ok(None),
        other => other,
    }
}

fn cart_item_not_found() -> ApiError {
    ApiError::NotFound("Cart item not found.".to_owned())
}

#[derive(Debug, Deserialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuantityUpdate {
    /// The new quantity; 0 removes the line.
    #[schema(required = true, minimum = 0, maximum = 999)]
    #[validate(
        required(message = "Quantity is required"),
        range(min = 0, max = 999, message = "Quantity must be between 0 and 999")
    )]
    quantity: Option<i64>,
}

/// `PUT /api/cart/items/{id}`: a new quantity; 0 removes the line.
#[utoipa::path(put, operation_id = "updateCartItem", path = "/cart/items/{id}", tag = "cart", request_body = QuantityUpdate,
    params(("id" = String, Path, description = "The cart line's id.")),
    responses(
        (status = 200, description = "The cart with the line's new quantity (or without the line, for 0).", body = Cart),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn update_item(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
    Path(id): Path<String>,
    Validated(update): Validated<QuantityUpdate>,
) -> Result<Json<Value>, ApiError> {
    let body = json!({"quantity": update.quantity});
    cart_call(
        &state,
        &session,
        &request_id,
        reqwest::Method::PUT,
        &["items", &id],
        Some(body),
        false,
    )
    .await?
    .map(|cart| Json(for_browser(cart)))
    .ok_or_else(cart_item_not_found)
}

/// `DELETE /api/cart/items/{id}`.
#[utoipa::path(delete, operation_id = "removeCartItem", path = "/cart/items/{id}", tag = "cart",
    params(("id" = String, Path, description = "The cart line's id.")),
    responses(
        (status = 200, description = "The cart without the line.", body = Cart),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
    )
)]
pub async fn remove_item(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    cart_call(
        &state,
        &session,
        &request_id,
        reqwest::Method::DELETE,
        &["items", &id],
        None,
        false,
    )
    .await?
    .map(|cart| Json(for_browser(cart)))
    .ok_or_else(cart_item_not_found)
}

#[derive(Debug, Deserialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromoCode {
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(custom(function = "promo_required"))]
    promo_code: String,
}

fn promo_required(code: &str) -> Result<(), validator::ValidationError> {
    if code.trim().is_empty() {
        return Err(validator::ValidationError::new("required")
            .with_message("Promo code is required".into()));
    }
    Ok(())
}

/// `POST /api/cart/promo-code`: a code the upstream refuses is the spec's 'Discount code is
/// invalid' on the `promoCode` field.
#[utoipa::path(post, operation_id = "applyPromoCode", path = "/cart/promo-code", tag = "cart", request_body = PromoCode,
    responses(
        (status = 200, description = "The cart with the discount applied.", body = Cart),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn apply_promo_code(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
    Validated(promo): Validated<PromoCode>,
) -> Result<Json<Value>, ApiError> {
    let body = json!({"promoCode": promo.promo_code.trim()});
    match cart_call(
        &state,
        &session,
        &request_id,
        reqwest::Method::POST,
        &["promo-code"],
        Some(body),
        true,
    )
    .await
    {
        Ok(Some(cart)) => Ok(Json(for_browser(cart))),
        Ok(None) => Err(ApiError::Internal(
            "no cart owner after creation".to_owned(),
        )),
        Err(ApiError::Upstream(UpstreamError::Status { status, .. }))
            if status == reqwest::StatusCode::BAD_REQUEST
                || status == reqwest::StatusCode::UNPROCESSABLE_ENTITY =>
        {
            Err(ApiError::Validation(std::collections::BTreeMap::from([(
                "promoCode".to_owned(),
                "Discount code is invalid".to_owned(),
            )])))
        }
        Err(err) => Err(err),
    }
}

/// `GET /api/cart/shipping-methods`: `[{id, name, price}]`, cheapest (the default) first.
#[utoipa::path(get, operation_id = "listShippingMethods", path = "/cart/shipping-methods", tag = "cart",
    responses((status = 200, description = "The shipping methods, cheapest (the default) first.", body = Vec<ShippingMethod>))
)]
pub async fn shipping_methods(
    State(state): State<SharedState>,
    request_id: RequestId,
) -> Result<Json<Value>, ApiError> {
    let path = UpstreamPath::fixed("Cart/shipping-methods");
    let methods = state
        .commerce
        .call_json(Call::get(&path), &request_id)
        .await?;
    Ok(Json(methods))
}

/// `POST /api/cart/compute`: the billing/shipping form (and the dealer form for FFL items),
/// sent upstream in the spec's compute shape (full state names, country 'US').
#[utoipa::path(post, operation_id = "computeCart", path = "/cart/compute", tag = "cart", request_body = crate::checkout::form::CheckoutForm,
    responses(
        (status = 200, description = "The cart with tax and shipping computed for the addresses.", body = Cart),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn compute(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
    Validated(form): Validated<crate::checkout::form::CheckoutForm>,
) -> Result<Json<Value>, ApiError> {
    let errors = form.state_errors();
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    // The cart is read first: its id goes in the payload, its items say whether it holds FFL
    // items (and so whether the dealer goes along).
    let cart = match current(&state, &session, &request_id).await? {
        Some(cart) => cart,
        None => cart_call(
            &state,
            &session,
            &request_id,
            reqwest::Method::GET,
            &[],
            None,
            true,
        )
        .await?
        .unwrap_or(Value::Null),
    };
    let has_ffl = crate::checkout::form::has_ffl_items(&cart);
    let payload = form.compute_payload(cart.get("id").cloned().unwrap_or(Value::Null), has_ffl);
    let computed = cart_call(
        &state,
        &session,
        &request_id,
        reqwest::Method::POST,
        &["compute"],
        Some(payload),
        true,
    )
    .await?
    .unwrap_or(Value::Null);
    Ok(Json(for_browser(computed)))
}
