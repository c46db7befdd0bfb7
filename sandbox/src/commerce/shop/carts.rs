//! Carts as stored and as the API answers them. A cart belongs to one user or one guest; its
//! lines keep the display fields the storefront sent (name, options, image, link) while prices,
//! stock, FFL flags and restrictions always come from the skus table.

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::money::{Money, Rate};
use super::pricing::{self, Totals};
use super::promos::{self, Promo};
use super::states;
use crate::clock::now_rfc3339;
use crate::content::skus::{self, Sku};
use crate::error::SandboxError;

/// The most of one line a cart holds; merged and repeated adds are capped here.
pub const MAX_LINE_QUANTITY: i64 = 999;

/// A cart with items untouched for this long reports `isAbandoned`.
const ABANDONED_AFTER: time::Duration = time::Duration::days(7);

/// The header that identifies a guest on checkout and order reads (bearer tokens identify users).
pub const GUEST_HEADER: &str = "x-guest-id";

/// The guest named by the `X-Guest-Id` header, if any.
pub fn guest_from_headers(headers: &axum::http::HeaderMap) -> Option<String> {
    headers
        .get(GUEST_HEADER)?
        .to_str()
        .ok()
        .map(str::trim)
        .filter(|guest_id| !guest_id.is_empty())
        .map(str::to_owned)
}

/// Whose cart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    User(i64),
    /// A `gid_` guest token.
    Guest(String),
}

/// A product option as the storefront shows it (several values joined with ' / ').
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OptionPair {
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub value: String,
}

/// An address as `POST /Cart/compute` sends it (`region` is the full state name).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComputeAddress {
    pub line1: Option<String>,
    pub line2: Option<String>,
    pub city: Option<String>,
    pub region: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
}

/// The licensed dealer FFL items ship to (compute and checkout send the same fields).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DealerInfo {
    pub dealer_name: Option<String>,
    pub dealer_address: Option<String>,
    pub dealer_email: Option<String>,
    pub dealer_phone: Option<String>,
    pub dealer_city: Option<String>,
    pub dealer_state: Option<String>,
    pub dealer_zip: Option<String>,
    pub dealer_country: Option<String>,
}

/// A stored cart, with the choices of its last compute.
#[derive(Debug, Clone)]
pub struct Cart {
    pub id: i64,
    pub user_id: Option<i64>,
    pub guest_id: Option<String>,
    pub promo_code: Option<String>,
    pub shipping_method_id: Option<i64>,
    pub shipping_address: Option<ComputeAddress>,
    pub billing_address: Option<ComputeAddress>,
    pub dealer_info: Option<DealerInfo>,
    pub updated_at: String,
}

impl Cart {
    pub fn owned_by(&self, owner: &Owner) -> bool {
        match owner {
            Owner::User(id) => self.user_id == Some(*id),
            Owner::Guest(id) => self.guest_id.as_deref() == Some(id.as_str()),
        }
    }

    /// The state tax is charged by: the shipping region, else the billing region.
    pub fn tax_state(&self) -> Option<&'static str> {
        [&self.shipping_address, &self.billing_address]
            .into_iter()
            .flatten()
            .filter_map(|address| address.region.as_deref())
            .find_map(states::code_for)
    }

    fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: row.get(0)?,
            user_id: row.get(1)?,
            guest_id: row.get(2)?,
            promo_code: row.get(3)?,
            shipping_method_id: row.get(4)?,
            shipping_address: json_column(row.get(5)?),
            billing_address: json_column(row.get(6)?),
            dealer_info: json_column(row.get(7)?),
            updated_at: row.get(8)?,
        })
    }
}

/// A JSON column written by this module; unreadable text reads as absent.
fn json_column<T: for<'de> Deserialize<'de>>(text: Option<String>) -> Option<T> {
    text.and_then(|text| serde_json::from_str(&text).ok())
}

fn to_json<T: Serialize>(value: &T) -> Result<String, SandboxError> {
    serde_json::to_string(value).map_err(|err| SandboxError::Internal(format!("json: {err}")))
}

const CART_COLUMNS: &str = "id, user_id, guest_id, promo_code, shipping_method_id, \
                            shipping_address, billing_address, dealer_info, updated_at";

/// A new guest identity (`gid_<uuid>`).
pub fn create_guest(conn: &Connection) -> Result<String, SandboxError> {
    let id = format!("gid_{}", uuid::Uuid::new_v4());
    conn.execute(
        "INSERT INTO guests (id, created_at) VALUES (?1, ?2)",
        params![id, now_rfc3339()],
    )?;
    Ok(id)
}

