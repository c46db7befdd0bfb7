//! The cart service: whose cart a call addresses (a signed-in user's, by bearer token, or a
//! guest's, by the guest token in the path), guest creation on the first write, and the merge
//! of a guest cart into the user's after sign-in.

use serde_json::{Value, json};

use super::Shopper;
use crate::error::ApiError;
use crate::session::{Session, UserTokens};
use crate::upstream::{Call, UpstreamError, UpstreamPath};

/// The spec's default: a guest cart with no items and all amounts 0.
pub fn empty_cart() -> Value {
    json!({
        "id": null, "userId": null, "isAbandoned": false, "isGuest": true,
        "items": [], "inventoryWarnings": [], "subTotal": 0, "taxAmount": 0, "shipping": 0,
        "discountAmount": 0, "totalAmount": 0, "appliedDiscounts": []
    })
}

/// The upstream cart without the guest token it carries (the token is the guest's credential).
pub fn for_browser(mut cart: Value) -> Value {
    if let Value::Object(map) = &mut cart {
        map.remove("guestId");
    }
    cart
}

/// Merges the guest cart waiting in the session into the user's cart. On failure the guest
/// token stays in the session and the merge is retried on the next cart read: no cart is lost.
pub async fn merge_pending(shopper: &Shopper) -> bool {
    let current = shopper.session().get();
    let (Some(user), Some(guest_id)) = (
        current.user().cloned(),
        current.pending_merge().map(str::to_owned),
    ) else {
        return true;
    };
    let path = UpstreamPath::fixed("Cart/merge");
    let body = json!({"guestId": guest_id});
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
    let done = match outcome {
        Ok(()) => {
            shopper
                .metrics()
                .count_session_event(crate::metrics::SessionEvent::MergeOk);
            true
        }
        // The guest (and so its cart) no longer exists upstream: nothing left to merge.
        Err(ApiError::Upstream(UpstreamError::NotFound { .. })) => true,
        Err(err) => {
            shopper
                .metrics()
                .count_session_event(crate::metrics::SessionEvent::MergeFailed);
            tracing::warn!(error = %err, "guest cart merge failed; kept for a retry");
            false
        }
    };
    if done {
        shopper.session().update(Session::merged);
    }
    done
}

/// The guest token of this session, creating a guest upstream on first need.
pub async fn guest_id(shopper: &Shopper) -> Result<String, ApiError> {
    if let Some(guest_id) = shopper.session().get().guest_id() {
        return Ok(guest_id.to_owned());
    }
    let path = UpstreamPath::fixed("Auth/guest");
    let answer: Value = shopper.call_as(Call::post(&path, &json!({}))).await?;
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
    shopper.session().set(Session::guest(guest_id.clone()));
    Ok(guest_id)
}

/// Whose cart a call addresses: a signed-in user's (bearer) or a guest's (token in the path).
pub enum Owner {
    User(UserTokens),
    Guest(String),
}

/// The owner of this session's cart. A guest without a token gets one only when `create` is
/// set (a write); otherwise `None`: the visitor has no cart yet.
pub async fn owner(shopper: &Shopper, create: bool) -> Result<Option<Owner>, ApiError> {
    if let Some(user) = shopper.user().await? {
        return Ok(Some(Owner::User(user)));
    }
    if let Some(guest_id) = shopper.session().get().guest_id() {
        return Ok(Some(Owner::Guest(guest_id.to_owned())));
    }
    if create {
        return Ok(Some(Owner::Guest(guest_id(shopper).await?)));
    }
    Ok(None)
}

/// One cart call, `Cart/{suffix…}` for users and `Cart/guest/{token}/{suffix…}` for guests.
/// `None` when the visitor has no cart and `create` is not set.
pub async fn cart_call(
    shopper: &Shopper,
    method: reqwest::Method,
    suffix: &[&str],
    body: Option<Value>,
    create: bool,
) -> Result<Option<Value>, ApiError> {
    let Some(owner) = owner(shopper, create).await? else {
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
        Owner::User(user) => shopper.as_user::<Value>(user, call).await?,
        Owner::Guest(_) => shopper.call_as::<Value>(call).await?,
    };
    Ok(Some(cart))
}

/// The visitor's current cart as the upstream has it; `None` when there is none.
pub async fn current(shopper: &Shopper) -> Result<Option<Value>, ApiError> {
    match cart_call(shopper, reqwest::Method::GET, &[], None, false).await {
        Err(ApiError::Upstream(UpstreamError::NotFound { .. })) => Ok(None),
        other => other,
    }
}
