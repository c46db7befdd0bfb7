#!/usr/bin/env bash
# The pin checks can fail: scripts/check-node-pins.sh and scripts/check-renovate-groups.mjs run on
# a scratch copy of the files they read, first as they are (must pass), then with one planted
# mismatch at a time (each must fail, naming it). The copy's Dockerfile is a node stage in the
# form the project's Dockerfile uses (node:<major>-trixie-slim@sha256:<digest>), so this proves
# the checks whatever the real Dockerfile holds. Part of `make test-web` (a few seconds; no
# network: the pinned Node is already installed).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/node.sh
. "$ROOT/scripts/lib/node.sh"
node_use
export TOOLS_DIR="$NODE_TOOLS"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
copy="$scratch/repo"
digest="sha256:$(printf '0%.0s' {1..64})"
fresh() {
    rm -rf "$copy"
    mkdir -p "$copy/scripts/lib" "$copy/web" "$copy/bff/tests/it"
    cp "$ROOT/scripts/check-node-pins.sh" "$ROOT/scripts/check-renovate-groups.mjs" "$copy/scripts/"
    cp "$ROOT/scripts/lib/node.sh" "$copy/scripts/lib/"
    cp "$ROOT/.nvmrc" "$ROOT/renovate.json" "$ROOT/rust-toolchain.toml" "$ROOT/Cargo.toml" "$copy/"
    cp "$ROOT/web/package.json" "$ROOT/web/package-lock.json" "$copy/web/"
    cp "$ROOT/bff/tests/it/msrv.rs" "$copy/bff/tests/it/"
    printf 'FROM node:%s-trixie-slim@%s AS web\nFROM rust:%s-trixie AS build\n' \
        "${NODE_VERSION%%.*}" "$digest" "$(sed -n 's/^channel = "\(.*\)"/\1/p' "$ROOT/rust-toolchain.toml")" \
        >"$copy/Dockerfile"
}
checks() {
    bash "$copy/scripts/check-node-pins.sh" && node "$copy/scripts/check-renovate-groups.mjs" "$copy"
}

failed=0
fresh
if ! out="$(checks 2>&1)"; then
    echo "test-pin-checks: FAIL the unchanged copy does not pass:" >&2
    echo "$out" >&2
    exit 1
fi

# expect_failure NAME EXPECTED-MESSAGE COMMAND...: COMMAND plants a mismatch in a fresh copy.
expect_failure() {
    local name=$1 expected=$2
    shift 2
    fresh
    (cd "$copy" && "$@")
    if out="$(checks 2>&1)"; then
        echo "test-pin-checks: FAIL $name: the checks passed" >&2
        failed=1
    elif [[ "$out" != *"$expected"* ]]; then
        echo "test-pin-checks: FAIL $name: the checks failed without saying \"$expected\":" >&2
        echo "$out" >&2
        failed=1
    else
        echo "test-pin-checks: ok: $name fails"
    fi
}
major=${NODE_VERSION%%.*}
expect_failure ".nvmrc on another version" ".nvmrc says $major.99.0" \
    sh -c "echo $major.99.0 >.nvmrc"
expect_failure "engines admitting an untested older major" "which the web is not tested on" \
    sed -i "s/\"node\": \"[^\"]*\"/\"node\": \"^$((major - 2)).0.0 || ^$NODE_VERSION\"/" web/package.json web/package-lock.json
expect_failure "engines open upwards" "admits Node $((major + 1))" \
    sed -i "s/\"node\": \"[^\"]*\"/\"node\": \">=$NODE_VERSION\"/" web/package.json web/package-lock.json
expect_failure "the lockfile's engines behind" "web/package-lock.json engines differ" \
    sed -i "s/\"node\": \"[^\"]*\"/\"node\": \"^$major.0.0\"/" web/package-lock.json
expect_failure "packageManager on another npm" "packageManager is npm@99.0.0" \
    sed -i "s/\"packageManager\": \"[^\"]*\"/\"packageManager\": \"npm@99.0.0\"/" web/package.json
expect_failure "the Dockerfile's node image on another major" "is not on Node $major" \
    sed -i "s/^FROM node:$major-/FROM node:$((major - 2))-/" Dockerfile
expect_failure "a malformed digest" "has a malformed digest" \
    sed -i 's/@sha256:0/@sha256:Z/' Dockerfile
expect_failure ".nvmrc out of the Node group" ".nvmrc node -> (no group)" \
    sed -i 's/"scripts\/lib\/node.sh", ".nvmrc", /"scripts\/lib\/node.sh", /' renovate.json
expect_failure "NODE_VERSION no longer in the form Renovate reads" "matchStrings find no currentValue" \
    sed -i 's/^NODE_VERSION=\(.*\)$/NODE_VERSION="\1"/' scripts/lib/node.sh
expect_failure "rust-toolchain.toml out of the Rust group" "rust-toolchain.toml rust -> (no group)" \
    sed -i 's/\["rust-toolchain.toml", "Cargo.toml", "Dockerfile"\]/["Cargo.toml", "Dockerfile"]/' renovate.json
exit "$failed"