/// Fails with 404 unless `guest_id` was issued by `POST /Auth/guest`.
pub fn require_guest(conn: &Connection, guest_id: &str) -> Result<(), SandboxError> {
    let known = conn
        .query_row("SELECT 1 FROM guests WHERE id = ?1", [guest_id], |_| Ok(()))
        .optional()?
        .is_some();
    if known {
        Ok(())
    } else {
        Err(SandboxError::NotFound("Guest not found".to_owned()))
    }
}

pub fn find(conn: &Connection, owner: &Owner) -> Result<Option<Cart>, SandboxError> {
    let query = |column: &str, value: &dyn rusqlite::ToSql| {
        conn.query_row(
            &format!("SELECT {CART_COLUMNS} FROM carts WHERE {column} = ?1"),
            [value],
            Cart::from_row,
        )
        .optional()
    };
    Ok(match owner {
        Owner::User(id) => query("user_id", id)?,
        Owner::Guest(id) => query("guest_id", id)?,
    })
}

pub fn by_id(conn: &Connection, id: i64) -> Result<Option<Cart>, SandboxError> {
    Ok(conn
        .query_row(
            &format!("SELECT {CART_COLUMNS} FROM carts WHERE id = ?1"),
            [id],
            Cart::from_row,
        )
        .optional()?)
}

/// The owner's cart, created empty when they have none (every cart response has a real id).
pub fn get_or_create(conn: &Connection, owner: &Owner) -> Result<Cart, SandboxError> {
    if let Some(cart) = find(conn, owner)? {
        return Ok(cart);
    }
    let (user_id, guest_id) = match owner {
        Owner::User(id) => (Some(*id), None),
        Owner::Guest(id) => (None, Some(id.as_str())),
    };
    conn.execute(
        "INSERT INTO carts (user_id, guest_id, updated_at) VALUES (?1, ?2, ?3)",
        params![user_id, guest_id, now_rfc3339()],
    )?;
    by_id(conn, conn.last_insert_rowid())?
        .ok_or_else(|| SandboxError::Internal("cart vanished after insert".to_owned()))
}

/// Reloads `cart` (after a change).
pub fn reload(conn: &Connection, cart: &Cart) -> Result<Cart, SandboxError> {
    by_id(conn, cart.id)?.ok_or_else(|| SandboxError::NotFound("Cart not found".to_owned()))
}

fn touch(conn: &Connection, cart_id: i64) -> Result<(), SandboxError> {
    conn.execute(
        "UPDATE carts SET updated_at = ?2 WHERE id = ?1",
        params![cart_id, now_rfc3339()],
    )?;
    Ok(())
}

/// Deletes a cart and its lines (after checkout, or once merged).
pub fn delete(conn: &Connection, cart_id: i64) -> Result<(), SandboxError> {
    conn.execute("DELETE FROM carts WHERE id = ?1", [cart_id])?;
    Ok(())
}

/// A cart line with its sku.
#[derive(Debug, Clone)]
pub struct Line {
    pub id: i64,
    pub sku: Sku,
    pub item: NewLine,
}

impl Line {
    /// The unit price charged: the sku's final price plus the line's add-ons.
    pub fn unit_price_cents(&self) -> i64 {
        self.sku.final_price_cents() + self.item.add_ons_cents
    }

    /// The original unit price: the sku's price plus the line's add-ons.
    pub fn list_price_cents(&self) -> i64 {
        self.sku.price_cents + self.item.add_ons_cents
    }
}

/// What a line is made of, as added (display fields from the storefront).
#[derive(Debug, Clone, Default)]
pub struct NewLine {
    pub product_id: String,
    pub product_name: String,
    pub options: Vec<OptionPair>,
    /// Opaque to the sandbox; echoed back.
    pub option_ids: Value,
    pub yotpo_product_id: Option<String>,
    pub image_url: Option<String>,
    pub product_url: Option<String>,
    pub notes: Option<String>,
    pub build_id: Option<String>,
    /// The chosen add-ons' price (they are named in `options`), checked when added.
    pub add_ons_cents: i64,
    pub quantity: i64,
}

