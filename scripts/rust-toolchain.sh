#!/usr/bin/env bash
# Makes the toolchain pinned in rust-toolchain.toml usable without a download.
#
# rust-toolchain.toml names the MSRV toolchain (e.g. 1.95.0). On a machine where rustup cannot
# download (CI here reaches only package registries), a missing pinned toolchain would stop every
# cargo command. When it is missing, an installed *stable* toolchain of that version or newer is
# linked under the pinned name (the one of the same version first, else the oldest newer one).
# rustup refuses `rustup toolchain link` for names that look like release channels, so the link
# is made the way that command makes it: a symlink in $RUSTUP_HOME/toolchains. Nothing is
# downloaded; with no suitable toolchain this fails naming what is needed.
#
# Usage: bash scripts/rust-toolchain.sh [path/to/rust-toolchain.toml]
set -euo pipefail

file=${1:-"$(dirname "${BASH_SOURCE[0]}")/../rust-toolchain.toml"}
channel=$(sed -n 's/^[[:space:]]*channel[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' "$file" | head -n 1)
if [[ ! $channel =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    echo "rust-toolchain: $file must pin a release (channel = \"X.Y.Z\"), found \"$channel\"" >&2
    exit 1
fi

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
toolchains=$(rustup toolchain list | awk '{ print $1 }')
host=$(RUSTUP_TOOLCHAIN=$(head -n 1 <<<"$toolchains") rustc -vV 2>/dev/null | sed -n 's/^host: //p')
pinned="$channel-${host:?rust-toolchain: no installed toolchain answers rustc -vV}"
if grep -qxF "$pinned" <<<"$toolchains"; then
    exit 0
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
    echo "rust-toolchain: $pinned is not installed and no installed stable toolchain is $channel or newer" >&2
    echo "  installed: $(tr '\n' ' ' <<<"$toolchains")" >&2
    echo "  with network: rustup toolchain install $channel --profile minimal -c rustfmt -c clippy" >&2
    exit 1
fi

sysroot=$(RUSTUP_TOOLCHAIN=$best rustc --print sysroot)
ln -sfn "$sysroot" "$(rustup show home)/toolchains/$pinned"
echo "rust-toolchain: linked $pinned -> $best (rustc $best_version; no download)" >&2
