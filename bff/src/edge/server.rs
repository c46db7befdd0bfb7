//! Listeners, the embedded sandbox, and graceful shutdown.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::config::{Config, ConfigError, Secrets};
use crate::edge::serve::{ConnectionLimits, InFlight};
use crate::edge::state::{AppState, SharedState};
use crate::edge::storefront::Storefront;

/// How long the embedded sandbox may take to stop after the BFF has drained.
const SANDBOX_STOP: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("cannot listen on {addr} ({what}): {source}")]
    Bind {
        what: &'static str,
        addr: SocketAddr,
        source: io::Error,
    },
    #[error("sandbox: {0}")]
    Sandbox(io::Error),
}

/// How serving ended badly.
#[derive(Debug, thiserror::Error)]
pub enum StopError {
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The shutdown grace ran out with requests still unanswered: their clients got no answer
    /// (a deploy or scale-down that drops requests must not look clean).
    #[error("the shutdown grace ended with {dropped} request(s) unanswered")]
    Dropped { dropped: usize },
}

/// A started BFF: its bound addresses and the handle to stop it.
#[derive(Debug)]
pub struct Running {
    pub main_addr: SocketAddr,
    pub admin_addr: SocketAddr,
    pub sandbox_addr: Option<SocketAddr>,
    pub state: SharedState,
    task: JoinHandle<Result<(), StopError>>,
}

impl Running {
    /// Starts draining now: listeners stop accepting, in-flight requests get the configured grace.
    pub fn shutdown(&self) {
        self.state.shutdown.cancel();
    }

    /// What SIGTERM does: readiness fails at once while everything is still served, so load
    /// balancers take this replica out of rotation; `server.shutdown_delay` later it drains
    /// as [`Self::shutdown`] does.
    pub fn terminate(&self) {
        self.state.stopping.cancel();
    }

    /// Waits until everything has stopped; [`StopError::Dropped`] when the grace ran out
    /// before every request of the public listener was answered.
    pub async fn wait(self) -> Result<(), StopError> {
        self.task
            .await
            .map_err(|err| io::Error::other(format!("server task failed: {err}")))?
    }
}

type SandboxTask = JoinHandle<io::Result<()>>;

/// The embedded sandbox, when enabled: its task and address.
#[cfg(feature = "sandbox")]
async fn start_sandbox(
    config: &Config,
    stop: &CancellationToken,
) -> Result<(Option<SandboxTask>, Option<SocketAddr>), StartError> {
    if !config.sandbox.enabled {
        return Ok((None, None));
    }
    let listener = bind("sandbox", config.sandbox.listen).await?;
    let addr = listener.local_addr().map_err(StartError::Sandbox)?;
    let state = sandbox::SandboxState::new(sandbox::SandboxOptions {
        storefront_url: config.server.public_origin.to_string(),
        ..sandbox::SandboxOptions::new(
            config.sandbox.data_dir.clone(),
            sandbox::default_public_url(addr),
        )
    })
    .map_err(|err| StartError::Sandbox(io::Error::other(err.to_string())))?;
    let stop = stop.clone();
    let task = tokio::spawn(sandbox::serve(listener, state, async move {
        stop.cancelled().await;
    }));
    tracing::info!(%addr, "embedded sandbox listening");
    Ok((Some(task), Some(addr)))
}

/// Built without the sandbox: configuration validation already refuses `sandbox.enabled`.
#[cfg(not(feature = "sandbox"))]
async fn start_sandbox(
    config: &Config,
    _stop: &CancellationToken,
) -> Result<(Option<SandboxTask>, Option<SocketAddr>), StartError> {
    if config.sandbox.enabled {
        return Err(StartError::Sandbox(io::Error::other(
            crate::config::NO_SANDBOX_IN_THIS_BUILD,
        )));
    }
    Ok((None, None))
}

#[cfg(feature = "sandbox")]
fn sandbox_origin(addr: SocketAddr) -> String {
    sandbox::default_public_url(addr)
}

#[cfg(not(feature = "sandbox"))]
fn sandbox_origin(addr: SocketAddr) -> String {
    format!("http://{addr}")
}

