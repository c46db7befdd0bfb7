#!/usr/bin/env bash
# Proves that what k8s/components/monitoring ships for SREs works:
#
#   rules  promtool check rules + promtool test rules (k8s/components/monitoring/rules-test.yaml)
#          on the PrometheusRule's spec.groups; every alert has a unit test in which it fires and
#          one in which it stays quiet, and a runbook_url whose anchor is a heading of
#          k8s/RUNBOOK.md; promtool check config on the plain scrape job (prometheus-scrape.yaml).
#   live   a real Prometheus (Debian's) scraping a real bff (BFF_BIN, embedded sandbox, a real
#          redis-server with a replica) under a short generated load, with the rules loaded; then every query
#          of the dashboard and of the rules is evaluated through the HTTP API and must return
#          data (scripts/observability_queries.py says exactly what is checked).
#
# Usage: bash scripts/test-observability.sh rules|live|all
# Environment: BFF_BIN (live; default target/debug/bff), TOOLS_DIR (where validate-k8s.sh keeps
#   its venv, which has PyYAML; made if missing), KEEP_TMP=1 keeps the work directory.
# Needs: promtool and prometheus (Debian: prometheus), redis-server and redis-cli, curl, python3.
# Every process it starts is stopped by PID; the live stage takes about 30 s.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${TOOLS_DIR:-$ROOT/.tools}"
PY="$TOOLS/venv-k8s/bin/python"
MON="$ROOT/k8s/components/monitoring"
BFF_BIN="${BFF_BIN:-$ROOT/target/debug/bff}"
ADMIN_TOKEN="observability-test-admin-token"

