//! The cart service: whose cart a call addresses (a signed-in user's, by bearer token, or a
//! guest's, by the guest token in the path), guest creation on the first write, the merge of a
//! guest cart into the user's after sign-in, and every cart operation the API offers. Answers
//! are read into [`Cart`], which has no guest token: the browser never sees one.

mod line;
mod model;

use serde::{Deserialize, Serialize};
use tracing::Instrument;

pub use line::CheckedLine;
pub use model::{
    AppliedDiscount, Cart, CartItem, CartOption, ComputeAddress, DealerInfo, InventoryWarning,
    NewCartItem, PromoCode, PromotionGroup, PromotionImage, PromotionProduct, PromotionSku,
    PromotionalPage, PromotionalPageInfo, QuantityUpdate, ShippingMethod,
};

use super::Shopper;
use crate::http::error::ApiError;
use crate::observe::metrics::SessionEvent;
use crate::session::{Session, UserTokens};
use crate::upstream::{Call, UpstreamError, UpstreamPath};

/// What became of a guest cart waiting to be merged after sign-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// Nothing was waiting (or the visitor is not signed in).
    NothingPending,
    /// The guest cart is now part of the user's (or no longer exists upstream).
    Merged,
    /// The merge failed; the guest token stays in the session for a retry on the next cart read.
    KeptForRetry,
}

/// Merges the guest cart waiting in the session into the user's cart. On failure the guest
/// token stays in the session and the merge is retried on the next cart read: no cart is lost.
pub async fn merge_pending(shopper: &Shopper) -> Merge {
    let span = tracing::info_span!("cart.merge", otel.status_code = tracing::field::Empty);
    let merge = merge_in_span(shopper).instrument(span.clone()).await;
    if merge == Merge::KeptForRetry {
        span.record("otel.status_code", "error");
    }
    merge
}

async fn merge_in_span(shopper: &Shopper) -> Merge {
    let current = shopper.session().get();
    let (Some(user), Some(guest_id)) = (
        current.user().cloned(),
        current.pending_merge().map(str::to_owned),
    ) else {
        return Merge::NothingPending;
    };
    let path = UpstreamPath::fixed("Cart/merge");
    let body = GuestToken {
        guest_id: guest_id.clone(),
    };
    let outcome = shopper
        .with_user(user, |bearer| {
            let (path, body, guest_id) = (&path, &body, guest_id.clone());
            async move {
                let call = Call::post(path, body)
                    .query("guestId", guest_id)
                    .bearer(Some(&bearer));
                shopper
                    .upstream()
                    .call(call, shopper.request_id())
                    .await
                    .map(drop)
            }
        })
        .await;
    let merge = match outcome {
        Ok(()) => {
            shopper.metrics().count_session_event(SessionEvent::MergeOk);
            Merge::Merged
        }
        // The guest (and so its cart) no longer exists upstream: nothing left to merge.
        Err(ApiError::Upstream(UpstreamError::NotFound { .. })) => Merge::Merged,
        Err(err) => {
            shopper
                .metrics()
                .count_session_event(SessionEvent::MergeFailed);
            tracing::warn!(error = %err, "guest cart merge failed; kept for a retry");
            Merge::KeptForRetry
        }
    };
    if merge == Merge::Merged {
        shopper.session().update(Session::merged);
    }
    merge
}

/// `{guestId}`: the upstream's new guest, and the body of a merge.
#[derive(Debug, serde::Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GuestToken {
    guest_id: String,
}

/// The guest token of this session, creating a guest upstream on first need.
async fn guest_id(shopper: &Shopper) -> Result<String, ApiError> {
    if let Some(guest_id) = shopper.session().get().guest_id() {
        return Ok(guest_id.to_owned());
    }
    // Every guest is an upstream record: a client that drops its cookie made one per write.
    shopper.limits().guest_creation(shopper.client()).await?;
    let path = UpstreamPath::fixed("Auth/guest");
    let GuestToken { guest_id } = shopper.call_as(Call::post(&path, &NoFields {})).await?;
    if !guest_id.starts_with("gid_") {
        return Err(UpstreamError::Contract {
            upstream: shopper.upstream().name(),
            field: "guestId".to_owned(),
            reason: "not a guest token (`gid_…`)".to_owned(),
        }
        .into());
    }
    shopper.session().set(Session::guest(guest_id.clone()));
    Ok(guest_id)
}

