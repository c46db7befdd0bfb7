#!/usr/bin/env bash
# The dependency gate: `cargo deny check bans licenses sources advisories` (rules in deny.toml).
#
# cargo-deny comes from crates.io (`cargo install --locked`, pinned below) into .tools/, once:
# about 4 min of compiling on 2 cores the first time, then reused. The advisories are checked
# offline, against the RustSec snapshot that is refreshed from outside (../shared/rustsec,
# README.md there): cargo-deny reads a git repository, so one is made from the snapshot's files in
# target/ (dated at the snapshot's commit date, so its staleness check sees the true age), again
# only when the snapshot changes. Each run says how old the snapshot is.
#
#   RUSTSEC_SNAPSHOT   the snapshot folder (default ../shared/rustsec, next to the repository)
#   CARGO_DENY         a cargo-deny binary to use instead of the pinned install
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

readonly version=0.20.2
snapshot=${RUSTSEC_SNAPSHOT:-../shared/rustsec}
# cargo-deny looks for the database of its default URL (github.com/rustsec/advisory-db) in
# <db-path>/advisory-db-<hash of that URL>; db-path is target/rustsec in deny.toml.
readonly db="target/rustsec/advisory-db-3157b0e258782691"

deny=${CARGO_DENY:-.tools/cargo-deny-$version/bin/cargo-deny}
if [[ -z ${CARGO_DENY:-} ]] && ! "$deny" --version 2>/dev/null | grep -qxF "cargo-deny $version"; then
    echo "cargo-deny: installing $version from crates.io into .tools/ (once)" >&2
    ${CARGO:-cargo} install --locked --quiet --version "$version" \
        --root ".tools/cargo-deny-$version" cargo-deny
fi

if [[ ! -f $snapshot/README.md || ! -d $snapshot/advisory-db/crates ]]; then
    echo "cargo-deny: no RustSec snapshot at $snapshot (set RUSTSEC_SNAPSHOT)" >&2
    exit 1
fi
# "at commit <sha> (YYYY-MM-DD)" in the snapshot's README.
commit=$(grep -oE 'commit [0-9a-f]{40}' "$snapshot/README.md" | head -n 1 | cut -d' ' -f2)
day=$(grep -oE 'commit [0-9a-f]{40} \([0-9]{4}-[0-9]{2}-[0-9]{2}\)' "$snapshot/README.md" \
    | head -n 1 | grep -oE '[0-9]{4}-[0-9]{2}-[0-9]{2}')
if [[ -z $commit || -z $day ]]; then
    echo "cargo-deny: $snapshot/README.md does not name the snapshot's commit and date" >&2
    exit 1
fi
age_days=$((($(date -u +%s) - $(date -u -d "$day" +%s)) / 86400))
echo "cargo-deny: RustSec snapshot ${commit:0:12} of $day, $age_days days old ($snapshot)"

if [[ $(cat "$db/.snapshot" 2>/dev/null) != "$commit" ]]; then
    rm -rf "$db"
    mkdir -p "$db"
    cp -a "$snapshot/advisory-db/." "$db/"
    (
        cd "$db"
        export GIT_AUTHOR_DATE="${day}T00:00:00Z" GIT_COMMITTER_DATE="${day}T00:00:00Z"
        git init -q -b main
        git add -A
        git -c user.name=rustsec-snapshot -c user.email=snapshot@localhost \
            commit -q -m "RustSec advisory-db $commit"
        # The staleness check reads HEAD's mtime too: the snapshot's date, not the copy's.
        touch -d "${day}T00:00:00Z" .git/HEAD
    )
    echo "$commit" >"$db/.snapshot"
fi

# The crates of every platform (cargo-deny reads the whole graph offline); cached after the first.
${CARGO:-cargo} fetch --locked --quiet
"$deny" --offline --all-features --locked check bans licenses sources advisories
