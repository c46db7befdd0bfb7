//! The signed-in user's profile (`/User/profile`) with its lists (addresses, order summaries,
//! favorites, builds) and the address book (`/User/addresses`).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, put};
use axum::{Json, Router};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::forms::{JsonBody, Rules, optional};
use super::newsletter;
use super::shop::order_store::{self, OrderView};
use super::tokens::AuthUser;
use crate::SandboxState;
use crate::error::SandboxError;

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new()
        .route("/User/profile", get(get_profile).put(update_profile))
        .route("/User/addresses", axum::routing::post(create_address))
        .route(
            "/User/addresses/{id}",
            put(update_address).delete(delete_address),
        )
}

// ---------------------------------------------------------------------------------------------
// Addresses.

/// The Address entity of the account spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Address {
    pub id: i64,
    pub first_name: String,
    pub last_name: String,
    pub company: Option<String>,
    /// The phone number.
    pub main_contact: String,
    pub fax_contact: Option<String>,
    pub address_name: String,
    pub address_contact: Option<String>,
    pub address_type: i64,
    pub is_default_shipping: bool,
    pub is_default_billing: bool,
    pub address_line1: String,
    pub address_line2: Option<String>,
    pub city: String,
    pub state: String,
    pub postal_code: String,
    pub country: String,
    pub residential: bool,
}

const ADDRESS_COLUMNS: &str = "id, first_name, last_name, company, main_contact, fax_contact, \
    address_name, address_contact, address_type, is_default_shipping, is_default_billing, \
    address_line1, address_line2, city, state, postal_code, country, residential";

impl Address {
    fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: row.get(0)?,
            first_name: row.get(1)?,
            last_name: row.get(2)?,
            company: row.get(3)?,
            main_contact: row.get(4)?,
            fax_contact: row.get(5)?,
            address_name: row.get(6)?,
            address_contact: row.get(7)?,
            address_type: row.get(8)?,
            is_default_shipping: row.get(9)?,
            is_default_billing: row.get(10)?,
            address_line1: row.get(11)?,
            address_line2: row.get(12)?,
            city: row.get(13)?,
            state: row.get(14)?,
            postal_code: row.get(15)?,
            country: row.get(16)?,
            residential: row.get(17)?,
        })
    }
}

/// The user's addresses, defaults first, then oldest first.
pub(super) fn addresses_of(conn: &Connection, user_id: i64) -> Result<Vec<Address>, SandboxError> {
    let mut statement = conn.prepare(&format!(
        "SELECT {ADDRESS_COLUMNS} FROM addresses WHERE user_id = ?1 \
         ORDER BY (is_default_shipping OR is_default_billing) DESC, id"
    ))?;
    let rows = statement.query_map([user_id], Address::from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn address_of(conn: &Connection, user_id: i64, id: i64) -> Result<Address, SandboxError> {
    conn.query_row(
        &format!("SELECT {ADDRESS_COLUMNS} FROM addresses WHERE id = ?1 AND user_id = ?2"),
        params![id, user_id],
        Address::from_row,
    )
    .optional()?
    .ok_or_else(address_not_found)
}

fn address_not_found() -> SandboxError {
    SandboxError::NotFound("Address not found".to_owned())
}

/// The address payload of `POST` and `PUT` (an `id` in it is ignored: the path names the
/// address). Absent fields take the spec's defaults.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct AddressInput {
    first_name: Option<String>,
    last_name: Option<String>,
    company: Option<String>,
    main_contact: Option<String>,
    fax_contact: Option<String>,
    address_name: Option<String>,
    address_contact: Option<String>,
    address_type: Option<i64>,
    is_default_shipping: Option<bool>,
    is_default_billing: Option<bool>,
    address_line1: Option<String>,
    address_line2: Option<String>,
    city: Option<String>,
    state: Option<String>,
    postal_code: Option<String>,
    country: Option<String>,
    residential: Option<bool>,
}

/// A validated address, ready to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NewAddress {
    pub address_name: String,
    pub first_name: String,
    pub last_name: String,
    pub company: Option<String>,
    pub main_contact: String,
    pub fax_contact: Option<String>,
    pub address_contact: Option<String>,
    pub address_type: i64,
    pub is_default_shipping: bool,
    pub is_default_billing: bool,
    pub address_line1: String,
    pub address_line2: Option<String>,
    pub city: String,
    pub state: String,
    pub postal_code: String,
    pub country: String,
    pub residential: bool,
}

