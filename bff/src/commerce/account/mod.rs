//! The account service: the signed-in user's profile and address book (every call with the
//! user's bearer token, refreshed and retried once by [`Shopper::as_user`]; 401 for a visitor
//! who is not signed in), the newsletter and LE/MIL verification.

pub mod military;
pub mod newsletter;

pub use military::{MilitaryCallback, MilitaryOutcome, MilitarySession};
pub use newsletter::{NewsletterStatus, Subscribe};

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;
use validator::Validate;

use super::Shopper;
use crate::http::error::ApiError;
use crate::upstream::{Call, UpstreamError, UpstreamPath};

const PROFILE: &str = "User/profile";
const ADDRESSES: &str = "User/addresses";

/// The signed-in user's profile with the address book, orders, favorites and builds.
// Read from the upstream's profile. Fields the upstream adds are not relayed; tokens and
// passwords never are (the opaque lists are cleaned of them at any depth).
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub id: i64,
    pub first_name: String,
    pub last_name: String,
    pub full_name: String,
    pub email: String,
    #[schema(required = true)]
    pub phone_number: Option<String>,
    /// None, Pending, Rejected or Verified.
    pub military_status: String,
    /// None, Pending, Rejected or Approved.
    pub pro_deal_status: String,
    pub is_subscribed_to_newsletter: bool,
    pub is_email_verified: bool,
    pub created_at: String,
    pub addresses: Vec<StoredAddress>,
    /// Newest first, each as `GET /api/orders/{id}` answers it.
    // Passed through as the orders service relays an order (its contract is that service's).
    #[schema(value_type = Vec<crate::commerce::orders::Order>)]
    pub orders: Vec<Map<String, Value>>,
    /// Saved products (opaque objects the storefront stored).
    pub favorites: Vec<Value>,
    /// Saved builds (opaque objects the storefront stored).
    pub builds: Vec<Value>,
}

impl Profile {
    /// The profile as the browser may see it: the opaque parts without anything token- or
    /// password-like.
    fn for_browser(mut self) -> Self {
        self.orders = self.orders.into_iter().map(without_secrets_in).collect();
        self.favorites = self.favorites.into_iter().map(without_secrets).collect();
        self.builds = self.builds.into_iter().map(without_secrets).collect();
        self
    }
}

/// Removes anything token- or password-like from an upstream value, at any depth.
fn without_secrets(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(without_secrets_in(map)),
        Value::Array(items) => Value::Array(items.into_iter().map(without_secrets).collect()),
        other => other,
    }
}

fn without_secrets_in(map: Map<String, Value>) -> Map<String, Value> {
    map.into_iter()
        .filter(|(key, _)| {
            let key = key.to_ascii_lowercase();
            !key.contains("token") && !key.contains("password")
        })
        .map(|(key, value)| (key, without_secrets(value)))
        .collect()
}

/// An address of the address book, as stored.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StoredAddress {
    pub id: i64,
    pub first_name: String,
    pub last_name: String,
    #[schema(required = true)]
    pub company: Option<String>,
    /// The phone number.
    pub main_contact: String,
    #[schema(required = true)]
    pub fax_contact: Option<String>,
    pub address_name: String,
    #[schema(required = true)]
    pub address_contact: Option<String>,
    pub address_type: i64,
    pub is_default_shipping: bool,
    pub is_default_billing: bool,
    pub address_line1: String,
    #[schema(required = true)]
    pub address_line2: Option<String>,
    pub city: String,
    pub state: String,
    pub postal_code: String,
    pub country: String,
    pub residential: bool,
}

/// Who a new session belongs to: the profile fields the session keeps for display and for the
/// newsletter status.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Identity {
    pub first_name: String,
    pub last_name: String,
    pub email: String,
}

/// The profile's identity fields, read with an access token just issued (the session does not
/// hold it yet).
pub async fn identity(shopper: &Shopper, access_token: &str) -> Result<Identity, ApiError> {
    let path = UpstreamPath::fixed(PROFILE);
    shopper
        .call_as(Call::get(&path).bearer(Some(access_token)))
        .await
}

/// The signed-in user's profile.
pub async fn profile(shopper: &Shopper) -> Result<Profile, ApiError> {
    let user = shopper.signed_in().await?;
    let path = UpstreamPath::fixed(PROFILE);
    let profile: Profile = shopper.as_user(user, Call::get(&path)).await?;
    Ok(profile.for_browser())
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

/// `PUT /User/profile` as commerce gets it (specs: firstName, lastName, email, phoneNumber). The
/// e-mail is the current profile's, never the browser's.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ProfilePayload<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    first_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_name: Option<&'a str>,
    email: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    phone_number: Option<&'a str>,
}

