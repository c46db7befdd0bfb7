//! Catalogue endpoints: `GET /strapi/products/{title}`, `GET /strapi/products/search/{query}`,
//! `GET /strapi/product-groups/{title}`, and the live price map `GET /Products`.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Map, Value, json};

use super::catalogue::catalogue;
use super::skus::{self, Sku};
use super::strapi::{self, Data};
use crate::SandboxState;
use crate::error::SandboxError;

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new()
        .route("/strapi/products/search/{query}", get(search))
        .route("/strapi/products/{title}", get(product))
        .route("/strapi/product-groups/{title}", get(group))
        .route("/Products", get(price_map))
}

/// An array, as a Strapi collection query answers: the product, or `[]` when no title matches.
async fn product(State(state): State<Arc<SandboxState>>, Path(title): Path<String>) -> Response {
    let catalogue = match catalogue() {
        Ok(catalogue) => catalogue,
        Err(err) => return strapi::error(StatusCode::INTERNAL_SERVER_ERROR, &err.to_string()),
    };
    let found: Vec<&Value> = catalogue
        .product(&title)
        .map(|p| &p.page)
        .into_iter()
        .collect();
    strapi::json_with_media(state.public_url(), &found)
}

/// An array of product cards, sorted by title ignoring case.
async fn search(State(state): State<Arc<SandboxState>>, Path(query): Path<String>) -> Response {
    let catalogue = match catalogue() {
        Ok(catalogue) => catalogue,
        Err(err) => return strapi::error(StatusCode::INTERNAL_SERVER_ERROR, &err.to_string()),
    };
    let found: Vec<&Value> = catalogue
        .search(&query)
        .into_iter()
        .map(|p| &p.card)
        .collect();
    strapi::json_with_media(state.public_url(), &found)
}

/// `{"data": group}` with its products embedded as cards; Strapi's 404 when unknown.
async fn group(State(state): State<Arc<SandboxState>>, Path(title): Path<String>) -> Response {
    let catalogue = match catalogue() {
        Ok(catalogue) => catalogue,
        Err(err) => return strapi::error(StatusCode::INTERNAL_SERVER_ERROR, &err.to_string()),
    };
    match catalogue.group(&title) {
        Some(group) => strapi::json_with_media(state.public_url(), &Data { data: &group.data }),
        None => strapi::error(
            StatusCode::NOT_FOUND,
            &format!("product group '{title}' not found"),
        ),
    }
}

/// The commerce side's live price map, read from the `skus` table so stock and price changes
/// show at once. Errors use the commerce error shape.
async fn price_map(State(state): State<Arc<SandboxState>>) -> Result<Response, SandboxError> {
    let rows = state.db.call(|conn| skus::all(conn))?;
    Ok(Json(json!({"products": prices(&rows)})).into_response())
}

fn prices(rows: &[Sku]) -> Map<String, Value> {
    rows.iter()
        .map(|sku| {
            let entry = json!({
                "price": number(sku.price_cents as f64 / 100.0),
                "bestDiscountPercentage": number(sku.discount_percent),
                "bestDiscountedPrice": number(sku.final_price_cents() as f64 / 100.0),
                "inStock": sku.in_stock(),
            });
            (sku.code.clone(), entry)
        })
        .collect()
}

/// Whole numbers as JSON integers (`10`, not `10.0`), as a .NET decimal serialises them.
fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        json!(value as i64)
    } else {
        json!(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sku(code: &str, price_cents: i64, discount_percent: f64, stock: i64) -> Sku {
        Sku {
            code: code.to_owned(),
            product_title: "T".to_owned(),
            product_name: "T".to_owned(),
            price_cents,
            discount_percent,
            stock,
            ffl_item: false,
            receiver_item: false,
            restricted_states: vec![],
            restricted_zips: vec![],
        }
    }

    #[test]
    fn prices_apply_the_discount_and_keep_the_price_without_one() {
        let map = prices(&[
            sku("A", 129_999, 10.0, 3),
            sku("B", 4_900, 0.0, 0),
            sku("C", 0, 0.0, 0),
        ]);
        assert_eq!(
            map["A"],
            json!({"price": 1299.99, "bestDiscountPercentage": 10, "bestDiscountedPrice": 1169.99, "inStock": true})
        );
        assert_eq!(
            map["B"],
            json!({"price": 49, "bestDiscountPercentage": 0, "bestDiscountedPrice": 49, "inStock": false})
        );
        assert_eq!(map["C"]["bestDiscountedPrice"], 0);
    }

    #[test]
    fn numbers_are_integers_when_whole() {
        assert_eq!(number(10.0).to_string(), "10");
        assert_eq!(number(12.5).to_string(), "12.5");
        assert_eq!(number(1169.99).to_string(), "1169.99");
    }
}
