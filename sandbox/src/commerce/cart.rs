//! Carts over HTTP, as the .NET commerce API answers them: `POST /Auth/guest` (a guest
//! identity), the signed-in `/Cart` calls (bearer token), the guest `/Cart/guest/{token}` calls,
//! shipping methods, and merging a guest cart into the user's after sign-in. Every cart call
//! answers the whole cart.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use rusqlite::Transaction;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::shop::body::{Body, loose_id, present};
use super::shop::carts::{
    self, Cart, CartView, ComputeAddress, ComputeChoices, DealerInfo, MAX_LINE_QUANTITY, NewLine,
    OptionPair, Owner,
};
use super::shop::pricing::{self, ShippingMethod};
use super::shop::{add_ons, promos, states};
use super::tokens::AuthUser;
use crate::SandboxState;
use crate::content::skus;
use crate::error::SandboxError;

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new()
        .route("/Auth/guest", post(create_guest))
        .route("/Cart", get(user_cart))
        .route("/Cart/items", post(user_add))
        .route("/Cart/items/{id}", put(user_update).delete(user_remove))
        .route("/Cart/compute", post(user_compute))
        .route("/Cart/promo-code", post(user_promo))
        .route("/Cart/shipping-methods", get(shipping_methods))
        .route("/Cart/merge", post(merge))
        .route("/Cart/guest/{token}", get(guest_cart))
        .route("/Cart/guest/{token}/items", post(guest_add))
        .route(
            "/Cart/guest/{token}/items/{id}",
            put(guest_update).delete(guest_remove),
        )
        .route("/Cart/guest/{token}/compute", post(guest_compute))
        .route("/Cart/guest/{token}/promo-code", post(guest_promo))
}

type CartResponse = Result<Json<CartView>, SandboxError>;

/// The answer to `POST /Auth/guest`. `token` repeats `guestId` for clients that read either.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct GuestResponse {
    guest_id: String,
    token: String,
}

async fn create_guest(
    State(state): State<Arc<SandboxState>>,
) -> Result<Json<GuestResponse>, SandboxError> {
    let guest_id = state.db.call(|conn| carts::create_guest(conn))?;
    Ok(Json(GuestResponse {
        token: guest_id.clone(),
        guest_id,
    }))
}

/// Runs `change` on the owner's cart (created empty when missing) in one transaction and
/// answers the cart as it is afterwards. Unknown guests are a 404 and get no cart.
fn answer(
    state: &SandboxState,
    owner: Owner,
    change: impl FnOnce(&Transaction<'_>, &Cart) -> Result<(), SandboxError>,
) -> CartResponse {
    let public_url = state.public_url();
    state
        .db
        .transaction(|tx| {
            if let Owner::Guest(guest_id) = &owner {
                carts::require_guest(tx, guest_id)?;
            }
            let cart = carts::get_or_create(tx, &owner)?;
            change(tx, &cart)?;
            let cart = carts::reload(tx, &cart)?;
            carts::view(tx, &cart, public_url)
        })
        .map(Json)
}

fn unchanged(_: &Transaction<'_>, _: &Cart) -> Result<(), SandboxError> {
    Ok(())
}

/// Item ids in paths: anything but a number names no item.
fn item_id(raw: &str) -> Result<i64, SandboxError> {
    raw.parse()
        .map_err(|_| SandboxError::NotFound(format!("Cart item {raw} not found")))
}

// ---- the add payload ------------------------------------------------------------------------

/// `POST .../items`. Stock, FFL flags and restrictions sent by the storefront (`isFflItem`,
/// `isReceiverItem`, `restrictedStates`, `restrictedZips`) are ignored: the skus table is the
/// authority. The line's prices (`productPrice`, `price` = final) are taken from the payload
/// once they match the sku's price plus the chosen add-ons' (see `shop::add_ons`); a line without
/// them is priced from the sku and its add-ons alike.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AddItem {
    product_id: Option<String>,
    product_name: Option<String>,
    quantity: Option<i64>,
    #[serde(default)]
    options: Vec<OptionPair>,
    option_ids: Option<Value>,
    yotpo_product_id: Option<Value>,
    image_url: Option<String>,
    product_url: Option<String>,
    notes: Option<String>,
    build_id: Option<Value>,
    product_price: Option<f64>,
    price: Option<f64>,
}

/// An opaque id the storefront may send as a string or a number, kept as text.
fn opaque_text(value: Option<Value>) -> Option<String> {
    match value? {
        Value::Null => None,
        Value::String(text) if text.trim().is_empty() => None,
        Value::String(text) => Some(text),
        other => Some(other.to_string()),
    }
}

fn check_quantity(quantity: i64, minimum: i64) -> Result<(), SandboxError> {
    if quantity < minimum {
        return Err(SandboxError::field(
            "quantity",
            &format!("Quantity must be at least {minimum}"),
        ));
    }
    if quantity > MAX_LINE_QUANTITY {
        return Err(SandboxError::field(
            "quantity",
            &format!("Quantity must be at most {MAX_LINE_QUANTITY}"),
        ));
    }
    Ok(())
}