impl ProfileUpdate {
    /// The upstream payload with `current_email`. An e-mail the browser sent that is not the
    /// current one is refused ('Email cannot be changed'), as the page shows it read-only.
    fn payload<'a>(&'a self, current_email: &'a str) -> Result<ProfilePayload<'a>, ApiError> {
        if let Some(sent) = self.email.as_deref().map(str::trim)
            && !sent.is_empty()
            && !sent.eq_ignore_ascii_case(current_email)
        {
            return Err(ApiError::Validation(
                [("email".to_owned(), "Email cannot be changed".to_owned())].into(),
            ));
        }
        Ok(ProfilePayload {
            first_name: self.first_name.as_deref(),
            last_name: self.last_name.as_deref(),
            email: current_email,
            phone_number: self.phone_number.as_deref(),
        })
    }
}

/// Updates the profile, with the e-mail read from the current profile; the session's copy of
/// the user's name follows.
pub async fn update_profile(
    shopper: &Shopper,
    update: &ProfileUpdate,
) -> Result<Profile, ApiError> {
    let user = shopper.signed_in().await?;
    let path = UpstreamPath::fixed(PROFILE);
    let current: Identity = shopper.as_user(user, Call::get(&path)).await?;
    let payload = update.payload(&current.email)?;
    let user = shopper.signed_in().await?;
    let call = Call::new(reqwest::Method::PUT, &path).json(&payload);
    let profile: Profile = shopper.as_user(user, call).await?;
    // The session's tokens as they are now (the call may have renewed them).
    if let Some(mut user) = shopper.session().get().user().cloned() {
        user.first_name.clone_from(&profile.first_name);
        user.last_name.clone_from(&profile.last_name);
        shopper
            .session()
            .update(|current| current.with_tokens(user));
    }
    Ok(profile.for_browser())
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

/// The upstream path of an address; ids are digits, anything else is not an address.
fn address_path(id: &str) -> Result<UpstreamPath, ApiError> {
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::NotFound("Address not found".to_owned()));
    }
    Ok(UpstreamPath::fixed(ADDRESSES)
        .segment(id)
        .map_err(UpstreamError::from)?)
}

/// Adds an address to the book.
pub async fn create_address(
    shopper: &Shopper,
    address: &Address,
) -> Result<StoredAddress, ApiError> {
    let user = shopper.signed_in().await?;
    let path = UpstreamPath::fixed(ADDRESSES);
    shopper.as_user(user, Call::post(&path, address)).await
}

/// Replaces address `id`.
pub async fn update_address(
    shopper: &Shopper,
    id: &str,
    address: &Address,
) -> Result<StoredAddress, ApiError> {
    let path = address_path(id)?;
    let user = shopper.signed_in().await?;
    let call = Call::new(reqwest::Method::PUT, &path).json(address);
    shopper.as_user(user, call).await
}

