//! Starts a real sandbox on a free port with a fresh data dir, and talks to it over HTTP.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use sandbox::{SandboxOptions, SandboxState};
use serde_json::Value;
use tempfile::TempDir;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Always accepted by the sandbox's captcha check.
pub const CAPTCHA: &str = "sandbox-captcha-ok";

pub struct TestSandbox {
    pub base: String,
    pub client: reqwest::Client,
    pub state: Arc<SandboxState>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
    dir: Option<TempDir>,
}

pub async fn start() -> TestSandbox {
    let dir = TempDir::new().unwrap();
    let mut sandbox = start_in(dir.path(), false).await;
    sandbox.dir = Some(dir);
    sandbox
}

/// Starts on `data_dir`, which the caller keeps (to restart on the same data).
pub async fn start_in(data_dir: &Path, reset: bool) -> TestSandbox {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = SandboxState::new(SandboxOptions {
        reset,
        ..SandboxOptions::new(data_dir.to_owned(), sandbox::default_public_url(addr))
    })
    .unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(sandbox::serve(listener, state.clone(), async move {
        let _ = stopped.await;
    }));
    TestSandbox {
        base: format!("http://{addr}"),
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap(),
        state,
        stop: Some(stop),
        task: Some(task),
        dir: None,
    }
}

impl TestSandbox {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client.get(self.url(path)).send().await.unwrap()
    }

    pub async fn get_json(&self, path: &str) -> (u16, Value) {
        let response = self.get(path).await;
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// GET with a bearer token.
    pub async fn get_as(&self, path: &str, token: &str) -> (u16, Value) {
        let response = self
            .client
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
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
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        self.send(reqwest::Method::POST, path, token, body).await
    }

    /// Stops the server and waits for it (the data dir stays).
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.unwrap().unwrap();
        }
    }
}