fn add_item(tx: &Transaction<'_>, cart: &Cart, payload: AddItem) -> Result<(), SandboxError> {
    let product_id = present(&payload.product_id)
        .ok_or_else(|| SandboxError::field("productId", "Product is required"))?;
    let quantity = payload.quantity.unwrap_or(1);
    check_quantity(quantity, 1)?;
    let sku = skus::find(tx, product_id)?
        .ok_or_else(|| SandboxError::NotFound(format!("Product {product_id} not found")))?;
    if sku.final_price_cents() <= 0 {
        return Err(SandboxError::field(
            "productId",
            "This product is coming soon and cannot be ordered yet",
        ));
    }
    let chosen = add_ons::chosen(&add_ons::offered(&sku)?, &payload.options)?;
    add_ons::check_prices(&sku, &chosen, payload.product_price, payload.price)?;
    let line = NewLine {
        product_name: present(&payload.product_name)
            .map_or_else(|| sku.product_name.clone(), str::to_owned),
        product_id: sku.code,
        options: add_ons::normalised_options(payload.options, &chosen),
        add_ons_cents: chosen.cents,
        option_ids: payload.option_ids.unwrap_or(Value::Array(Vec::new())),
        yotpo_product_id: opaque_text(payload.yotpo_product_id),
        image_url: present(&payload.image_url).map(str::to_owned),
        product_url: present(&payload.product_url).map(str::to_owned),
        notes: present(&payload.notes).map(str::to_owned),
        build_id: opaque_text(payload.build_id),
        quantity,
    };
    carts::add(tx, cart.id, &line)?;
    Ok(())
}

/// `PUT .../items/{id}`: `{quantity}`; 0 removes the line.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct UpdateItem {
    quantity: Option<i64>,
}

fn update_item(
    tx: &Transaction<'_>,
    cart: &Cart,
    raw_id: &str,
    payload: &UpdateItem,
) -> Result<(), SandboxError> {
    let id = item_id(raw_id)?;
    let quantity = payload
        .quantity
        .ok_or_else(|| SandboxError::field("quantity", "Quantity is required"))?;
    check_quantity(quantity, 0)?;
    carts::set_quantity(tx, cart.id, id, quantity)
}

// ---- compute ----------------------------------------------------------------------------------

/// `POST .../compute`: the addresses (region = full state name), the dealer and the shipping
/// method to price the cart with. They are kept on the cart, so later answers are priced alike.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Compute {
    shipping_address: Option<ComputeAddress>,
    billing_address: Option<ComputeAddress>,
    dealer_info: Option<DealerInfo>,
    #[serde(default, deserialize_with = "loose_id")]
    cart_id: Option<i64>,
    #[serde(default, deserialize_with = "loose_id")]
    shipping_method_id: Option<i64>,
}

fn check_region(field: &str, region: Option<&str>) -> Result<(), SandboxError> {
    match region.map(str::trim).filter(|region| !region.is_empty()) {
        Some(region) if states::code_for(region).is_none() => Err(SandboxError::field(
            field,
            &format!("'{region}' is not a US state"),
        )),
        _ => Ok(()),
    }
}

fn check_country(field: &str, country: Option<&str>) -> Result<(), SandboxError> {
    match country.map(str::trim).filter(|country| !country.is_empty()) {
        Some(country) if !states::is_united_states(country) => Err(SandboxError::field(
            field,
            "Only United States addresses are supported",
        )),
        _ => Ok(()),
    }
}

fn compute(tx: &Transaction<'_>, cart: &Cart, payload: Compute) -> Result<(), SandboxError> {
    if payload.cart_id.is_some_and(|id| id != cart.id) {
        return Err(SandboxError::NotFound("Cart not found".to_owned()));
    }
    if let Some(id) = payload.shipping_method_id
        && pricing::shipping_method(tx, id)?.is_none()
    {
        return Err(SandboxError::field(
            "shippingMethodId",
            "Unknown shipping method",
        ));
    }
    for (name, address) in [
        ("shippingAddress", &payload.shipping_address),
        ("billingAddress", &payload.billing_address),
    ] {
        if let Some(address) = address {
            check_region(&format!("{name}.region"), address.region.as_deref())?;
            check_country(&format!("{name}.country"), address.country.as_deref())?;
        }
    }
    if let Some(dealer) = &payload.dealer_info {
        check_region("dealerInfo.dealerState", dealer.dealer_state.as_deref())?;
        check_country("dealerInfo.dealerCountry", dealer.dealer_country.as_deref())?;
    }
    carts::save_compute(
        tx,
        cart.id,
        &ComputeChoices {
            shipping_method_id: payload.shipping_method_id,
            shipping_address: payload.shipping_address,
            billing_address: payload.billing_address,
            dealer_info: payload.dealer_info,
        },
    )
}

