//! A sandbox on a fresh data dir, and a client for it.
//!
//! In process by default: the sandbox's `app()` driven with `oneshot`, real SQLite in the data
//! dir, no socket. Requests are built by reqwest, as a client over the wire would encode them
//! (JSON, forms, multipart, bearer tokens), then handed to the router with the origin-form
//! target and `Host` an HTTP/1.1 server would give it. The public URL is [`PUBLIC_URL`], on
//! which nothing listens.
//!
//! [`start_in_over_tcp`] serves the sandbox on a port instead, as the binary does, for what
//! needs the listener: serving, stopping gracefully and starting again on the same data.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::header::HOST;
use axum::http::{HeaderMap, HeaderValue, Request, StatusCode, Uri};
use sandbox::{SandboxOptions, SandboxState};
use serde_json::Value;
use tempfile::TempDir;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tower::ServiceExt;

/// Always accepted by the sandbox's captcha check.
pub const CAPTCHA: &str = "sandbox-captcha-ok";

/// The in-process sandbox's public URL: its fixtures and links name it, nothing listens there.
pub const PUBLIC_URL: &str = "http://sandbox.test";

pub struct TestSandbox {
    /// The public URL, which `client` takes absolute URLs under.
    pub base: String,
    pub client: Client,
    pub state: Arc<SandboxState>,
    server: Option<Server>,
    dir: Option<TempDir>,
}

/// The TCP server of [`start_in_over_tcp`].
struct Server {
    stop: oneshot::Sender<()>,
    task: JoinHandle<std::io::Result<()>>,
}

/// In process, on a fresh data dir.
pub async fn start() -> TestSandbox {
    let dir = TempDir::new().unwrap();
    let mut sandbox = start_in(dir.path(), false).await;
    sandbox.dir = Some(dir);
    sandbox
}

/// In process, on `data_dir`, which the caller keeps (to start again on the same data).
pub async fn start_in(data_dir: &Path, reset: bool) -> TestSandbox {
    let state = open(data_dir, reset, PUBLIC_URL.to_owned());
    let app = sandbox::app(state.clone());
    TestSandbox {
        base: PUBLIC_URL.to_owned(),
        client: Client::new(Transport::InProcess(app)),
        state,
        server: None,
        dir: None,
    }
}

/// Served on a free port, on `data_dir`, which the caller keeps.
pub async fn start_in_over_tcp(data_dir: &Path, reset: bool) -> TestSandbox {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = open(data_dir, reset, sandbox::default_public_url(addr));
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(sandbox::serve(listener, state.clone(), async move {
        let _ = stopped.await;
    }));
    TestSandbox {
        base: format!("http://{addr}"),
        client: Client::new(Transport::Tcp),
        state,
        server: Some(Server { stop, task }),
        dir: None,
    }
}

fn open(data_dir: &Path, reset: bool, public_url: String) -> Arc<SandboxState> {
    SandboxState::new(SandboxOptions {
        reset,
        ..SandboxOptions::new(data_dir.to_owned(), public_url)
    })
    .unwrap()
}

#[derive(Clone)]
enum Transport {
    /// The sandbox's router, called with `oneshot`.
    InProcess(Router),
    /// A real request to the URL.
    Tcp,
}

/// Builds requests to absolute URLs and sends them to the sandbox. Redirects are not followed.
pub struct Client {
    transport: Transport,
    http: reqwest::Client,
}

impl Client {
    fn new(transport: Transport) -> Self {
        Self {
            transport,
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
        }
    }

    pub fn get(&self, url: impl AsRef<str>) -> Call {
        self.request(reqwest::Method::GET, url)
    }

    pub fn post(&self, url: impl AsRef<str>) -> Call {
        self.request(reqwest::Method::POST, url)
    }

    pub fn request(&self, method: reqwest::Method, url: impl AsRef<str>) -> Call {
        Call {
            transport: self.transport.clone(),
            http: self.http.clone(),
            builder: self.http.request(method, url.as_ref()),
        }
    }
}

