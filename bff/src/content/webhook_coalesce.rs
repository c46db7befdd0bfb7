//! Webhook purges coalesced per tag set: one purge per set at most every [`WINDOW`], however
//! many webhooks name it. A webhook arriving within the window of the set's last purge waits
//! for the window to end (with every other one that arrives meanwhile); then one purge covers
//! them all, and they answer with its result. A webhook is only answered after a purge that
//! started after it arrived, so no change it announces can be missed (a fetch that began
//! before that purge cannot store its answer).

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The least time between two purges of one tag set.
pub const WINDOW: Duration = Duration::from_secs(1);

/// How long an idle tag set's bookkeeping is kept.
const IDLE: Duration = Duration::from_secs(600);

/// The purge state of one tag set.
#[derive(Debug)]
struct TagSet<T> {
    /// Tickets handed out: one per webhook that arrived.
    arrived: AtomicU64,
    /// Held by the purge in progress (and its wait for the window).
    done: tokio::sync::Mutex<Done<T>>,
}

impl<T> Default for TagSet<T> {
    fn default() -> Self {
        Self {
            arrived: AtomicU64::new(0),
            done: tokio::sync::Mutex::new(Done {
                covered: 0,
                answer: None,
                at: None,
            }),
        }
    }
}

/// The last purge of a tag set.
#[derive(Debug)]
struct Done<T> {
    /// The last ticket it covered.
    covered: u64,
    /// What it answered.
    answer: Option<T>,
    at: Option<tokio::time::Instant>,
}

/// The coalescer: one `TagSet` per set of tags named; `T` is a purge's answer.
#[derive(Debug, Clone)]
pub struct Coalescer<T: Clone + Send + Sync + 'static = u64> {
    sets: moka::sync::Cache<String, Arc<TagSet<T>>>,
}

impl<T: Clone + Send + Sync + 'static> Default for Coalescer<T> {
    fn default() -> Self {
        Self {
            sets: moka::sync::Cache::builder()
                .max_capacity(10_000)
                .time_to_idle(IDLE)
                .build(),
        }
    }
}

/// What a webhook's purge came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome<T> {
    pub answer: T,
    /// Another webhook's purge (started after this one arrived) covered this one.
    pub coalesced: bool,
}

impl<T: Clone + Send + Sync + 'static> Coalescer<T> {
    /// Runs `purge` for `tags` (which may name the purge's mode too: a soft and a hard purge
    /// of one set are not one purge), or answers with the result of the purge that covered it.
    pub async fn purge<F, Fut>(&self, tags: &[String], purge: F) -> Outcome<T>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T>,
    {
        let key = tags
            .iter()
            .map(String::as_str)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
            .join("\n");
        let set = self.sets.get_with(key, || Arc::new(TagSet::default()));
        let ticket = set.arrived.fetch_add(1, Ordering::AcqRel) + 1;
        let mut done = set.done.lock().await;
        if done.covered >= ticket
            && let Some(answer) = &done.answer
        {
            return Outcome {
                answer: answer.clone(),
                coalesced: true,
            };
        }
        if let Some(at) = done.at {
            tokio::time::sleep_until(at + WINDOW).await;
        }
        let covered = set.arrived.load(Ordering::Acquire);
        let answer = purge().await;
        *done = Done {
            covered,
            answer: Some(answer.clone()),
            at: Some(tokio::time::Instant::now()),
        };
        Outcome {
            answer,
            coalesced: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_burst_for_the_same_tags_purges_at_most_twice() {
        let coalescer = Coalescer::<u64>::default();
        let purges = Arc::new(AtomicU64::new(0));
        let tags = vec!["product:summit lr".to_owned(), "search".to_owned()];
        let burst: Vec<_> = (0..20)
            .map(|_| {
                let (coalescer, purges, tags) = (coalescer.clone(), purges.clone(), tags.clone());
                tokio::spawn(async move {
                    coalescer
                        .purge(&tags, || async {
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            purges.fetch_add(1, Ordering::AcqRel);
                            1
                        })
                        .await
                })
            })
            .collect();
        for webhook in burst {
            assert_eq!(webhook.await.ok().map(|outcome| outcome.answer), Some(1));
        }
        let count = purges.load(Ordering::Acquire);
        assert!((1..=2).contains(&count), "{count} purges");
        // Later, on its own: purged again (after the window).
        let later = coalescer.purge(&tags, || async { 3 }).await;
        assert_eq!(
            later,
            Outcome {
                answer: 3,
                coalesced: false
            }
        );
    }
}
