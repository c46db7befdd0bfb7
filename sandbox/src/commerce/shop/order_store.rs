//! Orders: written once by checkout, read back by their owner (a user or a guest) only.

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

use super::body::loose_id;
use super::carts::{DealerInfo, Line, OptionPair, Owner};
use super::money::Money;
use super::pricing::{self, Totals};
use crate::error::SandboxError;
use crate::thirdparty::payment::Card;

/// Orders are numbered from here up, as a shop's first order is rarely number 1.
const FIRST_ORDER_ID: i64 = 100_001;

/// A new order's status.
pub const STATUS_PROCESSING: &str = "Processing";

/// The checkout's billing and shipping form, as submitted (`customerInfo`) and then normalised
/// by checkout: state codes upper-cased, the shipping fields filled in from billing when
/// `shippingSameAsBilling`, and both the joined and the separate shipping names present.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomerInfo {
    pub email: Option<String>,
    /// First and last name joined (the storefront sends this instead of the separate names).
    pub name: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub company: Option<String>,
    /// The billing phone.
    pub main_contact: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    /// Two-letter code.
    pub state: Option<String>,
    pub zip: Option<String>,
    pub country: Option<String>,
    pub shipping_name: Option<String>,
    pub shipping_first_name: Option<String>,
    pub shipping_last_name: Option<String>,
    pub shipping_company: Option<String>,
    /// The shipping phone.
    pub address_contact: Option<String>,
    pub shipping_address: Option<String>,
    pub shipping_city: Option<String>,
    pub shipping_state: Option<String>,
    pub shipping_zip: Option<String>,
    pub shipping_country: Option<String>,
    pub shipping_same_as_billing: Option<bool>,
    pub opt_in_newsletter: Option<bool>,
    #[serde(default, deserialize_with = "loose_id")]
    pub shipping_method_id: Option<i64>,
}

/// Everything checkout writes.
#[derive(Debug)]
pub struct NewOrder<'a> {
    pub owner: &'a Owner,
    pub user_email: &'a str,
    pub customer: &'a CustomerInfo,
    pub dealer: Option<&'a DealerInfo>,
    pub lines: &'a [Line],
    pub totals: Totals,
    pub shipping_method_id: i64,
    pub card: &'a Card,
    pub created_at: &'a str,
}

fn to_json<T: Serialize>(value: &T) -> Result<String, SandboxError> {
    serde_json::to_string(value).map_err(|err| SandboxError::Internal(format!("json: {err}")))
}

/// Writes the order and its lines (unit prices from the skus) and returns its number.
pub fn insert(conn: &Connection, order: &NewOrder<'_>) -> Result<i64, SandboxError> {
    let id: i64 = conn.query_row(
        "SELECT MAX(COALESCE(MAX(id), 0) + 1, ?1) FROM orders",
        [FIRST_ORDER_ID],
        |row| row.get(0),
    )?;
    let (user_id, guest_id) = match order.owner {
        Owner::User(id) => (Some(*id), None),
        Owner::Guest(id) => (None, Some(id.as_str())),
    };
    conn.execute(
        "INSERT INTO orders (id, user_id, guest_id, user_email, status, customer_info, dealer_info, \
         subtotal_cents, shipping_cents, discount_cents, tax_cents, total_cents, shipping_method_id, \
         payment_brand, payment_last4, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        params![
            id,
            user_id,
            guest_id,
            order.user_email,
            STATUS_PROCESSING,
            to_json(order.customer)?,
            order.dealer.map(to_json).transpose()?,
            order.totals.sub_total,
            order.totals.shipping,
            order.totals.discount,
            order.totals.tax,
            order.totals.total,
            order.shipping_method_id,
            order.card.brand,
            order.card.last4,
            order.created_at,
        ],
    )?;
    for line in order.lines {
        conn.execute(
            "INSERT INTO order_items (order_id, product_id, product_name, product_url, image_url, \
             options, unit_price_cents, quantity, is_ffl_item) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                id,
                line.sku.code,
                line.item.product_name,
                line.item.product_url,
                line.item.image_url,
                to_json(&line.item.options)?,
                line.unit_price_cents(),
                line.item.quantity,
                line.sku.ffl_item,
            ],
        )?;
    }
    Ok(id)
}

/// An order as `GET /Order/{orderId}` answers it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderView {
    pub id: i64,
    pub status: String,
    pub created_at: String,
    pub user_email: String,
    pub is_guest_order: bool,
    pub customer_name: Option<String>,
    pub company: Option<String>,
    pub customer_phone: Option<String>,
    pub billing_address: Option<String>,
    pub billing_city: Option<String>,
    pub billing_state: Option<String>,
    pub billing_zip_code: Option<String>,
    pub billing_country: Option<String>,
    pub shipping_name: Option<String>,
    pub shipping_first_name: Option<String>,
    pub shipping_last_name: Option<String>,
    pub shipping_company: Option<String>,
    pub shipping_phone: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub zip_code: Option<String>,
    pub country: Option<String>,
    /// dealerName, dealerAddress, dealerEmail, dealerPhone, dealerCity, dealerState, dealerZip,
    /// dealerCountry: null when the order has no FFL items.
    #[serde(flatten)]
    pub dealer: DealerInfo,
    pub shipping_method_id: Option<i64>,
    pub shipping_method_name: Option<String>,
    pub payment_method: PaymentMethod,
    pub items: Vec<OrderItemView>,
    pub subtotal: Money,
    pub shipping_cost: Money,
    pub discount_amount: Money,
    pub tax_amount: Money,
    pub total_amount: Money,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentMethod {
    pub card_brand: String,
    pub last4: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderItemView {
    pub id: i64,
    pub product_id: String,
    pub product_name: String,
    pub product_url: Option<String>,
    pub image_url: Option<String>,
    /// The option values (labels dropped), as the confirmation page lists them.
    pub options: Vec<String>,
    pub unit_price: Money,
    pub quantity: i64,
    /// Unit price times quantity.
    pub price: Money,
    pub is_ffl_item: bool,
}

struct OrderRow {
    id: i64,
    guest_id: Option<String>,
    user_email: String,
    status: String,
    customer_info: String,
    dealer_info: Option<String>,
    totals: Totals,
    shipping_method_id: Option<i64>,
    card: Card,
    created_at: String,
}

impl OrderRow {
    fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: row.get(0)?,
            guest_id: row.get(1)?,
            user_email: row.get(2)?,
            status: row.get(3)?,
            customer_info: row.get(4)?,
            dealer_info: row.get(5)?,
            totals: Totals {
                sub_total: row.get(6)?,
                shipping: row.get(7)?,
                discount: row.get(8)?,
                tax: row.get(9)?,
                total: row.get(10)?,
            },
            shipping_method_id: row.get(11)?,
            card: Card {
                brand: row.get(12)?,
                last4: row.get(13)?,
            },
            created_at: row.get(14)?,
        })
    }
}

