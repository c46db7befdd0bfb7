//! The files of `bff/src` depend on each other without a cycle (issue 33): a cycle between two
//! files means neither can be read, tested or moved without the other, and it is how the layers
//! of the tree erode.
//!
//! File A depends on file B when a path in A (a `use`, a type, a call, a pattern) names an item
//! that B defines. The paths are parsed with `syn`; a name is resolved as rustc would resolve it
//! within this crate: through `crate`, `self` and `super`, child modules, the items a module
//! defines, its `use` bindings (renames and groups) and its glob imports, so a re-export leads to
//! the file that defines the item. `mod` declarations and re-exports (`pub use`) are not
//! dependencies of their own. Names from other crates, and names this reading cannot place
//! (locals, generic parameters), are no dependency.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A module of the crate: a file, or an inline `mod name { … }` inside one.
struct Module {
    /// `crate::a::b`, without `crate`.
    path: Vec<String>,
    file: usize,
    parent: Option<usize>,
    children: HashMap<String, usize>,
    /// The names of the items it defines (not modules).
    items: BTreeSet<String>,
    /// `use` bindings: the name in scope, the path it stands for, and whether it is a re-export.
    uses: Vec<(String, Vec<String>, bool)>,
    /// The paths of its glob imports (`use a::b::*`).
    globs: Vec<Vec<String>>,
    /// The paths named in its code (not in its `use` items, not in its child modules).
    paths: Vec<Vec<String>>,
}

/// Where a path leads.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Target {
    Module(usize),
    /// An item, by the file that defines it.
    Item(usize),
}

struct Crate {
    files: Vec<PathBuf>,
    modules: Vec<Module>,
}

impl Crate {
    fn read(src: &Path) -> Self {
        let mut krate = Crate {
            files: Vec::new(),
            modules: Vec::new(),
        };
        krate.add_file(&src.join("lib.rs"), src, Vec::new(), None);
        krate
    }

    /// Adds the module in `file`, whose child module files are under `dir`.
    fn add_file(&mut self, file: &Path, dir: &Path, path: Vec<String>, parent: Option<usize>) {
        let source = std::fs::read_to_string(file)
            .unwrap_or_else(|error| panic!("{}: {error}", file.display()));
        let ast =
            syn::parse_file(&source).unwrap_or_else(|error| panic!("{}: {error}", file.display()));
        self.files.push(file.to_owned());
        let file_index = self.files.len() - 1;
        self.add_module(&ast.items, file_index, dir, path, parent);
    }

    fn add_module(
        &mut self,
        items: &[syn::Item],
        file: usize,
        dir: &Path,
        path: Vec<String>,
        parent: Option<usize>,
    ) -> usize {
        let index = self.modules.len();
        let mut collector = PathCollector::default();
        for item in items {
            collector.visit_item(item);
        }
        self.modules.push(Module {
            path: path.clone(),
            file,
            parent,
            children: HashMap::new(),
            items: BTreeSet::new(),
            uses: Vec::new(),
            globs: Vec::new(),
            paths: collector.paths,
        });
        for item in items {
            match item {
                syn::Item::Mod(module) => {
                    let name = module.ident.to_string();
                    let mut child_path = path.clone();
                    child_path.push(name.clone());
                    let child = match &module.content {
                        Some((_, inner)) => {
                            self.add_module(inner, file, &dir.join(&name), child_path, Some(index))
                        }
                        None => {
                            let flat = dir.join(format!("{name}.rs"));
                            let (child_file, child_dir) = if flat.exists() {
                                (flat, dir.join(&name))
                            } else {
                                (dir.join(&name).join("mod.rs"), dir.join(&name))
                            };
                            let child = self.modules.len();
                            self.add_file(&child_file, &child_dir, child_path, Some(index));
                            child
                        }
                    };
                    self.modules[index].children.insert(name, child);
                }
                syn::Item::Use(declaration) => {
                    let reexport = !matches!(declaration.vis, syn::Visibility::Inherited);
                    let module = &mut self.modules[index];
                    collect_use(
                        &declaration.tree,
                        Vec::new(),
                        reexport,
                        &mut module.uses,
                        &mut module.globs,
                    );
                }
                other => {
                    if let Some(name) = item_name(other) {
                        self.modules[index].items.insert(name);
                    }
                }
            }
        }
        index
    }