/// A request being built, as reqwest's `RequestBuilder` (which encodes it).
pub struct Call {
    transport: Transport,
    http: reqwest::Client,
    builder: reqwest::RequestBuilder,
}

impl Call {
    fn map(self, f: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder) -> Self {
        Self {
            builder: f(self.builder),
            ..self
        }
    }

    pub fn header(self, name: &str, value: &str) -> Self {
        self.map(|builder| builder.header(name, value))
    }

    pub fn bearer_auth(self, token: &str) -> Self {
        self.map(|builder| builder.bearer_auth(token))
    }

    pub fn json(self, body: &Value) -> Self {
        self.map(|builder| builder.json(body))
    }

    pub fn form(self, fields: &[(&str, &str)]) -> Self {
        self.map(|builder| builder.form(fields))
    }

    pub fn multipart(self, form: reqwest::multipart::Form) -> Self {
        self.map(|builder| builder.multipart(form))
    }

    pub fn body(self, body: impl Into<reqwest::Body>) -> Self {
        self.map(|builder| builder.body(body))
    }

    /// Sends the request and reads the answer whole.
    pub async fn send(self) -> Answer {
        let request = self.builder.build().unwrap();
        match self.transport {
            Transport::InProcess(app) => {
                let request = as_on_the_wire(request.try_into().unwrap());
                let (parts, body) = app.oneshot(request).await.unwrap().into_parts();
                Answer {
                    status: parts.status,
                    headers: parts.headers,
                    body: axum::body::to_bytes(body, usize::MAX).await.unwrap(),
                }
            }
            Transport::Tcp => {
                let response = self.http.execute(request).await.unwrap();
                Answer {
                    status: response.status(),
                    headers: response.headers().clone(),
                    body: response.bytes().await.unwrap(),
                }
            }
        }
    }
}

/// The request as an HTTP/1.1 server hands it to the router: the absolute URL split into the
/// origin-form target (`/path?query`, which the sandbox's request log records) and `Host`.
fn as_on_the_wire(request: Request<reqwest::Body>) -> Request<Body> {
    let (mut parts, body) = request.into_parts();
    if let Some(authority) = parts.uri.authority() {
        let host = HeaderValue::from_str(authority.as_str()).unwrap();
        parts.headers.entry(HOST).or_insert(host);
    }
    if let Some(target) = parts.uri.path_and_query() {
        parts.uri = Uri::from(target.clone());
    }
    Request::from_parts(parts, Body::new(body))
}

/// An answer, read whole.
pub struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Answer {
    pub fn status(&self) -> StatusCode {
        self.status
    }

    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    pub fn bytes(&self) -> Bytes {
        self.body.clone()
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Result<Value> {
        serde_json::from_slice(&self.body)
    }
}

impl TestSandbox {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.client.get(self.url(path)).send().await
    }

    pub async fn get_json(&self, path: &str) -> (u16, Value) {
        let response = self.get(path).await;
        (
            response.status().as_u16(),
            response.json().unwrap_or(Value::Null),
        )
    }

    /// GET with a bearer token.
    pub async fn get_as(&self, path: &str, token: &str) -> (u16, Value) {
        let response = self
            .client
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .await;
        (
            response.status().as_u16(),
            response.json().unwrap_or(Value::Null),
        )
    }

    /// `method` with a JSON body and an optional bearer token.
    pub async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Value,
    ) -> (u16, Value) {
        let mut request = self.client.request(method, self.url(path)).json(&body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await;
        (
            response.status().as_u16(),
            response.json().unwrap_or(Value::Null),
        )
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        self.send(reqwest::Method::POST, path, token, body).await
    }

    /// Stops the sandbox (the data dir stays); over TCP, waits for the server to shut down
    /// gracefully.
    pub async fn stop(mut self) {
        if let Some(Server { stop, task }) = self.server.take() {
            let _ = stop.send(());
            task.await.unwrap().unwrap();
        }
    }
}
