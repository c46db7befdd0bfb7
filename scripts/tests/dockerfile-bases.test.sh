#!/usr/bin/env bash
# scripts/check-dockerfile-bases.sh passes the Dockerfile and fails each way it can be broken: a
# FROM by tag only, the Debian 12 runtime, a bookworm builder, a Rust other than the pinned one,
# no cargo auditable, a version label other than bff/Cargo.toml's.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
check="$root/scripts/check-dockerfile-bases.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

bash "$check" "$root/Dockerfile" >/dev/null || { echo "dockerfile-bases.test: FAIL the Dockerfile itself fails the check" >&2; exit 1; }

failures=0
# broken NAME SED-EXPRESSION EXPECTED-MESSAGE
broken() {
    local name=$1 expression=$2 expected=$3 output
    sed -E "$expression" "$root/Dockerfile" >"$scratch/$name"
    if cmp -s "$scratch/$name" "$root/Dockerfile"; then
        echo "dockerfile-bases.test: FAIL $name: the edit changed nothing" >&2
        failures=$((failures + 1))
    elif output=$(bash "$check" "$scratch/$name" 2>&1); then
        echo "dockerfile-bases.test: FAIL $name passed the check" >&2
        failures=$((failures + 1))
    elif ! grep -qF -- "$expected" <<<"$output"; then
        echo "dockerfile-bases.test: FAIL $name: expected '$expected' in: $output" >&2
        failures=$((failures + 1))
    fi
}
broken tag-only 's/^(FROM node:[^@]+)@sha256:[0-9a-f]+/\1/' "is not pinned by digest"
broken debian12 's#^FROM gcr.io/distroless/cc-debian13:nonroot#FROM gcr.io/distroless/cc-debian12:nonroot#' "not gcr.io/distroless/cc-debian13:nonroot"
broken bookworm 's/^FROM rust:([0-9.]+)-trixie/FROM rust:\1-bookworm/' "is not on Debian trixie"
broken other-rust 's/^FROM rust:[0-9.]+-trixie/FROM rust:1.99.0-trixie/' "is not rust:"
broken no-auditable 's/cargo auditable build/cargo build/' "not built with cargo auditable"
broken version 's/image.version="[^"]*"/image.version="9.9.9"/' "OCI version label"
if ((failures > 0)); then
    exit 1
fi
echo "dockerfile-bases.test: ok: the Dockerfile passes, 6 broken variants fail"
