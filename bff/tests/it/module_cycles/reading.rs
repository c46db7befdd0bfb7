//! Reading `bff/src` with `syn`: its modules, the items each defines, its `use` bindings, and where
//! a path written in a module leads.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A module of the crate: a file, or an inline `mod name { … }` inside one.
pub struct Module {
    /// `crate::a::b`, without `crate`.
    pub path: Vec<String>,
    pub file: usize,
    pub parent: Option<usize>,
    pub children: HashMap<String, usize>,
    /// The names of the items it defines (not modules).
    pub items: BTreeSet<String>,
    /// `use` bindings: the name in scope, the path it stands for, and whether it is a re-export.
    pub uses: Vec<(String, Vec<String>, bool)>,
    /// The paths of its glob imports (`use a::b::*`).
    pub globs: Vec<Vec<String>>,
    /// The paths named in its code (not in its `use` items, not in its child modules).
    pub paths: Vec<Vec<String>>,
}

/// Where a path leads.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Target {
    Module(usize),
    /// An item, by the file that defines it.
    Item(usize),
}

pub struct Crate {
    /// The `src` folder read.
    pub root: PathBuf,
    pub files: Vec<PathBuf>,
    pub modules: Vec<Module>,
}

impl Crate {
    pub fn read(src: &Path) -> Self {
        let mut krate = Crate {
            root: src.to_owned(),
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
    pub fn resolve(&self, from: usize, path: &[String], depth: usize) -> Option<Target> {
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

    /// The modules a path written in module `from` goes through, as a reader follows it: each
    /// segment that names a module, and the module whose item the path ends on. A re-export is
    /// read where it is written: `cache::FetchFailure` goes through `cache`, whatever file
    /// `cache` re-exports it from (that `pub use` line is a path of `cache` of its own). A path
    /// that starts with a name imported by `use` goes through nothing here: the `use` line does.
    pub fn trail(&self, from: usize, path: &[String]) -> Vec<usize> {
        let mut trail = Vec::new();
        let Some(first) = path.first() else {
            return trail;
        };
        let mut module = match first.as_str() {
            "crate" => 0,
            "self" => from,
            "super" => match self.modules[from].parent {
                Some(parent) => parent,
                None => return trail,
            },
            // a child module, or a module this one imports by name (`use crate::cache;`)
            name => match self.lookup(from, name, 0) {
                Some(Target::Module(module)) => module,
                _ => return trail,
            },
        };
        trail.push(module);
        for segment in &path[1..] {
            module = match segment.as_str() {
                "super" => match self.modules[module].parent {
                    Some(parent) => parent,
                    None => break,
                },
                "self" => module,
                name => match self.modules[module].children.get(name) {
                    Some(&child) => child,
                    // an item of `module`, or a name it imports: the path ends there
                    None => break,
                },
            };
            trail.push(module);
        }
        trail
    }

    /// Every path a module names, re-exports included, with the module's index.
    pub fn all_paths(&self) -> impl Iterator<Item = (usize, &Vec<String>)> {
        self.modules.iter().enumerate().flat_map(|(index, module)| {
            module
                .uses
                .iter()
                .map(|(_, path, _)| path)
                .chain(&module.paths)
                .chain(&module.globs)
                .map(move |path| (index, path))
        })
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
    pub fn relative(&self, file: usize) -> String {
        self.files[file]
            .strip_prefix(&self.root)
            .unwrap()
            .display()
            .to_string()
    }

    /// Every path a module names (its own imports, not re-exports, and the paths of its code),
    /// with the module's index.
    pub fn named_paths(&self) -> impl Iterator<Item = (usize, &Vec<String>)> {
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
    pub fn dependencies(&self) -> BTreeMap<(usize, usize), String> {
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

    pub fn name(&self, module: usize) -> String {
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
