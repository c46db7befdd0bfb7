//! The cart, guest or signed in by the session: the cart service picks the upstream path and
//! injects the identity; the browser never sees a guest token or a bearer token.

use axum::Json;
use axum::extract::State;

use crate::commerce::Shopper;
use crate::commerce::cart::{
    self, Cart, CheckedLine, NewCartItem, PromoCode, QuantityUpdate, ShippingMethod,
};
use crate::commerce::catalogue::Catalogue;
use crate::commerce::checkout;
use crate::commerce::checkout::compute::ComputeForm;
use crate::commerce::checkout::wire::CheckoutForm;
use crate::http::error::ApiError;
use crate::http::extract::Path;
use crate::http::validation::Validated;
use crate::routes::openapi::problems;

/// `GET /api/cart`.
#[utoipa::path(get, operation_id = "getCart", path = "/cart", tag = "cart",
    responses(
        (status = 200, description = "The visitor's cart; the empty guest cart when there is none.", body = Cart),
        (status = 401, response = problems::Unauthorized),
    )
)]
pub async fn get(shopper: Shopper) -> Result<Json<Cart>, ApiError> {
    cart::get(&shopper).await.map(Json)
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
        (status = 429, response = problems::TooManyRequests),
        (status = 503, response = problems::CartLineUnpriced),
    )
)]
pub async fn add_item(
    State(catalogue): State<Catalogue>,
    shopper: Shopper,
    Validated(item): Validated<NewCartItem>,
) -> Result<Json<Cart>, ApiError> {
    let line = CheckedLine::of(&catalogue, &item, shopper.request_id()).await?;
    cart::add_item(&shopper, &line).await.map(Json)
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
    shopper: Shopper,
    Path(id): Path<String>,
    Validated(update): Validated<QuantityUpdate>,
) -> Result<Json<Cart>, ApiError> {
    cart::update_item(&shopper, &id, &update).await.map(Json)
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
pub async fn remove_item(shopper: Shopper, Path(id): Path<String>) -> Result<Json<Cart>, ApiError> {
    cart::remove_item(&shopper, &id).await.map(Json)
}

/// `POST /api/cart/promo-code`: a code the upstream refuses is the spec's 'Discount code is
/// invalid' on the `promoCode` field. Attempts are limited per client and per cart
/// (`rate_limit.promo_codes_per_*_per_minute`; 429 past them).
#[utoipa::path(post, operation_id = "applyPromoCode", path = "/cart/promo-code", tag = "cart", request_body = PromoCode,
    responses(
        (status = 200, description = "The cart with the discount applied.", body = Cart),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
        (status = 429, response = problems::TooManyRequests),
    )
)]
pub async fn apply_promo_code(
    shopper: Shopper,
    Validated(promo): Validated<PromoCode>,
) -> Result<Json<Cart>, ApiError> {
    cart::apply_promo_code(&shopper, &promo).await.map(Json)
}

/// `GET /api/cart/shipping-methods`: `[{id, name, price}]`, cheapest (the default) first.
#[utoipa::path(get, operation_id = "listShippingMethods", path = "/cart/shipping-methods", tag = "cart",
    responses((status = 200, description = "The shipping methods, cheapest (the default) first.", body = Vec<ShippingMethod>))
)]
pub async fn shipping_methods(shopper: Shopper) -> Result<Json<Vec<ShippingMethod>>, ApiError> {
    cart::shipping_methods(&shopper).await.map(Json)
}

/// `POST /api/cart/compute`: the billing/shipping form (and the dealer form for FFL items),
/// sent upstream in the spec's compute shape (full state names, country 'US').
#[utoipa::path(post, operation_id = "computeCart", path = "/cart/compute", tag = "cart", request_body = CheckoutForm,
    responses(
        (status = 200, description = "The cart with tax and shipping computed for the addresses.", body = Cart),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
        (status = 429, response = problems::TooManyRequests),
    )
)]
pub async fn compute(
    shopper: Shopper,
    Validated(form): Validated<ComputeForm>,
) -> Result<Json<Cart>, ApiError> {
    checkout::compute::compute(&shopper, &form).await.map(Json)
}
