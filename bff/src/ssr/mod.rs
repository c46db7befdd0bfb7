//! Server-side rendering of the first screen: React's own renderer (the web app's server
//! bundle, `dist/ssr/render.js`) in an embedded QuickJS engine, run once per cache fill.
//!
//! - `engine`: one QuickJS runtime with the bundle loaded, bounded in memory and time.
//! - `pool`: the render threads (the runtime is not `Send`) behind one bounded queue.
//! - `renderer`: the render threads, one pass of a page through them, one round of its reads.
//! - `document`: the document for a page: a coalesced fill renders it, the edge cache
//!   remembers it under the build id for the hit path, a stale copy answers while a purged
//!   document renders again, and a failed render serves the shell with the data inlined.
//! - `reads`: what a render's loaders ask the API for, answered in process by the API router.
//! - `recorded`: one document's reads and answers, which its data, tags and freshness are
//!   composed from.
//! - `frame`: what the head layer makes of those answers: the shell with the head, the status,
//!   the variant shown.
//! - `markup`: the rendered body and the page's data put into the shell.
//! - `variant`: what names a document: its canonical path and the one parameter (`sku`,
//!   `activeFilter`) that changes its first screen.
//! - `settings`: `[ssr]` in the configuration.

mod document;
mod engine;
mod frame;
mod markup;
mod pool;
mod reads;
mod recorded;
mod renderer;
mod variant;

pub use crate::config::SsrConfig;
pub use document::DocumentPage;
pub use engine::RenderError;
pub use frame::{Frame, Framing};
pub use pool::Pool;
pub use reads::{ApiAnswer, ApiReads, Need, Unread};
pub use renderer::Renderer;
pub use variant::{Variant, VariantParam, document_key};

/// Where the server bundle lives in a web build.
pub fn bundle_path(dist_dir: &std::path::Path) -> std::path::PathBuf {
    dist_dir.join("ssr").join("render.js")
}
