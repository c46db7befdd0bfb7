//! What a checkout key settles to: the answer kept for it, how long, and how a run for it ended.
//! The replica's store (`idempotency.rs`) and the keys shared through Redis (`shared_keys.rs`)
//! both speak it, so neither depends on the other for it.

use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use bytes::Bytes;

use crate::http::error::ApiError;

/// How long an answer is kept for its key.
pub const RETENTION: Duration = Duration::from_secs(10 * 60);

/// A finished answer: status, content type and body, replayed as it was.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: StatusCode,
    pub content_type: &'static str,
    pub body: Bytes,
}

/// What a run produced, and whether it is kept for the key. Answers given before the order was
/// attempted (bad input) are not kept: a corrected request with the same key gets a new run.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub answer: Arc<Answer>,
    pub keep: bool,
}

/// How a run for a key settled, as every request that shares the run sees it.
#[derive(Debug, Clone)]
pub enum Settled {
    /// This replica ran the work.
    Ran(Outcome),
    /// An earlier run (on any replica) kept this answer, found in Redis.
    Found(Arc<Answer>),
    /// An earlier run (found in Redis) used the key with a different body.
    Mismatch,
}

impl Settled {
    /// The answer kept for the key on this replica too, if any: a replica that learned an
    /// answer from Redis keeps it, so it still replays it while Redis is away.
    pub(super) fn kept_answer(&self) -> Option<Arc<Answer>> {
        match self {
            Self::Ran(outcome) => outcome.keep.then(|| outcome.answer.clone()),
            Self::Found(answer) => Some(answer.clone()),
            Self::Mismatch => None,
        }
    }
}

impl Answer {
    /// An error's problem+json, kept as an answer.
    pub fn from_error(error: &ApiError) -> Self {
        Self {
            status: error.status(),
            content_type: "application/problem+json",
            body: error.problem_body(),
        }
    }
}