log() { printf 'test-observability: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

need() {
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null || die "$tool is missing (Debian: apt-get install prometheus redis-server redis-tools curl)"
    done
}

if [[ ! -x "$PY" ]]; then
    # The venv validate-k8s.sh installs (and keeps current); made here too for a fresh clone.
    log "installing scripts/requirements-k8s.txt into ${TOOLS#"$ROOT"/}/venv-k8s"
    python3 -m venv "$TOOLS/venv-k8s" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
    "$PY" -m pip install --quiet --disable-pip-version-check -r "$ROOT/scripts/requirements-k8s.txt"
fi

work="$(mktemp -d)"
PROM_PID=""
REDIS_PID=""
# Redis's replica: the BFF waits for its acknowledgement after a purge (WAIT).
STANDBY_PID=""
# The second replica (the first one's are bff.sh's BFF_PID, BFF_BASE, ...).
REPLICA_PID=""
REPLICA_BASE=""
# shellcheck source=lib/bff.sh
source "$ROOT/scripts/lib/bff.sh"

cleanup() {
    [[ -n "$PROM_PID" ]] && { kill "$PROM_PID" 2>/dev/null || true; wait "$PROM_PID" 2>/dev/null || true; }
    bff_stop
    BFF_PID="$REPLICA_PID" bff_stop
    local pid
    for pid in "$REDIS_PID" "$STANDBY_PID"; do
        [[ -n "$pid" ]] || continue
        kill -CONT "$pid" 2>/dev/null || true
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [[ "${KEEP_TMP:-}" == 1 ]]; then log "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The rules file Prometheus reads: the PrometheusRule's spec (the operator serves the same).
extract_rules() {
    "$PY" - "$MON/prometheusrule.yaml" "$1" <<'PY'
import sys, yaml
with open(sys.argv[1]) as fh:
    doc = yaml.safe_load(fh)
with open(sys.argv[2], "w") as fh:
    yaml.safe_dump({"groups": doc["spec"]["groups"]}, fh, sort_keys=False)
PY
}

stage_rules() {
    need promtool
    local started=$SECONDS
    extract_rules "$work/rules.yml"
    cp "$MON/rules-test.yaml" "$work/rules-test.yaml"
    promtool check rules "$work/rules.yml"
    (cd "$work" && promtool test rules rules-test.yaml)
    "$PY" - "$work/rules.yml" "$MON/rules-test.yaml" "$ROOT/k8s/RUNBOOK.md" <<'PY'
import re, sys, yaml
rules_file, tests_file, runbook = sys.argv[1:]
alerts = [r for g in yaml.safe_load(open(rules_file))["groups"] for r in g["rules"] if "alert" in r]
tests = yaml.safe_load(open(tests_file))["tests"]
fires, quiet = set(), set()
for t in tests:
    for a in t.get("alert_rule_test") or []:
        (fires if a.get("exp_alerts") else quiet).add(a["alertname"])


def slug(heading):  # GitHub's anchor for a Markdown heading
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


anchors = {slug(line.lstrip("#")) for line in open(runbook) if line.startswith("#")}
problems = []
for a in alerts:
    name = a["alert"]
    if name not in fires:
        problems.append("%s: no unit test in which it fires" % name)
    if name not in quiet:
        problems.append("%s: no unit test in which it stays quiet" % name)
    url = (a.get("annotations") or {}).get("runbook_url", "")
    if "#" not in url or url.split("#", 1)[0].split("/")[-1] != "RUNBOOK.md":
        problems.append("%s: runbook_url %r does not point at a section of RUNBOOK.md" % (name, url))
    elif url.split("#", 1)[1] not in anchors:
        problems.append("%s: k8s/RUNBOOK.md has no section #%s" % (name, url.split("#", 1)[1]))
    for key in ("summary", "description"):
        if not (a.get("annotations") or {}).get(key):
            problems.append("%s: no %s annotation" % (name, key))
for p in problems:
    print("FAIL " + p)
if problems:
    sys.exit(1)
print("ok   %d alerts: each fires and stays quiet in a unit test, each has its runbook section" % len(alerts))
PY
    # The plain scrape job, inside a minimal prometheus.yml that also loads the rules. Debian's
    # Prometheus is built without Kubernetes service discovery, so promtool checks the job with
    # its kubernetes_sd_configs swapped for a static target (relabelling and the rest as they
    # are), and the discovery block is checked here.
    "$PY" - "$MON/prometheus-scrape.yaml" "$work/prometheus-k8s.yml" <<'PY'
import sys, yaml
with open(sys.argv[1]) as fh:
    jobs = yaml.safe_load(fh)["scrape_configs"]
assert [j["job_name"] for j in jobs] == ["bff"], "one job, named bff (the rules select job=bff)"
for job in jobs:
    sd = job.pop("kubernetes_sd_configs")
    assert all(set(c) <= {"role", "namespaces"} and c["role"] == "pod" for c in sd), sd
    assert all(set(c["namespaces"]) <= {"names", "own_namespace"} for c in sd), sd
    job["static_configs"] = [{"targets": ["127.0.0.1:9090"]}]
with open(sys.argv[2], "w") as fh:
    yaml.safe_dump({"global": {"scrape_interval": "30s"}, "rule_files": ["rules.yml"],
                    "scrape_configs": jobs}, fh, sort_keys=False)
PY
    (cd "$work" && promtool check config prometheus-k8s.yml)
    log "rules stage passed in $((SECONDS - started)) s"
}

# --- live ---------------------------------------------------------------------------------------

# curl against the bff with the test's cookie jar; prints the status code.
bff_call() {
    local method=$1 path=$2 body=${3:-}
    local args=(-s -o /dev/null -w '%{http_code}' -X "$method" -b "$work/jar" -c "$work/jar"
        --max-time 20 -H 'X-CSRF: 1')
    [[ -n "$body" ]] && args+=(-H 'Content-Type: application/json' --data "$body")
    curl "${args[@]}" "$BFF_BASE$path" || echo 000
}

expect() {
    local want=$1 method=$2 path=$3 body=${4:-} got
    got="$(bff_call "$method" "$path" "$body")"
    [[ "$got" =~ ^($want)$ ]] || die "$method $path answered $got, expected $want (log: $BFF_LOG)"
}

fault() {
    curl -s -f -o /dev/null --max-time 5 -X POST -H 'Content-Type: application/json' \
        --data "$1" "$BFF_SANDBOX_BASE/sandbox/faults" || die "could not set fault $1"
}

clear_faults() {
    curl -s -f -o /dev/null --max-time 5 -X DELETE "$BFF_SANDBOX_BASE/sandbox/faults" || die "could not clear faults"
}

# Enough traffic that every series the dashboard and the rules read exists.
generate_load() {
    local login='{"email":"shopper@talonforge.example","password":"Password123!","captcha":"sandbox-captcha-ok"}'
    local wrong='{"email":"shopper@talonforge.example","password":"wrong-password","captcha":"sandbox-captcha-ok"}'
    local item='{"productId":"TF-QDS","productName":"QD Sling Mount","quantity":1,"options":[{"label":"Color","value":"Black"}]}'
    local i

    # Pages, products, collections, search: misses, then hits.
    for i in 1 2 3; do
        expect 200 GET /api/pages/home
        expect 200 GET '/api/products/summit%20lr'
        expect 200 GET /api/collections/pistols
        expect 200 GET '/api/search?q=rifle'
        expect 200 GET /api/config
    done
    expect 404 GET /api/pages/no-such-page
    # The other replica: an L1 miss that L2 (Redis) answers.
    [[ "$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' "$REPLICA_BASE/api/collections/pistols")" == 200 ]] ||
        die "the second replica did not answer"
    expect 404 GET /api/products/no-such-product
    # Concurrent misses on one key: one fetch, the others coalesced.
    local concurrent=()
    for i in 1 2 3 4 5 6; do
        bff_call GET '/api/search?q=scope' >/dev/null &
        concurrent+=($!)
    done
    wait "${concurrent[@]}"
    # The product's ttl is 1 s here: past it, served stale while one refresh runs.
    sleep 1.2
    expect 200 GET '/api/products/summit%20lr'

    # A guest cart, a wrong password (401), a sign-in that merges the cart, a CSRF rejection.
    expect 200 GET /api/cart
    expect 200 POST /api/cart/items "$item"
    expect 401 POST /api/auth/login "$wrong"
    expect 200 POST /api/auth/login "$login"
    [[ "$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' -X POST "$BFF_BASE/api/cart/items")" == 403 ]] ||
        die "a POST without X-CSRF was not rejected"
    # Signed in, every commerce call refreshes (refresh margin > token lifetime): refresh_ok,
    # a Redis lease. Then the refresh upstream fails: refresh_failed, the session is cleared.
    expect 200 GET /api/account
    fault '{"route":"/Auth/refresh-token","errorStatus":500}'
    expect '401|5..' GET /api/account
    clear_faults
    # The auth rate limit (4 a minute here): 429.
    for i in 1 2 3; do bff_call POST /api/auth/login "$wrong" >/dev/null; done
    expect 429 POST /api/auth/login "$wrong"
    # A signed-out account call: 401.
    rm -f "$work/jar"
    expect 401 GET /api/account

    # The content upstream fails: the home page (ttl 1 s, no stale-while-revalidate) is served
    # stale-if-error; the footer, never cached, answers 5xx; the upstream calls count as 500s.
    sleep 1.2
    fault '{"route":"/strapi/page/{name}","errorStatus":500}'
    expect 200 GET /api/pages/home
    expect '5..' GET /api/pages/footer
    clear_faults

    # Web Vitals from the browser (POST /api/rum, as sendBeacon sends it: no X-CSRF, but the
    # storefront's own Origin; LCP and INP in milliseconds).
    local rum_status
    rum_status=$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' -X POST \
        -H 'Content-Type: text/plain;charset=UTF-8' -H "Origin: $BFF_BASE" --data \
        '{"reports":[{"route":"/product/:title","name":"LCP","value":1900},{"route":"/product/:title","name":"INP","value":120},{"route":"/product/:title","name":"CLS","value":0.02}]}' \
        "$BFF_BASE/api/rum")
    [[ "$rum_status" == 204 ]] || { echo "test-observability: POST /api/rum answered $rum_status" >&2; return 1; }

    # A purge through the admin API (and the Redis fan-out), while Redis's replica is paused:
    # its WAIT times out, so the purge is counted in bff_redis_unacknowledged_writes_total and
    # its answer says so.
    local purged
    kill -STOP "$STANDBY_PID"
    purged=$(curl -s --max-time 10 -f -X POST -H "Authorization: Bearer $ADMIN_TOKEN" \
        -H 'Content-Type: application/json' --data '{"tags":["page:home"]}' \
        "$BFF_ADMIN_BASE/admin/cache/purge") || { kill -CONT "$STANDBY_PID"; die "purge failed"; }
    kill -CONT "$STANDBY_PID"
    [[ "$purged" == *'"replication":"unacknowledged"'* ]] ||
        die "a purge with the replica paused was not unacknowledged: $purged"

    # More distinct searches than their small budget (20 kB here) holds: evictions for room.
    for i in glock rifle scope mount sling optic barrel trigger; do
        expect 200 GET "/api/search?q=$i"
    done
    expect 200 GET /api/collections/rifles
    expect 200 GET '/api/search?q=rifle'
    expect 200 GET /api/collections/pistols

    # Redis stops answering: the L2 lookups of new keys time out (bff_redis_errors_total).
    kill -STOP "$REDIS_PID"
    expect 200 GET '/api/search?q=holster'
    expect 200 GET '/api/search?q=case'
    kill -CONT "$REDIS_PID"
}

stage_live() {
    need prometheus redis-server redis-cli curl
    [[ -x "$BFF_BIN" ]] || die "no bff binary at $BFF_BIN (cargo build -p bff)"
    local started=$SECONDS redis_port prom_port admin_port replica_admin_port i

    redis_port="$(free_port)"
    redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no \
        --daemonize no >"$work/redis.log" 2>&1 &
    REDIS_PID=$!
    for i in $(seq 100); do
        redis-cli -p "$redis_port" ping 2>/dev/null | grep -q PONG && break
        sleep 0.1
    done
    redis-cli -p "$redis_port" ping | grep -q PONG || die "redis-server did not start"
    # A replica, connected before the bffs start, so they learn of it (INFO replication) and
    # wait for its acknowledgement after the writes a failover would lose.
    local standby_port
    standby_port="$(free_port)"
    # --dir: a replica writes the primary's snapshot to disk when it syncs; not into the cwd.
    mkdir -p "$work/standby"
    redis-server --port "$standby_port" --bind 127.0.0.1 --save "" --appendonly no \
        --dir "$work/standby" --replicaof 127.0.0.1 "$redis_port" --daemonize no \
        >"$work/standby.log" 2>&1 &
    STANDBY_PID=$!
    for i in $(seq 100); do
        redis-cli -p "$redis_port" info replication 2>/dev/null | grep -q '^connected_slaves:1' && break
        sleep 0.1
    done
    redis-cli -p "$redis_port" info replication | grep -q '^connected_slaves:1' ||
        die "the Redis replica did not connect: $(tail -n 5 "$work/standby.log")"

    mkdir -p "$work/bff"
    # A second replica on the same Redis, as in a cluster: it finds the first one's answers in
    # L2 and receives its purges. Its own embedded sandbox; otherwise the defaults.
    mkdir -p "$work/replica"
    bff_start "$BFF_BIN" "$work/replica" \
        BFF_ADMIN_TOKEN="$ADMIN_TOKEN" \
        BFF__REDIS__URL="redis://127.0.0.1:$redis_port/0" \
        BFF__REDIS__KEY_PREFIX="obs-test:"
    bff_wait_ready 60
    REPLICA_PID="$BFF_PID" REPLICA_BASE="$BFF_BASE"
    replica_admin_port="${BFF_ADMIN_BASE##*:}"
    BFF_PID=""

    # The replica the load goes to. Short ttls, a small cache, every refresh due, a low auth
    # limit: see generate_load.
    bff_start "$BFF_BIN" "$work/bff" \
        BFF_ADMIN_TOKEN="$ADMIN_TOKEN" \
        BFF__REDIS__URL="redis://127.0.0.1:$redis_port/0" \
        BFF__REDIS__KEY_PREFIX="obs-test:" \
        BFF__CACHE__CAPACITY_BYTES=150000 \
        BFF__CACHE__SEARCH_CAPACITY_BYTES=20000 \
        BFF__CACHE__PAGES__TTL=1s \
        BFF__CACHE__PAGES__STALE_WHILE_REVALIDATE=0s \
        BFF__CACHE__PAGES__JITTER=0 \
        BFF__CACHE__PRODUCT__TTL=1s \
        BFF__CACHE__PRODUCT__JITTER=0 \
        BFF__SESSION__REFRESH_MARGIN=1h \
        BFF__RATE_LIMIT__AUTH_PER_MINUTE=4
    bff_wait_ready 60
    admin_port="${BFF_ADMIN_BASE##*:}"

    extract_rules "$work/rules.yml"
    prom_port="$(free_port)"
    cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: [rules.yml]
scrape_configs:
  - job_name: bff
    static_configs:
      # The labels the ServiceMonitor and prometheus-scrape.yaml add in a cluster.
      - targets: ["127.0.0.1:$admin_port"]
        labels: {namespace: storefront, pod: bff-a}
      - targets: ["127.0.0.1:$replica_admin_port"]
        labels: {namespace: storefront, pod: bff-b}
EOF
    prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
        --web.listen-address="127.0.0.1:$prom_port" --log.level=warn >"$work/prometheus.log" 2>&1 &
    PROM_PID=$!
    for i in $(seq 100); do
        curl -s --max-time 2 -f -o /dev/null "http://127.0.0.1:$prom_port/-/ready" && break
        kill -0 "$PROM_PID" 2>/dev/null || die "prometheus exited: $(tail -n 5 "$work/prometheus.log")"
        sleep 0.2
    done
    curl -s --max-time 2 -f -o /dev/null "http://127.0.0.1:$prom_port/-/ready" || die "prometheus not ready"
    # Samples before the load, so every counter has a before and an after.
    sleep 2

    local load_started=$SECONDS
    generate_load
    log "load generated in $((SECONDS - load_started)) s"
    # Two more scrapes and rule evaluations after the last request, so every rate has two samples.
    sleep 3

    "$PY" "$ROOT/scripts/observability_queries.py" "http://127.0.0.1:$prom_port" \
        "$MON/dashboards/bff.json" "$work/rules.yml"
    log "live stage took $((SECONDS - started)) s"
}

case "${1:-all}" in
    rules) stage_rules ;;
    live) stage_live ;;
    all) stage_rules && stage_live ;;
    *) die "usage: $0 rules|live|all" ;;
esac
