#!/usr/bin/env bash
# The dependency gate: `cargo deny check bans licenses sources advisories` (rules in deny.toml).
#
# cargo-deny comes from crates.io (`cargo install --locked`, pinned below) into .tools/, once. It is
# built unoptimised (--debug): 1 min 44 s on 2 cores against 7 min 50 s for a release build, which
# a fresh CI could not afford, while a check still takes about 5 s.
#
# The advisories come from the first of these that works:
#   1. a RustSec snapshot: $RUSTSEC_SNAPSHOT, or a folder shared/rustsec (holding README.md and
#      advisory-db/) in a parent folder of the checkout or, in a git worktree, of the main
#      checkout, nearest first. A snapshot is a copy of the database made where it can be
#      downloaded, for machines that cannot reach it; its README names the commit and its date.
#   2. the database itself, fetched (git, shallow) from $RUSTSEC_DB_URL (the RustSec repository by
#      default) within $RUSTSEC_FETCH_TIMEOUT seconds (30); a failed fetch falls back on the last
#      fetched copy, which deny.toml's staleness limit still judges.
#   3. none: outside CI a loud warning that the advisories were not checked, and the other checks
#      still run (exit 0 if they pass); under CI (CI set) a failure, after the other checks.
# cargo-deny reads a git repository at deny.toml's db-path, so a snapshot is made into one in
# target/ (dated at its commit date, so cargo-deny's staleness check sees the true age; writable,
# whatever the snapshot's modes), again only when the snapshot changes. Each run says how old the
# database is.
#
#   RUSTSEC_SNAPSHOT       the snapshot folder, instead of the search
#   RUSTSEC_SEARCH_FROM    the folder whose parents are searched for shared/rustsec, instead of the
#                          checkout's (tests point it at an empty folder)
#   RUSTSEC_DB_URL         where the database is fetched from when there is no snapshot
#   RUSTSEC_FETCH_TIMEOUT  seconds the fetch may take (30)
#   CARGO_DENY             a cargo-deny binary to use instead of the pinned install
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

# Prints the snapshot folder, or nothing when there is none.
find_snapshot() {
    if [[ -n ${RUSTSEC_SNAPSHOT:-} ]]; then
        if ! is_snapshot "$RUSTSEC_SNAPSHOT"; then
            echo "cargo-deny: RUSTSEC_SNAPSHOT=$RUSTSEC_SNAPSHOT holds no README.md and advisory-db/crates" >&2
            exit 1
        fi
        echo "$RUSTSEC_SNAPSHOT"
        return
    fi
    # The checkout's parents, then (in a git worktree) those of the main checkout.
    local roots=(.) common candidate
    if [[ -n ${RUSTSEC_SEARCH_FROM:-} ]]; then
        roots=("$RUSTSEC_SEARCH_FROM")
    else
        common=$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
        if [[ -n $common && -d $common/.. && $(cd "$common/.." && pwd -P) != "$(pwd -P)" ]]; then
            roots+=("$common/..")
        fi
    fi
    while read -r candidate; do
        if is_snapshot "$candidate"; then
            echo "$candidate"
            return
        fi
    done < <(for root in "${roots[@]}"; do candidates_above "$root"; done)
}

# The snapshot as the git repository cargo-deny reads, remade only when the snapshot changes.
use_snapshot() {
    local snapshot=$1 commit day age_days
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
}

# The database fetched from its repository; on failure the last fetched copy, if any. True when
# there is a database to check against.
use_fetched() {
    local url=${RUSTSEC_DB_URL:-https://github.com/rustsec/advisory-db} seconds=${RUSTSEC_FETCH_TIMEOUT:-30}
    local fresh="$db.fetching" day
    rm -rf "$fresh"
    mkdir -p "$(dirname "$db")"
    if timeout "$seconds" git -c advice.detachedHead=false clone -q --depth 1 "$url" "$fresh" 2>/dev/null; then
        if [[ -d $db ]]; then
            chmod -R u+w "$db"
        fi
        rm -rf "$db"
        mv "$fresh" "$db"
        echo "fetched $(git -C "$db" rev-parse HEAD)" >"$db/.snapshot"
    else
        rm -rf "$fresh"
        echo "cargo-deny: fetching the RustSec database from $url failed or took over ${seconds}s" >&2
        [[ $(cat "$db/.snapshot" 2>/dev/null) == fetched* ]] || return 1
        echo "cargo-deny: using the copy fetched earlier" >&2
    fi
    day=$(git -C "$db" log -1 --format=%cs)
    echo "cargo-deny: RustSec database $(cut -c9-20 "$db/.snapshot") of $day, fetched ($url)"
}

checks=(bans licenses sources advisories)
snapshot=$(find_snapshot)
if [[ -n $snapshot ]]; then
    use_snapshot "$snapshot"
elif ! use_fetched; then
    checks=(bans licenses sources)
    cat >&2 <<'WARN'
cargo-deny: WARNING: the RustSec advisories were NOT checked (no snapshot, and no fetch).
  Unchecked: known vulnerabilities, unmaintained and unsound crates, yanked versions.
  Put a snapshot at ../shared/rustsec (README.md naming its commit and date, and advisory-db/), set
  RUSTSEC_SNAPSHOT, or run where the advisory database can be fetched. Checking bans, licenses and
  sources only.
WARN
fi

# The crates of every platform (cargo-deny reads the whole graph offline); cached after the first.
${CARGO:-cargo} fetch --locked --quiet
"$deny" --offline --all-features --locked check "${checks[@]}"
if [[ ${checks[*]} != *advisories* && -n ${CI:-} ]]; then
    echo "cargo-deny: FAIL under CI: no RustSec snapshot found (shared/rustsec beside the checkout, or RUSTSEC_SNAPSHOT) and the database could not be fetched" >&2
    exit 1
fi
