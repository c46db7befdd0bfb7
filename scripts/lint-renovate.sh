#!/usr/bin/env bash
# Renovate's own config validator (renovate-config-validator --strict) on renovate.json: unknown
# options, bad values, and config that needs migrating all fail. `make lint-renovate`, outside
# `make test`: its first run installs the npm package `renovate` (about 620 packages, 30 s to a
# few minutes) into .tools/renovate-<version>/ with the pinned Node; later runs take about 1 s and
# need no network. Install scripts are skipped: re2's native build is optional, and without it
# Renovate warns "RE2 not usable" and validates with JavaScript's RegExp.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/node.sh
. "$ROOT/scripts/lib/node.sh"
node_use

RENOVATE_VERSION=44.121.2
dir="$NODE_TOOLS/renovate-$RENOVATE_VERSION"
validator="$dir/node_modules/.bin/renovate-config-validator"
if [[ ! -x "$validator" ]]; then
    echo "lint-renovate: installing renovate@$RENOVATE_VERSION into $dir (once)" >&2
    mkdir -p "$NODE_TOOLS"
    tmp="$(mktemp -d "$NODE_TOOLS/renovate-install.XXXXXX")"
    trap 'rm -rf "$tmp"' EXIT
    npm install --prefix "$tmp" --no-audit --no-fund --ignore-scripts --loglevel=error \
        "renovate@$RENOVATE_VERSION" >&2
    rm -rf "$dir"
    mv "$tmp" "$dir"
    trap - EXIT
fi
cd "$ROOT"
"$validator" --strict
