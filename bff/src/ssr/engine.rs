//! One QuickJS runtime with the server bundle evaluated in it, owned by one render thread (the
//! runtime is not `Send`). A render calls the bundle's `__ssrRender`, then drives the promise
//! jobs and the bundle's virtual timers until its result is set. Memory is capped by the
//! runtime's limit; time by an interrupt handler that stops the script past the deadline.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::{CatchResultExt, Context, Function, Object, Runtime};

/// Why a render produced no document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    #[error("the server bundle failed to load: {0}")]
    Load(String),
    #[error("the render threw: {0}")]
    Script(String),
    #[error("the render ran past its time limit")]
    Timeout,
    #[error("the render waited for something that never came")]
    Stalled,
    #[error("every render thread is busy and the queue is full")]
    Busy,
    #[error("the renderer is stopped")]
    Stopped,
    #[error("the engine is waiting to be loaded again after it was stopped")]
    Backoff,
    #[error("the test-only fault switch failed the render")]
    Fault,
}

impl RenderError {
    /// A failure of the document's own render (what it ran into), not of the renderer's state
    /// (a full queue, a stopped renderer, an engine not loaded yet): remembered for its key.
    pub fn is_the_documents(&self) -> bool {
        matches!(
            self,
            Self::Script(_) | Self::Timeout | Self::Stalled | Self::Fault
        )
    }
}

// Fields drop in order: the context before the runtime that owns its memory.
pub(super) struct Engine {
    context: Context,
    runtime: Runtime,
    deadline: Rc<Cell<Option<Instant>>>,
}

impl Engine {
    /// A runtime of at most `memory_bytes` with `bundle` evaluated in it.
    pub fn new(
        bundle: &str,
        memory_bytes: usize,
        load_time: Duration,
    ) -> Result<Self, RenderError> {
        let load = |error: rquickjs::Error| RenderError::Load(error.to_string());
        let runtime = Runtime::new().map_err(load)?;
        runtime.set_memory_limit(memory_bytes);
        runtime.set_max_stack_size(1024 * 1024);
        let deadline: Rc<Cell<Option<Instant>>> = Rc::new(Cell::new(None));
        let watched = deadline.clone();
        runtime.set_interrupt_handler(Some(Box::new(move || {
            watched.get().is_some_and(|at| Instant::now() > at)
        })));
        let context = Context::full(&runtime).map_err(load)?;
        deadline.set(Some(Instant::now() + load_time));
        let loaded = context.with(|ctx| {
            ctx.eval::<(), _>(bundle)
                .catch(&ctx)
                .map_err(|error| RenderError::Load(error.to_string()))
        });
        deadline.set(None);
        loaded?;
        Ok(Self {
            context,
            runtime,
            deadline,
        })
    }

    /// The bundle's answer (JSON) for `input` (JSON), within `time`.
    pub fn render(&mut self, input: &str, time: Duration) -> Result<String, RenderError> {
        let deadline = Instant::now() + time;
        self.deadline.set(Some(deadline));
        let result = self.drive(input, deadline);
        self.deadline.set(None);
        result
    }

