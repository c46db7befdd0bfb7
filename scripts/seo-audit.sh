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
# Needs: curl, python3, Chromium; the pinned Node and npm (scripts/lib/node.sh) are installed
# into .tools/ on first use.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BFF_BIN="${BFF_BIN:-$ROOT/target/release/bff}"
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
TOOLS="${TOOLS_DIR:-$ROOT/.tools}"
MIN_SEO="${SEO_AUDIT_MIN_SEO:-100}"
OUT="$ROOT/target/seo-audit"
PAGES=(/ /product/summit%20lr /collection/rifles)

log() { printf 'seo-audit: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[[ -x "$BFF_BIN" ]] || die "no bff binary at $BFF_BIN: cargo build --locked -p bff (or --release)"
[[ -x "$CHROMIUM" ]] || die "no Chromium at $CHROMIUM"
[[ -f "$ROOT/web/dist/index.html" ]] || die "the web app is not built: make web/dist/index.html"

# shellcheck source=lib/node.sh
. "$ROOT/scripts/lib/node.sh"
node_use

lighthouse_dir="$TOOLS/lighthouse"
if ! cmp -s "$ROOT/scripts/seo-audit/package-lock.json" "$lighthouse_dir/package-lock.json" \
    || [[ ! -x "$lighthouse_dir/node_modules/.bin/lighthouse" ]]; then
    log "installing lighthouse into $lighthouse_dir"
    mkdir -p "$lighthouse_dir"
    cp "$ROOT/scripts/seo-audit/package.json" "$ROOT/scripts/seo-audit/package-lock.json" "$lighthouse_dir/"
    (cd "$lighthouse_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
lighthouse="$lighthouse_dir/node_modules/.bin/lighthouse"

# shellcheck source=lib/bff.sh
. "$ROOT/scripts/lib/bff.sh"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/seo-audit.XXXXXX")"
cleanup() {
    bff_stop
    rm -rf "$tmp"
}
trap cleanup EXIT

bff_start "$BFF_BIN" "$tmp"
bff_wait_ready 60
base=$BFF_BASE

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
