//! The commit the binary is built from, for `bff --version` and the `bff_build_info` metric:
//! `BFF_GIT_COMMIT` when the build sets it (the Dockerfile's build argument: its context has no
//! `.git`), else what git says of the checkout, else nothing (the code says "unknown").

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let text = text.trim();
    (output.status.success() && !text.is_empty()).then(|| text.to_owned())
}

fn main() {
    println!("cargo::rerun-if-env-changed=BFF_GIT_COMMIT");
    if std::env::var("BFF_GIT_COMMIT").is_ok_and(|commit| !commit.is_empty()) {
        return;
    }
    let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]) else {
        return;
    };
    println!("cargo::rustc-env=BFF_GIT_COMMIT={commit}");
    // Rebuilt when HEAD moves: HEAD itself, the branch it names, and packed refs. Only files that
    // exist (a missing one would make cargo rerun this script on every build).
    let mut watched = vec![git(&["rev-parse", "--git-path", "HEAD"])];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(git(&["rev-parse", "--git-path", &branch]));
    }
    watched.push(git(&["rev-parse", "--git-path", "packed-refs"]));
    for path in watched.into_iter().flatten() {
        if Path::new(&path).exists() {
            println!("cargo::rerun-if-changed={path}");
        }
    }
}
