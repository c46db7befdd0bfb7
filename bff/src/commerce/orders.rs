//! The orders service: an order read with the visitor's identity (the bearer token when signed
//! in, the guest token as `X-Guest-Id` for a guest), so each visitor reads only their own.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Shopper;
use super::cart::DealerInfo;
use crate::http::error::ApiError;
use crate::upstream::{Call, UpstreamError, UpstreamPath};

/// An order.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    pub id: i64,
    pub status: String,
    pub created_at: String,
    pub user_email: String,
    pub is_guest_order: bool,
    #[schema(required = true)]
    pub customer_name: Option<String>,
    #[schema(required = true)]
    pub company: Option<String>,
    #[schema(required = true)]
    pub customer_phone: Option<String>,
    #[schema(required = true)]
    pub billing_address: Option<String>,
    #[schema(required = true)]
    pub billing_city: Option<String>,
    #[schema(required = true)]
    pub billing_state: Option<String>,
    #[schema(required = true)]
    pub billing_zip_code: Option<String>,
    #[schema(required = true)]
    pub billing_country: Option<String>,
    #[schema(required = true)]
    pub shipping_name: Option<String>,
    #[schema(required = true)]
    pub shipping_first_name: Option<String>,
    #[schema(required = true)]
    pub shipping_last_name: Option<String>,
    #[schema(required = true)]
    pub shipping_company: Option<String>,
    #[schema(required = true)]
    pub shipping_phone: Option<String>,
    #[schema(required = true)]
    pub address: Option<String>,
    #[schema(required = true)]
    pub city: Option<String>,
    #[schema(required = true)]
    pub state: Option<String>,
    #[schema(required = true)]
    pub zip_code: Option<String>,
    #[schema(required = true)]
    pub country: Option<String>,
    /// The dealer: every field null when the order has no FFL items.
    #[serde(flatten)]
    pub dealer: DealerInfo,
    #[schema(required = true)]
    pub shipping_method_id: Option<i64>,
    #[schema(required = true)]
    pub shipping_method_name: Option<String>,
    pub payment_method: PaymentMethod,
    pub items: Vec<OrderItem>,
    pub subtotal: f64,
    pub shipping_cost: f64,
    pub discount_amount: f64,
    pub tax_amount: f64,
    pub total_amount: f64,
}

/// The card an order was paid with, as far as it may be shown.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentMethod {
    pub card_brand: String,
    pub last4: String,
}

/// An order line.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderItem {
    pub id: i64,
    pub product_id: String,
    pub product_name: String,
    #[schema(required = true)]
    pub product_url: Option<String>,
    #[schema(required = true)]
    pub image_url: Option<String>,
    /// The option values, as the confirmation page lists them.
    pub options: Vec<String>,
    pub unit_price: f64,
    pub quantity: i64,
    /// Unit price times quantity.
    pub price: f64,
    pub is_ffl_item: bool,
}

/// Order `id` (digits) of this visitor: the signed-in user's, or the guest's own. Any other id,
/// and any order of a visitor with neither identity, is not found.
pub async fn order(shopper: &Shopper, id: &str) -> Result<Order, ApiError> {
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(no_such_order());
    }
    let path = UpstreamPath::fixed("Order")
        .segment(id)
        .map_err(UpstreamError::from)?;
    if let Some(user) = shopper.user().await? {
        return shopper.as_user(user, Call::get(&path)).await;
    }
    let Some(guest_id) = shopper.session().get().guest_id().map(str::to_owned) else {
        return Err(no_such_order());
    };
    shopper
        .call_as(Call::get(&path).guest(Some(&guest_id)))
        .await
}

