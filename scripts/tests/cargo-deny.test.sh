#!/usr/bin/env bash
# The dependency gate on a plain clone: with no RustSec snapshot to be found and the advisory
# database not fetchable, scripts/cargo-deny.sh warns that the advisories were not checked and
# passes on the other checks, within 60 s; under CI it fails, naming the missing snapshot.
# Runs on a copy of the checkout's files (no target/, so no database from an earlier run), with
# the snapshot search pointed at an empty folder and the fetch at a closed port.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
version=$(sed -n 's/^readonly version=//p' "$root/scripts/cargo-deny.sh")
deny=${CARGO_DENY:-$root/.tools/cargo-deny-$version/bin/cargo-deny}
"$deny" --version >/dev/null 2>&1 || { echo "cargo-deny.test: run scripts/cargo-deny.sh first (it installs $deny)" >&2; exit 1; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/empty" "$scratch/clone"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar --ignore-failed-read -cf - 2>/dev/null) |
    tar -xf - -C "$scratch/clone"
(cd "$scratch/clone" && git init -q)
closed_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

run() {
    env -u RUSTSEC_SNAPSHOT CARGO_DENY="$deny" RUSTSEC_SEARCH_FROM="$scratch/empty" \
        RUSTSEC_DB_URL="http://127.0.0.1:$closed_port/advisory-db" RUSTSEC_FETCH_TIMEOUT=20 \
        "$@" bash "$scratch/clone/scripts/cargo-deny.sh" 2>&1
}

failures=0
fail() { echo "cargo-deny.test: FAIL $*" >&2; failures=$((failures + 1)); }

start=$SECONDS
if output=$(run env -u CI); then
    elapsed=$((SECONDS - start))
    ((elapsed <= 60)) || fail "outside CI it took ${elapsed}s (over 60 s)"
    grep -q "advisories .*were NOT checked" <<<"$output" || fail "outside CI, no warning naming the unchecked advisories:"$'\n'"$output"
    grep -qE "(bans|licenses|sources) ok" <<<"$output" || fail "outside CI the other checks did not run:"$'\n'"$output"
else
    fail "outside CI it exited non-zero:"$'\n'"$output"
fi

if output=$(run env CI=true); then
    fail "under CI it exited 0 without a snapshot:"$'\n'"$output"
fi
grep -q "FAIL under CI: no RustSec snapshot found" <<<"$output" || fail "under CI the failure does not name the missing snapshot:"$'\n'"$output"

if ((failures > 0)); then
    exit 1
fi
echo "cargo-deny.test: ok: no snapshot and no fetch warn outside CI (${elapsed}s, exit 0) and fail under CI"