/// The spec's defaults: address type 10, country United States, default for shipping and
/// billing, residential.
const DEFAULT_ADDRESS_TYPE: i64 = 10;
const DEFAULT_COUNTRY: &str = "United States";

impl AddressInput {
    /// The address, or a 400 naming every missing required field. A field that is absent takes
    /// its default; one sent blank is missing.
    pub(super) fn validate(&self) -> Result<NewAddress, SandboxError> {
        let mut rules = Rules::default();
        let mut required = |field: &str, label: &str, value: &Option<String>| {
            rules
                .required(field, label, value.as_deref())
                .unwrap_or_default()
                .to_owned()
        };
        let address_name = required("addressName", "Address name", &self.address_name);
        let first_name = required("firstName", "First name", &self.first_name);
        let last_name = required("lastName", "Last name", &self.last_name);
        let main_contact = required("mainContact", "Phone", &self.main_contact);
        let address_line1 = required("addressLine1", "Street address", &self.address_line1);
        let city = required("city", "City", &self.city);
        let state = required("state", "State", &self.state);
        let postal_code = required("postalCode", "Zip", &self.postal_code);
        let country = match &self.country {
            None => DEFAULT_COUNTRY.to_owned(),
            given => required("country", "Country", given),
        };
        let address_type = self.address_type.unwrap_or(DEFAULT_ADDRESS_TYPE);
        rules.check(address_type > 0, "addressType", "Address type is required");
        rules.finish()?;
        Ok(NewAddress {
            address_name,
            first_name,
            last_name,
            company: optional(self.company.as_deref()),
            main_contact,
            fax_contact: optional(self.fax_contact.as_deref()),
            address_contact: optional(self.address_contact.as_deref()),
            address_type,
            is_default_shipping: self.is_default_shipping.unwrap_or(true),
            is_default_billing: self.is_default_billing.unwrap_or(true),
            address_line1,
            address_line2: optional(self.address_line2.as_deref()),
            city,
            state,
            postal_code,
            country,
            residential: self.residential.unwrap_or(true),
        })
    }
}

/// A user has at most one default shipping and one default billing address: the newest choice
/// wins and clears the previous one.
fn clear_other_defaults(
    conn: &Connection,
    user_id: i64,
    keep_id: i64,
    address: &NewAddress,
) -> Result<(), SandboxError> {
    if address.is_default_shipping {
        conn.execute(
            "UPDATE addresses SET is_default_shipping = 0 WHERE user_id = ?1 AND id != ?2",
            params![user_id, keep_id],
        )?;
    }
    if address.is_default_billing {
        conn.execute(
            "UPDATE addresses SET is_default_billing = 0 WHERE user_id = ?1 AND id != ?2",
            params![user_id, keep_id],
        )?;
    }
    Ok(())
}

/// Adds `address` to the user's book and answers its id.
pub(super) fn insert_address(
    conn: &Connection,
    user_id: i64,
    address: &NewAddress,
) -> Result<i64, SandboxError> {
    conn.execute(
        "INSERT INTO addresses (user_id, address_name, first_name, last_name, company, main_contact, \
             fax_contact, address_contact, address_type, is_default_shipping, is_default_billing, \
             address_line1, address_line2, city, state, postal_code, country, residential) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
        params![
            user_id,
            address.address_name,
            address.first_name,
            address.last_name,
            address.company,
            address.main_contact,
            address.fax_contact,
            address.address_contact,
            address.address_type,
            address.is_default_shipping,
            address.is_default_billing,
            address.address_line1,
            address.address_line2,
            address.city,
            address.state,
            address.postal_code,
            address.country,
            address.residential
        ],
    )?;
    let id = conn.last_insert_rowid();
    clear_other_defaults(conn, user_id, id, address)?;
    Ok(id)
}

/// `POST /User/addresses`: 201 with the stored address.
async fn create_address(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
    JsonBody(input): JsonBody<AddressInput>,
) -> Result<(StatusCode, Json<Address>), SandboxError> {
    let address = input.validate()?;
    let stored = state.db.transaction(|tx| {
        let id = insert_address(tx, user.id, &address)?;
        address_of(tx, user.id, id)
    })?;
    Ok((StatusCode::CREATED, Json(stored)))
}

