#!/usr/bin/env bash
# cargo under the toolchain that scripts/rust-toolchain.sh names: the pinned one when it is
# installed, else (only under CI or with BFF_TOOLCHAIN_STAND_IN=1) a stand-in through
# RUSTUP_TOOLCHAIN, which writes nothing into rustup. Every cargo command of make goes through here
# (the Makefile's CARGO), so a missing toolchain stops the first one with the command to install it.
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# An explicit RUSTUP_TOOLCHAIN is the caller's choice (rustup's own precedence); keep it.
if [[ -z ${RUSTUP_TOOLCHAIN:-} ]]; then
    toolchain=$(bash "$here/rust-toolchain.sh")
    if [[ -n $toolchain ]]; then
        export RUSTUP_TOOLCHAIN=$toolchain
    fi
fi
exec cargo "$@"
