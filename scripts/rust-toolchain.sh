#!/usr/bin/env bash
# Which toolchain cargo should run, read from rust-toolchain.toml, without changing rustup.
#
# rust-toolchain.toml pins the MSRV toolchain (e.g. 1.95.0), so every build proves it. This script
# only reads: it never installs, links or removes a toolchain.
#
#   - The pinned toolchain is installed: prints nothing; rustup picks it from the file.
#   - It is missing, and a stand-in is allowed (under CI, where rustup may have nothing to download
#     from, or with BFF_TOOLCHAIN_STAND_IN=1): prints the name of an installed *stable* toolchain of
#     that version or newer (the one of that version first, else the oldest newer one), for
#     RUSTUP_TOOLCHAIN. Its name ("stable-…" or "1.96.0-…") says what it is, so nothing on the
#     machine claims to be 1.95.0 when it is not; stderr says that the MSRV is not proven.
#   - It is missing otherwise: fails, printing the one command that installs it.
#
# scripts/cargo.sh runs cargo under what this prints; make and .ci/run go through it.
#
# Usage: bash scripts/rust-toolchain.sh [path/to/rust-toolchain.toml]
set -euo pipefail

file=${1:-"$(dirname "${BASH_SOURCE[0]}")/../rust-toolchain.toml"}
channel=$(sed -n 's/^[[:space:]]*channel[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' "$file" | head -n 1)
if [[ ! $channel =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    echo "rust-toolchain: $file must pin a release (channel = \"X.Y.Z\"), found \"$channel\"" >&2
    exit 1
fi
install="rustup toolchain install $channel --profile minimal -c rustfmt -c clippy"

# "rustc 1.95.0 (59807616e 2026-04-14)" -> 1.95.0; beta and nightly ("1.96.0-beta.3") -> empty.
stable_version_of() {
    "$@" --version 2>/dev/null | awk '$2 ~ /^[0-9]+\.[0-9]+\.[0-9]+$/ { print $2 }'
}

# True when version $1 >= version $2 (dotted numbers).
at_least() {
    [[ $(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1) == "$2" ]]
}

if ! command -v rustup >/dev/null 2>&1; then
    # No rustup: the toolchain file is not read; the rustc on PATH must be new enough.
    found=$(stable_version_of rustc)
    if [[ -n $found ]] && at_least "$found" "$channel"; then
        exit 0
    fi
    echo "rust-toolchain: rustc ${found:-(none)} on PATH; Rust $channel or newer (stable) is needed" >&2
    exit 1
fi

# Run outside the project: here the toolchain file would select the missing toolchain.
cd /
toolchains=$(rustup toolchain list 2>/dev/null | awk '$1 != "no" { print $1 }')
# "1.95.0-x86_64-unknown-linux-gnu" is the pinned release whatever the host.
if grep -qE "^${channel//./\\.}-" <<<"$toolchains"; then
    exit 0
fi

if [[ -z ${CI:-} && ${BFF_TOOLCHAIN_STAND_IN:-} != 1 ]]; then
    echo "rust-toolchain: Rust $channel (pinned in rust-toolchain.toml) is not installed. Install it with:" >&2
    echo "  $install" >&2
    echo "  (or BFF_TOOLCHAIN_STAND_IN=1 to build with an installed stable $channel or newer, without proving the MSRV)" >&2
    exit 1
fi

best="" best_version=""
while read -r name; do
    [[ -n $name ]] || continue
    version=$(stable_version_of env RUSTUP_TOOLCHAIN="$name" rustc)
    [[ -n $version ]] && at_least "$version" "$channel" || continue
    if [[ -z $best ]] || { at_least "$best_version" "$version" && [[ $best_version != "$version" ]]; }; then
        best=$name best_version=$version
    fi
done <<<"$toolchains"

if [[ -z $best ]]; then
    echo "rust-toolchain: Rust $channel is not installed and no installed stable toolchain is $channel or newer" >&2
    echo "  installed: $(tr '\n' ' ' <<<"$toolchains")" >&2
    echo "  install it with: $install" >&2
    exit 1
fi
echo "rust-toolchain: $channel is not installed; standing in: $best (rustc $best_version), so the MSRV is not proven here" >&2
echo "$best"