// ---- promo codes ----------------------------------------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromoCode {
    promo_code: Option<String>,
}

fn apply_promo(tx: &Transaction<'_>, cart: &Cart, payload: &PromoCode) -> Result<(), SandboxError> {
    let code = present(&payload.promo_code)
        .ok_or_else(|| SandboxError::field("promoCode", "Promo code is required"))?;
    let promo = promos::find_active(tx, code)?
        .ok_or_else(|| SandboxError::field("promoCode", "Discount code is invalid"))?;
    carts::set_promo(tx, cart.id, &promo)
}

// ---- signed in ------------------------------------------------------------------------------

async fn user_cart(State(state): State<Arc<SandboxState>>, user: AuthUser) -> CartResponse {
    answer(&state, Owner::User(user.id), unchanged)
}

async fn user_add(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
    Body(payload): Body<AddItem>,
) -> CartResponse {
    answer(&state, Owner::User(user.id), |tx, cart| {
        add_item(tx, cart, payload)
    })
}

async fn user_update(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
    Path(id): Path<String>,
    Body(payload): Body<UpdateItem>,
) -> CartResponse {
    answer(&state, Owner::User(user.id), |tx, cart| {
        update_item(tx, cart, &id, &payload)
    })
}

async fn user_remove(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
    Path(id): Path<String>,
) -> CartResponse {
    answer(&state, Owner::User(user.id), |tx, cart| {
        carts::remove(tx, cart.id, item_id(&id)?)
    })
}

async fn user_compute(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
    Body(payload): Body<Compute>,
) -> CartResponse {
    answer(&state, Owner::User(user.id), |tx, cart| {
        compute(tx, cart, payload)
    })
}

async fn user_promo(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
    Body(payload): Body<PromoCode>,
) -> CartResponse {
    answer(&state, Owner::User(user.id), |tx, cart| {
        apply_promo(tx, cart, &payload)
    })
}

/// Public: guests choose a shipping method at checkout too.
async fn shipping_methods(
    State(state): State<Arc<SandboxState>>,
) -> Result<Json<Vec<ShippingMethod>>, SandboxError> {
    state
        .db
        .call(|conn| pricing::shipping_methods(conn))
        .map(Json)
}

/// The guest to merge, from the query (`?guestId=`) or the body (`{guestId}`).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct MergeGuest {
    guest_id: Option<String>,
}

async fn merge(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
    Query(query): Query<MergeGuest>,
    Body(body): Body<MergeGuest>,
) -> CartResponse {
    let guest_id = match (present(&query.guest_id), present(&body.guest_id)) {
        (Some(query), Some(body)) if query != body => {
            return Err(SandboxError::field(
                "guestId",
                "The guestId of the query and of the body differ",
            ));
        }
        (Some(guest_id), _) | (None, Some(guest_id)) => guest_id.to_owned(),
        (None, None) => return Err(SandboxError::field("guestId", "guestId is required")),
    };
    answer(&state, Owner::User(user.id), |tx, cart| {
        carts::require_guest(tx, &guest_id)?;
        match carts::find(tx, &Owner::Guest(guest_id))? {
            Some(guest_cart) => carts::merge(tx, &guest_cart, cart),
            None => Ok(()),
        }
    })
}

// ---- guests ---------------------------------------------------------------------------------

async fn guest_cart(
    State(state): State<Arc<SandboxState>>,
    Path(token): Path<String>,
) -> CartResponse {
    answer(&state, Owner::Guest(token), unchanged)
}

async fn guest_add(
    State(state): State<Arc<SandboxState>>,
    Path(token): Path<String>,
    Body(payload): Body<AddItem>,
) -> CartResponse {
    answer(&state, Owner::Guest(token), |tx, cart| {
        add_item(tx, cart, payload)
    })
}

async fn guest_update(
    State(state): State<Arc<SandboxState>>,
    Path((token, id)): Path<(String, String)>,
    Body(payload): Body<UpdateItem>,
) -> CartResponse {
    answer(&state, Owner::Guest(token), |tx, cart| {
        update_item(tx, cart, &id, &payload)
    })
}

async fn guest_remove(
    State(state): State<Arc<SandboxState>>,
    Path((token, id)): Path<(String, String)>,
) -> CartResponse {
    answer(&state, Owner::Guest(token), |tx, cart| {
        carts::remove(tx, cart.id, item_id(&id)?)
    })
}

async fn guest_compute(
    State(state): State<Arc<SandboxState>>,
    Path(token): Path<String>,
    Body(payload): Body<Compute>,
) -> CartResponse {
    answer(&state, Owner::Guest(token), |tx, cart| {
        compute(tx, cart, payload)
    })
}

async fn guest_promo(
    State(state): State<Arc<SandboxState>>,
    Path(token): Path<String>,
    Body(payload): Body<PromoCode>,
) -> CartResponse {
    answer(&state, Owner::Guest(token), |tx, cart| {
        apply_promo(tx, cart, &payload)
    })
}
