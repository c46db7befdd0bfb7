# Sourced by the scripts that need a running bff: the bff binary with its embedded sandbox on
# three free loopback ports, started the way web/e2e/global-setup.ts starts it (cwd: the repo, so
# config/bff.toml applies; no inherited BFF__* overrides, so a developer's shell cannot point it
# at real upstreams or an OTLP collector), and stopped by PID.
#
#   bff_start BIN DIR [NAME=VALUE...]   start BIN (sandbox data and log in DIR, extra settings
#                                       as BFF__* assignments); sets BFF_PID, BFF_BASE, BFF_LOG,
#                                       BFF_ADMIN_BASE (/metrics, /admin) and BFF_SANDBOX_BASE
#   bff_wait_ready SECONDS              until GET /readyz answers 200, or fail
#   bff_stop                            SIGTERM, then SIGKILL after 10 s
# Needs: python3 (free ports, readiness probe). The caller defines `die MESSAGE`.

BFF_PID=""
BFF_BASE=""
BFF_LOG=""
BFF_ADMIN_BASE=""
BFF_SANDBOX_BASE=""

bff_start() {
    local bin=$1 dir=$2 root server_port admin_port sandbox_port
    shift 2
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    # Three distinct free ports: all bound at once (port 0), read, then released.
    read -r server_port admin_port sandbox_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(3)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
')
    BFF_BASE="http://127.0.0.1:$server_port"
    # shellcheck disable=SC2034 # read by the scripts that source this file
    BFF_ADMIN_BASE="http://127.0.0.1:$admin_port"
    # shellcheck disable=SC2034
    BFF_SANDBOX_BASE="http://127.0.0.1:$sandbox_port"
    BFF_LOG="$dir/bff.log"
    mkdir -p "$dir/sandbox-data"
    (
        cd "$root"
        while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep '^BFF__' || true)
        exec env \
            BFF__SERVER__LISTEN="127.0.0.1:$server_port" \
            BFF__ADMIN__LISTEN="127.0.0.1:$admin_port" \
            BFF__SANDBOX__LISTEN="127.0.0.1:$sandbox_port" \
            BFF__SANDBOX__DATA_DIR="$dir/sandbox-data" \
            BFF__SERVER__PUBLIC_ORIGIN="$BFF_BASE" \
            NO_COLOR=1 \
            "$@" \
            "$bin"
    ) </dev/null >"$BFF_LOG" 2>&1 &
    BFF_PID=$!
}

bff_wait_ready() {
    local deadline=$((SECONDS + $1)) probe='
import sys, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
try:
    sys.exit(0 if opener.open(sys.argv[1], timeout=2).status == 200 else 1)
except Exception:
    sys.exit(1)
'
    until python3 -c "$probe" "$BFF_BASE/readyz"; do
        if ! kill -0 "$BFF_PID" 2>/dev/null; then
            local rc=0
            wait "$BFF_PID" || rc=$?
            BFF_PID=""
            die "the bff exited (status $rc) before it was ready: $(tail -n 5 "$BFF_LOG")"
        fi
        ((SECONDS < deadline)) || die "the bff was not ready within $1 s ($BFF_BASE/readyz)"
        sleep 0.25
    done
}

bff_stop() {
    [[ -n "$BFF_PID" ]] || return 0
    if kill -0 "$BFF_PID" 2>/dev/null; then
        kill -TERM "$BFF_PID" 2>/dev/null || true
        local waited=0
        while kill -0 "$BFF_PID" 2>/dev/null && ((waited < 100)); do
            sleep 0.1
            waited=$((waited + 1))
        done
        kill -0 "$BFF_PID" 2>/dev/null && kill -KILL "$BFF_PID" 2>/dev/null
    fi
    wait "$BFF_PID" 2>/dev/null || true
    BFF_PID=""
}
