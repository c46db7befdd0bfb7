#!/usr/bin/env bash
# The bff's integration tests again, with Redis: every server they start uses a real
# redis-server (Debian's, installed by .ci/run) under a key prefix of its own, so each
# behaviour test holds with the shared tier as it does in process. Started on a free port,
# stopped by PID.
#
# Two things keep this pass cheap:
#   - the same package and feature selection as the first pass (`--workspace`), so nothing is
#     compiled again: the test binaries are chosen with --test, not with -p;
#   - the tests that start a Redis server of their own (scripts/lib/own_redis_tests.py) already
#     ran with it in the first pass, and are left out here: a binary of only such tests by not
#     naming it, single tests with --skip.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

command -v redis-server >/dev/null || { echo "test-with-redis: redis-server missing (apt-get install redis-server)" >&2; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no >/dev/null &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break
    sleep 0.1
done
redis-cli -p "$port" ping | grep -q PONG || { echo "test-with-redis: redis-server did not start" >&2; exit 1; }

targets=() skips=() left_out=0
while read -r stem kind tests; do
    case $kind in
        all) left_out=$((left_out + 1)) ;;
        none) targets+=(--test "$stem") ;;
        some)
            targets+=(--test "$stem")
            for test in $tests; do
                skips+=(--skip "$test")
                left_out=$((left_out + 1))
            done
            ;;
    esac
done < <(python3 scripts/lib/own_redis_tests.py bff/tests)
((${#targets[@]} > 0)) || { echo "test-with-redis: no test binaries found" >&2; exit 1; }
echo "test-with-redis: $((${#targets[@]} / 2)) test binaries; $left_out tests that start their own Redis ran in the first pass only"
BFF_TEST_REDIS_URL="redis://127.0.0.1:$port/" ${CARGO:-cargo} test --locked --workspace "${targets[@]}" -- --exact "${skips[@]}"
