//! The cart, guest or signed in by the session: the BFF picks the upstream path and injects the
//! identity; the browser never sees a guest token or a bearer token.

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;
use validator::Validate;

use crate::commerce::cart::{empty_cart, for_browser};
use crate::commerce::{Shopper, cart};
use crate::error::ApiError;
use crate::openapi::problems;
use crate::openapi::schemas::cart::{Cart, NewCartItem, ShippingMethod};
use crate::request_id::RequestId;
use crate::session::{Session, SessionHandle};
use crate::state::SharedState;
use crate::upstream::{Call, UpstreamError, UpstreamPath};
use crate::validation::Validated;

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
    if let Some(user) = Shopper::of(&state, &session, &request_id).user().await? {
        if session.get().pending_merge().is_some() {
            state
                .metrics
                .count_session_event(crate::metrics::SessionEvent::MergeRetried);
            cart::merge_pending(&Shopper::of(&state, &session, &request_id)).await;
        }
        let path = UpstreamPath::fixed("Cart");
        let cart = Shopper::of(&state, &session, &request_id)
            .as_user::<Value>(user, Call::get(&path))
            .await?;
        return Ok(Json(for_browser(cart)));
    }
    let Some(guest_id) = session.get().guest_id().map(str::to_owned) else {
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
            session.set(Session::Anonymous);
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
    if let Some(user) = Shopper::of(&state, &session, &request_id).user().await? {
        let path = UpstreamPath::fixed("Cart/items");
        let cart = Shopper::of(&state, &session, &request_id)
            .as_user::<Value>(user, Call::post(&path, &body))
            .await?;
        return Ok(Json(for_browser(cart)));
    }
    let guest_id = cart::guest_id(&Shopper::of(&state, &session, &request_id)).await?;
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
    cart::cart_call(
        &Shopper::of(&state, &session, &request_id),
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
    cart::cart_call(
        &Shopper::of(&state, &session, &request_id),
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
    match cart::cart_call(
        &Shopper::of(&state, &session, &request_id),
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
    let cart = match cart::current(&Shopper::of(&state, &session, &request_id)).await? {
        Some(cart) => cart,
        None => cart::cart_call(
            &Shopper::of(&state, &session, &request_id),
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
    let computed = cart::cart_call(
        &Shopper::of(&state, &session, &request_id),
        reqwest::Method::POST,
        &["compute"],
        Some(payload),
        true,
    )
    .await?
    .unwrap_or(Value::Null);
    Ok(Json(for_browser(computed)))
}
