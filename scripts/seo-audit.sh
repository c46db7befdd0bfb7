#!/usr/bin/env bash
# Lighthouse audit (SEO, performance, accessibility, best practices) of the home page, a product
# and a collection, mobile and desktop, against the bff with its embedded sandbox on free loopback
# ports, with Debian's Chromium. Not part of `make test`: slow, and the performance figures
# depend on the machine (measure the release build; the debug build is many times slower).
#
# Lighthouse is installed once into .tools/lighthouse (gitignored) from
# scripts/seo-audit/package-lock.json; later runs need no network. Reports (HTML and JSON) go to
# target/seo-audit/.
#
# Environment:
#   BFF_BIN=path          the bff binary (default: <repo>/target/release/bff)
#   CHROMIUM_PATH=path    Chromium (default: /usr/bin/chromium)
#   TOOLS_DIR=path        where to install tools (default: <repo>/.tools)
#   SEO_AUDIT_MIN_SEO=100 the SEO score every page must reach, else the script fails
# Needs: node and npm, curl, python3, Chromium.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BFF_BIN="${BFF_BIN:-$ROOT/target/release/bff}"
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
TOOLS="${TOOLS_DIR:-$ROOT/.tools}"
MIN_SEO="${SEO_AUDIT_MIN_SEO:-100}"
OUT="$ROOT/target/seo-audit"
HOST=127.0.0.1
PAGES=(/ /product/summit%20lr /collection/rifles)

log() { printf 'seo-audit: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[[ -x "$BFF_BIN" ]] || die "no bff binary at $BFF_BIN: cargo build --locked -p bff (or --release)"
[[ -x "$CHROMIUM" ]] || die "no Chromium at $CHROMIUM"
[[ -f "$ROOT/web/dist/index.html" ]] || die "the web app is not built: make web/dist/index.html"

lighthouse_dir="$TOOLS/lighthouse"
if ! cmp -s "$ROOT/scripts/seo-audit/package-lock.json" "$lighthouse_dir/package-lock.json" \
    || [[ ! -x "$lighthouse_dir/node_modules/.bin/lighthouse" ]]; then
    log "installing lighthouse into $lighthouse_dir"
    mkdir -p "$lighthouse_dir"
    cp "$ROOT/scripts/seo-audit/package.json" "$ROOT/scripts/seo-audit/package-lock.json" "$lighthouse_dir/"
    (cd "$lighthouse_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
lighthouse="$lighthouse_dir/node_modules/.bin/lighthouse"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/seo-audit.XXXXXX")"
bff_pid=""
cleanup() {
    if [[ -n "$bff_pid" ]] && kill -0 "$bff_pid" 2>/dev/null; then
        kill -TERM "$bff_pid" 2>/dev/null || true
        wait "$bff_pid" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

read -r server_port admin_port sandbox_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(3)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
')
base="http://$HOST:$server_port"
mkdir "$tmp/sandbox-data"
while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep '^BFF__' || true)
(
    cd "$ROOT"
    exec env \
        BFF__SERVER__LISTEN="$HOST:$server_port" \
        BFF__ADMIN__LISTEN="$HOST:$admin_port" \
        BFF__SANDBOX__LISTEN="$HOST:$sandbox_port" \
        BFF__SANDBOX__DATA_DIR="$tmp/sandbox-data" \
        BFF__SERVER__PUBLIC_ORIGIN="$base" \
        "$BFF_BIN"
) </dev/null >"$tmp/bff.log" 2>&1 &
bff_pid=$!
for _ in $(seq 1 240); do
    curl -fsS -o /dev/null "$base/readyz" 2>/dev/null && break
    kill -0 "$bff_pid" 2>/dev/null || die "the bff exited: $(tail -n 5 "$tmp/bff.log")"
    sleep 0.25
done
curl -fsS -o /dev/null "$base/readyz" || die "the bff was not ready in 60 s"

mkdir -p "$OUT"
flags="--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --no-first-run"
failed=0
printf '%-28s %-8s %5s %5s %5s %5s\n' page form seo perf a11y bp
for path in "${PAGES[@]}"; do
    curl -fsS -o /dev/null "$base$path" || die "$path does not answer"
    for form in mobile desktop; do
        name="$(tr -c 'a-z0-9\n' '-' <<<"${path#/}" | sed 's/^$/home/')-$form"
        preset=()
        [[ "$form" == desktop ]] && preset=(--preset=desktop)
        CHROME_PATH="$CHROMIUM" "$lighthouse" "$base$path" "${preset[@]}" \
            --chrome-flags="$flags" --quiet \
            --only-categories=seo,performance,accessibility,best-practices \
            --output=json --output=html --output-path="$OUT/$name" >/dev/null 2>"$tmp/lighthouse.log" \
            || die "lighthouse failed on $path ($form): $(tail -n 5 "$tmp/lighthouse.log")"
        read -r seo perf a11y bp < <(python3 - "$OUT/$name.report.json" <<'PY'
import json, sys
categories = json.load(open(sys.argv[1]))["categories"]
print(*(round(categories[c]["score"] * 100) for c in ("seo", "performance", "accessibility", "best-practices")))
PY
)
        printf '%-28s %-8s %5s %5s %5s %5s\n' "$path" "$form" "$seo" "$perf" "$a11y" "$bp"
        if (( seo < MIN_SEO )); then failed=1; fi
    done
done
log "reports in $OUT"
(( failed == 0 )) || die "an SEO score is below $MIN_SEO"
