#!/usr/bin/env bash
# The dependency gate: `cargo deny check bans licenses sources advisories` (rules in deny.toml).
#
# cargo-deny comes from crates.io (`cargo install --locked`, pinned below) into .tools/, once. It is
# built unoptimised (--debug): 1 min 44 s on 2 cores against 7 min 50 s for a release build, which
# a fresh CI could not afford, while a check still takes about 5 s. The advisories are checked
# offline, against the RustSec snapshot that is refreshed from outside (shared/rustsec, README.md
# there), which lies beside the checkout: ../shared/rustsec from the repository (CI's fresh clone
# has a read-only copy of shared/ next to it), or beside the main checkout of a git worktree. It is
# looked for in the checkout's parent folders and in those of the main checkout, nearest first.
# cargo-deny reads a git repository, so one is made from the snapshot's files in target/ (dated
# at the snapshot's commit date, so its staleness check sees the true age; writable, whatever the
# snapshot's modes), again only when the snapshot changes. Each run says how old the snapshot is.
#
#   RUSTSEC_SNAPSHOT   the snapshot folder (holding README.md and advisory-db/), instead of the search
#   CARGO_DENY         a cargo-deny binary to use instead of the pinned install
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

readonly version=0.20.2
# cargo-deny looks for the database of its default URL (github.com/rustsec/advisory-db) in
# <db-path>/advisory-db-<hash of that URL>; db-path is target/rustsec in deny.toml.
readonly db="target/rustsec/advisory-db-3157b0e258782691"

deny=${CARGO_DENY:-.tools/cargo-deny-$version/bin/cargo-deny}
if [[ -z ${CARGO_DENY:-} ]] && ! "$deny" --version 2>/dev/null | grep -qxF "cargo-deny $version"; then
    echo "cargo-deny: installing $version from crates.io into .tools/ (once)" >&2
    ${CARGO:-cargo} install --locked --quiet --debug --version "$version" \
        --root ".tools/cargo-deny-$version" cargo-deny
fi

is_snapshot() { [[ -f $1/README.md && -d $1/advisory-db/crates ]]; }

# shared/rustsec in each parent folder of $1, nearest first.
candidates_above() {
    local dir
    dir=$(cd "$1" && pwd -P)
    while [[ $dir != / ]]; do
        dir=$(dirname "$dir")
        echo "${dir%/}/shared/rustsec"
    done
}

if [[ -n ${RUSTSEC_SNAPSHOT:-} ]]; then
    snapshot=$RUSTSEC_SNAPSHOT
    if ! is_snapshot "$snapshot"; then
        echo "cargo-deny: RUSTSEC_SNAPSHOT=$snapshot holds no README.md and advisory-db/crates" >&2
        exit 1
    fi
else
    searched=()
    # The checkout's parents, then (in a git worktree) those of the main checkout.
    roots=(.)
    common=$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
    if [[ -n $common && -d $common/.. && $(cd "$common/.." && pwd -P) != "$(pwd -P)" ]]; then
        roots+=("$common/..")
    fi
    snapshot=""
    while read -r candidate; do
        searched+=("$candidate")
        if is_snapshot "$candidate"; then
            snapshot=$candidate
            break
        fi
    done < <(for root in "${roots[@]}"; do candidates_above "$root"; done)
    if [[ -z $snapshot ]]; then
        echo "cargo-deny: no RustSec snapshot (README.md and advisory-db/crates) found; looked in:" >&2
        printf '  %s\n' "${searched[@]}" >&2
        echo "  set RUSTSEC_SNAPSHOT to the folder (see shared/rustsec/README.md for how it is made)" >&2
        exit 1
    fi
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
    # The copy is ours to write (git init, later replacement) even when the snapshot's files are
    # read-only, as CI's copy of shared/ is.
    if [[ -d $db ]]; then
        chmod -R u+w "$db"
    fi
    rm -rf "$db"
    mkdir -p "$db"
    cp -R --no-preserve=mode,ownership "$snapshot/advisory-db/." "$db/"
    chmod -R u+w "$db"
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
