//! A browser-like caller for the session tests: sends `X-CSRF: 1` and keeps the session cookie
//! by hand, so each test sees and controls exactly what is sent. It drives either a real-TCP
//! `TestServer` or the in-process app (`Browser::new` takes either).

use axum::body::Body;
use axum::http::{Method, Request};
use serde_json::{Value, json};

use super::TestServer;
use super::in_process::InProcess;

/// A demo account of the sandbox.
pub const SHOPPER: &str = "shopper@talonforge.example";
pub const PASSWORD: &str = "Password123!";
/// Always accepted by the sandbox's captcha check.
pub const CAPTCHA: &str = "sandbox-captcha-ok";

/// Where the browser's requests go.
#[derive(Clone, Copy)]
pub enum Target<'a> {
    /// Over a socket, with the server's client.
    Tcp(&'a TestServer),
    /// Through the app's `oneshot`.
    InProcess(&'a InProcess),
}

impl<'a> From<&'a TestServer> for Target<'a> {
    fn from(server: &'a TestServer) -> Self {
        Self::Tcp(server)
    }
}

impl<'a> From<&'a InProcess> for Target<'a> {
    fn from(app: &'a InProcess) -> Self {
        Self::InProcess(app)
    }
}

#[derive(Clone)]
pub struct Browser<'a> {
    pub target: Target<'a>,
    pub cookie: Option<String>,
}

#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub set_cookie: Vec<String>,
    pub content_type: String,
    pub cache_control: String,
    pub body: Value,
    pub text: String,
}

impl<'a> Browser<'a> {
    /// Adds `quantity` of `sku` (option Color: Black) to the cart, asserting a 200.
    pub async fn add(&mut self, sku: &str, name: &str, quantity: i64) -> Answer {
        let answer = self
            .post(
                "/api/cart/items",
                json!({"productId": sku, "productName": name, "quantity": quantity,
                       "options": [{"label": "Color", "value": "Black"}]}),
            )
            .await;
        assert_eq!(answer.status, 200, "{}", answer.text);
        answer
    }

    pub fn new(target: impl Into<Target<'a>>) -> Self {
        Self {
            target: target.into(),
            cookie: None,
        }
    }

    /// Sends `body` with `headers`, the CSRF header and the cookie, and keeps the cookie it
    /// sets (and drops it when it is cleared).
    pub async fn send_raw(
        &mut self,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Vec<u8>,
    ) -> Answer {
        let mut all: Vec<(&str, &str)> = vec![("x-csrf", "1")];
        if let Some(cookie) = &self.cookie {
            all.push(("cookie", cookie));
        }
        all.extend_from_slice(headers);
        let (status, headers, bytes) = match self.target {
            Target::Tcp(server) => {
                let mut request = server.client.request(method, server.url(path));
                for (name, value) in all {
                    request = request.header(name, value);
                }
                if !body.is_empty() {
                    request = request.body(body);
                }
                let response = request.send().await.unwrap();
                let status = response.status().as_u16();
                let headers = response.headers().clone();
                (status, headers, response.bytes().await.unwrap().to_vec())
            }
            Target::InProcess(app) => {
                let mut request = Request::builder().method(method).uri(path);
                for (name, value) in all {
                    request = request.header(name, value);
                }
                let answer = app.send(request.body(Body::from(body)).unwrap()).await;
                (answer.status.as_u16(), answer.headers, answer.body.to_vec())
            }
        };
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|value| value.to_str().ok())
                .unwrap_or("")
                .to_owned()
        };
        let content_type = header("content-type");
        let cache_control = header("cache-control");
        let set_cookie: Vec<String> = headers
            .get_all("set-cookie")
            .iter()
            .map(|value| value.to_str().unwrap().to_owned())
            .collect();
        for cookie in &set_cookie {
            if cookie.contains("Max-Age=0") {
                self.cookie = None;
            } else {
                self.cookie = Some(cookie.split(';').next().unwrap().to_owned());
            }
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Answer {
            status,
            set_cookie,
            content_type,
            cache_control,
            body,
            text,
        }
    }

    /// Sends `body` (JSON) with `headers`.
    pub async fn send_with(
        &mut self,
        method: Method,
        path: &str,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> Answer {
        match body {
            Some(body) => {
                let mut all = vec![("content-type", "application/json")];
                all.extend_from_slice(headers);
                self.send_raw(method, path, &all, body.to_string().into_bytes())
                    .await
            }
            None => self.send_raw(method, path, headers, Vec::new()).await,
        }
    }

    pub async fn send(&mut self, method: Method, path: &str, body: Option<Value>) -> Answer {
        self.send_with(method, path, body, &[]).await
    }

    pub async fn get(&mut self, path: &str) -> Answer {
        self.send(Method::GET, path, None).await
    }

    pub async fn post(&mut self, path: &str, body: Value) -> Answer {
        self.send(Method::POST, path, Some(body)).await
    }

    pub async fn put(&mut self, path: &str, body: Value) -> Answer {
        self.send(Method::PUT, path, Some(body)).await
    }

    pub async fn delete(&mut self, path: &str) -> Answer {
        self.send(Method::DELETE, path, None).await
    }

    /// Signs in as the demo shopper.
    pub async fn login(&mut self) -> Answer {
        let answer = self
            .post(
                "/api/auth/login",
                json!({"email": SHOPPER, "password": PASSWORD, "captcha": CAPTCHA}),
            )
            .await;
        assert_eq!(answer.status, 200, "{}", answer.text);
        answer
    }
}