/// The cart's lines in the order they were added.
pub fn lines(conn: &Connection, cart_id: i64) -> Result<Vec<Line>, SandboxError> {
    let mut statement = conn.prepare(
        "SELECT id, product_id, product_name, options, option_ids, yotpo_product_id, image_url, \
         product_url, notes, build_id, quantity, add_ons_cents FROM cart_items \
         WHERE cart_id = ?1 ORDER BY id",
    )?;
    let rows = statement.query_map([cart_id], |row| {
        Ok((
            row.get::<_, i64>(0)?,
            NewLine {
                product_id: row.get(1)?,
                product_name: row.get(2)?,
                options: json_column(row.get(3)?).unwrap_or_default(),
                option_ids: json_column(row.get(4)?).unwrap_or(Value::Array(Vec::new())),
                yotpo_product_id: row.get(5)?,
                image_url: row.get(6)?,
                product_url: row.get(7)?,
                notes: row.get(8)?,
                build_id: row.get(9)?,
                quantity: row.get(10)?,
                add_ons_cents: row.get(11)?,
            },
        ))
    })?;
    let mut lines = Vec::new();
    for row in rows {
        let (id, item) = row?;
        let sku = skus::find(conn, &item.product_id)?.ok_or_else(|| {
            SandboxError::Internal(format!("cart line {id}: sku {} is gone", item.product_id))
        })?;
        lines.push(Line { id, sku, item });
    }
    Ok(lines)
}

/// Adds a line; an identical line (same sku, options and name: so the same set of add-ons, which
/// are one option pair in the product's order) grows instead. Returns the
/// line's id. Unknown skus are a 404.
pub fn add(conn: &Connection, cart_id: i64, line: &NewLine) -> Result<i64, SandboxError> {
    if skus::find(conn, &line.product_id)?.is_none() {
        return Err(SandboxError::NotFound(format!(
            "Product {} not found",
            line.product_id
        )));
    }
    let options = to_json(&line.options)?;
    let existing: Option<(i64, i64)> = conn
        .query_row(
            "SELECT id, quantity FROM cart_items \
             WHERE cart_id = ?1 AND product_id = ?2 AND product_name = ?3 AND options = ?4",
            params![cart_id, line.product_id, line.product_name, options],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?;
    let id = match existing {
        Some((id, quantity)) => {
            conn.execute(
                "UPDATE cart_items SET quantity = ?2 WHERE id = ?1",
                params![id, (quantity + line.quantity).min(MAX_LINE_QUANTITY)],
            )?;
            id
        }
        None => {
            conn.execute(
                "INSERT INTO cart_items (cart_id, product_id, product_name, options, option_ids, \
                 yotpo_product_id, image_url, product_url, notes, build_id, quantity, \
                 add_ons_cents) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                params![
                    cart_id,
                    line.product_id,
                    line.product_name,
                    options,
                    to_json(&line.option_ids)?,
                    line.yotpo_product_id,
                    line.image_url,
                    line.product_url,
                    line.notes,
                    line.build_id,
                    line.quantity.min(MAX_LINE_QUANTITY),
                    line.add_ons_cents,
                ],
            )?;
            conn.last_insert_rowid()
        }
    };
    touch(conn, cart_id)?;
    Ok(id)
}

fn item_not_found(item_id: i64) -> SandboxError {
    SandboxError::NotFound(format!("Cart item {item_id} not found"))
}

/// Sets a line's quantity; 0 removes it. Lines of other carts are a 404.
pub fn set_quantity(
    conn: &Connection,
    cart_id: i64,
    item_id: i64,
    quantity: i64,
) -> Result<(), SandboxError> {
    if quantity == 0 {
        return remove(conn, cart_id, item_id);
    }
    let changed = conn.execute(
        "UPDATE cart_items SET quantity = ?3 WHERE id = ?1 AND cart_id = ?2",
        params![item_id, cart_id, quantity],
    )?;
    if changed == 0 {
        return Err(item_not_found(item_id));
    }
    touch(conn, cart_id)
}

/// Removes a line. Lines of other carts are a 404.
pub fn remove(conn: &Connection, cart_id: i64, item_id: i64) -> Result<(), SandboxError> {
    let changed = conn.execute(
        "DELETE FROM cart_items WHERE id = ?1 AND cart_id = ?2",
        params![item_id, cart_id],
    )?;
    if changed == 0 {
        return Err(item_not_found(item_id));
    }
    touch(conn, cart_id)
}

pub fn set_promo(conn: &Connection, cart_id: i64, promo: &Promo) -> Result<(), SandboxError> {
    conn.execute(
        "UPDATE carts SET promo_code = ?2 WHERE id = ?1",
        params![cart_id, promo.code],
    )?;
    touch(conn, cart_id)
}

