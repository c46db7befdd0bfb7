#!/usr/bin/env bash
# API contract test: start the built bff (with its embedded sandbox) on free loopback ports and
# let schemathesis generate requests from the bff's own OpenAPI document
# (GET /api/openapi.json), checking every answer against that document: no 5xx, a documented
# status code, a documented content type, a body matching the documented schema.
# Fails on any finding; schemathesis prints a curl command reproducing each one.
#
# schemathesis is installed once into .tools/venv-api (gitignored), then runs offline.
# Environment:
#   BFF_BIN=path                    the bff binary (default: <repo>/target/debug/bff; this script
#                                   never builds it: `make test-api` does)
#   API_CONTRACT_MAX_EXAMPLES=30    generated test cases per operation in the fuzzing phase
#   API_CONTRACT_SEED=4242          random seed; the same seed, schema and binary give the same run
#   API_CONTRACT_PHASES=examples,coverage,fuzzing,stateful
#                                   schemathesis phases (examples, coverage, fuzzing, stateful)
#   API_CONTRACT_TIMEOUT=240        wall-clock bound of the schemathesis run, in seconds
#   API_CONTRACT_REPORT_DIR=dir     also write JUnit XML and an NDJSON event log there
#   API_CONTRACT_KEEP_TEMP=1        keep the temp dir (bff log, sandbox data) for a post-mortem
#   API_CONTRACT_SCHEMA=file.json   debugging aid: test the started bff against this schema file
#                                   instead of its own /api/openapi.json
#   TOOLS_DIR=/path                 where to install tools (default: <repo>/.tools)
# Needs: bash, python3 with venv (Debian: python3-venv), sha256sum, timeout (coreutils).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${TOOLS_DIR:-$ROOT/.tools}"
REQS="$ROOT/scripts/requirements-api.txt"
VENV="$TOOLS/venv-api"
READY_TIMEOUT_S=60

BFF_BIN="${BFF_BIN:-$ROOT/target/debug/bff}"
MAX_EXAMPLES="${API_CONTRACT_MAX_EXAMPLES:-30}"
SEED="${API_CONTRACT_SEED:-4242}"
PHASES="${API_CONTRACT_PHASES:-examples,coverage,fuzzing,stateful}"
TIME_LIMIT_S="${API_CONTRACT_TIMEOUT:-240}"
REPORT_DIR="${API_CONTRACT_REPORT_DIR:-}"
SCHEMA_FILE="${API_CONTRACT_SCHEMA:-}"