    /// Where `path`, written in module `from`, leads; `None` outside the crate or unplaceable.
    fn resolve(&self, from: usize, path: &[String], depth: usize) -> Option<Target> {
        if depth > 24 || path.is_empty() {
            return None;
        }
        let (mut target, rest) = match path[0].as_str() {
            "crate" => (Target::Module(0), &path[1..]),
            "self" => (Target::Module(from), &path[1..]),
            "super" => (Target::Module(self.modules[from].parent?), &path[1..]),
            "Self" => return None,
            name => (self.lookup(from, name, depth)?, &path[1..]),
        };
        for segment in rest {
            target = match target {
                // an associated item or a variant: the item's file
                Target::Item(_) => return Some(target),
                Target::Module(module) => match segment.as_str() {
                    "super" => Target::Module(self.modules[module].parent?),
                    "self" => Target::Module(module),
                    name => self.lookup(module, name, depth)?,
                },
            };
        }
        Some(target)
    }

    /// What `name` stands for in the scope of `module`.
    fn lookup(&self, module: usize, name: &str, depth: usize) -> Option<Target> {
        let scope = &self.modules[module];
        if let Some(&child) = scope.children.get(name) {
            return Some(Target::Module(child));
        }
        if scope.items.contains(name) {
            return Some(Target::Item(scope.file));
        }
        for (bound, path, _) in &scope.uses {
            if bound == name {
                // a use path starts from the module that declares it
                if let Some(target) = self.resolve(module, path, depth + 1) {
                    return Some(target);
                }
            }
        }
        for glob in &scope.globs {
            if let Some(Target::Module(imported)) = self.resolve(module, glob, depth + 1)
                && imported != module
                && let Some(target) = self.lookup(imported, name, depth + 1)
            {
                return Some(target);
            }
        }
        None
    }

    /// A file's path under `bff/src`, as the tests report it (`cache/l2.rs`).
    fn relative(&self, file: usize) -> String {
        self.files[file]
            .strip_prefix(src())
            .unwrap()
            .display()
            .to_string()
    }

    /// Every path a module names (its own imports, not re-exports, and the paths of its code),
    /// with the module's index.
    fn named_paths(&self) -> impl Iterator<Item = (usize, &Vec<String>)> {
        self.modules.iter().enumerate().flat_map(|(index, module)| {
            module
                .uses
                .iter()
                .filter(|(_, _, reexport)| !reexport)
                .map(|(_, path, _)| path)
                .chain(&module.paths)
                .map(move |path| (index, path))
        })
    }

    /// Every dependency between two files, with one path that makes it (for the message).
    fn dependencies(&self) -> BTreeMap<(usize, usize), String> {
        let mut edges = BTreeMap::new();
        for (index, path) in self.named_paths() {
            let from = self.modules[index].file;
            if let Some(Target::Item(file)) = self.resolve(index, path, 0)
                && file != from
            {
                edges
                    .entry((from, file))
                    .or_insert_with(|| format!("{} names {}", self.name(index), path.join("::")));
            }
        }
        edges
    }

    fn name(&self, module: usize) -> String {
        let path = &self.modules[module].path;
        if path.is_empty() {
            "crate".to_owned()
        } else {
            format!("crate::{}", path.join("::"))
        }
    }
}

fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(item) => &item.ident,
        syn::Item::Enum(item) => &item.ident,
        syn::Item::Fn(item) => &item.sig.ident,
        syn::Item::Macro(item) => item.ident.as_ref()?,
        syn::Item::Static(item) => &item.ident,
        syn::Item::Struct(item) => &item.ident,
        syn::Item::Trait(item) => &item.ident,
        syn::Item::TraitAlias(item) => &item.ident,
        syn::Item::Type(item) => &item.ident,
        syn::Item::Union(item) => &item.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

