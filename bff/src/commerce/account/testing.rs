//! A stand-in commerce upstream for the auth and account services' unit tests: fixed JSON
//! answers by path, and a [`Shopper`] calling it.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::routing::any;
use serde_json::Value;

use crate::commerce::{Gateway, Shopper};
use crate::config::UpstreamsConfig;
use crate::metrics::Metrics;
use crate::request_id::RequestId;
use crate::session::tokens::{Refresher, now_ms};
use crate::session::{Session, SessionHandle, UserTokens};
use crate::upstream::Upstream;

/// One request the stand-in upstream received.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub query: Option<String>,
    pub authorization: Option<String>,
    /// The JSON body (`Null` when there was none).
    pub body: Value,
}

/// Serves `answers` (an axum route path without the leading slash, JSON answer) on a local
/// port; any other path is a 404. Every answer is a 200.
pub async fn upstream(answers: &[(&'static str, Value)]) -> Upstream {
    recording(answers).await.0
}

/// [`upstream`], with the requests it receives.
pub async fn recording(answers: &[(&'static str, Value)]) -> (Upstream, Arc<Mutex<Vec<Received>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let mut router = Router::new();
    for (path, answer) in answers {
        let (answer, received) = (answer.clone(), received.clone());
        router = router.route(
            &format!("/{path}"),
            any(move |request: Request| {
                let (answer, received) = (answer.clone(), received.clone());
                async move {
                    let (parts, body) = request.into_parts();
                    let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
                    received.lock().unwrap().push(Received {
                        path: parts.uri.path().to_owned(),
                        query: parts.uri.query().map(str::to_owned),
                        authorization: parts
                            .headers
                            .get("authorization")
                            .and_then(|value| value.to_str().ok())
                            .map(str::to_owned),
                        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
                    });
                    (StatusCode::OK, axum::Json(answer))
                }
            }),
        );
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    let upstream = Upstream::new(
        "commerce",
        &UpstreamsConfig::default().commerce,
        base.parse().unwrap(),
        None,
        Arc::new(Metrics::new()),
    )
    .unwrap();
    (upstream, received)
}

/// A visitor of `upstream` with `session`.
pub fn shopper(upstream: Upstream, session: Session) -> Shopper {
    let handle = SessionHandle::default();
    handle.set(session);
    let gateway = Gateway {
        upstream,
        refresher: Arc::new(Refresher::default()),
        metrics: Arc::new(Metrics::new()),
        refresh_margin_s: 60,
    };
    Shopper::new(gateway, handle, RequestId::generate())
}

/// A signed-in user whose access token is good for an hour.
pub fn signed_in() -> Session {
    Session::Anonymous.signed_in(UserTokens {
        access_token: "access".to_owned(),
        refresh_token: "refresh".to_owned(),
        token_type: "Bearer".to_owned(),
        expires_at: now_ms() / 1000 + 3600,
        issued_at_ms: now_ms(),
        first_name: "Jordan".to_owned(),
        last_name: "Reyes".to_owned(),
        email: "jordan@example.com".to_owned(),
    })
}
