#!/usr/bin/env bash
# make leaves the user's rustup alone: with RUSTUP_HOME pointed at a scratch rustup that holds only
# a newer stable toolchain (not the pinned one), `make help` and `make -n run` leave its
# toolchains/ folder as it was; cargo (scripts/cargo.sh) stops with the command that installs the
# pinned release, and under CI it runs the stand-in through RUSTUP_TOOLCHAIN, still writing nothing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
command -v rustup >/dev/null || { echo "rust-toolchain.test: SKIP: no rustup on this machine"; exit 0; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
host=$(rustc -vV | sed -n 's/^host: //p')
stable="stable-$host"
# A stable toolchain newer than any pin: rustup runs its bin/ programs, which answer as Rust 1.999.0.
mkdir -p "$scratch/rustup/toolchains/$stable/bin" "$scratch/rustup/toolchains/$stable/lib/rustlib"
for tool in rustc cargo; do
    cat >"$scratch/rustup/toolchains/$stable/bin/$tool" <<SH
#!/bin/sh
case "\$1" in
    --version) echo "$tool 1.999.0 (0000000 2099-01-01)" ;;
    -vV) printf '%s\n' "$tool 1.999.0 (0000000 2099-01-01)" "host: $host" ;;
    --print) cd "\$(dirname "\$0")/.." && pwd ;;
    *) echo "stand-in $tool ran: \$*" ;;
esac
SH
    chmod +x "$scratch/rustup/toolchains/$stable/bin/$tool"
done
printf 'version = "12"\ndefault_toolchain = "%s"\nprofile = "minimal"\n' "$stable" >"$scratch/rustup/settings.toml"
export RUSTUP_HOME="$scratch/rustup" RUSTUP_AUTO_INSTALL=0
unset RUSTUP_TOOLCHAIN CI BFF_TOOLCHAIN_STAND_IN
before=$(cd "$RUSTUP_HOME/toolchains" && ls -la --time-style=full-iso)

failures=0
fail() { echo "rust-toolchain.test: FAIL $*" >&2; failures=$((failures + 1)); }
unchanged() {
    local now
    now=$(cd "$RUSTUP_HOME/toolchains" && ls -la --time-style=full-iso)
    [[ $now == "$before" ]] || fail "$1 changed $RUSTUP_HOME/toolchains:"$'\n'"$now"
}

make -C "$root" --no-print-directory help >/dev/null 2>&1 || fail "make help failed"
unchanged "make help"
make -C "$root" --no-print-directory -n run >/dev/null 2>&1 || fail "make -n run failed"
unchanged "make -n run"

# A cargo command stops, naming the install command, and changes nothing.
channel=$(sed -n 's/^channel = "\(.*\)"/\1/p' "$root/rust-toolchain.toml")
if output=$("$root/scripts/cargo.sh" --version 2>&1); then
    fail "scripts/cargo.sh ran without the pinned toolchain: $output"
fi
grep -qF "rustup toolchain install $channel" <<<"$output" || fail "no install command in: $output"
unchanged "scripts/cargo.sh outside CI"

# Under CI the stand-in runs, under its own name.
output=$(CI=true "$root/scripts/cargo.sh" --version 2>&1) || fail "under CI scripts/cargo.sh failed: $output"
grep -qF "cargo 1.999.0" <<<"$output" || fail "under CI the stand-in did not run: $output"
grep -qF "standing in: $stable" <<<"$output" || fail "under CI the stand-in was not named: $output"
unchanged "scripts/cargo.sh under CI"

if ((failures > 0)); then
    exit 1
fi
echo "rust-toolchain.test: ok: make help, make -n run and cargo left $RUSTUP_HOME/toolchains as it was"
