//! Promo codes: a percentage off the cart, optionally with a promotion page (two product groups)
//! that the storefront shows in its promotion modal.

use rusqlite::{Connection, OptionalExtension};
use serde_json::{Value, json};

use super::money::{Money, Rate};
use crate::content::skus;
use crate::error::SandboxError;

/// Stands for the sandbox's public origin in stored media URLs, filled in per response (the
/// content fixtures use the same placeholder).
pub const MEDIA_PLACEHOLDER: &str = "{{media}}";

/// An active promo code.
#[derive(Debug, Clone, PartialEq)]
pub struct Promo {
    /// As stored (canonical case), whatever case the shopper typed.
    pub code: String,
    pub percent: f64,
    /// `{"data": [{title, subtitle, promo_image, group1, group2}]}` as stored, when the code
    /// comes with a promotion page.
    pub page_info: Option<Value>,
}

impl Promo {
    pub fn rate(&self) -> Rate {
        Rate::from_percent(self.percent)
    }
}

/// The active promo `code` (case-insensitive), if there is one.
pub fn find_active(conn: &Connection, code: &str) -> Result<Option<Promo>, SandboxError> {
    let row: Option<(String, f64, Option<String>)> = conn
        .query_row(
            "SELECT code, percent, promotional_page_info FROM promo_codes WHERE code = ?1 AND active = 1",
            [code.trim()],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .optional()?;
    let Some((code, percent, page_info)) = row else {
        return Ok(None);
    };
    let page_info = page_info
        .map(|text| serde_json::from_str(&text))
        .transpose()
        .map_err(|err| SandboxError::Internal(format!("promo {code} page info: {err}")))?;
    Ok(Some(Promo {
        code,
        percent,
        page_info,
    }))
}

/// The promotion page as the API answers it: media URLs made absolute, and every sku of the two
/// product groups carrying its live price and stock (skus no longer sold are left out).
pub fn page_info_view(
    conn: &Connection,
    stored: &Value,
    public_url: &str,
) -> Result<Value, SandboxError> {
    let filled = stored.to_string().replace(MEDIA_PLACEHOLDER, public_url);
    let mut page: Value = serde_json::from_str(&filled)
        .map_err(|err| SandboxError::Internal(format!("promo page info: {err}")))?;
    let Some(entries) = page.get_mut("data").and_then(Value::as_array_mut) else {
        return Ok(page);
    };
    for entry in entries {
        for group in ["group1", "group2"] {
            let products = entry
                .get_mut(group)
                .and_then(|group| group.get_mut("products"))
                .and_then(Value::as_array_mut);
            for product in products.into_iter().flatten() {
                if let Some(skus) = product.get_mut("skus") {
                    *skus = live_skus(conn, skus)?;
                }
            }
        }
    }
    Ok(page)
}

fn live_skus(conn: &Connection, stored: &Value) -> Result<Value, SandboxError> {
    let mut live = Vec::new();
    for entry in stored.as_array().into_iter().flatten() {
        let Some(code) = entry.get("sku").and_then(Value::as_str) else {
            continue;
        };
        if let Some(sku) = skus::find(conn, code)? {
            live.push(json!({
                "sku": sku.code,
                "price": Money(sku.price_cents),
                "finalPrice": Money(sku.final_price_cents()),
                "discountPercentage": sku.discount_percent,
                "inStock": sku.in_stock(),
            }));
        }
    }
    Ok(Value::Array(live))
}
