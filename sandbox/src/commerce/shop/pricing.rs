//! What a cart costs: the subtotal from sku prices, the promo discount, the chosen shipping
//! method and sales tax by the destination state. The cart view and checkout both price through
//! [`Totals::compute`], so the order total is the total the shopper was shown.

use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;

use super::money::{Money, Rate};
use crate::error::SandboxError;

/// A way to ship an order; a price of 0 is shown as Free.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShippingMethod {
    pub id: i64,
    pub name: String,
    pub price: Money,
}

fn shipping_method_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ShippingMethod> {
    Ok(ShippingMethod {
        id: row.get(0)?,
        name: row.get(1)?,
        price: Money(row.get(2)?),
    })
}

/// Every shipping method, cheapest (the default, free) first.
pub fn shipping_methods(conn: &Connection) -> Result<Vec<ShippingMethod>, SandboxError> {
    let mut statement =
        conn.prepare("SELECT id, name, price_cents FROM shipping_methods ORDER BY sort, id")?;
    let rows = statement.query_map([], shipping_method_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn shipping_method(conn: &Connection, id: i64) -> Result<Option<ShippingMethod>, SandboxError> {
    Ok(conn
        .query_row(
            "SELECT id, name, price_cents FROM shipping_methods WHERE id = ?1",
            [id],
            shipping_method_from_row,
        )
        .optional()?)
}

/// The sales-tax rate of a two-letter state (0 for a state missing from the table).
pub fn tax_rate(conn: &Connection, state: &str) -> Result<Rate, SandboxError> {
    let rate: Option<f64> = conn
        .query_row(
            "SELECT rate FROM tax_rates WHERE state = ?1",
            [state.to_ascii_uppercase()],
            |row| row.get(0),
        )
        .optional()?;
    Ok(rate.map_or(Rate::ZERO, Rate::from_fraction))
}

/// A cart's or an order's amounts, in cents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Sum of final unit price times quantity.
    pub sub_total: i64,
    pub discount: i64,
    pub shipping: i64,
    pub tax: i64,
    /// `sub_total - discount + shipping + tax`.
    pub total: i64,
}

impl Totals {
    /// Prices `lines` (final unit price in cents, quantity). The discount applies to the
    /// subtotal; tax applies to the discounted subtotal (shipping is not taxed); an empty cart
    /// ships for nothing.
    pub fn compute(
        lines: impl IntoIterator<Item = (i64, i64)>,
        discount: Rate,
        shipping_price: i64,
        tax: Rate,
    ) -> Self {
        let (sub_total, count) = lines
            .into_iter()
            .fold((0, 0), |(sum, count), (unit, quantity)| {
                (sum + unit * quantity, count + quantity)
            });
        let discount = discount.of(sub_total).min(sub_total);
        let shipping = if count > 0 { shipping_price } else { 0 };
        let tax = tax.of(sub_total - discount);
        Self {
            sub_total,
            discount,
            shipping,
            tax,
            total: sub_total - discount + shipping + tax,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_discount_then_tax_the_goods_but_not_shipping() {
        let totals = Totals::compute(
            [(10_000, 2), (2_550, 1)],
            Rate::from_percent(10.0),
            1_999,
            Rate::from_fraction(0.0625),
        );
        assert_eq!(
            totals,
            Totals {
                sub_total: 22_550,
                discount: 2_255,
                shipping: 1_999,
                tax: 1_268,
                total: 22_550 - 2_255 + 1_999 + 1_268,
            }
        );
    }

    #[test]
    fn an_empty_cart_costs_nothing() {
        let totals = Totals::compute([], Rate::from_percent(20.0), 3_999, Rate::ZERO);
        assert_eq!(totals, Totals::default());
    }
}
