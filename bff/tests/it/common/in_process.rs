//! The BFF's `app()` with the sandbox's `app()` as its upstreams, in one process: requests go
//! through `oneshot`, upstream calls through the real upstream stack into the sandbox's router,
//! with no socket. For the behaviour matrix; what needs sockets (shutdown, streaming, uploads,
//! the peer address behind the auth rate limit, a connection refused, the listeners' own
//! settings) keeps the real-TCP `TestServer`.
//!
//! Differences from `TestServer`, all from there being no socket: the sandbox's origin is
//! [`SANDBOX_ORIGIN`], every request comes from the peer [`PEER`] (so the per-IP limits count
//! every request under 127.0.0.1 unless `trusted_client_ip_header` is set and sent, with
//! `trusted_proxies` naming loopback), and the map tile provider, which has no pluggable
//! transport, cannot reach the sandbox (tiles stay on TCP).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::header::HOST;
use axum::http::{HeaderMap, Method, Request, StatusCode, Uri};
use bff::config::{Config, Secrets};
use bff::edge::state::{SharedState, Transports};
use bff::upstream::transport::in_process;
use bytes::Bytes;
use serde_json::Value;
use tempfile::TempDir;
use tower::ServiceExt;
use tower::util::MapRequestLayer;

use super::{test_config, write_dist};

/// The peer address every in-process request comes from, as a local proxy's would.
pub const PEER: ([u8; 4], u16) = ([127, 0, 0, 1], 40_000);

/// The origin the sandbox's fixtures name; nothing listens there (every call stays in process).
pub const SANDBOX_ORIGIN: &str = "http://sandbox.test";

pub struct InProcess {
    pub app: bff::Storefront,
    pub state: SharedState,
    pub sandbox: Router,
    _dirs: (TempDir, TempDir),
}

/// An answer, read whole.
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Answer {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("")
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// The app over the sandbox, with `test_config()`.
pub fn start() -> InProcess {
    start_with_secrets(test_config(), &[])
}

/// The app over the sandbox with `config`, and secrets from `secrets` (development stand-ins
/// for the rest), as `common::start_with` has them.
pub fn start_with_secrets(config: Config, secrets: &[(&str, &str)]) -> InProcess {
    build(config, secrets, None, over_the_sandbox)
}

/// As [`start_with_secrets`], reloading from `path` on `POST /admin/config/reload`.
pub fn start_reloadable(config: Config, secrets: &[(&str, &str)], path: PathBuf) -> InProcess {
    build(config, secrets, Some(path), over_the_sandbox)
}

/// The app with `config`, its upstreams' transports chosen by `transports` (given the
/// sandbox's router).
pub fn start_with(config: Config, transports: impl FnOnce(Router) -> Transports) -> InProcess {
    build(config, &[], None, transports)
}

/// As [`start_with_secrets`], serving the real web build (`web/dist`, built by
/// `npm run build`): its `index.html` and the server renderer's bundle, so documents are
/// server-rendered.
pub fn start_with_web_build(config: Config, secrets: &[(&str, &str)]) -> InProcess {
    start_with_web_build_over(config, secrets, over_the_sandbox)
}

/// As [`start_with_web_build`], its upstreams' transports chosen by `transports` (given the
/// sandbox's router).
pub fn start_with_web_build_over(
    config: Config,
    secrets: &[(&str, &str)],
    transports: impl FnOnce(Router) -> Transports,
) -> InProcess {
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/dist");
    assert!(
        web.join("ssr/render.js").is_file(),
        "the web app is not built: run `npm run build` in web/"
    );
    let mut config = config;
    config.web.dist_dir = web;
    // two busy cores run many tests at once: a render that takes 200 ms alone can take seconds
    // (the time limit has a test of its own; the fault switch stands in for failures); a test
    // that sets a limit of its own keeps it
    if config.ssr.timeout == bff::ssr::SsrConfig::default().timeout {
        config.ssr.timeout = Duration::from_millis(20_000);
    }
    build(config, secrets, None, transports)
}

/// Both upstreams are the sandbox, in process.
fn over_the_sandbox(sandbox: Router) -> Transports {
    Transports {
        commerce: Some(in_process("commerce", sandbox.clone())),
        content: Some(in_process("content", sandbox)),
    }
}

fn build(
    mut config: Config,
    secrets: &[(&str, &str)],
    config_path: Option<PathBuf>,
    transports: impl FnOnce(Router) -> Transports,
) -> InProcess {
    let dist = TempDir::new().unwrap();
    let data = TempDir::new().unwrap();
    // the real web build when the caller names it (`start_with_web_build`), else a small one
    if !config.web.dist_dir.join("ssr/render.js").is_file() {
        write_dist(dist.path());
        config.web.dist_dir = dist.path().to_owned();
    }
    config.sandbox.enabled = false;
    // As `bff::edge::server::start` builds its embedded sandbox.
    let sandbox_state = sandbox::SandboxState::new(sandbox::SandboxOptions {
        storefront_url: config.server.public_origin.to_string(),
        ..sandbox::SandboxOptions::new(data.path().to_owned(), SANDBOX_ORIGIN.to_owned())
    })
    .unwrap();
    let sandbox = sandbox::app(sandbox_state).layer(MapRequestLayer::new(
        as_on_the_wire as fn(Request<Body>) -> Request<Body>,
    ));
    let secrets = Secrets::from_lookup(&config, |name| {
        secrets
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| (*value).to_owned())
    })
    .unwrap();
    let state = bff::AppState::with_transports(
        config,
        secrets,
        Some(SANDBOX_ORIGIN),
        config_path,
        transports(sandbox.clone()),
    )
    .unwrap();
    InProcess {
        app: bff::storefront(state.clone()).for_peer(PEER.into()),
        state,
        sandbox,
        _dirs: (dist, data),
    }
}

