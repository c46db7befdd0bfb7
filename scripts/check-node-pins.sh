#!/usr/bin/env bash
# The Node pins agree. scripts/lib/node.sh holds the exact pin (what make and .ci/run install)
# and is the one place to change it; the rest follow:
#   .nvmrc                   the same version
#   web/package.json         engines.node admits it, and admits only majors the web is tested on
#                            (TESTED_MAJORS below: today the pinned one; to admit another, run the
#                            web's checks on it in CI first and list it there); its lockfile's
#                            engines are the same; packageManager is npm@<the pinned npm>
#   Dockerfile               the web stage's `FROM node:<major>...` is on the pinned major, by tag
#                            and, when present, `@sha256:<64 hex>` (e.g. node:26-trixie-slim@sha256:...)
# renovate.json groups these files (scripts/check-renovate-groups.js holds it). Part of
# `make test-web` (under a second).
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

// The majors engines.node may admit: the web's checks run on these. The pinned one always.
const TESTED_MAJORS = [major];

const nvmrc = read('.nvmrc').trim();
check(nvmrc === node, `.nvmrc says ${nvmrc}, scripts/lib/node.sh pins ${node}`);
const engines = pkg.engines?.node ?? '';
check(semver.validRange(engines) !== null, `web/package.json engines.node "${engines}" is not a semver range`);
check(semver.satisfies(node, engines), `web/package.json engines.node "${engines}" does not admit ${node}`);
const admitted = [];
for (let m = 0; m <= major + 10; m += 1) if (semver.intersects(engines, `${m}.x`)) admitted.push(m);
if (semver.intersects(engines, `>=${major + 11}.0.0`)) admitted.push(`${major + 11} and later`);
const untested = admitted.filter((m) => !TESTED_MAJORS.includes(m));
check(
  untested.length === 0,
  `engines.node "${engines}" admits Node ${untested.join(', ')}, which the web is not tested on (tested: ${TESTED_MAJORS.join(', ')})`,
);
check(lock.packages?.['']?.engines?.node === engines, 'web/package-lock.json engines differ from web/package.json: npm install --package-lock-only');
check(pkg.packageManager === `npm@${npm}`, `packageManager is ${pkg.packageManager}, the pinned npm is ${npm}`);

// FROM [--platform=...] node:<tag>[@sha256:<digest>] [AS <name>]: the web stage's base
const froms = [...read('Dockerfile').matchAll(/^FROM\s+(?:--\S+\s+)*(?:docker\.io\/(?:library\/)?)?node:(\S+?)(?:@(\S+))?(?:\s+AS\s+\S+)?\s*$/gim)];
check(froms.length > 0, 'the Dockerfile has no `FROM node:<major>...` stage');
for (const [line, tag, digest] of froms) {
  const tagMajor = /^(\d+)(?:$|[.-])/.exec(tag);
  check(tagMajor !== null && Number(tagMajor[1]) === major, `the Dockerfile's "${line.trim()}" is not on Node ${major}`);
  check(digest === undefined || /^sha256:[0-9a-f]{64}$/.test(digest), `the Dockerfile's "${line.trim()}" has a malformed digest`);
}

if (failures.length > 0) {
  for (const f of failures) console.error(`check-node-pins: FAIL ${f}`);
  process.exit(1);
}
console.log(
  `check-node-pins: ok: Node ${node} and npm ${npm} (scripts/lib/node.sh), .nvmrc, engines "${engines}" (majors ${admitted.join(', ')}), the lockfile, packageManager, and the Dockerfile's ${froms.map((f) => `node:${f[1]}${f[2] ? '@' + f[2].slice(0, 15) + '...' : ''}`).join(', ')}`,
);
JS
