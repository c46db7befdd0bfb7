//! By file: no cycle between the files of `bff/src`, and the app state and the top layer named
//! only from above. A cycle between two files means neither can be read, tested or moved without
//! the other, and it is how the layers of the tree erode.

use std::collections::{BTreeMap, BTreeSet};

use super::reading::{Crate, Target};
use super::tarjan::cycles;
use super::{Fixture, src};

#[test]
fn the_files_of_bff_src_have_no_import_cycle() {
    let krate = Crate::read(&src());
    let edges = krate.dependencies();
    let found = cycles(krate.files.len(), &edges);
    let report: Vec<String> = found
        .iter()
        .map(|component| {
            let members: BTreeSet<usize> = component.iter().copied().collect();
            let inside: Vec<String> = edges
                .iter()
                .filter(|((from, to), _)| members.contains(from) && members.contains(to))
                .map(|((from, to), why)| {
                    format!(
                        "    {} -> {} ({why})",
                        krate.relative(*from),
                        krate.relative(*to)
                    )
                })
                .collect();
            let names: Vec<String> = component.iter().map(|&file| krate.relative(file)).collect();
            format!("  {}:\n{}", names.join(", "), inside.join("\n"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "{} import cycles between the files of bff/src:\n{}",
        found.len(),
        report.join("\n")
    );
}

/// The app state is the composition root's: the routes take it apart into the services each
/// needs (`FromRef`), and nothing below them sees all of it. Its readers are the routes, the
/// document handler (`seo/`), the root itself (`lib.rs`) and the edge, which builds the state
/// and serves it (`edge/`).
const STATE_READERS: &[&str] = &["routes/", "seo/", "lib.rs", "edge/"];

#[test]
fn only_the_routes_and_the_composition_root_name_the_app_state() {
    let krate = Crate::read(&src());
    let state = krate
        .files
        .iter()
        .position(|path| path == &src().join("edge/state.rs"))
        .expect("state.rs was read");
    let mut readers = BTreeSet::new();
    for (index, path) in krate.named_paths() {
        if path.last().map(String::as_str) == Some("SharedState")
            && krate.resolve(index, path, 0) == Some(Target::Item(state))
        {
            readers.insert(krate.relative(krate.modules[index].file));
        }
    }
    assert!(
        readers.contains("routes/mod.rs"),
        "the readers were found: {readers:?}"
    );
    let outside: Vec<&String> = readers
        .iter()
        .filter(|file| {
            !STATE_READERS
                .iter()
                .any(|allowed| file.starts_with(allowed))
        })
        .collect();
    assert!(
        outside.is_empty(),
        "SharedState is named outside the routes and the composition root: {outside:?}"
    );
}

/// The top of the tree is layered: the handlers (`routes/`, and `seo/` for the documents) and the
/// edge (the composition root, the listeners) are at the top, and nothing below them names them.
/// A service that named a route module (as the catalogue's answers once named the OpenAPI
/// schemas under `routes/`), or the cache that named the edge, would be an arrow the wrong way
/// that no cycle shows yet.
const TOP_LAYER: &[&str] = &["routes/", "seo/", "edge/"];

#[test]
fn nothing_below_the_handlers_and_the_edge_depends_on_them() {
    let krate = Crate::read(&src());
    let on_top = |file: &str| file == "lib.rs" || TOP_LAYER.iter().any(|top| file.starts_with(top));
    let wrong_way: Vec<String> = krate
        .dependencies()
        .iter()
        .map(|(&(from, to), why)| (krate.relative(from), krate.relative(to), why))
        .filter(|(from, to, _)| !on_top(from) && on_top(to))
        .map(|(from, to, why)| format!("{from} -> {to} ({why})"))
        .collect();
    assert!(
        wrong_way.is_empty(),
        "files below the handlers and the edge depend on them:\n{}",
        wrong_way.join("\n")
    );
}

/// The reading itself: it finds the dependencies it must find, or the test above proves nothing.
#[test]
fn the_reading_resolves_uses_reexports_and_paths() {
    let krate = Crate::read(&src());
    assert!(
        krate.files.len() > 100,
        "every file of bff/src is read: {}",
        krate.files.len()
    );
    let edges = krate.dependencies();
    let file = |relative: &str| {
        krate
            .files
            .iter()
            .position(|path| path == &src().join(relative))
            .unwrap_or_else(|| panic!("{relative} was read"))
    };
    let depends = |from: &str, to: &str| edges.contains_key(&(file(from), file(to)));
    // `use crate::coordination::lease::Lease` in the fill lock
    assert!(
        depends("cache/l2/fill_lock.rs", "coordination/lease.rs"),
        "a use of an item is a dependency"
    );
    // `coordination/mod.rs` declares the lease module: not a dependency
    assert!(
        !depends("coordination/mod.rs", "coordination/lease.rs"),
        "a `mod` declaration is not a dependency"
    );
}

#[test]
fn two_files_that_name_each_other_fail() {
    let fixture = Fixture::new(&[
        ("lib.rs", "pub mod cart;\npub mod order;\n"),
        (
            "cart.rs",
            "pub struct Cart;\npub fn place(_: crate::order::Order) {}\n",
        ),
        ("order.rs", "pub struct Order(pub super::cart::Cart);\n"),
    ]);
    let krate = fixture.read();
    let found = cycles(krate.files.len(), &krate.dependencies());
    let names: Vec<Vec<String>> = found
        .iter()
        .map(|component| component.iter().map(|&file| krate.relative(file)).collect())
        .collect();
    assert_eq!(
        names,
        vec![vec!["cart.rs".to_owned(), "order.rs".to_owned()]]
    );
}

#[test]
fn tarjan_finds_a_cycle_and_only_a_cycle() {
    let edges: BTreeMap<(usize, usize), String> =
        [((0, 1), ""), ((1, 2), ""), ((2, 0), ""), ((2, 3), "")]
            .into_iter()
            .map(|(edge, why)| (edge, why.to_owned()))
            .collect();
    assert_eq!(cycles(4, &edges), vec![vec![0, 1, 2]]);
    let acyclic: BTreeMap<(usize, usize), String> =
        [((0, 1), String::new()), ((1, 2), String::new())]
            .into_iter()
            .collect();
    assert!(cycles(3, &acyclic).is_empty());
}

/// The cache is cut along its jobs (issue 51): no file of `bff/src/cache` grows past 500 lines,
/// its tests included, or it is doing more than one job again.
const CACHE_FILE_LINES: usize = 500;

#[test]
fn no_file_of_the_cache_is_over_500_lines() {
    let krate = Crate::read(&src());
    let cache: Vec<(String, usize)> = krate
        .files
        .iter()
        .enumerate()
        .filter(|(_, path)| path.starts_with(src().join("cache")))
        .map(|(file, path)| {
            let lines = std::fs::read_to_string(path).unwrap().lines().count();
            (krate.relative(file), lines)
        })
        .collect();
    assert!(cache.len() > 40, "the cache's files were read: {cache:?}");
    let long: Vec<&(String, usize)> = cache
        .iter()
        .filter(|(_, lines)| *lines > CACHE_FILE_LINES)
        .collect();
    assert!(
        long.is_empty(),
        "files of bff/src/cache over {CACHE_FILE_LINES} lines: {long:?}"
    );
}