fn no_such_order() -> ApiError {
    ApiError::NotFound("There is no such order.".to_owned())
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;
    use axum::routing::get;
    use axum::{Json, Router};
    use serde_json::{Value, json};

    use super::*;
    use crate::commerce::testing::{self, shopper};
    use crate::session::Session;

    /// An order as the commerce service answers it, with a field the API does not know.
    fn upstream_order() -> Value {
        let mut order = json!({
            "id": 100001, "status": "Placed", "createdAt": "2026-11-25T10:00:00Z",
            "userEmail": "jane@example.com", "isGuestOrder": true, "fraudScore": 3,
            "customerName": "Jane Doe", "company": null, "customerPhone": "(512) 555-0100",
            "billingAddress": "100 Congress Ave", "billingCity": "Austin", "billingState": "TX",
            "billingZipCode": "78701", "billingCountry": "United States",
            "shippingName": "Jane Doe", "shippingFirstName": "Jane", "shippingLastName": "Doe",
            "shippingCompany": null, "shippingPhone": null, "address": "100 Congress Ave",
            "city": "Austin", "state": "TX", "zipCode": "78701", "country": "United States",
            "shippingMethodId": 2, "shippingMethodName": "Expedited",
            "paymentMethod": {"cardBrand": "Visa", "last4": "1111"},
            "items": [{"id": 1, "productId": "TF-V15", "productName": "Vanguard 15",
                       "productUrl": null, "imageUrl": null, "options": ["Black"],
                       "unitPrice": 899.1, "quantity": 1, "price": 899.1, "isFflItem": true}],
            "subtotal": 899.1, "shippingCost": 19.99, "discountAmount": 0.0, "taxAmount": 56.19,
            "totalAmount": 975.28
        });
        let dealer = json!({
            "dealerName": "Lone Star Arms", "dealerAddress": "200 Ranch Rd", "dealerEmail": null,
            "dealerPhone": null, "dealerCity": "Dallas", "dealerState": "TX", "dealerZip": "75201",
            "dealerCountry": "US"
        });
        if let (Some(order), Value::Object(dealer)) = (order.as_object_mut(), dealer) {
            order.extend(dealer);
        }
        order
    }

    fn upstream(order: Value) -> Router {
        Router::new().route(
            "/Order/100001",
            get(move || {
                let order = order.clone();
                async move { Json(order) }
            }),
        )
    }

    #[tokio::test]
    async fn a_guest_reads_its_order_with_its_token_and_the_dealer_flattened() {
        let (shopper, requests) = shopper(
            upstream(upstream_order()),
            Session::guest("gid_1".to_owned()),
        )
        .await;
        let found = order(&shopper, "100001").await.unwrap();
        assert_eq!(found.dealer.dealer_city.as_deref(), Some("Dallas"));
        assert_eq!(found.payment_method.last4, "1111");
        let answer = serde_json::to_value(&found).unwrap();
        assert_eq!(answer["dealerName"], "Lone Star Arms");
        assert!(answer.get("dealer").is_none(), "{answer}");
        assert!(
            answer.get("fraudScore").is_none(),
            "unknown fields are dropped"
        );
        assert_eq!(requests.all(), ["GET /Order/100001 +guest"]);
    }

    #[tokio::test]
    async fn a_user_reads_with_the_bearer() {
        let (shopper, requests) = shopper(
            upstream(upstream_order()),
            testing::user("jane@example.com"),
        )
        .await;
        assert_eq!(order(&shopper, "100001").await.unwrap().id, 100_001);
        assert_eq!(requests.count("GET /Order/100001 +bearer"), 1);
    }

    #[tokio::test]
    async fn odd_ids_and_visitors_without_an_identity_find_nothing_without_a_call() {
        let (guest, requests) = shopper(
            upstream(upstream_order()),
            Session::guest("gid_1".to_owned()),
        )
        .await;
        for id in ["", "12a", "..", "1%2F2"] {
            let err = order(&guest, id).await.unwrap_err();
            assert_eq!(err.to_string(), "There is no such order.", "{id}");
        }
        let (anonymous, _) = shopper(upstream(upstream_order()), Session::Anonymous).await;
        assert!(matches!(
            order(&anonymous, "100001").await,
            Err(ApiError::NotFound(_))
        ));
        assert!(requests.all().is_empty());
    }

    #[tokio::test]
    async fn an_order_without_its_payment_method_breaks_the_contract() {
        let mut broken = upstream_order();
        broken.as_object_mut().unwrap().remove("paymentMethod");
        let (shopper, _) = shopper(upstream(broken), Session::guest("gid_1".to_owned())).await;
        let err = order(&shopper, "100001").await.unwrap_err();
        assert_eq!(err.problem().code, "upstream_contract");
        assert!(err.to_string().contains("paymentMethod"), "{err}");
    }

    #[tokio::test]
    async fn another_visitors_order_is_not_found() {
        let upstream = Router::new().route(
            "/Order/100001",
            get(|| async {
                (
                    StatusCode::NOT_FOUND,
                    Json(json!({"message": "Order not found"})),
                )
            }),
        );
        let (shopper, _) = shopper(upstream, Session::guest("gid_2".to_owned())).await;
        assert_eq!(
            order(&shopper, "100001")
                .await
                .unwrap_err()
                .problem()
                .status,
            404
        );
    }
}
