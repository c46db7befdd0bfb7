//! A stand-in commerce upstream for the services' unit tests: an axum router on a loopback
//! port, called by a [`Shopper`] with a given session, with a log of the requests it got.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use serde_json::{Value, json};

use super::{Gateway, Shopper};
use crate::config::UpstreamConfig;
use crate::metrics::Metrics;
use crate::request_id::RequestId;
use crate::session::tokens::{Refresher, now_ms};
use crate::session::{Session, SessionHandle, UserTokens};
use crate::upstream::Upstream;

/// The requests the stand-in upstream got, as `METHOD /path` (with `+guest` when an
/// `X-Guest-Id` came along and `+bearer` with a bearer token).
#[derive(Debug, Clone, Default)]
pub struct Requests(Arc<Mutex<Vec<String>>>);

impl Requests {
    pub fn all(&self) -> Vec<String> {
        self.0.lock().map(|log| log.clone()).unwrap_or_default()
    }

    pub fn count(&self, request: &str) -> usize {
        self.all().iter().filter(|seen| *seen == request).count()
    }
}

async fn record(requests: Requests, request: Request, next: Next) -> Response {
    let mut line = format!("{} {}", request.method(), request.uri().path());
    if request.headers().contains_key("x-guest-id") {
        line.push_str(" +guest");
    }
    if request.headers().contains_key("authorization") {
        line.push_str(" +bearer");
    }
    if let Ok(mut log) = requests.0.lock() {
        log.push(line);
    }
    next.run(request).await
}

/// A shopper with `session`, whose commerce upstream is `upstream` served on a loopback port.
pub async fn shopper(upstream: Router, session: Session) -> (Shopper, Requests) {
    let requests = Requests::default();
    let logged = requests.clone();
    let app = upstream.layer(middleware::from_fn(move |request, next| {
        record(logged.clone(), request, next)
    }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let config = UpstreamConfig {
        base_url: base.clone(),
        health_path: "health".to_owned(),
        connect_timeout_ms: 2_000,
        timeout_ms: 5_000,
        max_concurrency: 16,
        queue_timeout_ms: 1_000,
    };
    let metrics = Arc::new(Metrics::new());
    let upstream = Upstream::new(
        "commerce",
        &config,
        base.parse().unwrap(),
        None,
        metrics.clone(),
    )
    .unwrap();
    let gateway = Gateway {
        upstream,
        refresher: Arc::new(Refresher::default()),
        metrics,
        refresh_margin_s: 60,
    };
    let handle = SessionHandle::default();
    handle.set(session);
    (
        Shopper::new(gateway, handle, RequestId::generate()),
        requests,
    )
}

/// A signed-in user's tokens, the access token good for an hour.
pub fn tokens(email: &str) -> UserTokens {
    UserTokens {
        access_token: "access".to_owned(),
        refresh_token: "refresh".to_owned(),
        token_type: "Bearer".to_owned(),
        expires_at: now_ms() / 1000 + 3_600,
        issued_at_ms: now_ms(),
        first_name: String::new(),
        last_name: String::new(),
        email: email.to_owned(),
    }
}

/// A signed-in user's session, with no guest cart to merge.
pub fn user(email: &str) -> Session {
    Session::default().signed_in(tokens(email))
}

/// A cart as the commerce service answers it: with the guest token, a field the API does not
/// know, and the content service's snake_case image name in the promotion page.
pub fn upstream_cart() -> Value {
    json!({
        "id": 41, "userId": null, "guestId": "gid_1", "isAbandoned": false, "isGuest": true,
        "loyaltyTier": "gold",
        "items": [{
            "id": 7, "productId": "TF-QDS", "yotpoProductId": null, "productName": "QD Sling Mount",
            "options": [{"label": "Color", "value": "Black"}], "optionIds": [3],
            "price": 29.99, "productPrice": 26.99, "quantity": 2, "imageUrl": "/media/TF-QDS.svg",
            "productUrl": null, "notes": null, "buildId": null, "isFflItem": false,
            "isReceiverItem": false, "restrictedStates": [], "restrictedZips": [], "warehouse": "A"
        }],
        "inventoryWarnings": [], "subTotal": 53.98, "taxAmount": 0.0, "shipping": 0.0,
        "discountAmount": 10.8, "totalAmount": 43.18,
        "appliedDiscounts": [{
            "promoCode": "BUNDLE20", "discountPercentage": 20.0, "discountAmount": 10.8,
            "appliedToCartItemIds": [7],
            "promotionalPageInfo": {"data": [{
                "title": "Bundle & Save", "subtitle": "20% off",
                "promo_image": {"url": "https://media.example/bundle.svg", "alternativeText": "Bundle", "width": 640},
                "group1": {"title": "Pick your firearm", "products": [{"title": "Vanguard 15",
                    "skus": [{"sku": "TF-V15", "price": 999.0, "finalPrice": 899.1,
                              "discountPercentage": 10.0, "inStock": true}]}]},
                "group2": null
            }]}
        }],
        "promoCode": "BUNDLE20", "shippingMethodId": null, "shippingAddress": null,
        "billingAddress": null, "dealerInfo": null
    })
}
