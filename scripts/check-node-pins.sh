#!/usr/bin/env bash
# The Node pins agree: scripts/lib/node.sh (what make and .ci/run install) is the source; .nvmrc
# names the same version, web/package.json's engines admit it and its major only (in the lockfile
# too), its packageManager names the npm that Node release bundles, and the Dockerfile's web stage
# builds on the same major. Part of `make test-web` (under a second).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/node.sh
. "$ROOT/scripts/lib/node.sh"
node_use

NODE_VERSION="$NODE_VERSION" NPM_VERSION="$NPM_VERSION" SEMVER="$(npm root -g)/npm/node_modules/semver" \
    node --input-type=module - "$ROOT" <<'JS'
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = process.argv[2];
const semver = createRequire(import.meta.url)(process.env.SEMVER);
const { NODE_VERSION: node, NPM_VERSION: npm } = process.env;
const major = semver.major(node);
const read = (path) => readFileSync(join(root, path), 'utf8');
const pkg = JSON.parse(read('web/package.json'));
const lock = JSON.parse(read('web/package-lock.json'));
const failures = [];
const check = (ok, message) => ok || failures.push(message);

check(read('.nvmrc').trim() === node, `.nvmrc says ${read('.nvmrc').trim()}, scripts/lib/node.sh pins ${node}`);
const engines = pkg.engines?.node ?? '';
check(semver.satisfies(node, engines), `web/package.json engines.node "${engines}" does not admit ${node}`);
check(semver.minVersion(engines)?.major === major, `engines.node "${engines}" admits a Node before ${major}`);
check(!semver.satisfies(`${major + 1}.0.0`, engines), `engines.node "${engines}" admits Node ${major + 1}, which is not tested`);
check(lock.packages?.['']?.engines?.node === engines, 'web/package-lock.json engines differ from web/package.json: npm install --package-lock-only');
check(pkg.packageManager === `npm@${npm}`, `packageManager is ${pkg.packageManager}, the pinned npm is ${npm}`);
const from = /^FROM node:(\d+)[.-]/m.exec(read('Dockerfile'));
check(from !== null && Number(from[1]) === major, `the Dockerfile's web stage is not on node:${major}`);

if (failures.length > 0) {
  for (const f of failures) console.error(`check-node-pins: FAIL ${f}`);
  process.exit(1);
}
console.log(`check-node-pins: ok: Node ${node} and npm ${npm} in scripts/lib/node.sh, .nvmrc, web/package.json, its lockfile and the Dockerfile`);
JS
