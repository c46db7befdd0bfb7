//! The render threads: `threads` OS threads, each with its own engine (built on first use and
//! rebuilt after a render that ran out of time or memory), fed from one bounded queue. A full
//! queue fails the render at once (the caller serves the shell), so a burst of fills never
//! piles up work the pod's one CPU cannot do.
//!
//! Loading the bundle into a new engine costs up to [`LOAD_TIME`] of CPU, so a thread whose
//! engine was stopped (or would not load) backs off before the next load: renders asked for
//! meanwhile fail at once ([`RenderError::Backoff`]) and their documents are the shell. The wait
//! starts at [`FIRST_BACKOFF`] and doubles up to [`MAX_BACKOFF`]; a render that succeeds resets
//! it. A page that stops the engine on every render thus costs one reload per wait, not one
//! per request.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::SsrConfig;
use super::engine::{Engine, RenderError};
use crate::observe::metrics::Metrics;

struct Job {
    input: String,
    reply: oneshot::Sender<(Result<String, RenderError>, Duration)>,
}

/// The render threads' front door. Cheap to clone.
#[derive(Clone)]
pub struct Pool {
    queue: SyncSender<Job>,
    fault: Arc<AtomicBool>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").finish_non_exhaustive()
    }
}

impl Pool {
    /// Starts the threads over the bundle at `bundle_path`; `None` when there is no bundle
    /// (the web app is not built) or no thread.
    pub fn start(bundle_path: &Path, config: &SsrConfig, metrics: Arc<Metrics>) -> Option<Self> {
        if config.threads == 0 {
            return None;
        }
        let bundle: Arc<str> = match std::fs::read_to_string(bundle_path) {
            Ok(bundle) => bundle.into(),
            Err(error) => {
                tracing::warn!(path = %bundle_path.display(), %error, "no server bundle: documents are served as the shell with their data");
                return None;
            }
        };
        let (queue, jobs) = sync_channel::<Job>(config.queue);
        let jobs = Arc::new(Mutex::new(jobs));
        let fault = Arc::new(AtomicBool::new(config.fault_for_tests));
        for index in 0..config.threads {
            let jobs = jobs.clone();
            let bundle = bundle.clone();
            let config = config.clone();
            let metrics = metrics.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("ssr-{index}"))
                .spawn(move || serve(&jobs, &bundle, &config, &metrics));
            if let Err(error) = spawned {
                tracing::error!(%error, "could not start a render thread");
                return None;
            }
        }
        Some(Self { queue, fault })
    }

    /// The bundle's answer for `input`, and how long the render took on its thread.
    pub async fn render(&self, input: String) -> (Result<String, RenderError>, Duration) {
        let (reply, answer) = oneshot::channel();
        match self.queue.try_send(Job { input, reply }) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => return (Err(RenderError::Busy), Duration::ZERO),
            Err(TrySendError::Disconnected(_)) => {
                return (Err(RenderError::Stopped), Duration::ZERO);
            }
        }
        answer
            .await
            .unwrap_or((Err(RenderError::Stopped), Duration::ZERO))
    }

    /// Tests only: every render of a first screen fails (as a timed-out one would) while set.
    pub fn set_fault(&self, on: bool) {
        self.fault.store(on, Ordering::Relaxed);
    }

    /// Whether the test-only fault switch is on (see [`Self::set_fault`]).
    pub fn faulty(&self) -> bool {
        self.fault.load(Ordering::Relaxed)
    }
}

/// The most loading the bundle into a new engine may take (once per thread, and after a render
/// that was stopped).
const LOAD_TIME: Duration = Duration::from_secs(10);

/// The first wait before an engine is loaded again after a stopped render or a failed load.
const FIRST_BACKOFF: Duration = Duration::from_secs(1);

/// The longest such wait.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// When a thread may load its next engine: at once, or after a wait that doubles with every
/// engine lost in a row.
#[derive(Debug)]
struct Reloads {
    not_before: Option<Instant>,
    wait: Duration,
}

impl Reloads {
    fn new() -> Self {
        Self {
            not_before: None,
            wait: FIRST_BACKOFF,
        }
    }

    /// An engine was lost (stopped, or it would not load) at `now`.
    fn lost(&mut self, now: Instant) {
        self.not_before = Some(now + self.wait);
        self.wait = (self.wait * 2).min(MAX_BACKOFF);
    }

    /// A render succeeded: the next loss waits the first wait again.
    fn recovered(&mut self) {
        self.not_before = None;
        self.wait = FIRST_BACKOFF;
    }

    fn may_load(&self, now: Instant) -> bool {
        self.not_before.is_none_or(|at| now >= at)
    }
}

