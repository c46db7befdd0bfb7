//! The render threads: `threads` OS threads, each with its own engine (built on first use and
//! rebuilt after a render that ran out of time or memory), fed from one bounded queue. A full
//! queue fails the render at once (the caller serves the shell), so a burst of fills never
//! piles up work the pod's one CPU cannot do.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::SsrConfig;
use super::engine::{Engine, RenderError};

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
    pub fn start(bundle_path: &Path, config: &SsrConfig) -> Option<Self> {
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
            let fault = fault.clone();
            let config = config.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("ssr-{index}"))
                .spawn(move || serve(&jobs, &bundle, &config, &fault));
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

    /// Tests only: every render fails (as a timed-out one would) while set.
    pub fn set_fault(&self, on: bool) {
        self.fault.store(on, Ordering::Relaxed);
    }
}

/// The most loading the bundle into a new engine may take (once per thread, and after a render
/// that was stopped).
const LOAD_TIME: Duration = Duration::from_secs(10);

/// One render thread: takes jobs until the pool is dropped.
fn serve(jobs: &Mutex<Receiver<Job>>, bundle: &str, config: &SsrConfig, fault: &AtomicBool) {
    let memory = config.memory_mb.saturating_mul(1024 * 1024);
    let time = config.timeout;
    // loaded before the first job, so the first fill pays for its render only
    let load = || Engine::new(bundle, memory, LOAD_TIME);
    let mut engine: Option<Engine> = match load() {
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
        let result = if fault.load(Ordering::Relaxed) {
            Err(RenderError::Fault)
        } else {
            // after a render that was stopped: a new engine, not counted in the render's time
            let ready = match engine.take() {
                Some(ready) => Ok(ready),
                None => load(),
            };
            match ready {
                Ok(mut ready) => {
                    started = Instant::now();
                    let result = ready.render(&job.input, time);
                    // a script error leaves the engine sound; a stopped or starved one is
                    // rebuilt for the next render
                    if matches!(result, Ok(_) | Err(RenderError::Script(_))) {
                        engine = Some(ready);
                    }
                    result
                }
                Err(error) => Err(error),
            }
        };
        let _ = job.reply.send((result, started.elapsed()));
    }
}