/// The inputs of a compute, kept on the cart: later responses are priced with them.
#[derive(Debug, Clone, Default)]
pub struct ComputeChoices {
    pub shipping_method_id: Option<i64>,
    pub shipping_address: Option<ComputeAddress>,
    pub billing_address: Option<ComputeAddress>,
    pub dealer_info: Option<DealerInfo>,
}

pub fn save_compute(
    conn: &Connection,
    cart_id: i64,
    choices: &ComputeChoices,
) -> Result<(), SandboxError> {
    conn.execute(
        "UPDATE carts SET shipping_method_id = COALESCE(?2, shipping_method_id), \
         shipping_address = ?3, billing_address = ?4, dealer_info = ?5 WHERE id = ?1",
        params![
            cart_id,
            choices.shipping_method_id,
            choices.shipping_address.as_ref().map(to_json).transpose()?,
            choices.billing_address.as_ref().map(to_json).transpose()?,
            choices.dealer_info.as_ref().map(to_json).transpose()?,
        ],
    )?;
    touch(conn, cart_id)
}

/// Moves every line of `from` into `into` (identical lines sum their quantities), carries over
/// the promo code and compute choices `into` lacks, and deletes `from`.
pub fn merge(conn: &Connection, from: &Cart, into: &Cart) -> Result<(), SandboxError> {
    for line in lines(conn, from.id)? {
        add(conn, into.id, &line.item)?;
    }
    conn.execute(
        "UPDATE carts SET \
           promo_code = COALESCE(promo_code, (SELECT promo_code FROM carts WHERE id = ?2)), \
           shipping_method_id = COALESCE(shipping_method_id, (SELECT shipping_method_id FROM carts WHERE id = ?2)), \
           shipping_address = COALESCE(shipping_address, (SELECT shipping_address FROM carts WHERE id = ?2)), \
           billing_address = COALESCE(billing_address, (SELECT billing_address FROM carts WHERE id = ?2)), \
           dealer_info = COALESCE(dealer_info, (SELECT dealer_info FROM carts WHERE id = ?2)) \
         WHERE id = ?1",
        params![into.id, from.id],
    )?;
    delete(conn, from.id)?;
    touch(conn, into.id)
}

