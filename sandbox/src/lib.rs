//! The sandbox: a faithful, self-contained implementation of the upstream services the BFF
//! talks to (the Strapi-shaped content API and the .NET-shaped commerce API), plus the
//! third-party doubles the browser loads. It is the embedded default of `bff` in development and
//! the upstream of every integration test, so it must behave like the real thing.

pub mod clock;
pub mod commerce;
pub mod content;
pub mod db;
pub mod error;
mod hooks;
mod media;
pub mod thirdparty;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::routing::get;
use tokio::net::TcpListener;

pub use db::Db;
pub use error::SandboxError;
pub use hooks::{Fault, RecordedRequest};

/// How a sandbox instance is started.
#[derive(Debug, Clone)]
pub struct SandboxOptions {
    /// Where persistent state lives (created when missing).
    pub data_dir: PathBuf,
    /// The origin browsers use to reach this sandbox, e.g. `http://127.0.0.1:8081`. Content
    /// fixtures reference media by this origin, as a real CMS returns absolute upload URLs.
    pub public_url: String,
    /// The storefront's origin, for links in the e-mails the sandbox "sends".
    pub storefront_url: String,
    /// Wipe the database and reseed it at start.
    pub reset: bool,
    /// Lifetime of issued access tokens.
    pub access_token_ttl_seconds: i64,
}

impl SandboxOptions {
    pub fn new(data_dir: PathBuf, public_url: String) -> Self {
        Self {
            data_dir,
            public_url,
            storefront_url: "http://localhost:8080".to_owned(),
            reset: false,
            access_token_ttl_seconds: 900,
        }
    }
}

/// Shared state of one sandbox instance.
#[derive(Debug)]
pub struct SandboxState {
    pub options: SandboxOptions,
    pub db: Db,
    /// Signs and checks access tokens.
    pub keys: commerce::tokens::Keys,
    /// Hashes and checks passwords, a bounded number at a time.
    pub passwords: commerce::passwords::Passwords,
    hooks: hooks::Hooks,
}

impl SandboxState {
    /// Opens (creating, migrating and seeding when needed) the data dir's database.
    pub fn new(options: SandboxOptions) -> Result<Arc<Self>, SandboxError> {
        std::fs::create_dir_all(&options.data_dir)
            .map_err(|err| SandboxError::Internal(format!("data dir: {err}")))?;
        if options.reset {
            for suffix in ["", "-wal", "-shm"] {
                let path = options.data_dir.join(format!("{}{suffix}", db::DB_FILE));
                if path.exists() {
                    std::fs::remove_file(&path)
                        .map_err(|err| SandboxError::Internal(format!("reset: {err}")))?;
                }
            }
        }
        let db = Db::open(&options.data_dir)?;
        db.transaction(|tx| {
            if !db::is_seeded(tx)? {
                content::seed(tx)?;
                commerce::seed(tx)?;
                db::mark_seeded(tx, &clock::now_rfc3339())?;
            }
            Ok(())
        })?;
        let keys = db.call(|conn| commerce::tokens::Keys::load_or_create(conn))?;
        Ok(Arc::new(Self {
            options,
            db,
            keys,
            passwords: commerce::passwords::Passwords::default(),
            hooks: hooks::Hooks::default(),
        }))
    }

    pub fn public_url(&self) -> &str {
        self.options.public_url.trim_end_matches('/')
    }

    pub fn storefront_url(&self) -> &str {
        self.options.storefront_url.trim_end_matches('/')
    }
}

/// The sandbox's router: content API, commerce API, third-party doubles and test hooks.
pub fn app(state: Arc<SandboxState>) -> Router {
    Router::new()
        .route("/health", get(|| async { "ok" }))
        .merge(content::routes())
        .merge(commerce::routes())
        .nest("/3p", thirdparty::routes())
        .merge(media::routes())
        .merge(hooks::routes())
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            hooks::record_and_inject,
        ))
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(state)
}

/// Serves the sandbox on an already-bound listener until `shutdown` resolves.
pub async fn serve(
    listener: TcpListener,
    state: Arc<SandboxState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app(state))
        .with_graceful_shutdown(shutdown)
        .await
}

/// The public URL for a listener bound on `addr` when none was configured.
pub fn default_public_url(addr: SocketAddr) -> String {
    format!("http://{addr}")
}
