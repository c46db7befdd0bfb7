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
    #[error("the test-only fault switch failed the render")]
    Fault,
}

pub(super) struct Engine {
    runtime: Runtime,
    context: Context,
    deadline: Rc<Cell<Option<Instant>>>,
}

impl Engine {
    /// A runtime of at most `memory_bytes` with `bundle` evaluated in it.
    pub fn new(bundle: &str, memory_bytes: usize, load_time: Duration) -> Result<Self, RenderError> {
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
            runtime,
            context,
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
                    Err(error) => return Err(timed_out(format!("{error:?}"))),
                }
                if Instant::now() > deadline {
                    return Err(RenderError::Timeout);
                }
            }
            let step = self.context.with(|ctx| -> Result<Option<String>, RenderError> {
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
                if ran { Ok(None) } else { Err(RenderError::Stalled) }
            })?;
            if let Some(result) = step {
                return Ok(result);
            }
        }
    }
}
