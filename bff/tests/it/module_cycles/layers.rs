//! By module, as a newcomer reads: no cycle between sibling modules, and the folders of
//! `bff/src` in one order, bottom to top, that no path breaks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::reading::Crate;
use super::tarjan::cycles;
use super::{Fixture, src};

/// The folders of `bff/src`, bottom to top, and `lib` (the crate root, `lib.rs`) above them all.
/// A folder may name the folders below it, never one above. The README's table
/// ("Layers, top to bottom") lists the same folders in the opposite order.
const LAYERS: &[&str] = &[
    "config",
    "observe",
    "coordination",
    "upstream",
    "http",
    "cache",
    "content",
    "idempotency",
    "session",
    "commerce",
    "ssr",
    "admin",
    "edge",
    "seo",
    "routes",
    "lib",
];

/// Every dependency between two modules, read as a newcomer reads: a path depends on each module
/// it goes through, `pub use` lines and glob imports included. A module's own ancestors are no
/// dependency (a child reads its parent's names), nor is the module itself; an item of the crate
/// root (`crate::app`) is.
fn module_dependencies(krate: &Crate) -> BTreeMap<(usize, usize), String> {
    let mut edges = BTreeMap::new();
    for (index, path) in krate.all_paths() {
        let trail = krate.trail(index, path);
        // `crate::app` names an item of the root; `pub(crate)` names no item
        let ends_at_the_root = trail.last() == Some(&0) && path.len() > trail.len();
        for module in trail {
            // the root is everyone's ancestor, yet an item of `lib.rs` is the top layer's
            let through = !is_ancestor(krate, module, index) || (module == 0 && ends_at_the_root);
            if module != index && through {
                edges
                    .entry((index, module))
                    .or_insert_with(|| format!("{} names {}", krate.name(index), path.join("::")));
            }
        }
    }
    edges
}

fn is_ancestor(krate: &Crate, ancestor: usize, mut module: usize) -> bool {
    while let Some(parent) = krate.modules[module].parent {
        if parent == ancestor {
            return true;
        }
        module = parent;
    }
    false
}

/// The chain from the crate root down to `module`, root first.
fn lineage(krate: &Crate, module: usize) -> Vec<usize> {
    let mut chain = vec![module];
    let mut at = module;
    while let Some(parent) = krate.modules[at].parent {
        chain.push(parent);
        at = parent;
    }
    chain.reverse();
    chain
}

/// The dependencies between siblings: A → B, each collapsed to the child of their nearest common
/// parent that holds it (`commerce::cart::x` → `commerce::checkout::y` is `cart` → `checkout`).
fn sibling_dependencies(krate: &Crate) -> BTreeMap<(usize, usize), String> {
    let mut edges = BTreeMap::new();
    for ((from, to), why) in module_dependencies(krate) {
        let (from_chain, to_chain) = (lineage(krate, from), lineage(krate, to));
        let shared = from_chain
            .iter()
            .zip(&to_chain)
            .take_while(|(a, b)| a == b)
            .count();
        if let (Some(&a), Some(&b)) = (from_chain.get(shared), to_chain.get(shared)) {
            edges.entry((a, b)).or_insert(why);
        }
    }
    edges
}

/// The sibling modules that depend on each other in a circle, with the paths that make it.
fn module_cycles(krate: &Crate) -> Vec<String> {
    let edges = sibling_dependencies(krate);
    cycles(krate.modules.len(), &edges)
        .into_iter()
        .map(|component| {
            let members: BTreeSet<usize> = component.iter().copied().collect();
            let names: Vec<String> = component.iter().map(|&m| krate.name(m)).collect();
            let inside: Vec<String> = edges
                .iter()
                .filter(|((from, to), _)| members.contains(from) && members.contains(to))
                .map(|((from, to), why)| {
                    format!("    {} -> {} ({why})", krate.name(*from), krate.name(*to))
                })
                .collect();
            format!("  {}:\n{}", names.join(", "), inside.join("\n"))
        })
        .collect()
}

/// The folder a module lives in: the first segment of its path, `lib` for the crate root.
fn folder(krate: &Crate, module: usize) -> &str {
    krate.modules[module]
        .path
        .first()
        .map_or("lib", String::as_str)
}

/// Every path that names a folder above its own in `layers`, or a folder `layers` does not list.
fn layer_violations(krate: &Crate, layers: &[&str]) -> Vec<String> {
    let rank = |folder: &str| layers.iter().position(|layer| *layer == folder);
    let mut found = Vec::new();
    for ((from, to), why) in module_dependencies(krate) {
        let (a, b) = (folder(krate, from), folder(krate, to));
        match (rank(a), rank(b)) {
            (Some(low), Some(high)) if low < high => found.push(format!("{a} -> {b}: {why}")),
            (None, _) => found.push(format!("{a} is not in the layers")),
            (_, None) => found.push(format!("{b} is not in the layers")),
            _ => {}
        }
    }
    found.sort();
    found.dedup();
    found
}