/// `{}`: the body of a call that takes none but must send JSON.
#[derive(serde::Serialize)]
struct NoFields {}

/// Whose cart a call addresses: a signed-in user's (bearer) or a guest's (token in the path).
enum Owner {
    User(UserTokens),
    Guest(String),
}

impl Owner {
    /// The visitor's cart's owner. A guest without a token gets one only when `create` is set
    /// (a write); otherwise `None`: the visitor has no cart yet.
    async fn of(shopper: &Shopper, create: bool) -> Result<Option<Self>, ApiError> {
        if let Some(user) = shopper.user().await? {
            return Ok(Some(Self::User(user)));
        }
        if let Some(guest_id) = shopper.session().get().guest_id() {
            return Ok(Some(Self::Guest(guest_id.to_owned())));
        }
        if create {
            return Ok(Some(Self::Guest(guest_id(shopper).await?)));
        }
        Ok(None)
    }

    /// A name of the cart for per-cart limits: the guest token, or the account (its e-mail,
    /// lower-cased; the session's id for a cookie that has none). Hashed where it is kept.
    fn cart_name(&self) -> String {
        match self {
            Self::Guest(guest_id) => format!("guest:{guest_id}"),
            Self::User(user) if !user.email.is_empty() => {
                format!("user:{}", user.email.trim().to_lowercase())
            }
            Self::User(user) => format!("user-token:{}", user.refresh_token),
        }
    }

    /// `Cart/{suffix}` for users, `Cart/guest/{token}/{suffix}` for guests (`suffix` literal,
    /// possibly empty).
    fn path(&self, suffix: &'static str) -> Result<UpstreamPath, UpstreamError> {
        let path = match self {
            Self::User(_) => UpstreamPath::fixed("Cart"),
            Self::Guest(guest_id) => UpstreamPath::fixed("Cart/guest").segment(guest_id)?,
        };
        Ok(if suffix.is_empty() {
            path
        } else {
            path.literal(suffix)
        })
    }

    /// One cart call as this owner: the user's bearer (with its refresh and one retry), or
    /// anonymous for a guest (whose token is in the path).
    async fn send(&self, shopper: &Shopper, call: Call<'_>) -> Result<Cart, ApiError> {
        match self {
            Self::User(user) => shopper.as_user(user.clone(), call).await,
            Self::Guest(_) => shopper.call_as(call).await,
        }
    }
}

/// The visitor's current cart as the upstream has it; `None` when there is none.
pub async fn current(shopper: &Shopper) -> Result<Option<Cart>, ApiError> {
    let Some(owner) = Owner::of(shopper, false).await? else {
        return Ok(None);
    };
    match owner.send(shopper, Call::get(&owner.path("")?)).await {
        Err(ApiError::Upstream(UpstreamError::NotFound { .. })) => Ok(None),
        other => other.map(Some),
    }
}

/// `GET /api/cart`: the visitor's cart, or the empty guest cart. A signed-in user's pending
/// merge is retried first; a guest unknown upstream starts afresh (the specs' silent 404).
pub async fn get(shopper: &Shopper) -> Result<Cart, ApiError> {
    let Some(owner) = Owner::of(shopper, false).await? else {
        return Ok(Cart::empty());
    };
    let path = owner.path("")?;
    match &owner {
        Owner::User(_) => {
            if shopper.session().get().pending_merge().is_some() {
                shopper
                    .metrics()
                    .count_session_event(SessionEvent::MergeRetried);
                merge_pending(shopper).await;
            }
            owner.send(shopper, Call::get(&path)).await
        }
        Owner::Guest(_) => match owner.send(shopper, Call::get(&path)).await {
            Err(ApiError::Upstream(UpstreamError::NotFound { .. })) => {
                shopper.session().set(Session::Anonymous);
                Ok(Cart::empty())
            }
            other => other,
        },
    }
}

