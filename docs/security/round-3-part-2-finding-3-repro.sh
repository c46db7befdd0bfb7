#!/usr/bin/env bash
# Finding 3's reproduction: a value written into Redis by hand is served by the replicas that
# read it; deleting the rollout window's closed flag reopens the window.
# usage: docs/security/round-3-part-2-finding-3-repro.sh BFF_BINARY (web/dist built, with its ssr bundle;
# redis-server and redis-cli on PATH). Three replicas on ports 1xxxx, 2xxxx, 3xxxx; all stopped at the end.
set -uo pipefail
BIN=$1
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
W=$(mktemp -d /tmp/finding3.XXXX)
RPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$RPORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize no >"$W/redis.log" 2>&1 &
RPID=$!
R="redis-cli -p $RPORT"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; sleep 1; kill "$RPID" 2>/dev/null; }
trap cleanup EXIT
mkdir -p "$W/previous/assets"; echo 'old();' > "$W/previous/assets/index-Old00000.js"
PREFIX="repro:"
start() { # name n
  local n=$2
  mkdir -p "$W/$1"
  ( cd "$W/$1" && exec env BFF_SESSION_KEYS=repro-session-key-0123456789abcdef BFF_ADMIN_TOKEN=repro-admin-token-0123456789 \
      BFF_WEBHOOK_SECRET=repro-webhook-secret-0123456789 \
      BFF__SERVER__LISTEN=127.0.0.1:${n}8080 BFF__ADMIN__LISTEN=127.0.0.1:${n}9090 \
      BFF__SANDBOX__LISTEN=127.0.0.1:${n}8081 BFF__SANDBOX__DATA_DIR="$W/$1/data" \
      BFF__REDIS__URL=redis://127.0.0.1:$RPORT/ BFF__REDIS__KEY_PREFIX=$PREFIX \
      BFF__WEB__DIST_DIR=$ROOT/web/dist BFF__WEB__PREVIOUS_DIST_DIRS="[\"$W/previous\"]" \
      RUST_LOG=warn \
      "$BIN" --config $ROOT/config/bff.toml serve >"$W/$1.log" 2>&1 ) &
  PIDS+=($!)
}
ready() { for _ in $(seq 300); do curl -m 5 -fs -o /dev/null http://127.0.0.1:${1}8080/healthz && return 0; sleep 0.2; done; echo "replica $1 did not start"; tail -n 5 "$W"/*.log; exit 1; }
show() { # n path
  curl -m 5 -s -o "$W/out" -D "$W/hdr" -w '%{http_code} %{time_total}s' http://127.0.0.1:${1}8080$2
  printf '  cache-status: %s  body starts: %s\n' "$(grep -i '^cache-status' "$W/hdr" | cut -d: -f2- | tr -d '\r' | head -c 60)" "$(head -c 60 "$W/out" | tr '\n' ' ')"
}
start A 1; start B 2; start C 3; ready 1; ready 2; ready 3
ETAG='"0123456789abcdef0123456789abcdef"'
echo "== 1. a document written by hand (keys and ETags of its parts left as they were) =="
curl -m 5 -s -o /dev/null http://127.0.0.1:18080/ ; sleep 1.5   # A renders and shares it (and recompresses)
DOC=$($R --scan --pattern "${PREFIX}cache:entry:document:*:/" | head -1)
echo "document key: $DOC"
$R hset "$DOC" body '<!doctype html><h1>forged document</h1>' gzip '' brotli '' >/dev/null
for n in 2 3; do printf 'replica %s GET /: ' $n; show $n /; done
echo "== 2. an L2 entry written by hand =="
KEY="${PREFIX}cache:entry:pages:contactus"
curl -m 5 -s -o /dev/null http://127.0.0.1:18080/api/pages/contactus   # A fills L1 and L2
sleep 0.3
echo "A filled $KEY: $($R hexists "$KEY" meta) (1 = there)"
META=$($R hget "$KEY" meta)
FORGED_META=$(python3 -c 'import json,sys; m=json.loads(sys.argv[1]); m["etag"]=sys.argv[2]; m["contentType"]="text/html"; print(json.dumps(m))' "$META" "$ETAG")
$R hset "$KEY" meta "$FORGED_META" body '<h1>forged by redis-cli</h1>' gzip '' brotli '' >/dev/null
for n in 2 3; do printf 'replica %s GET /api/pages/contactus: ' $n; show $n /api/pages/contactus; printf '   again: '; show $n /api/pages/contactus; done
echo "== 3. the rollout window =="
printf 'B old asset before close: '; show 2 /assets/index-Old00000.js
curl -m 5 -s -o /dev/null -X POST -H 'authorization: Bearer repro-admin-token-0123456789' http://127.0.0.1:19090/admin/web/rollout/close
printf 'A old asset after close:  '; show 1 /assets/index-Old00000.js
sleep 1.5
CLOSED=$($R --scan --pattern "${PREFIX}web:rollout:*:closed" | head -1)
echo "deleting $CLOSED: $($R del "$CLOSED")"
sleep 1.2
printf 'A old asset after delete: '; show 1 /assets/index-Old00000.js
printf 'B old asset after delete: '; show 2 /assets/index-Old00000.js
printf 'C old asset after delete: '; show 3 /assets/index-Old00000.js
echo "== rejections counted (metrics) =="
for n in 2 3; do curl -m 5 -s http://127.0.0.1:${n}9090/metrics | grep -E '^bff_shared_tier_rejected' | sed "s/^/replica $n: /"; done