/// The bindings of a `use` tree: `use a::{b::C, d as e, f::*, g::{self}}`.
fn collect_use(
    tree: &syn::UseTree,
    prefix: Vec<String>,
    reexport: bool,
    uses: &mut Vec<(String, Vec<String>, bool)>,
    globs: &mut Vec<Vec<String>>,
) {
    match tree {
        syn::UseTree::Path(path) => {
            let mut prefix = prefix;
            prefix.push(path.ident.to_string());
            collect_use(&path.tree, prefix, reexport, uses, globs);
        }
        syn::UseTree::Name(name) => {
            let ident = name.ident.to_string();
            if ident == "self" {
                if let Some(last) = prefix.last() {
                    uses.push((last.clone(), prefix.clone(), reexport));
                }
            } else {
                let mut path = prefix;
                path.push(ident.clone());
                uses.push((ident, path, reexport));
            }
        }
        syn::UseTree::Rename(rename) => {
            let bound = rename.rename.to_string();
            let mut path = prefix;
            if rename.ident != "self" {
                path.push(rename.ident.to_string());
            }
            if bound != "_" {
                uses.push((bound, path, reexport));
            }
        }
        syn::UseTree::Glob(_) => globs.push(prefix),
        syn::UseTree::Group(group) => {
            for item in &group.items {
                collect_use(item, prefix.clone(), reexport, uses, globs);
            }
        }
    }
}

/// The paths named in a module's own code.
#[derive(Default)]
struct PathCollector {
    paths: Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for PathCollector {
    // a child module is a module of its own
    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

    // its bindings are read from the `use` items themselves
    fn visit_item_use(&mut self, _: &'ast syn::ItemUse) {}

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path
            .segments
            .iter()
            .map(|segment| segment.ident.to_string())
            .collect();
        if path.leading_colon.is_none() {
            self.paths.push(segments);
        }
        syn::visit::visit_path(self, path);
    }
}

/// The strongly connected components of more than one file (Tarjan's algorithm).
fn cycles(nodes: usize, edges: &BTreeMap<(usize, usize), String>) -> Vec<Vec<usize>> {
    struct Tarjan<'a> {
        next: Vec<Vec<usize>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        found: &'a mut Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, node: usize) {
            self.index[node] = Some(self.counter);
            self.low[node] = self.counter;
            self.counter += 1;
            self.stack.push(node);
            self.on_stack[node] = true;
            for next in self.next[node].clone() {
                match self.index[next] {
                    None => {
                        self.visit(next);
                        self.low[node] = self.low[node].min(self.low[next]);
                    }
                    Some(index) if self.on_stack[next] => {
                        self.low[node] = self.low[node].min(index)
                    }
                    Some(_) => {}
                }
            }
            if Some(self.low[node]) == self.index[node] {
                let mut component = Vec::new();
                while let Some(member) = self.stack.pop() {
                    self.on_stack[member] = false;
                    component.push(member);
                    if member == node {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort_unstable();
                    self.found.push(component);
                }
            }
        }
    }
    let mut next = vec![Vec::new(); nodes];
    for &(from, to) in edges.keys() {
        next[from].push(to);
    }
    let mut found = Vec::new();
    let mut tarjan = Tarjan {
        next,
        index: vec![None; nodes],
        low: vec![0; nodes],
        on_stack: vec![false; nodes],
        stack: Vec::new(),
        counter: 0,
        found: &mut found,
    };
    for node in 0..nodes {
        if tarjan.index[node].is_none() {
            tarjan.visit(node);
        }
    }
    found
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

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
        depends("cache/l2.rs", "coordination/lease.rs"),
        "a use of an item is a dependency"
    );
    // `coordination/mod.rs` declares the lease module: not a dependency
    assert!(
        !depends("coordination/mod.rs", "coordination/lease.rs"),
        "a `mod` declaration is not a dependency"
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