/// `POST /api/cart/items`: adds a line, as the catalogue has it (see [`CheckedLine`]); a
/// guest's first write creates the guest.
pub async fn add_item(shopper: &Shopper, line: &CheckedLine) -> Result<Cart, ApiError> {
    let owner = created(shopper).await?;
    owner
        .send(shopper, Call::post(&owner.path("items")?, line))
        .await
}

/// `PUT /api/cart/items/{id}`: a line's new quantity (0 removes it).
pub async fn update_item(
    shopper: &Shopper,
    id: &str,
    update: &QuantityUpdate,
) -> Result<Cart, ApiError> {
    let owner = Owner::of(shopper, false)
        .await?
        .ok_or_else(cart_item_not_found)?;
    let path = owner
        .path("items")?
        .segment(id)
        .map_err(UpstreamError::from)?;
    owner
        .send(shopper, Call::new(reqwest::Method::PUT, &path).json(update))
        .await
}

/// `DELETE /api/cart/items/{id}`.
pub async fn remove_item(shopper: &Shopper, id: &str) -> Result<Cart, ApiError> {
    let owner = Owner::of(shopper, false)
        .await?
        .ok_or_else(cart_item_not_found)?;
    let path = owner
        .path("items")?
        .segment(id)
        .map_err(UpstreamError::from)?;
    owner
        .send(shopper, Call::new(reqwest::Method::DELETE, &path))
        .await
}

/// `POST /api/cart/promo-code`: a code the upstream refuses is the specs' 'Discount code is
/// invalid' on the `promoCode` field.
pub async fn apply_promo_code(shopper: &Shopper, promo: &PromoCode) -> Result<Cart, ApiError> {
    // Every attempt is a guess at a code: limited per client, then per cart (whoever guesses).
    shopper
        .limits()
        .promo_code_by_client(shopper.client())
        .await?;
    let owner = created(shopper).await?;
    shopper
        .limits()
        .promo_code_on_cart(&owner.cart_name())
        .await?;
    let body = PromoCode {
        promo_code: promo.promo_code.trim().to_owned(),
    };
    match owner
        .send(shopper, Call::post(&owner.path("promo-code")?, &body))
        .await
    {
        Err(ApiError::Upstream(UpstreamError::Status { status, .. }))
            if status == reqwest::StatusCode::BAD_REQUEST
                || status == reqwest::StatusCode::UNPROCESSABLE_ENTITY =>
        {
            Err(ApiError::Validation(std::collections::BTreeMap::from([(
                "promoCode".to_owned(),
                "Discount code is invalid".to_owned(),
            )])))
        }
        other => other,
    }
}

/// `GET /api/cart/shipping-methods`: the same for everyone, cheapest (the default) first.
pub async fn shipping_methods(shopper: &Shopper) -> Result<Vec<ShippingMethod>, ApiError> {
    let path = UpstreamPath::fixed("Cart/shipping-methods");
    shopper.call_as(Call::get(&path)).await
}

/// `POST Cart/compute` on the visitor's cart (a guest is created when there is none): the cart
/// is read first, and `payload` makes the upstream's compute body from it (its id, whether its
/// items need a dealer). The body is the caller's (checkout's form, see
/// `commerce::checkout::compute`), so the cart knows who owns the call but not what a form is.
pub async fn compute<P: Serialize>(
    shopper: &Shopper,
    payload: impl FnOnce(&Cart) -> P,
) -> Result<Cart, ApiError> {
    let owner = created(shopper).await?;
    let cart = owner.send(shopper, Call::get(&owner.path("")?)).await?;
    let payload = payload(&cart);
    owner
        .send(shopper, Call::post(&owner.path("compute")?, &payload))
        .await
}

/// The owner of the visitor's cart, creating a guest when there is none (for writes).
async fn created(shopper: &Shopper) -> Result<Owner, ApiError> {
    Owner::of(shopper, true)
        .await?
        .ok_or_else(|| ApiError::Internal("no cart owner after creating a guest".to_owned()))
}

fn cart_item_not_found() -> ApiError {
    ApiError::NotFound("Cart item not found.".to_owned())
}

#[cfg(test)]
mod tests;
