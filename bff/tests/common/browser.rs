//! A browser-like caller for the session tests: sends `X-CSRF: 1` and keeps the session cookie
//! by hand, so each test sees and controls exactly what is sent.

use reqwest::{Method, RequestBuilder};
use serde_json::{Value, json};

use super::TestServer;

/// A demo account of the sandbox.
pub const SHOPPER: &str = "shopper@talonforge.example";
pub const PASSWORD: &str = "Password123!";
/// Always accepted by the sandbox's captcha check.
pub const CAPTCHA: &str = "sandbox-captcha-ok";

#[derive(Clone)]
pub struct Browser<'a> {
    pub server: &'a TestServer,
    pub cookie: Option<String>,
}

#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub set_cookie: Vec<String>,
    pub content_type: String,
    pub body: Value,
    pub text: String,
}

impl<'a> Browser<'a> {
    pub fn new(server: &'a TestServer) -> Self {
        Self {
            server,
            cookie: None,
        }
    }

    /// Sends `request` with the CSRF header and the cookie, and keeps the cookie it sets.
    pub async fn request(&mut self, request: RequestBuilder) -> Answer {
        let mut request = request.header("x-csrf", "1");
        if let Some(cookie) = &self.cookie {
            request = request.header("cookie", cookie);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let content_type = super::header(&response, "content-type").to_owned();
        let set_cookie: Vec<String> = response
            .headers()
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
        let text = response.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Answer {
            status,
            set_cookie,
            content_type,
            body,
            text,
        }
    }

    pub async fn send_with(
        &mut self,
        method: Method,
        path: &str,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let mut request = self.server.client.request(method, self.server.url(path));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        self.request(request).await
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
