//! A stand-in commerce upstream for the services' unit tests: an axum router in process (the
//! real upstream stack over an in-process transport), called by a [`Shopper`] with a given
//! session, with a log of the requests it got.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::any;
use serde_json::{Value, json};

use super::{Gateway, Shopper};
use crate::config::UpstreamConfig;
use crate::http::request_id::RequestId;
use crate::observe::metrics::Metrics;
use crate::session::tokens::{Refresher, now_ms};
use crate::session::{Session, SessionHandle, UserTokens};
use crate::upstream::Upstream;
use crate::upstream::transport::in_process;

/// One request the stand-in upstream received.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    pub authorization: Option<String>,
    pub guest: bool,
    /// The JSON body (`Null` when there was none).
    pub body: Value,
}

/// The requests the stand-in upstream got, in order.
#[derive(Debug, Clone, Default)]
pub struct Requests(Arc<Mutex<Vec<Received>>>);

impl Requests {
    /// Each request as `METHOD /path` (with `+guest` when an `X-Guest-Id` came along and
    /// `+bearer` with a bearer token).
    pub fn all(&self) -> Vec<String> {
        self.0
            .lock()
            .map(|log| {
                log.iter()
                    .map(|received| {
                        let mut line = format!("{} {}", received.method, received.path);
                        if received.guest {
                            line.push_str(" +guest");
                        }
                        if received.authorization.is_some() {
                            line.push_str(" +bearer");
                        }
                        line
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn count(&self, request: &str) -> usize {
        self.all().iter().filter(|seen| *seen == request).count()
    }

    /// The requests with their details.
    pub fn lock(&self) -> std::sync::LockResult<std::sync::MutexGuard<'_, Vec<Received>>> {
        self.0.lock()
    }
}

async fn record(requests: Requests, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let header = |name: &str| {
        parts
            .headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    let received = Received {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        authorization: header("authorization"),
        guest: header("x-guest-id").is_some(),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    if let Ok(mut log) = requests.0.lock() {
        log.push(received);
    }
    next.run(Request::from_parts(parts, axum::body::Body::from(body)))
        .await
}

/// `router` as the commerce upstream, in process, recording what it receives.
pub fn upstream_of(router: Router) -> (Upstream, Requests) {
    let requests = Requests::default();
    let logged = requests.clone();
    let app = router.layer(middleware::from_fn(move |request, next| {
        record(logged.clone(), request, next)
    }));
    let config = UpstreamConfig {
        base_url: "http://commerce.test/".to_owned(),
        health_path: "health".to_owned(),
        connect_timeout: Duration::from_millis(2_000),
        timeout: Duration::from_millis(5_000),
        max_concurrency: 16,
        queue_timeout: Duration::from_millis(1_000),
        // Unit tests answer 5xx on purpose, many times over: the breaker has tests of its own.
        breaker_failure_threshold: 0,
        breaker_cool_off: Duration::from_millis(10_000),
    };
    let upstream = Upstream::with_transport(
        "commerce",
        &config,
        "http://commerce.test/".parse().unwrap(),
        None,
        Arc::new(Metrics::new()),
        in_process("commerce", app),
    );
    (upstream, requests)
}

/// A shopper with `session`, whose commerce upstream is `upstream` (in process).
pub async fn shopper(upstream: Router, session: Session) -> (Shopper, Requests) {
    let (upstream, requests) = upstream_of(upstream);
    (shopper_of(upstream, session), requests)
}

/// A visitor of `upstream` with `session`.
pub fn shopper_of(upstream: Upstream, session: Session) -> Shopper {
    let handle = SessionHandle::default();
    handle.set(session);
    let gateway = Gateway {
        upstream,
        refresher: Arc::new(Refresher::default()),
        metrics: Arc::new(Metrics::new()),
        refresh_margin_s: 60,
        verify_after_ms: 300_000,
        revocations: crate::session::revocation::Revocations::new(
            std::time::Duration::from_secs(60),
            None,
            None,
            std::time::Duration::from_secs(30),
            Arc::new(Metrics::new()),
        ),
        limits: crate::http::rate_limit::shopper_limits::ShopperLimits::new(
            &crate::config::RateLimitConfig::default(),
            Arc::new(Metrics::new()),
            None,
        ),
    };
    Shopper::new(gateway, handle, RequestId::generate())
}

/// Serves `answers` (an axum route path without the leading slash, JSON answer); any other
/// path is a 404. Every answer is a 200.
pub async fn upstream(answers: &[(&'static str, Value)]) -> Upstream {
    recording(answers).await.0
}

/// [`upstream`], with the requests it receives.
pub async fn recording(answers: &[(&'static str, Value)]) -> (Upstream, Requests) {
    let mut router = Router::new();
    for (path, answer) in answers {
        let answer = answer.clone();
        router = router.route(
            &format!("/{path}"),
            any(move || {
                let answer = answer.clone();
                async move { axum::Json(answer) }
            }),
        );
    }
    upstream_of(router)
}

/// A signed-in user whose access token is good for an hour, with a name.
pub fn signed_in() -> Session {
    Session::Anonymous.signed_in(UserTokens {
        first_name: "Jordan".to_owned(),
        last_name: "Reyes".to_owned(),
        ..tokens("jordan@example.com")
    })
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
        confirmed_at_ms: now_ms(),
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