    fn drive(&mut self, input: &str, deadline: Instant) -> Result<String, RenderError> {
        let timed_out = |message: String| {
            if Instant::now() > deadline {
                RenderError::Timeout
            } else {
                RenderError::Script(message)
            }
        };
        self.context.with(|ctx| {
            let render: Function = ctx
                .globals()
                .get("__ssrRender")
                .map_err(|error| RenderError::Load(error.to_string()))?;
            let state: Object = render
                .call((input,))
                .catch(&ctx)
                .map_err(|error| timed_out(error.to_string()))?;
            ctx.globals()
                .set("__ssrState", state)
                .map_err(|error| RenderError::Script(error.to_string()))
        })?;
        loop {
            // every promise job first, then (only when none is left) the next timer
            loop {
                match self.runtime.execute_pending_job() {
                    Ok(true) => {}
                    Ok(false) => break,
                    // (rquickjs ≥ 0.12 balances the job's context reference here: older
                    // versions freed it once too often, and the next GC aborted the process)
                    Err(error) => {
                        let message = error.0.with(|ctx| format!("{:?}", ctx.catch()));
                        return Err(timed_out(message));
                    }
                }
                if Instant::now() > deadline {
                    return Err(RenderError::Timeout);
                }
            }
            let step = self
                .context
                .with(|ctx| -> Result<Option<String>, RenderError> {
                    let state: Object = ctx
                        .globals()
                        .get("__ssrState")
                        .map_err(|error| RenderError::Script(error.to_string()))?;
                    let script = |error: rquickjs::Error| RenderError::Script(error.to_string());
                    if state.get::<_, bool>("done").map_err(script)? {
                        let error: String = state.get("error").map_err(script)?;
                        if !error.is_empty() {
                            return Err(timed_out(error));
                        }
                        return Ok(Some(state.get("result").map_err(script)?));
                    }
                    let host: Object = ctx.globals().get("__ssrHost").map_err(script)?;
                    let next: Function = host.get("runNextTimer").map_err(script)?;
                    let ran: bool = next
                        .call(())
                        .catch(&ctx)
                        .map_err(|error| timed_out(error.to_string()))?;
                    if ran {
                        Ok(None)
                    } else {
                        Err(RenderError::Stalled)
                    }
                })?;
            if let Some(result) = step {
                return Ok(result);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in bundle with the entry's contract: `__ssrRender` returns a state object the
    /// host polls, `__ssrHost.runNextTimer` runs timers.
    const BUNDLE: &str = r#"
        globalThis.__ssrHost = { runNextTimer: () => false };
        globalThis.__ssrRender = (input) => {
            const state = { done: false, result: '', error: '' };
            const { mode } = JSON.parse(input);
            Promise.resolve().then(() => {
                if (mode === 'spin') for (;;) {}
                if (mode === 'throw') throw new Error('boom');
                if (mode === 'hang') return;
                state.result = 'rendered ' + mode;
                state.done = true;
            }).catch((error) => { state.error = String(error); state.done = true; });
            return state;
        };
    "#;

    fn engine() -> Engine {
        Engine::new(BUNDLE, 32 * 1024 * 1024, Duration::from_secs(5)).unwrap()
    }

    #[test]
    fn a_render_is_the_bundles_answer() {
        let mut engine = engine();
        let time = Duration::from_secs(5);
        assert_eq!(
            engine.render(r#"{"mode":"a"}"#, time).unwrap(),
            "rendered a"
        );
        assert!(matches!(
            engine.render(r#"{"mode":"throw"}"#, time),
            Err(RenderError::Script(message)) if message.contains("boom")
        ));
        assert_eq!(
            engine.render(r#"{"mode":"b"}"#, time).unwrap(),
            "rendered b"
        );
        assert_eq!(
            engine.render(r#"{"mode":"hang"}"#, time),
            Err(RenderError::Stalled)
        );
    }

    #[test]
    fn a_render_that_spins_in_a_promise_job_is_stopped_and_the_engine_survives_it() {
        for _ in 0..3 {
            let mut engine = engine();
            let started = Instant::now();
            let result = engine.render(r#"{"mode":"spin"}"#, Duration::from_millis(50));
            assert_eq!(result, Err(RenderError::Timeout));
            assert!(started.elapsed() < Duration::from_secs(5));
            // dropping it runs the GC over everything the stopped job left behind
            drop(engine);
        }
    }

    #[test]
    fn a_bundle_that_does_not_load_says_why() {
        let error = Engine::new("this is not javascript", 1 << 24, Duration::from_secs(5))
            .err()
            .unwrap();
        assert!(matches!(error, RenderError::Load(_)), "{error}");
    }
}
