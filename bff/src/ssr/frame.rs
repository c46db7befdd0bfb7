//! What frames a rendered page: the app shell with the page's head, the status and the variant
//! shown, made from the answers the page's render read. The head is the SEO layer's
//! (`crate::seo`); the renderer asks for it once the reads are answered, so the page's loaders
//! stay the only declaration of what a page reads.

use axum::http::StatusCode;
use bytes::Bytes;

use super::reads::ApiAnswer;
use super::variant::Variant;

/// A page's frame, as its answers make it.
#[derive(Debug, Clone)]
pub struct Frame {
    /// The document's status (a product the catalogue does not have is a 404).
    pub status: StatusCode,
    /// The app shell with the page's head.
    pub shell: Bytes,
    /// The variant the document shows, checked against the page's data (`None`: the
    /// canonical document, also for a variant the page does not have).
    pub variant: Option<Variant>,
    /// Whether the page's first screen is rendered. `false`: the shell is the document as it
    /// is (a 404, a content page the CMS does not answer), and the app renders in the browser.
    pub first_screen: bool,
}

/// Makes a page's frame from the answers its render read.
pub trait Framing: Send + Sync {
    /// The frame of the page given `answers` (every read of its render, in the order asked),
    /// with `requested` the variant the request asked for. `None` when there is no app shell
    /// to frame it with (the web app is not built).
    fn frame(&self, answers: &[ApiAnswer], requested: Option<&Variant>) -> Option<Frame>;
}
