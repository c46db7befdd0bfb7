#!/usr/bin/env bash
# The Dockerfile's bases and provenance, beyond what hadolint checks:
#   - every FROM names an image by the digest of its index (name:tag@sha256:<64 hex>), or an
#     earlier stage;
#   - the runtime stage is distroless cc on Debian 13 (nonroot), the builders are on trixie;
#   - the rust builder is the toolchain pinned in rust-toolchain.toml, and RUSTUP_TOOLCHAIN says so;
#   - the production binary is built with cargo auditable (its dependency list inside);
#   - the OCI version label is bff/Cargo.toml's version.
# Part of `make test-docker` (scripts/lint-dockerfile.sh); scripts/tests/dockerfile-bases.test.sh
# feeds it broken Dockerfiles.
#
# Usage: bash scripts/check-dockerfile-bases.sh [Dockerfile]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
file=${1:-$root/Dockerfile}

failures=()
fail() { failures+=("$*"); }

stages=()
runtime=""
while read -r _ image as stage; do
    image=${image#--platform=*}
    if [[ " ${stages[*]} " == *" $image "* ]]; then
        :
    elif [[ ! $image =~ ^[a-z0-9./_-]+(:[A-Za-z0-9._-]+)?@sha256:[0-9a-f]{64}$ ]]; then
        fail "FROM $image is not pinned by digest (name:tag@sha256:<64 hex>)"
    fi
    if [[ ${as,,} == as && -n $stage ]]; then
        stages+=("$stage")
    fi
    runtime=$image
    case $image in
        rust:* | node:*) [[ ${image%%@*} == *-trixie* ]] || fail "builder $image is not on Debian trixie" ;;
    esac
done < <(grep -iE '^FROM[[:space:]]' "$file" | sed -E 's/^FROM[[:space:]]+(--platform=[^[:space:]]+[[:space:]]+)?/FROM /I')

[[ ${runtime%%@*} == gcr.io/distroless/cc-debian13:nonroot ]] ||
    fail "the runtime stage is ${runtime%%@*}, not gcr.io/distroless/cc-debian13:nonroot"

channel=$(sed -n 's/^channel = "\(.*\)"/\1/p' "$root/rust-toolchain.toml")
grep -qE "^FROM rust:${channel//./\\.}-trixie@" "$file" || fail "the rust builder is not rust:$channel-trixie (rust-toolchain.toml)"
grep -qE "^ENV RUSTUP_TOOLCHAIN=${channel//./\\.}$" "$file" || fail "the build stage does not set RUSTUP_TOOLCHAIN=$channel"
grep -qE "cargo auditable build .*-p bff" "$file" || fail "the production binary is not built with cargo auditable"

version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/bff/Cargo.toml" | head -n 1)
grep -qF "org.opencontainers.image.version=\"$version\"" "$file" ||
    fail "the OCI version label is not bff/Cargo.toml's $version"
for label in source revision; do
    grep -qF "org.opencontainers.image.$label=" "$file" || fail "no org.opencontainers.image.$label label"
done

if ((${#failures[@]} > 0)); then
    printf 'check-dockerfile-bases: FAIL %s\n' "${failures[@]}" >&2
    exit 1
fi
echo "check-dockerfile-bases: ok: every FROM by digest, runtime cc-debian13:nonroot, trixie builders, Rust $channel, cargo auditable, version $version"