const ORDER_COLUMNS: &str = "id, guest_id, user_email, status, customer_info, dealer_info, \
     subtotal_cents, shipping_cents, discount_cents, tax_cents, total_cents, shipping_method_id, \
     payment_brand, payment_last4, created_at";

/// Order `id` if `owner` placed it; `None` for every other order (so a stranger cannot tell an
/// order exists).
pub fn find_for(
    conn: &Connection,
    id: i64,
    owner: &Owner,
) -> Result<Option<OrderView>, SandboxError> {
    let row = match owner {
        Owner::User(user_id) => conn
            .query_row(
                &format!("SELECT {ORDER_COLUMNS} FROM orders WHERE id = ?1 AND user_id = ?2"),
                params![id, user_id],
                OrderRow::from_row,
            )
            .optional()?,
        Owner::Guest(guest_id) => conn
            .query_row(
                &format!("SELECT {ORDER_COLUMNS} FROM orders WHERE id = ?1 AND guest_id = ?2"),
                params![id, guest_id],
                OrderRow::from_row,
            )
            .optional()?,
    };
    row.map(|row| view(conn, row)).transpose()
}

/// A user's orders, newest first (for the profile).
pub fn for_user(conn: &Connection, user_id: i64) -> Result<Vec<OrderView>, SandboxError> {
    let mut statement = conn.prepare(&format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE user_id = ?1 ORDER BY id DESC"
    ))?;
    let rows = statement
        .query_map([user_id], OrderRow::from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter().map(|row| view(conn, row)).collect()
}

fn items(conn: &Connection, order_id: i64) -> Result<Vec<OrderItemView>, SandboxError> {
    let mut statement = conn.prepare(
        "SELECT id, product_id, product_name, product_url, image_url, options, unit_price_cents, \
         quantity, is_ffl_item FROM order_items WHERE order_id = ?1 ORDER BY id",
    )?;
    let rows = statement.query_map([order_id], |row| {
        let options: String = row.get(5)?;
        let options: Vec<OptionPair> = serde_json::from_str(&options).unwrap_or_default();
        let unit_price: i64 = row.get(6)?;
        let quantity: i64 = row.get(7)?;
        Ok(OrderItemView {
            id: row.get(0)?,
            product_id: row.get(1)?,
            product_name: row.get(2)?,
            product_url: row.get(3)?,
            image_url: row.get(4)?,
            options: options.into_iter().map(|option| option.value).collect(),
            unit_price: Money(unit_price),
            quantity,
            price: Money(unit_price * quantity),
            is_ffl_item: row.get(8)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn view(conn: &Connection, row: OrderRow) -> Result<OrderView, SandboxError> {
    let customer: CustomerInfo = serde_json::from_str(&row.customer_info)
        .map_err(|err| SandboxError::Internal(format!("order {}: {err}", row.id)))?;
    let dealer: DealerInfo = row
        .dealer_info
        .as_deref()
        .map(serde_json::from_str)
        .transpose()
        .map_err(|err| SandboxError::Internal(format!("order {}: {err}", row.id)))?
        .unwrap_or_default();
    let shipping_method_name = match row.shipping_method_id {
        Some(id) => pricing::shipping_method(conn, id)?.map(|method| method.name),
        None => None,
    };
    Ok(OrderView {
        id: row.id,
        status: row.status,
        created_at: row.created_at,
        user_email: row.user_email,
        is_guest_order: row.guest_id.is_some(),
        customer_name: customer.name,
        company: customer.company,
        customer_phone: customer.main_contact,
        billing_address: customer.address,
        billing_city: customer.city,
        billing_state: customer.state,
        billing_zip_code: customer.zip,
        billing_country: customer.country,
        shipping_name: customer.shipping_name,
        shipping_first_name: customer.shipping_first_name,
        shipping_last_name: customer.shipping_last_name,
        shipping_company: customer.shipping_company,
        shipping_phone: customer.address_contact,
        address: customer.shipping_address,
        city: customer.shipping_city,
        state: customer.shipping_state,
        zip_code: customer.shipping_zip,
        country: customer.shipping_country,
        dealer,
        shipping_method_id: row.shipping_method_id,
        shipping_method_name,
        payment_method: PaymentMethod {
            card_brand: row.card.brand,
            last4: row.card.last4,
        },
        items: items(conn, row.id)?,
        subtotal: Money(row.totals.sub_total),
        shipping_cost: Money(row.totals.shipping),
        discount_amount: Money(row.totals.discount),
        tax_amount: Money(row.totals.tax),
        total_amount: Money(row.totals.total),
    })
}
