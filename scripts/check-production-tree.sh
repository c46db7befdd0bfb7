#!/usr/bin/env bash
# The production build (`-p bff --no-default-features`, as the Dockerfile builds it) holds none of
# the sandbox's crates nor aws-lc. Asserts on what `cargo tree -i` prints, not on its exit code
# (it exits 0 either way): a crate that is in the graph is printed as the tree's root line.
# The same query with default features must find rusqlite, so the check cannot pass vacuously.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo=${CARGO:-cargo}

tree() { "$cargo" tree --locked -p bff -e normal --prefix none "$@" 2>&1; }

if ! tree -i rusqlite | grep -q '^rusqlite v'; then
    echo "production-tree: the default build should contain rusqlite; the query is broken" >&2
    exit 1
fi
failed=0
for crate in sandbox rusqlite libsqlite3-sys argon2 jsonwebtoken aws-lc-sys aws-lc-rs; do
    output=$(tree --no-default-features -i "$crate")
    if grep -q "^$crate v" <<<"$output"; then
        echo "production-tree: $crate is in the --no-default-features build:" >&2
        echo "$output" >&2
        failed=1
    fi
done
if ((failed)); then
    exit 1
fi
echo "production-tree: ok: no sandbox, SQLite, argon2, jsonwebtoken or aws-lc in the production build"