/// The request as an HTTP/1.1 server hands it to the sandbox: the upstream stack's absolute
/// URI (`http://sandbox.test/path?query`) split into the origin-form target (`/path?query`)
/// and `Host`, as reqwest sends it over a socket. The sandbox's request log records the target.
fn as_on_the_wire(mut request: Request<Body>) -> Request<Body> {
    if let Some(authority) = request.uri().authority() {
        let host = authority.as_str().parse().unwrap();
        request.headers_mut().entry(HOST).or_insert(host);
    }
    if let Some(target) = request.uri().path_and_query() {
        *request.uri_mut() = Uri::from(target.clone());
    }
    request
}

/// A request with a JSON body and `headers`.
pub fn json_request(
    method: Method,
    path: &str,
    body: &Value,
    headers: &[(&str, &str)],
) -> Request<Body> {
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Body::from(body.to_string())).unwrap()
}

/// A GET with `headers`.
/// `GET path` on `app` in a task of its own: its body as text, and when it ended after
/// `started`. For a test that does something else while a slow request is in flight.
pub fn spawn_get(
    app: &InProcess,
    path: &str,
    started: std::time::Instant,
) -> tokio::task::JoinHandle<(String, std::time::Duration)> {
    let (app, request) = (app.app.clone(), get_request(path, &[]));
    tokio::spawn(async move {
        let response = tower::ServiceExt::oneshot(app, request).await.unwrap();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        (String::from_utf8(body.to_vec()).unwrap(), started.elapsed())
    })
}

pub fn get_request(path: &str, headers: &[(&str, &str)]) -> Request<Body> {
    let mut request = Request::get(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Body::empty()).unwrap()
}

async fn read(response: axum::response::Response) -> Answer {
    let (parts, body) = response.into_parts();
    Answer {
        status: parts.status,
        headers: parts.headers,
        body: axum::body::to_bytes(body, usize::MAX).await.unwrap(),
    }
}

