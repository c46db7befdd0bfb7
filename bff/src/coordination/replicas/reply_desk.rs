//! Replies on the purge channel, matched to the request on this replica that waits for them:
//! a purge's receipts, an explain query's answers. A request registers its id before it is
//! published (so no reply arrives unseen), then collects replies until every replica expected
//! answered or its deadline passed; the ones that did not are named. One desk per kind of reply.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

/// A reply another replica sent on the channel.
pub trait Reply: Send + 'static {
    /// The id of the request it answers.
    fn request_id(&self) -> &str;
    /// The replica that sent it.
    fn replica(&self) -> &str;
}

type Delivered<R> = (R, Instant);
type Waiting<R> = Mutex<HashMap<String, mpsc::UnboundedSender<Delivered<R>>>>;

/// Replies by request id, for the requests this replica is waiting on.
#[derive(Debug)]
pub struct ReplyDesk<R> {
    /// This replica's id: it never waits for itself.
    replica: String,
    waiting: Waiting<R>,
}

impl<R: Reply> ReplyDesk<R> {
    /// The desk of the replica `replica` (its id).
    pub fn new(replica: String) -> Self {
        Self {
            replica,
            waiting: Mutex::new(HashMap::new()),
        }
    }

    pub fn replica(&self) -> &str {
        &self.replica
    }

    /// Starts waiting for the replies to `request_id`: call before the request is published.
    pub fn expect(self: &Arc<Self>, request_id: &str) -> ReplyWaiter<R> {
        let (sender, receiver) = mpsc::unbounded_channel();
        self.waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(request_id.to_owned(), sender);
        ReplyWaiter {
            request_id: request_id.to_owned(),
            desk: self.clone(),
            receiver,
            started: Instant::now(),
        }
    }

    /// Hands `reply` to the request waiting for it; a late one (answered already) is dropped.
    pub fn deliver(&self, reply: R) {
        let waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(sender) = waiting.get(reply.request_id()) {
            let _ = sender.send((reply, Instant::now()));
        }
    }

    /// How many requests are waiting (none once every waiter is collected or dropped).
    pub fn waiting(&self) -> usize {
        self.waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// The replies to one request, as they arrive; stops waiting when dropped.
#[derive(Debug)]
pub struct ReplyWaiter<R> {
    request_id: String,
    desk: Arc<ReplyDesk<R>>,
    receiver: mpsc::UnboundedReceiver<Delivered<R>>,
    started: Instant,
}

impl<R> Drop for ReplyWaiter<R> {
    fn drop(&mut self) {
        self.desk
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.request_id);
    }
}

impl<R: Reply> ReplyWaiter<R> {
    /// When the request began here: what the deadline counts from.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// Waits until every replica in `expected` (other than this one) sent `parts` replies, or
    /// `deadline` from the start passed, handing each reply to `take` with its arrival time.
    /// Replies from replicas not expected (one that started after the fleet was read) are
    /// taken too. Returns the expected replicas that did not send every part in time.
    pub async fn collect(
        mut self,
        expected: &[String],
        parts: usize,
        deadline: Duration,
        mut take: impl FnMut(R, Instant),
    ) -> Vec<String> {
        let until = tokio::time::Instant::from_std(self.started + deadline);
        let mut counts: HashMap<String, usize> = HashMap::new();
        let short = |counts: &HashMap<String, usize>| -> Vec<String> {
            expected
                .iter()
                .filter(|replica| **replica != self.desk.replica)
                .filter(|replica| counts.get(*replica).copied().unwrap_or(0) < parts)
                .cloned()
                .collect()
        };
        while !short(&counts).is_empty() {
            let next = tokio::time::timeout_at(until, self.receiver.recv()).await;
            let Ok(Some((reply, arrived))) = next else {
                break;
            };
            *counts.entry(reply.replica().to_owned()).or_default() += 1;
            take(reply, arrived);
        }
        short(&counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Answer(&'static str, &'static str);

    impl Reply for Answer {
        fn request_id(&self) -> &str {
            self.0
        }
        fn replica(&self) -> &str {
            self.1
        }
    }

    #[tokio::test]
    async fn replies_are_matched_by_request_and_the_silent_replicas_named() {
        let desk = Arc::new(ReplyDesk::new("me".to_owned()));
        let waiter = desk.expect("q1");
        desk.deliver(Answer("q1", "b"));
        desk.deliver(Answer("q2", "c"));
        let expected = ["me", "b", "c"].map(str::to_owned);
        let mut taken = Vec::new();
        let missing = waiter
            .collect(&expected, 1, Duration::from_millis(50), |reply, _| {
                taken.push(reply.1)
            })
            .await;
        assert_eq!(taken, ["b"], "another request's reply is not this one's");
        assert_eq!(missing, ["c"]);
        assert_eq!(desk.waiting(), 0, "the wait is over");
    }
}