#[test]
fn no_two_sibling_modules_of_bff_src_depend_on_each_other_in_a_circle() {
    let krate = Crate::read(&src());
    let found = module_cycles(&krate);
    assert!(
        found.is_empty(),
        "{} circles between modules of bff/src:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn every_folder_of_bff_src_names_only_the_folders_below_it() {
    let krate = Crate::read(&src());
    let folders: BTreeSet<&str> = (0..krate.modules.len())
        .map(|module| folder(&krate, module))
        .collect();
    let listed: BTreeSet<&str> = LAYERS.iter().copied().collect();
    assert_eq!(folders, listed, "LAYERS lists every folder of bff/src once");
    let found = layer_violations(&krate, LAYERS);
    assert!(
        found.is_empty(),
        "{} paths run up the layers ({}):\n{}",
        found.len(),
        LAYERS.join(" < "),
        found.join("\n")
    );
}

/// The README's table of `bff/src`, read top to bottom: its rows name the same folders as
/// `LAYERS`, in the opposite order.
#[test]
fn the_readme_lists_the_layers_in_the_order_the_test_holds() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .expect("README.md");
    let table = readme
        .split("Layers, top to bottom")
        .nth(1)
        .expect("the README has a section \"Layers, top to bottom\"");
    let rows: Vec<&str> = table
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .filter_map(|row| row.strip_prefix("| `bff/src/"))
        .filter_map(|row| row.split('`').next())
        .map(|cell| match cell {
            "lib.rs" => "lib",
            folder => folder.trim_end_matches('/'),
        })
        .collect();
    let top_down: Vec<&str> = LAYERS.iter().rev().copied().collect();
    assert_eq!(rows, top_down, "README's layer table, top to bottom");
}

#[test]
fn a_path_up_the_layers_fails_and_a_reexport_counts_where_it_is_written() {
    let fixture = Fixture::new(&[
        ("lib.rs", "pub mod low;\npub mod high;\n"),
        ("high.rs", "pub struct Thing;\n"),
        // the low layer re-exports a name of the high one: the `pub use` is the violation
        ("low/mod.rs", "pub mod inner;\n"),
        ("low/inner.rs", "pub use crate::high::Thing;\n"),
    ]);
    let found = layer_violations(&fixture.read(), &["low", "high", "lib"]);
    assert_eq!(
        found,
        vec!["low -> high: crate::low::inner names crate::high::Thing"]
    );
    // the same crate in the other order holds
    assert!(layer_violations(&fixture.read(), &["high", "low", "lib"]).is_empty());
}

#[test]
fn a_path_through_a_module_depends_on_that_module_not_on_the_file_it_reexports_from() {
    let fixture = Fixture::new(&[
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        ("a.rs", "pub use crate::c::Thing;\n"),
        (
            "b.rs",
            "pub fn make() -> crate::a::Thing { crate::a::Thing }\n",
        ),
        ("c.rs", "pub struct Thing;\n"),
    ]);
    // b reads `crate::a::Thing`: it goes through `a`, and a re-exports from c
    let found = layer_violations(&fixture.read(), &["c", "b", "a", "lib"]);
    assert_eq!(found, vec!["b -> a: crate::b names crate::a::Thing"]);
    assert!(layer_violations(&fixture.read(), &["c", "a", "b", "lib"]).is_empty());
}

#[test]
fn two_sibling_modules_that_name_each_other_fail_even_through_other_files() {
    let fixture = Fixture::new(&[
        ("lib.rs", "pub mod shop;\n"),
        ("shop/mod.rs", "pub mod cart;\npub mod checkout;\n"),
        (
            "shop/cart.rs",
            "pub fn total(_: &crate::shop::checkout::form::Form) {}\n",
        ),
        ("shop/checkout/mod.rs", "pub mod form;\npub mod place;\n"),
        ("shop/checkout/form.rs", "pub struct Form;\n"),
        (
            "shop/checkout/place.rs",
            "use super::super::cart;\npub fn place() { let _ = cart::total; }\n",
        ),
    ]);
    let krate = fixture.read();
    // no two files name each other, but `cart` and `checkout` do
    let file_cycles = cycles(krate.files.len(), &krate.dependencies());
    assert!(file_cycles.is_empty(), "{file_cycles:?}");
    let found = module_cycles(&krate);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("  crate::shop::cart, crate::shop::checkout:"),
        "{found:?}"
    );
}