impl InProcess {
    pub async fn send(&self, request: Request<Body>) -> Answer {
        read(self.app.clone().oneshot(request).await.unwrap()).await
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.send(get_request(path, &[])).await
    }

    /// `request` through the router alone, as if the hit path did not exist.
    pub async fn send_to_router(&self, request: Request<Body>) -> Answer {
        read(bff::app(self.state.clone()).oneshot(request).await.unwrap()).await
    }

    /// A GET with `headers` (`accept-encoding`, `x-request-id`...).
    pub async fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> Answer {
        self.send(get_request(path, headers)).await
    }

    /// A POST of `body` (JSON) with `headers` and nothing else: no CSRF header, no cookie
    /// (the session tests' `Browser` adds those).
    pub async fn post_json(&self, path: &str, body: &Value, headers: &[(&str, &str)]) -> Answer {
        self.send(json_request(Method::POST, path, body, headers))
            .await
    }

    /// A conditional GET: `If-None-Match: etag`.
    pub async fn get_if_none_match(&self, path: &str, etag: &str) -> Answer {
        self.get_with(path, &[("if-none-match", etag)]).await
    }

    /// The admin port's answer to `request` (the admin API, the probes).
    pub async fn admin_send(&self, request: Request<Body>) -> Answer {
        let admin = bff::admin_app(self.state.clone());
        read(admin.oneshot(request).await.unwrap()).await
    }

    /// The admin port's answer to a POST of `body` (JSON) with `Authorization: Bearer token`.
    pub async fn admin_post(&self, path: &str, token: &str, body: &Value) -> Answer {
        let bearer = format!("Bearer {token}");
        self.admin_send(json_request(
            Method::POST,
            path,
            body,
            &[("authorization", &bearer)],
        ))
        .await
    }

    /// The admin port's answer to `path` (metrics, cache stats).
    pub async fn admin(&self, path: &str) -> Answer {
        self.admin_send(get_request(path, &[])).await
    }

    /// The sandbox's own answer to `request` (its media, its test hooks).
    pub async fn sandbox(&self, request: Request<Body>) -> Answer {
        read(self.sandbox.clone().oneshot(request).await.unwrap()).await
    }

    /// The sandbox's answer to a POST of `body` (JSON) with `headers`, as another client of
    /// the upstreams would send it.
    pub async fn sandbox_post(&self, path: &str, body: &Value, headers: &[(&str, &str)]) -> Answer {
        self.sandbox(json_request(Method::POST, path, body, headers))
            .await
    }
}

impl super::SandboxHooks for InProcess {
    async fn sandbox_call(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> (StatusCode, Bytes) {
        let request = match body {
            Some(body) => json_request(method, path, body, &[]),
            None => Request::builder()
                .method(method)
                .uri(path)
                .body(Body::empty())
                .unwrap(),
        };
        let answer = self.sandbox(request).await;
        (answer.status, answer.body)
    }

    async fn admin_body(&self, path: &str) -> Bytes {
        self.admin(path).await.body
    }
}

/// Everything logged while `work` runs on this thread, one JSON object per line.
pub struct Logs(Arc<Mutex<Vec<u8>>>);

impl Logs {
    pub fn lines(&self) -> Vec<Value> {
        String::from_utf8_lossy(&self.0.lock().unwrap())
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }
}

impl std::io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub struct LogWriter(Arc<Mutex<Vec<u8>>>);

/// Captures the logs (DEBUG and up, JSON) of the current thread until the guard drops. Use in a
/// current-thread runtime (`#[tokio::test]`'s default), so spawned tasks log here too.
pub fn capture_logs() -> (Logs, tracing::subscriber::DefaultGuard) {
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .json()
        .with_max_level(tracing::Level::DEBUG)
        .with_writer(move || LogWriter(writer.clone()))
        .finish();
    (Logs(buffer), tracing::subscriber::set_default(subscriber))
}
