//! Documents are compressed twice. While the shopper who missed waits, brotli at quality 9
//! (about 16 ms for an 80 kB product page); then, in the background, at quality 11 (about
//! 70 ms, and about 8 % fewer bytes) for every hit after it, on this replica and, through L2,
//! on the others. A document is rendered once and served thousands of times: the bytes saved
//! on each of those answers are worth one slower compression off the request's path.
//!
//! One recompression at a time per cache (a process has one for documents), on the blocking
//! pool: a document that finds one running keeps quality 9 until its next render, so a burst of
//! renders (a cold start, a purge of everything) costs at most one extra thread's work, never a
//! queue of them.

use std::sync::Arc;

use super::entry::brotli_at;
use super::{EdgeCache, Lookup, Rendered};

/// Brotli's best: slow, and the smallest answer.
const HIT_BROTLI_QUALITY: u32 = 11;

/// Where a recompressed document goes beside this replica's L1: L2, under the purge epoch read
/// before its parts were looked up (a purge since then keeps it out), with those parts' tags.
pub struct ShareAgain {
    pub epoch: String,
    pub parts: Vec<Lookup>,
}

impl EdgeCache {
    /// Recompresses the document just remembered under `key` as `rendered` at brotli's best, in
    /// the background, and puts it in its place (and in L2 when `share` says so) if it is still
    /// the one remembered. Does nothing when a recompression is already running, or outside a
    /// Tokio runtime.
    pub fn recompress_document_later(
        &self,
        key: String,
        rendered: Arc<Rendered>,
        share: Option<ShareAgain>,
    ) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let Ok(permit) = self.recompressing().clone().try_acquire_owned() else {
            return;
        };
        let cache = self.clone();
        runtime.spawn(async move {
            let _one_at_a_time = permit;
            let (body, stored) = rendered.body_and_brotli_len();
            let (body, stored) = (body.clone(), stored.unwrap_or(usize::MAX));
            let smaller = tokio::task::spawn_blocking(move || brotli_at(&body, HIT_BROTLI_QUALITY))
                .await
                .ok()
                .flatten()
                .filter(|better| better.len() < stored);
            let Some(smaller) = smaller else {
                return;
            };
            let better = Arc::new(rendered.with_brotli(smaller));
            if !cache.replace_remembered_document(&key, &rendered, better.clone()) {
                return;
            }
            if let Some(share) = share {
                let parts: Vec<&Lookup> = share.parts.iter().collect();
                cache
                    .share_document(&key, &share.epoch, &parts, &better)
                    .await;
            }
        });
    }
}
