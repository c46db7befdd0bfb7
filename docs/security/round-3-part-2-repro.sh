#!/usr/bin/env bash
# Issue #50, findings 1 and 2: bounded requests to two local replicas sharing one Redis.
# Usage: bash docs/security/round-3-part-2-repro.sh <bff binary> (a debug build is enough; needs
# redis-server, curl and openssl; WEB_DIST: a built web app, default web/dist of this checkout).
# Ports 16390, 18180-18280, 19190-19290 must be free. Every request has a 5 s bound (curl -m).
set -u
BFF=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WEB_DIST=${WEB_DIST:-$ROOT/web/dist}
W=$(mktemp -d)
RP=16390; A=18180; AA=19190; B=18280; BA=19290; SB=18181
redis-server --port $RP --save '' --appendonly no --daemonize no >/dev/null 2>&1 & REDIS=$!
sleep 0.5
common=(BFF_SESSION_KEYS=repro-session-key-0123456789abcdef0123 BFF_ADMIN_TOKEN=repro-admin-token
  BFF_WEBHOOK_SECRET=repro-webhook-bearer BFF_WEBHOOK_SIGNING_SECRET=repro-signing-secret-0123456789abcdef
  BFF__REDIS__URL=redis://127.0.0.1:$RP/ BFF__WEB__DIST_DIR=$WEB_DIST RUST_LOG=error)
env "${common[@]}" BFF__SERVER__LISTEN=127.0.0.1:$A BFF__ADMIN__LISTEN=127.0.0.1:$AA \
  BFF__SERVER__PUBLIC_ORIGIN=http://localhost:$A \
  BFF__SANDBOX__LISTEN=127.0.0.1:$SB BFF__SANDBOX__DATA_DIR=$W/sandbox "$BFF" --config $ROOT/config/bff.toml serve >$W/a.log 2>&1 & PA=$!
sed "s#\${sandbox}#http://127.0.0.1:$SB#g" $ROOT/config/bff.toml >$W/b.toml
for i in $(seq 100); do curl -s -m1 -o /dev/null http://127.0.0.1:$SB/health && break; sleep 0.2; done
env "${common[@]}" BFF__SERVER__LISTEN=127.0.0.1:$B BFF__ADMIN__LISTEN=127.0.0.1:$BA \
  BFF__SERVER__PUBLIC_ORIGIN=http://localhost:$A BFF__SANDBOX__ENABLED=false \
  "$BFF" --config $W/b.toml serve >$W/b.log 2>&1 & PB=$!
for p in $AA $BA; do for i in $(seq 100); do curl -s -m1 -o /dev/null http://127.0.0.1:$p/healthz && break; sleep 0.2; done; done
C="curl -s -m 5"
hook() { # port, extra curl args...
  local port=$1; shift
  $C -o /dev/null -w '%{http_code}' -X POST http://127.0.0.1:$port/admin/webhooks/content -H 'content-type: application/json' "$@"; }
body='{"event":"entry.publish","model":"page","entry":{"name":"home"}}'
sign() { printf '%s' "$2.$body" | openssl dgst -sha256 -hmac repro-signing-secret-0123456789abcdef | sed 's/.*= //'; }
now=$(date +%s)
echo "== finding 1: the webhook (BFF_WEBHOOK_SIGNING_SECRET set)"
echo "bearer only:                          $(hook $AA -H 'authorization: Bearer repro-webhook-bearer' -d "$body")"
echo "bearer + invalid signature, ts=0:     $(hook $AA -H 'authorization: Bearer repro-webhook-bearer' -H 'x-webhook-timestamp: 0' -H 'x-webhook-signature: sha256=00' -d "$body")"
sig=$(sign x $now)
echo "signed call on A:                     $(hook $AA -H "x-webhook-timestamp: $now" -H "x-webhook-signature: sha256=$sig" -d "$body")"
echo "same signed call replayed on B:       $(hook $BA -H "x-webhook-timestamp: $now" -H "x-webhook-signature: sha256=$sig" -d "$body")"
echo "same signed call replayed on A:       $(hook $AA -H "x-webhook-timestamp: $now" -H "x-webhook-signature: sha256=$sig" -d "$body")"
echo "== finding 2: sign-out while Redis is SIGSTOPped"
login='{"email":"shopper@talonforge.example","password":"Password123!","captcha":"sandbox-captcha-ok"}'
cookie=$($C -D - -o /dev/null -X POST http://127.0.0.1:$A/api/auth/login -H 'x-csrf: 1' -H 'content-type: application/json' -d "$login" | sed -n 's/^set-cookie: \([^;]*\);.*/\1/Ip' | tail -1)
echo "signed in on A: cookie ${#cookie} chars"
echo "copy on B before:                     $($C http://127.0.0.1:$B/api/session -H "cookie: $cookie" -H 'x-csrf: 1' -w ' %{http_code}' | cut -c1-44)"
kill -STOP $REDIS
echo "Redis SIGSTOPped"
echo "sign-out on A:                        $($C -o /dev/null -w '%{http_code}' -X POST http://127.0.0.1:$A/api/auth/logout -H "cookie: $cookie" -H 'x-csrf: 1' -H 'content-type: application/json' -d '{}')"
echo "copy on A after sign-out:             $($C http://127.0.0.1:$A/api/session -H "cookie: $cookie" -H 'x-csrf: 1' -w ' %{http_code}' | cut -c1-44)"
echo "copy on B after sign-out:             $($C http://127.0.0.1:$B/api/session -H "cookie: $cookie" -H 'x-csrf: 1' -w ' %{http_code}' | cut -c1-44)"
echo "copy on B, its cart:                  $($C -o /dev/null -w '%{http_code}' http://127.0.0.1:$B/api/cart -H "cookie: $cookie" -H 'x-csrf: 1')"
echo "B's counters: $(curl -s -m2 http://127.0.0.1:$BA/metrics | grep -E 'bff_session_events_total\{event="(revocation_unchecked|revocation_checked_upstream|revoked)' | tr '\n' ' ')"
kill -CONT $REDIS
kill $PA $PB; wait $PA $PB 2>/dev/null
kill $REDIS; wait $REDIS 2>/dev/null
[ -n "${KEEP:-}" ] && cat $W/b.log | tail -5; rm -rf "$W"