log() { printf 'api-contract: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[[ "$MAX_EXAMPLES" =~ ^[1-9][0-9]*$ ]] ||
    die "API_CONTRACT_MAX_EXAMPLES must be a positive integer (got '$MAX_EXAMPLES')"
[[ "$SEED" =~ ^[0-9]+$ ]] || die "API_CONTRACT_SEED must be a non-negative integer (got '$SEED')"
[[ "$TIME_LIMIT_S" =~ ^[1-9][0-9]*$ ]] ||
    die "API_CONTRACT_TIMEOUT must be a positive number of seconds (got '$TIME_LIMIT_S')"
[[ "$BFF_BIN" == /* ]] || BFF_BIN="$PWD/$BFF_BIN"
[[ -x "$BFF_BIN" ]] || die "no bff binary at $BFF_BIN: build it (cargo build --locked -p bff) or set BFF_BIN"
if [[ -n "$SCHEMA_FILE" ]]; then
    [[ "$SCHEMA_FILE" == /* ]] || SCHEMA_FILE="$PWD/$SCHEMA_FILE"
    [[ -f "$SCHEMA_FILE" ]] || die "API_CONTRACT_SCHEMA=$SCHEMA_FILE is not a file"
fi
if [[ -n "$REPORT_DIR" ]]; then
    mkdir -p "$REPORT_DIR"
    REPORT_DIR="$(cd "$REPORT_DIR" && pwd)"
fi
command -v timeout >/dev/null || die "timeout (coreutils) is needed to bound the run"

want="$(sha256sum "$REQS" | cut -d' ' -f1)"
if ! [[ -x "$VENV/bin/schemathesis" && -f "$VENV/.requirements.sha256" ]] ||
    [[ "$(cat "$VENV/.requirements.sha256")" != "$want" ]]; then
    log "installing $(basename "$REQS") into ${VENV#"$ROOT"/}"
    if [[ ! -x "$VENV/bin/python" ]]; then
        python3 -m venv "$VENV" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQS"
    printf '%s\n' "$want" >"$VENV/.requirements.sha256"
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/api-contract.XXXXXX")"
# shellcheck source=lib/bff.sh
. "$ROOT/scripts/lib/bff.sh"
bff_log="$tmp/bff.log"

cleanup() {
    local status=$?
    bff_stop
    if ((status != 0)) && [[ -s "$bff_log" ]]; then
        # Without the one-line-per-request INFO entries (thousands of them), which would push
        # the panics, warnings and 5xx entries (logged as `on_failure`) out of the tail.
        log "bff log (tail of $bff_log, per-request INFO lines left out):"
        grep -v 'INFO request{.*finished processing request' "$bff_log" | tail -n 40 >&2 || true
    fi
    if [[ -n "${API_CONTRACT_KEEP_TEMP:-}" ]]; then
        log "kept $tmp"
    else
        rm -rf "$tmp"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir "$tmp/dist"
# /api needs no built web app. A placeholder page keeps GET / (schemathesis probes the base URL
# once) from answering 503 and logging an error that would read like a finding.
printf '<!doctype html><html><head></head><body></body></html>\n' >"$tmp/dist/index.html"

# Started by scripts/lib/bff.sh (the repo's config, no inherited BFF__* overrides), with:
# - a placeholder web dist dir instead of web/dist, so no `npm run build` is needed first;
# - the rate limits (auth 10/min and search 120/min per IP, 10 sign-in failures per account by
#   default) raised, because every request here comes from one IP and reuses a few e-mails: with
#   the defaults, most sign-in/registration/password/verification and search requests would be
#   429s and those handlers would go untested. The per-client limits of the abuse issue (guest
#   carts, promo codes, dealer registrations, image requests, 404 answers, CSP reports: 5 to 60
#   a minute) likewise: at 5 a minute, dealer registrations and image requests were mostly 429s.
bff_start "$BFF_BIN" "$tmp" \
    BFF__WEB__DIST_DIR="$tmp/dist" \
    BFF__RATE_LIMIT__AUTH_PER_MINUTE=100000 \
    BFF__RATE_LIMIT__SEARCH_PER_MINUTE=100000 \
    BFF__RATE_LIMIT__SIGN_IN_FAILURES_PER_ACCOUNT=100000 \
    BFF__RATE_LIMIT__SIGN_IN_FAILURES_PER_CLIENT=100000 \
    BFF__RATE_LIMIT__PRO_DEAL_PER_CLIENT_PER_MINUTE=100000 \
    BFF__RATE_LIMIT__PRO_DEAL_PER_ACCOUNT_PER_MINUTE=100000 \
    BFF__RATE_LIMIT__RUM_REPORTS_PER_MINUTE=100000 \
    BFF__RATE_LIMIT__GUESTS_PER_MINUTE=100000 \
    BFF__RATE_LIMIT__PROMO_CODES_PER_CART_PER_MINUTE=100000 \
    BFF__RATE_LIMIT__PROMO_CODES_PER_CLIENT_PER_MINUTE=100000 \
    BFF__RATE_LIMIT__DEALER_REGISTRATIONS_PER_MINUTE=100000 \
    BFF__RATE_LIMIT__IMAGE_REQUESTS_PER_MINUTE=100000 \
    BFF__RATE_LIMIT__NOT_FOUND_PER_MINUTE=100000 \
    BFF__RATE_LIMIT__CSP_REPORTS_PER_MINUTE=100000
base_url=$BFF_BASE
log "bff pid $BFF_PID at $base_url (log: $bff_log)"

bff_wait_ready "$READY_TIMEOUT_S"

if [[ -n "$SCHEMA_FILE" ]]; then
    log "API_CONTRACT_SCHEMA: testing against $SCHEMA_FILE, not the bff's own document"
    location="$SCHEMA_FILE"
else
    location="$base_url/api/openapi.json"
fi

# Our own config file, so no schemathesis.toml from the repo or a parent dir applies. It holds
# what has no command-line flag:
# - no cache, which would carry state (stored failures, learned values) from one run into the
#   next under .schemathesis/;
# - the warnings that mean part of the contract went unchecked fail the run: a $ref that does not
#   resolve or a media type schemathesis cannot parse (that answer's body is not checked), a
#   pattern it cannot generate from, a documented operation answering 405 (not routed), mostly
#   429s (the handlers were not reached). The other warnings are expected here: 401s without a
#   signed-in session, 404s for made-up ids, inputs the bff validates more strictly than the
#   document says.
cat >"$tmp/schemathesis.toml" <<'TOML'
# generated by scripts/api-contract.sh; every other setting is on the command line
[cache]
enabled = false

[phases.stateful]
max-steps = 60

[warnings]
fail-on = [
  "unresolvable_reference",
  "missing_deserializer",
  "unsupported_regex",
  "method_not_allowed",
  "rate_limited",
]
TOML

# Choices:
# - The checks: the four about the answers the document promises. Not negative_data_rejection
#   or positive_data_acceptance: they hold the bff to accept exactly what the document's input
#   schemas allow, and the bff validates more (captcha, e-mail syntax, cross-field rules); not
#   the auth checks: the document has no security schemes (the session is a cookie); not
#   unsupported_method, missing_required_header, response_headers_conformance: HTTP details
#   the document does not describe.
# - X-CSRF: 1 on every request: the bff refuses unsafe /api methods without it (403,
#   bff/src/session/csrf.rs), which would hide every POST/PUT/DELETE handler behind one answer.
# - --mode all: valid and invalid inputs; an invalid one must get a documented 4xx, never a 5xx.
# - Phases: examples (the document's own examples), coverage (deterministic boundary and
#   invalid values per parameter), fuzzing (random, bounded by --max-examples), stateful
#   (sequences following the document's links: a created address to its update and delete, an
#   added cart line to its update and removal, a placed order to its read; bounded by
#   phases.stateful.max-steps in the config above; about 2 s per pass here).
# - Reproducible: a fixed seed, one worker (request order, hence sandbox state, is fixed), and
#   no example database (by default hypothesis would replay earlier failures from .hypothesis/).
#   No shrinking: it costs many more requests per failure against a debug build on two cores,
#   which could push a failing run past the time bound; the curl reproducer printed for each
#   failure is enough to debug it.
# - --request-timeout 15: the bff answers 504 itself after server.request_timeout (30 s) but
#   no API request to the sandbox should take anywhere near that; a hang is a finding.
# - --origin: requests go to this bff whatever host the document's `servers` names, keeping its
#   base path.
# - Loopback only: the python HTTP clients get an unreachable proxy for every host but
#   127.0.0.1, so a remote $ref or externalValue in the document fails instead of going out.
cmd=(
    "$VENV/bin/schemathesis" --config-file "$tmp/schemathesis.toml" --no-color
    run "$location" --origin "$base_url"
    --checks 'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance'
    --header 'X-CSRF: 1'
    --mode all
    --phases "$PHASES"
    --max-examples "$MAX_EXAMPLES"
    --seed "$SEED"
    --workers 1
    --generation-database none
    --no-shrink
    --request-timeout 15
)
if [[ -n "$REPORT_DIR" ]]; then
    cmd+=(--report 'junit,ndjson' --report-dir "$REPORT_DIR")
fi

# The bound sends SIGINT, on which schemathesis stops and still reports what it found.
# run_pass NAME NOTE EXTRA_ARGS...: one schemathesis run; sets rc and elapsed. The log shows
# NOTE instead of the extra arguments, which may hold the session cookie.
run_pass() {
    local name=$1 note=$2
    shift 2
    log "$name pass (bounded to ${TIME_LIMIT_S} s):$(printf ' %q' "${cmd[@]}") $note"
    local start=$SECONDS
    rc=0
    (
        cd "$tmp"
        exec env \
            HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9 \
            http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 all_proxy=http://127.0.0.1:9 \
            NO_PROXY=127.0.0.1 no_proxy=127.0.0.1 \
            timeout --foreground --signal=INT --kill-after=10 "$TIME_LIMIT_S" "${cmd[@]}" "$@"
    ) || rc=$?
    elapsed=$((SECONDS - start))
    if ! kill -0 "$BFF_PID" 2>/dev/null; then
        bff_rc=0
        wait "$BFF_PID" || bff_rc=$?
        BFF_PID=""
        die "the bff exited (status $bff_rc) during the $name pass, after ${elapsed} s"
    fi
    case "$rc" in
        0) log "$name pass: the bff's answers conform to its OpenAPI document (${elapsed} s)" ;;
        124 | 137) die "the $name pass did not finish within ${TIME_LIMIT_S} s: lower API_CONTRACT_MAX_EXAMPLES" ;;
        *) die "the $name pass reported findings or errors (exit $rc, ${elapsed} s); see above" ;;
    esac
}

# First as a visitor without a session: every operation.
run_pass anonymous ""

# Then signed in as the sandbox's demo shopper (sandbox/README.md), so the account, address,
# order and signed-in cart handlers answer for real instead of 401. The session is the sealed
# cookie the sign-in sets, sent on every request. Left out: sign-out and the password and
# registration flows, which would end or replace this session (and sign-in's own 429s).
cookie="$("$VENV/bin/python" - "$base_url" <<'PY'
import json, sys, urllib.request
base = sys.argv[1]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
body = json.dumps({"email": "shopper@talonforge.example", "password": "Password123!",
                   "captcha": "sandbox-captcha-ok"}).encode()
request = urllib.request.Request(base + "/api/auth/login", data=body, method="POST",
    headers={"Content-Type": "application/json", "X-CSRF": "1"})
with opener.open(request, timeout=10) as answer:
    cookies = [value.split(";", 1)[0] for value in answer.headers.get_all("Set-Cookie") or []]
if not cookies:
    sys.exit("sign-in set no cookie")
print("; ".join(cookies))
PY
)" || die "could not sign in as the demo shopper"
run_pass signed-in "(+ the session cookie; without the sign-in, sign-out, registration and password operations)" \
    --header "Cookie: $cookie" \
    --exclude-path-regex '^/api/auth/(logout|login|register|change-password|reset-password|forgot-password)$'

# schemathesis and hypothesis keep state in .schemathesis/ and .hypothesis/ of the folder they run
# in: the runs above are in $tmp, removed on exit. Nothing of theirs may be left in the checkout.
for leftover in .schemathesis .hypothesis web/.schemathesis web/.hypothesis; do
    [[ ! -e "$ROOT/$leftover" ]] || die "$leftover was left in the checkout"
done
