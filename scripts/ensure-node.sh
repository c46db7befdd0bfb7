#!/usr/bin/env bash
# Installs the project's pinned Node and npm into .tools/ when missing (scripts/lib/node.sh says
# how, from the npm registry, sha256-checked) and prints the directory to put first on PATH:
#   export PATH="$(bash scripts/ensure-node.sh):$PATH"
# The Makefile runs it before anything that needs node, npm or npx.
set -euo pipefail
# shellcheck source=lib/node.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/node.sh"
node_ensure
node_bin_dir
