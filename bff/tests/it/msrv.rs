//! The declared MSRV stays true: the workspace's `rust-version` is exactly the highest
//! `rust-version` among the crates the workspace members build with (normal and build
//! dependencies, followed through the whole graph, for the Linux target), and the toolchain pinned
//! in rust-toolchain.toml is that version, so every build here proves it.
//!
//! Higher than needed and a lock update could take newer crates (resolver 3 follows the MSRV) that
//! nothing checks; lower and the declared MSRV is false. Bumping a dependency that needs a newer
//! Rust fails here until `rust-version` and rust-toolchain.toml move with it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

type Version = (u64, u64, u64);

/// "1.95" or "1.88.0" -> (1, 95, 0).
fn parse(version: &str) -> Version {
    let mut parts = version.split('.').map(|part| {
        part.parse::<u64>()
            .unwrap_or_else(|_| panic!("not a Rust version: {version:?}"))
    });
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    let patch = parts.next().unwrap_or(0);
    (major, minor, patch)
}

fn metadata(workspace: &Path) -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(workspace)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--filter-platform",
            "x86_64-unknown-linux-gnu",
            "--locked",
            "--offline",
        ])
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON")
}

/// Whether a resolved dependency edge is a normal or build one (dev edges are not followed).
fn builds_with(edge: &Value) -> bool {
    edge["dep_kinds"].as_array().is_some_and(|kinds| {
        kinds
            .iter()
            .any(|kind| kind["kind"].is_null() || kind["kind"] == "build")
    })
}

#[test]
fn rust_version_is_the_highest_a_dependency_needs_and_the_pinned_toolchain() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let metadata = metadata(&workspace);

    let packages: HashMap<&str, &Value> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|package| (package["id"].as_str().unwrap(), package))
        .collect();
    let nodes: HashMap<&str, &Value> = metadata["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| (node["id"].as_str().unwrap(), node))
        .collect();
    let members: HashSet<&str> = metadata["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap())
        .collect();

    // Every member declares the same rust-version (the workspace's).
    let declared: BTreeSet<&str> = members
        .iter()
        .map(|id| {
            packages[id]["rust_version"]
                .as_str()
                .unwrap_or_else(|| panic!("{id} declares no rust-version"))
        })
        .collect();
    assert_eq!(declared.len(), 1, "members disagree: {declared:?}");
    let declared = *declared.iter().next().unwrap();

    // Everything the members build with, through the whole graph.
    let mut reached: HashSet<&str> = HashSet::new();
    let mut pending: Vec<&str> = members.iter().copied().collect();
    while let Some(id) = pending.pop() {
        for edge in nodes[id]["deps"].as_array().unwrap() {
            let dependency = edge["pkg"].as_str().unwrap();
            if builds_with(edge) && reached.insert(dependency) {
                pending.push(dependency);
            }
        }
    }
    let needs: Vec<(Version, String)> = reached
        .iter()
        .filter(|id| !members.contains(*id))
        .filter_map(|id| {
            let package = packages[id];
            let version = package["rust_version"].as_str()?;
            Some((
                parse(version),
                format!(
                    "{} {} ({version})",
                    package["name"].as_str().unwrap_or("?"),
                    package["version"].as_str().unwrap_or("?")
                ),
            ))
        })
        .collect();
    assert!(
        needs.len() > 100,
        "expected the dependency graph, got {} crates with a rust-version",
        needs.len()
    );
    let highest = needs.iter().map(|(version, _)| *version).max().unwrap();
    let culprits: Vec<&String> = needs
        .iter()
        .filter(|(version, _)| *version == highest)
        .map(|(_, name)| name)
        .collect();
    assert_eq!(
        parse(declared),
        highest,
        "rust-version = {declared:?} in Cargo.toml, but the lock's highest need is {culprits:?}"
    );

    // The pinned toolchain is the MSRV itself.
    let toolchain: toml::Table =
        toml::from_str(&std::fs::read_to_string(workspace.join("rust-toolchain.toml")).unwrap())
            .unwrap();
    let channel = toolchain["toolchain"]["channel"].as_str().unwrap();
    assert_eq!(
        parse(channel),
        parse(declared),
        "rust-toolchain.toml pins {channel}, the MSRV is {declared}"
    );
}
