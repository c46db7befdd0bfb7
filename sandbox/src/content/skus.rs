//! Sku rows: the prices, stock and restrictions that commerce enforces.

use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::error::SandboxError;

#[derive(Debug, Clone, PartialEq)]
pub struct Sku {
    pub code: String,
    pub product_title: String,
    pub product_name: String,
    pub price_cents: i64,
    /// The best discount percentage (0 when none).
    pub discount_percent: f64,
    pub stock: i64,
    pub ffl_item: bool,
    pub receiver_item: bool,
    pub restricted_states: Vec<String>,
    pub restricted_zips: Vec<String>,
}

impl Sku {
    /// The best discounted price in cents (the price when there is no discount).
    pub fn final_price_cents(&self) -> i64 {
        if self.discount_percent > 0.0 {
            let discounted = (self.price_cents as f64) * (100.0 - self.discount_percent) / 100.0;
            discounted.round() as i64
        } else {
            self.price_cents
        }
    }

    pub fn in_stock(&self) -> bool {
        self.stock > 0
    }

    fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        let list = |index: usize| -> rusqlite::Result<Vec<String>> {
            let text: String = row.get(index)?;
            Ok(serde_json::from_str(&text).unwrap_or_default())
        };
        Ok(Self {
            code: row.get(0)?,
            product_title: row.get(1)?,
            product_name: row.get(2)?,
            price_cents: row.get(3)?,
            discount_percent: row.get(4)?,
            stock: row.get(5)?,
            ffl_item: row.get(6)?,
            receiver_item: row.get(7)?,
            restricted_states: list(8)?,
            restricted_zips: list(9)?,
        })
    }
}

const COLUMNS: &str = "code, product_title, product_name, price_cents, discount_percent, stock, \
                       ffl_item, receiver_item, restricted_states, restricted_zips";

pub fn find(conn: &Connection, code: &str) -> Result<Option<Sku>, SandboxError> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM skus WHERE code = ?1"),
            [code],
            Sku::from_row,
        )
        .optional()?)
}

pub fn all(conn: &Connection) -> Result<Vec<Sku>, SandboxError> {
    let mut statement = conn.prepare(&format!("SELECT {COLUMNS} FROM skus ORDER BY code"))?;
    let rows = statement.query_map([], Sku::from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn insert(conn: &Connection, sku: &Sku) -> Result<(), SandboxError> {
    conn.execute(
        &format!("INSERT OR REPLACE INTO skus ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"),
        params![
            sku.code,
            sku.product_title,
            sku.product_name,
            sku.price_cents,
            sku.discount_percent,
            sku.stock,
            sku.ffl_item,
            sku.receiver_item,
            serde_json::to_string(&sku.restricted_states).unwrap_or_else(|_| "[]".to_owned()),
            serde_json::to_string(&sku.restricted_zips).unwrap_or_else(|_| "[]".to_owned()),
        ],
    )?;
    Ok(())
}

/// Takes `quantity` out of stock; fails (changing nothing) when there is not enough.
pub fn take_stock(conn: &Connection, code: &str, quantity: i64) -> Result<(), SandboxError> {
    let changed = conn.execute(
        "UPDATE skus SET stock = stock - ?2 WHERE code = ?1 AND stock >= ?2",
        params![code, quantity],
    )?;
    if changed == 1 {
        Ok(())
    } else {
        Err(SandboxError::Conflict(format!(
            "not enough stock for {code}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    fn sku(code: &str, stock: i64) -> Sku {
        Sku {
            code: code.to_owned(),
            product_title: "Summit LR".to_owned(),
            product_name: "Summit LR".to_owned(),
            price_cents: 199_999,
            discount_percent: 10.0,
            stock,
            ffl_item: true,
            receiver_item: false,
            restricted_states: vec!["CA".to_owned()],
            restricted_zips: vec![],
        }
    }

    #[test]
    fn round_trips_and_takes_stock_only_when_there_is_enough() {
        let db = Db::in_memory().unwrap();
        db.call(|conn| {
            insert(conn, &sku("TF-1", 2))?;
            assert_eq!(find(conn, "TF-1")?, Some(sku("TF-1", 2)));
            take_stock(conn, "TF-1", 2)?;
            assert!(take_stock(conn, "TF-1", 1).is_err());
            assert_eq!(find(conn, "TF-1")?.map(|s| s.stock), Some(0));
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn final_price_applies_the_best_discount() {
        assert_eq!(sku("TF-1", 1).final_price_cents(), 179_999);
    }
}