/// `PUT /User/addresses/{id}`: replaces the whole address; 404 for another user's address.
async fn update_address(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
    Path(id): Path<i64>,
    JsonBody(input): JsonBody<AddressInput>,
) -> Result<Json<Address>, SandboxError> {
    let address = input.validate()?;
    let stored = state.db.transaction(|tx| {
        let changed = tx.execute(
            "UPDATE addresses SET address_name = ?3, first_name = ?4, last_name = ?5, company = ?6, \
                 main_contact = ?7, fax_contact = ?8, address_contact = ?9, address_type = ?10, \
                 is_default_shipping = ?11, is_default_billing = ?12, address_line1 = ?13, \
                 address_line2 = ?14, city = ?15, state = ?16, postal_code = ?17, country = ?18, \
                 residential = ?19 \
             WHERE id = ?1 AND user_id = ?2",
            params![
                id,
                user.id,
                address.address_name,
                address.first_name,
                address.last_name,
                address.company,
                address.main_contact,
                address.fax_contact,
                address.address_contact,
                address.address_type,
                address.is_default_shipping,
                address.is_default_billing,
                address.address_line1,
                address.address_line2,
                address.city,
                address.state,
                address.postal_code,
                address.country,
                address.residential
            ],
        )?;
        if changed == 0 {
            return Err(address_not_found());
        }
        clear_other_defaults(tx, user.id, id, &address)?;
        address_of(tx, user.id, id)
    })?;
    Ok(Json(stored))
}

/// `DELETE /User/addresses/{id}`: 204; 404 for another user's address. Deleting a default
/// address leaves that default unset (no other address is promoted behind the user's back).
async fn delete_address(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
    Path(id): Path<i64>,
) -> Result<StatusCode, SandboxError> {
    let deleted = state.db.call(|conn| {
        Ok(conn.execute(
            "DELETE FROM addresses WHERE id = ?1 AND user_id = ?2",
            params![id, user.id],
        )?)
    })?;
    if deleted == 0 {
        return Err(address_not_found());
    }
    Ok(StatusCode::NO_CONTENT)
}

// ---------------------------------------------------------------------------------------------
// The profile.

/// The profile of `GET /User/profile`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Profile {
    id: i64,
    first_name: String,
    last_name: String,
    full_name: String,
    email: String,
    phone_number: Option<String>,
    /// None, Pending, Rejected or Verified.
    military_status: String,
    /// None, Pending, Rejected or Approved.
    pro_deal_status: String,
    /// Whether the account's e-mail is on the newsletter list.
    is_subscribed_to_newsletter: bool,
    is_email_verified: bool,
    created_at: String,
    addresses: Vec<Address>,
    /// The user's orders, newest first, in the shape `GET /Order/{id}` answers.
    orders: Vec<OrderView>,
    favorites: Vec<Value>,
    builds: Vec<Value>,
}

/// Favorites and builds are opaque JSON objects; the row id is added as `id` when the payload
/// has none.
fn saved_items(conn: &Connection, table: &str, user_id: i64) -> Result<Vec<Value>, SandboxError> {
    let mut statement = conn.prepare(&format!(
        "SELECT id, payload FROM {table} WHERE user_id = ?1 ORDER BY id"
    ))?;
    let rows = statement.query_map([user_id], |row| {
        Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
    })?;
    let mut items = Vec::new();
    for row in rows {
        let (id, payload) = row?;
        let mut item = serde_json::from_str::<Value>(&payload).unwrap_or(Value::Null);
        if let Value::Object(fields) = &mut item {
            fields.entry("id").or_insert(Value::from(id));
        }
        items.push(item);
    }
    Ok(items)
}