/// Deletes address `id` (whatever the upstream answers besides its status is not read).
pub async fn delete_address(shopper: &Shopper, id: &str) -> Result<(), ApiError> {
    let path = address_path(id)?;
    let user = shopper.signed_in().await?;
    let _: IgnoredAny = shopper
        .as_user(user, Call::new(reqwest::Method::DELETE, &path))
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use axum::response::IntoResponse;
    use serde_json::json;

    use super::*;
    use crate::commerce::testing::{shopper_of as shopper, signed_in, upstream};
    use crate::session::Session;
    use crate::upstream::decode;

    fn address(id: i64) -> Value {
        json!({"id": id, "firstName": "Jordan", "lastName": "Reyes", "company": null,
            "mainContact": "(208) 555-0100", "faxContact": null, "addressName": "Home",
            "addressContact": null, "addressType": 1, "isDefaultShipping": true,
            "isDefaultBilling": false, "addressLine1": "1 Main St", "addressLine2": null,
            "city": "Boise", "state": "ID", "postalCode": "83702", "country": "US",
            "residential": true})
    }

    fn profile() -> Value {
        json!({"id": 7, "firstName": "Jordan", "lastName": "Reyes", "fullName": "Jordan Reyes",
            "email": "jordan@example.com", "phoneNumber": null, "militaryStatus": "None",
            "proDealStatus": "None", "isSubscribedToNewsletter": false, "isEmailVerified": true,
            "createdAt": "2024-01-01T00:00:00Z", "addresses": [address(1)],
            "orders": [{"id": 3, "status": "Placed", "guestToken": "gid_x"}],
            "favorites": [{"sku": "R-1", "meta": {"accessToken": "a", "note": "n"}}],
            "builds": [],
            // Fields the upstream adds, and secrets it should never have sent.
            "loyaltyTier": "gold", "passwordHash": "h", "refreshToken": "r"})
    }

    #[test]
    fn unknown_profile_fields_are_tolerated_and_not_relayed() {
        let decoded: Profile = decode("commerce", profile().to_string().as_bytes()).unwrap();
        let shown = serde_json::to_value(decoded.for_browser()).unwrap();
        assert_eq!(shown["firstName"], "Jordan");
        assert_eq!(shown["addresses"][0]["city"], "Boise");
        assert_eq!(shown["phoneNumber"], Value::Null);
        assert!(shown.get("loyaltyTier").is_none());
        assert!(shown.get("passwordHash").is_none());
        assert!(!shown.to_string().to_ascii_lowercase().contains("token"));
        // The opaque parts keep everything else.
        assert_eq!(shown["orders"][0]["status"], "Placed");
        assert_eq!(
            shown["favorites"][0],
            json!({"sku": "R-1", "meta": {"note": "n"}})
        );
    }

    #[test]
    fn secrets_never_leave_an_opaque_value() {
        let value = json!({"firstName": "J", "accessToken": "a",
            "nested": [{"refresh_token": "r", "passwordHash": "h", "id": 1}]});
        assert_eq!(
            without_secrets(value),
            json!({"firstName": "J", "nested": [{"id": 1}]})
        );
    }

    #[test]
    fn an_address_without_a_required_field_breaks_the_contract() {
        let mut broken = profile();
        broken["addresses"][0]
            .as_object_mut()
            .unwrap()
            .remove("city");
        let err = decode::<Profile>("commerce", broken.to_string().as_bytes()).unwrap_err();
        let UpstreamError::Contract { field, reason, .. } = &err else {
            panic!("not a contract error: {err:?}");
        };
        assert_eq!(field, "addresses[0]");
        assert!(reason.contains("city"), "{reason}");
    }

    #[tokio::test]
    async fn a_profile_missing_a_required_field_is_a_502_upstream_contract() {
        let mut broken = profile();
        broken.as_object_mut().unwrap().remove("email");
        let shopper = shopper(upstream(&[("User/profile", broken)]).await, signed_in());
        let err = super::profile(&shopper).await.unwrap_err();
        assert!(
            matches!(&err, ApiError::Upstream(UpstreamError::Contract { reason, .. }) if reason.contains("email")),
            "{err:?}"
        );
        assert_eq!(err.problem().code, "upstream_contract");
        assert_eq!(err.into_response().status().as_u16(), 502);
    }

    #[tokio::test]
    async fn the_profile_is_read_and_its_update_renames_the_session() {
        let mut renamed = profile();
        renamed["firstName"] = json!("Jo");
        let upstream = upstream(&[("User/profile", renamed)]).await;
        let shopper = shopper(upstream, signed_in());
        let update: ProfileUpdate = serde_json::from_value(json!({"firstName": "Jo"})).unwrap();
        let profile = update_profile(&shopper, &update).await.unwrap();
        assert_eq!(profile.first_name, "Jo");
        let session = shopper.session().get();
        let user = session.user().unwrap();
        assert_eq!(
            (user.first_name.as_str(), user.last_name.as_str()),
            ("Jo", "Reyes")
        );
    }

    #[test]
    fn the_upstream_update_carries_the_current_email_never_the_browsers() {
        let update: ProfileUpdate =
            serde_json::from_value(json!({"firstName": "Jo", "phoneNumber": "(208) 555-0199"}))
                .unwrap();
        let sent =
            serde_json::to_value(update.payload("jordan@talonforge.example").unwrap()).unwrap();
        assert_eq!(
            sent,
            json!({"firstName": "Jo", "email": "jordan@talonforge.example",
                   "phoneNumber": "(208) 555-0199"})
        );
        let same: ProfileUpdate =
            serde_json::from_value(json!({"email": "JORDAN@talonforge.example"})).unwrap();
        assert_eq!(
            serde_json::to_value(same.payload("jordan@talonforge.example").unwrap()).unwrap()["email"],
            "jordan@talonforge.example"
        );
        let other: ProfileUpdate =
            serde_json::from_value(json!({"email": "other@example.com"})).unwrap();
        let Err(ApiError::Validation(errors)) = other.payload("jordan@talonforge.example") else {
            panic!("another e-mail must be refused");
        };
        assert_eq!(errors["email"], "Email cannot be changed");
    }

    #[tokio::test]
    async fn the_account_needs_a_signed_in_user() {
        let shopper = shopper(
            upstream(&[("User/profile", profile())]).await,
            Session::Anonymous,
        );
        let err = super::profile(&shopper).await.unwrap_err();
        assert!(matches!(err, ApiError::Unauthorized(_)), "{err:?}");
    }

    #[tokio::test]
    async fn addresses_are_read_as_stored_and_ids_are_digits() {
        let upstream = upstream(&[
            ("User/addresses", address(9)),
            ("User/addresses/9", address(9)),
        ])
        .await;
        let shopper = shopper(upstream, signed_in());
        let form: Address = serde_json::from_value(json!({"addressName": "Home"})).unwrap();
        assert_eq!(create_address(&shopper, &form).await.unwrap().id, 9);
        assert_eq!(
            update_address(&shopper, "9", &form).await.unwrap().city,
            "Boise"
        );
        let err = update_address(&shopper, "9a", &form).await.unwrap_err();
        assert!(
            matches!(err, ApiError::NotFound(ref m) if m == "Address not found"),
            "{err:?}"
        );
        // Whatever a delete answers besides its status is not read.
        delete_address(&shopper, "9").await.unwrap();
    }
}