async fn bind(what: &'static str, addr: SocketAddr) -> Result<TcpListener, StartError> {
    TcpListener::bind(addr)
        .await
        .map_err(|source| StartError::Bind { what, addr, source })
}

/// The two routers the listeners serve, each made from the app state. They are the composition
/// root's (`crate::app`, `crate::admin_app`), handed in by it: the edge serves routes, it names
/// none of them.
#[derive(Clone, Copy)]
pub struct Routers {
    pub public: fn(SharedState) -> Router,
    pub admin: fn(SharedState) -> Router,
}

/// Binds every listener, starts the embedded sandbox when enabled, and serves `routers` in the
/// background. `config_path` is where `config` was loaded from, for reloads.
pub async fn start(
    config: Config,
    secrets: Secrets,
    config_path: Option<std::path::PathBuf>,
    routers: Routers,
) -> Result<Running, StartError> {
    let sandbox_stop = CancellationToken::new();
    let (sandbox_task, sandbox_addr) = start_sandbox(&config, &sandbox_stop).await?;
    let sandbox_origin = sandbox_addr.map(sandbox_origin);

    let grace = config.server.shutdown_grace;
    let main_listener = bind("server", config.server.listen).await?;
    let admin_listener = bind("admin", config.admin.listen).await?;
    let state = AppState::new(config, secrets, sandbox_origin.as_deref(), config_path)?;
    state.start_overrides().await;
    let local = |listener: &TcpListener, what| {
        listener.local_addr().map_err(|source| StartError::Bind {
            what,
            addr: SocketAddr::from(([0, 0, 0, 0], 0)),
            source,
        })
    };
    let main_addr = local(&main_listener, "server")?;
    let admin_addr = local(&admin_listener, "admin")?;

    drain_after_delay(&state);
    let shutdown = state.shutdown.clone();
    let in_flight = InFlight::default();
    let main = crate::edge::serve::storefront(
        main_listener,
        Storefront::new(state.clone(), (routers.public)(state.clone())),
        ConnectionLimits::new(&state.config.server),
        in_flight.clone(),
        shutdown.clone(),
    );
    let admin = crate::edge::serve::admin(
        admin_listener,
        (routers.admin)(state.clone()),
        ConnectionLimits::admin(&state.config.admin),
        shutdown.clone(),
    );

    let task = tokio::spawn(async move {
        let drained = async { tokio::try_join!(main, admin).map(|_| ()) };
        let deadline = async {
            shutdown.cancelled().await;
            tokio::time::sleep(grace).await;
        };
        let (result, grace_elapsed) = tokio::select! {
            result = drained => (result.map_err(StopError::from), false),
            () = deadline => {
                let dropped = in_flight.count();
                tracing::warn!(grace_ms = grace.as_millis(), dropped, "shutdown grace elapsed; dropping unfinished requests");
                let result = if dropped == 0 { Ok(()) } else { Err(StopError::Dropped { dropped }) };
                (result, true)
            }
        };
        // The sandbox serves the BFF's in-flight requests, so it stops last; once the grace is
        // spent nothing is waited for any more.
        sandbox_stop.cancel();
        if let Some(task) = sandbox_task {
            if grace_elapsed {
                task.abort();
            } else if tokio::time::timeout(SANDBOX_STOP, task).await.is_err() {
                tracing::warn!("embedded sandbox did not stop in time");
            }
        }
        tracing::info!("stopped");
        result
    });

    Ok(Running {
        main_addr,
        admin_addr,
        sandbox_addr,
        state,
        task,
    })
}

/// From [`Running::terminate`], `server.shutdown_delay` of failing readiness, then the drain.
fn drain_after_delay(state: &SharedState) {
    let delay = state.config.shutdown_delay();
    let stopping = state.stopping.clone();
    let shutdown = state.shutdown.clone();
    tokio::spawn(async move {
        tokio::select! {
            () = stopping.cancelled() => {
                tracing::info!(delay_ms = delay.as_millis(), "stopping: readiness fails, draining after the delay");
                tokio::time::sleep(delay).await;
                shutdown.cancel();
            }
            () = shutdown.cancelled() => {}
        }
    });
}
