//! The layers of `bff/src`, read from the code with `syn` (issues 33 and 51).
//!
//! Two readings. **By file** (`files.rs`): file A depends on file B when a path in A (a `use`,
//! a type, a call, a pattern) names an item that B defines, a re-export followed to the file that
//! defines the item; no two files depend on each other in a cycle. **By module** (`layers.rs`),
//! as a newcomer reads: a path depends on every module it goes through (`crate::cache::http::X`
//! on `cache` and `cache::http`), `pub use` lines included, so a re-export is a dependency of the
//! module that writes it. Read that way, no two sibling modules depend on each other in a cycle,
//! and the 15 folders keep one order, `LAYERS`, which the README's layer table states too.
//!
//! A name is resolved as rustc would resolve it within this crate: through `crate`, `self` and
//! `super`, child modules, the items a module defines, its `use` bindings (renames and groups)
//! and its glob imports. `mod` declarations are no dependency. Names from other crates, and names
//! this reading cannot place (locals, generic parameters), are no dependency.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use reading::Crate;

mod files;
mod layers;
mod reading;
mod tarjan;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// A small crate written for the test, read like `bff/src`.
pub struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    pub fn new(files: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for (name, source) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, source).unwrap();
        }
        Fixture { dir }
    }

    pub fn read(&self) -> Crate {
        Crate::read(self.dir.path())
    }
}