fn load_profile(conn: &Connection, user_id: i64) -> Result<Profile, SandboxError> {
    let mut profile = conn
        .query_row(
            "SELECT id, first_name, last_name, email, phone_number, military_status, \
                 pro_deal_status, is_email_verified, created_at FROM users WHERE id = ?1",
            [user_id],
            |row| {
                let first_name: String = row.get(1)?;
                let last_name: String = row.get(2)?;
                Ok(Profile {
                    id: row.get(0)?,
                    full_name: format!("{first_name} {last_name}").trim().to_owned(),
                    first_name,
                    last_name,
                    email: row.get(3)?,
                    phone_number: row.get(4)?,
                    military_status: row.get(5)?,
                    pro_deal_status: row.get(6)?,
                    is_subscribed_to_newsletter: false,
                    is_email_verified: row.get(7)?,
                    created_at: row.get(8)?,
                    addresses: Vec::new(),
                    orders: Vec::new(),
                    favorites: Vec::new(),
                    builds: Vec::new(),
                })
            },
        )
        .optional()?
        // A valid token for an account that no longer exists signs the client out.
        .ok_or_else(|| SandboxError::Unauthorized("User not found".to_owned()))?;
    profile.is_subscribed_to_newsletter = newsletter::is_subscribed(conn, &profile.email)?;
    profile.addresses = addresses_of(conn, user_id)?;
    profile.orders = order_store::for_user(conn, user_id)?;
    profile.favorites = saved_items(conn, "favorites", user_id)?;
    profile.builds = saved_items(conn, "builds", user_id)?;
    Ok(profile)
}

/// `GET /User/profile`
async fn get_profile(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
) -> Result<Json<Profile>, SandboxError> {
    Ok(Json(state.db.call(|conn| load_profile(conn, user.id))?))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct ProfileUpdate {
    first_name: Option<String>,
    last_name: Option<String>,
    /// Read-only, and part of the specs' payload: required, accepted when it is the account's
    /// current address, refused otherwise.
    email: Option<String>,
    /// Blank clears the number.
    phone_number: Option<String>,
}

/// `PUT /User/profile`: the payload is firstName, lastName, email and phoneNumber (specs); names
/// and phone left out keep their value; the e-mail is required and cannot be changed here.
async fn update_profile(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
    JsonBody(update): JsonBody<ProfileUpdate>,
) -> Result<Json<Profile>, SandboxError> {
    let mut rules = Rules::default();
    let first_name = update
        .first_name
        .as_ref()
        .and_then(|name| rules.required("firstName", "First name", Some(name)));
    let last_name = update
        .last_name
        .as_ref()
        .and_then(|name| rules.required("lastName", "Last name", Some(name)));
    rules.required("email", "Email", update.email.as_deref());
    rules.finish()?;
    let profile = state.db.transaction(|tx| {
        let current: String = tx
            .query_row("SELECT email FROM users WHERE id = ?1", [user.id], |row| {
                row.get(0)
            })
            .optional()?
            .ok_or_else(|| SandboxError::Unauthorized("User not found".to_owned()))?;
        if let Some(email) = update.email.as_deref().map(str::trim)
            && !email.is_empty()
            && !email.eq_ignore_ascii_case(&current)
        {
            return Err(SandboxError::field("email", "Email cannot be changed"));
        }
        tx.execute(
            "UPDATE users SET first_name = coalesce(?2, first_name), \
                 last_name = coalesce(?3, last_name) WHERE id = ?1",
            params![user.id, first_name, last_name],
        )?;
        if let Some(phone) = &update.phone_number {
            tx.execute(
                "UPDATE users SET phone_number = ?2 WHERE id = ?1",
                params![user.id, optional(Some(phone))],
            )?;
        }
        load_profile(tx, user.id)
    })?;
    Ok(Json(profile))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete() -> AddressInput {
        AddressInput {
            address_name: Some("Home".to_owned()),
            first_name: Some("Ada".to_owned()),
            last_name: Some("Lovelace".to_owned()),
            main_contact: Some("(555) 123-4567".to_owned()),
            address_line1: Some("1 Main St".to_owned()),
            city: Some("Boise".to_owned()),
            state: Some("ID".to_owned()),
            postal_code: Some("83702".to_owned()),
            ..AddressInput::default()
        }
    }

    #[test]
    fn absent_address_fields_take_the_spec_defaults() {
        let address = complete().validate().unwrap();
        assert_eq!(address.country, "United States");
        assert_eq!(address.address_type, 10);
        assert!(address.is_default_shipping && address.is_default_billing && address.residential);
        assert_eq!(address.company, None);
    }

    #[test]
    fn blank_required_address_fields_are_named() {
        let input = AddressInput {
            city: Some(" ".to_owned()),
            country: Some(String::new()),
            address_name: None,
            ..complete()
        };
        let Err(SandboxError::Validation { errors, .. }) = input.validate() else {
            panic!("expected a validation error");
        };
        assert_eq!(errors["city"], "City is required");
        assert_eq!(errors["country"], "Country is required");
        assert_eq!(errors["addressName"], "Address name is required");
        assert_eq!(errors.len(), 3);
    }
}