/// One render thread: takes jobs until the pool is dropped.
fn serve(jobs: &Mutex<Receiver<Job>>, bundle: &str, config: &SsrConfig, metrics: &Metrics) {
    let memory = config.memory_mb.saturating_mul(1024 * 1024);
    let time = config.timeout;
    let mut reloads = Reloads::new();
    let load = |reloads: &mut Reloads| {
        let loaded = Engine::new(bundle, memory, LOAD_TIME);
        metrics.count_engine_load(if loaded.is_ok() { "ok" } else { "failed" });
        if loaded.is_err() {
            reloads.lost(Instant::now());
        }
        loaded
    };
    // loaded before the first job, so the first fill pays for its render only
    let mut engine: Option<Engine> = match load(&mut reloads) {
        Ok(engine) => Some(engine),
        Err(error) => {
            tracing::error!(%error, "the server bundle does not load: documents are served as the shell with their data");
            None
        }
    };
    loop {
        let job = {
            let Ok(jobs) = jobs.lock() else { return };
            match jobs.recv() {
                Ok(job) => job,
                Err(_) => return,
            }
        };
        let mut started = Instant::now();
        let result = {
            // after a render that was stopped: a new engine, not counted in the render's time,
            // once the backoff allows it
            let ready = match engine.take() {
                Some(ready) => Ok(ready),
                None if reloads.may_load(Instant::now()) => load(&mut reloads),
                None => Err(RenderError::Backoff),
            };
            match ready {
                Ok(mut ready) => {
                    started = Instant::now();
                    let result = ready.render(&job.input, time);
                    // a script error leaves the engine sound; a stopped or starved one is
                    // rebuilt for a later render, after the backoff
                    match &result {
                        Ok(_) => {
                            reloads.recovered();
                            engine = Some(ready);
                        }
                        Err(RenderError::Script(_)) => engine = Some(ready),
                        Err(_) => reloads.lost(Instant::now()),
                    }
                    result
                }
                Err(error) => Err(error),
            }
        };
        let _ = job.reply.send((result, started.elapsed()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in bundle: `{"mode":"spin"}` never ends (the engine is stopped), anything else
    /// renders at once.
    const BUNDLE: &str = r#"
        globalThis.__ssrHost = { runNextTimer: () => false };
        globalThis.__ssrRender = (input) => {
            const state = { done: false, result: '', error: '' };
            if (JSON.parse(input).mode === 'spin') for (;;) {}
            state.result = 'rendered';
            state.done = true;
            return state;
        };
    "#;

    fn loads(metrics: &Metrics) -> usize {
        metrics
            .render()
            .lines()
            .find(|line| line.starts_with(r#"bff_ssr_engine_loads_total{outcome="ok"}"#))
            .and_then(|line| line.rsplit(' ').next()?.parse().ok())
            .unwrap_or(0)
    }

    #[tokio::test]
    async fn a_stopped_engine_is_loaded_again_only_after_the_backoff() {
        let dir = tempfile::tempdir().unwrap();
        let bundle = dir.path().join("render.js");
        std::fs::write(&bundle, BUNDLE).unwrap();
        let config = SsrConfig {
            timeout: Duration::from_millis(50),
            ..SsrConfig::default()
        };
        let metrics = Arc::new(Metrics::new());
        let pool = Pool::start(&bundle, &config, metrics.clone()).unwrap();
        assert_eq!(
            pool.render(r#"{"mode":"a"}"#.to_owned()).await.0.unwrap(),
            "rendered"
        );
        let (stopped, _) = pool.render(r#"{"mode":"spin"}"#.to_owned()).await;
        assert_eq!(stopped, Err(RenderError::Timeout));
        // within the first backoff: no load, the render fails at once
        for _ in 0..20 {
            let (backing_off, _) = pool.render(r#"{"mode":"a"}"#.to_owned()).await;
            assert_eq!(backing_off, Err(RenderError::Backoff));
        }
        assert_eq!(loads(&metrics), 1, "only the first load");
        // after it, one load and renders again
        tokio::time::sleep(FIRST_BACKOFF).await;
        assert_eq!(
            pool.render(r#"{"mode":"a"}"#.to_owned()).await.0.unwrap(),
            "rendered"
        );
        assert_eq!(loads(&metrics), 2);
    }

    #[test]
    fn the_wait_doubles_with_every_engine_lost_and_resets_on_success() {
        let now = Instant::now();
        let mut reloads = Reloads::new();
        assert!(reloads.may_load(now));
        reloads.lost(now);
        assert!(!reloads.may_load(now));
        assert!(reloads.may_load(now + FIRST_BACKOFF));
        reloads.lost(now);
        assert!(!reloads.may_load(now + FIRST_BACKOFF));
        assert!(reloads.may_load(now + FIRST_BACKOFF * 2));
        for _ in 0..20 {
            reloads.lost(now);
        }
        assert!(reloads.may_load(now + MAX_BACKOFF));
        reloads.recovered();
        assert!(reloads.may_load(now));
    }
}