/// A cart as every cart endpoint answers it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CartView {
    pub id: i64,
    pub user_id: Option<i64>,
    pub guest_id: Option<String>,
    pub is_abandoned: bool,
    pub is_guest: bool,
    pub items: Vec<ItemView>,
    pub inventory_warnings: Vec<InventoryWarning>,
    pub sub_total: Money,
    pub tax_amount: Money,
    pub shipping: Money,
    pub discount_amount: Money,
    pub total_amount: Money,
    pub applied_discounts: Vec<AppliedDiscount>,
    pub promo_code: Option<String>,
    pub shipping_method_id: Option<i64>,
    pub shipping_address: Option<ComputeAddress>,
    pub billing_address: Option<ComputeAddress>,
    pub dealer_info: Option<DealerInfo>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemView {
    pub id: i64,
    /// The sku code.
    pub product_id: String,
    pub yotpo_product_id: Option<String>,
    pub product_name: String,
    pub options: Vec<OptionPair>,
    pub option_ids: Value,
    /// The original unit price (the sku's price plus the line's add-ons).
    pub price: Money,
    /// The unit price charged (the best discounted price, else the price; plus the add-ons).
    pub product_price: Money,
    pub quantity: i64,
    pub image_url: String,
    pub product_url: Option<String>,
    pub notes: Option<String>,
    pub build_id: Option<String>,
    pub is_ffl_item: bool,
    pub is_receiver_item: bool,
    pub restricted_states: Vec<String>,
    pub restricted_zips: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InventoryWarning {
    /// `OutOfStock` or `InsufficientStock`.
    pub warning_type: &'static str,
    pub cart_item_id: i64,
    pub product_id: String,
    pub product_name: String,
    pub message: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppliedDiscount {
    pub promo_code: String,
    pub discount_percentage: f64,
    pub discount_amount: Money,
    pub applied_to_cart_item_ids: Vec<i64>,
    /// `{data: [{title, subtitle, promo_image: {url}, group1, group2}]}` or null.
    pub promotional_page_info: Option<Value>,
}

/// The stock problem of a line, if it has one.
pub fn inventory_warning(line: &Line) -> Option<InventoryWarning> {
    let (warning_type, message) = if line.sku.stock <= 0 {
        ("OutOfStock", "This item is out of stock.".to_owned())
    } else if line.item.quantity > line.sku.stock {
        (
            "InsufficientStock",
            format!(
                "Only {} in stock; {} requested.",
                line.sku.stock, line.item.quantity
            ),
        )
    } else {
        return None;
    };
    Some(InventoryWarning {
        warning_type,
        cart_item_id: line.id,
        product_id: line.sku.code.clone(),
        product_name: line.item.product_name.clone(),
        message,
    })
}

/// The promo, shipping price and tax rate a cart is priced with.
pub struct PriceInputs {
    pub promo: Option<Promo>,
    pub shipping_price: i64,
    pub tax: Rate,
}

impl PriceInputs {
    pub fn of_cart(conn: &Connection, cart: &Cart) -> Result<Self, SandboxError> {
        let promo = match &cart.promo_code {
            Some(code) => promos::find_active(conn, code)?,
            None => None,
        };
        let shipping_price = match cart.shipping_method_id {
            Some(id) => pricing::shipping_method(conn, id)?.map_or(0, |method| method.price.0),
            None => 0,
        };
        let tax = match cart.tax_state() {
            Some(state) => pricing::tax_rate(conn, state)?,
            None => Rate::ZERO,
        };
        Ok(Self {
            promo,
            shipping_price,
            tax,
        })
    }

    pub fn totals(&self, lines: &[Line]) -> Totals {
        Totals::compute(
            lines
                .iter()
                .map(|line| (line.unit_price_cents(), line.item.quantity)),
            self.promo.as_ref().map_or(Rate::ZERO, Promo::rate),
            self.shipping_price,
            self.tax,
        )
    }
}

fn is_abandoned(cart: &Cart, has_items: bool) -> bool {
    has_items
        && OffsetDateTime::parse(&cart.updated_at, &Rfc3339)
            .is_ok_and(|updated| OffsetDateTime::now_utc() - updated > ABANDONED_AFTER)
}

/// The cart as the API answers it, priced now.
pub fn view(conn: &Connection, cart: &Cart, public_url: &str) -> Result<CartView, SandboxError> {
    let lines = lines(conn, cart.id)?;
    let inputs = PriceInputs::of_cart(conn, cart)?;
    let totals = inputs.totals(&lines);
    let applied_discounts = match &inputs.promo {
        Some(promo) => vec![AppliedDiscount {
            promo_code: promo.code.clone(),
            discount_percentage: promo.percent,
            discount_amount: Money(totals.discount),
            applied_to_cart_item_ids: lines.iter().map(|line| line.id).collect(),
            promotional_page_info: promo
                .page_info
                .as_ref()
                .map(|page| promos::page_info_view(conn, page, public_url))
                .transpose()?,
        }],
        None => Vec::new(),
    };
    let items = lines
        .iter()
        .map(|line| ItemView {
            id: line.id,
            product_id: line.sku.code.clone(),
            yotpo_product_id: line.item.yotpo_product_id.clone(),
            product_name: line.item.product_name.clone(),
            options: line.item.options.clone(),
            option_ids: line.item.option_ids.clone(),
            price: Money(line.list_price_cents()),
            product_price: Money(line.unit_price_cents()),
            quantity: line.item.quantity,
            image_url: line
                .item
                .image_url
                .clone()
                .unwrap_or_else(|| format!("{public_url}/media/{}.svg", line.sku.code)),
            product_url: line.item.product_url.clone(),
            notes: line.item.notes.clone(),
            build_id: line.item.build_id.clone(),
            is_ffl_item: line.sku.ffl_item,
            is_receiver_item: line.sku.receiver_item,
            restricted_states: line.sku.restricted_states.clone(),
            restricted_zips: line.sku.restricted_zips.clone(),
        })
        .collect();
    Ok(CartView {
        id: cart.id,
        user_id: cart.user_id,
        guest_id: cart.guest_id.clone(),
        is_abandoned: is_abandoned(cart, !lines.is_empty()),
        is_guest: cart.guest_id.is_some(),
        items,
        inventory_warnings: lines.iter().filter_map(inventory_warning).collect(),
        sub_total: Money(totals.sub_total),
        tax_amount: Money(totals.tax),
        shipping: Money(totals.shipping),
        discount_amount: Money(totals.discount),
        total_amount: Money(totals.total),
        applied_discounts,
        promo_code: inputs.promo.map(|promo| promo.code),
        shipping_method_id: cart.shipping_method_id,
        shipping_address: cart.shipping_address.clone(),
        billing_address: cart.billing_address.clone(),
        dealer_info: cart.dealer_info.clone(),
    })
}
