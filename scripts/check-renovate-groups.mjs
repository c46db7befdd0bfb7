#!/usr/bin/env node
// The Renovate groups hold: every pin that one of the project's pin checks compares is watched by
// a Renovate manager, and each version update (major, minor, patch) of those pins lands in one
// group, so no pull request moves one pin without the others and fails the check. Reads
// renovate.json, the checks and the pinned files; no network, well under a second. Part of
// `make test-web`, next to scripts/check-node-pins.sh. (`make lint-renovate` validates the config
// itself with Renovate's own validator.)
//
// The checks and the pins they compare:
//   scripts/check-node-pins.sh  scripts/lib/node.sh (NODE_VERSION, NPM_VERSION), .nvmrc,
//                               web/package.json (engines.node, packageManager), the Dockerfile's
//                               node image
//   bff/tests/it/msrv.rs           rust-toolchain.toml, Cargo.toml's rust-version; with them the
//                               Dockerfile's rust image, the same toolchain
// The list is checked against the checks' sources: a file they start to read that is not listed
// here fails, until it is (and renovate.json covers it).
//
// Only the repository's own packageRules are evaluated: the presets it extends come first in
// Renovate's order, so a rule here overrides them. A rule with a matcher this script does not
// evaluate fails the check rather than be misjudged. Digest updates are left out: they move no
// version that these checks compare (a node:26-... image keeps its major).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (path) => readFileSync(join(root, path), 'utf8');
const failures = [];
const check = (ok, message) => ok || failures.push(message);

const config = JSON.parse(read('renovate.json'));

// Built-in managers' own file patterns, for the pins they extract (Renovate's defaults).
const builtIn = {
  nvm: /(^|\/)\.nvmrc$/,
  npm: /(^|\/)package\.json$/,
  dockerfile: /(^|\/|\.)([Dd]ocker|[Cc]ontainer)file$/,
  'rust-toolchain': /(^|\/)rust-toolchain(\.toml)?$/,
};

const nodeVersion = read('.nvmrc').trim();
const pins = {
  'scripts/check-node-pins.sh': [
    { file: 'scripts/lib/node.sh', manager: 'regex', depName: 'node', current: nodeVersion },
    { file: 'scripts/lib/node.sh', manager: 'regex', depName: 'npm' },
    { file: '.nvmrc', manager: 'nvm', depName: 'node' },
    { file: 'web/package.json', manager: 'npm', depName: 'node', depType: 'engines' },
    { file: 'web/package.json', manager: 'npm', depName: 'npm', depType: 'packageManager' },
    { file: 'Dockerfile', manager: 'dockerfile', depName: 'node', datasource: 'docker' },
  ],
  'bff/tests/it/msrv.rs': [
    {
      file: 'rust-toolchain.toml',
      manager: 'rust-toolchain',
      depName: 'rust',
      current: /^channel = "([^"]+)"/m.exec(read('rust-toolchain.toml'))?.[1],
    },
    { file: 'Cargo.toml', manager: 'regex', depName: 'rust' },
    { file: 'Dockerfile', manager: 'dockerfile', depName: 'rust', datasource: 'docker' },
  ],
};

// The files each check reads are the ones listed.
const nodePinsReads = new Set(
  [...read('scripts/check-node-pins.sh').matchAll(/\bread\('([^']+)'\)/g)].map((m) => m[1]),
);
nodePinsReads.add('scripts/lib/node.sh'); // sourced
nodePinsReads.delete('web/package-lock.json'); // rewritten by Renovate with web/package.json
const msrvReads = new Set(
  [...read('bff/tests/it/msrv.rs').matchAll(/\.join\("([^"]+)"\)/g)].map((m) => m[1]).filter((f) => f !== '..'),
);
msrvReads.add('Cargo.toml'); // through `cargo metadata`: the members' rust-version
for (const [checkName, reads] of [
  ['scripts/check-node-pins.sh', nodePinsReads],
  ['bff/tests/it/msrv.rs', msrvReads],
]) {
  const listed = new Set(pins[checkName].map((pin) => pin.file));
  for (const file of reads) {
    check(listed.has(file), `${checkName} reads ${file}, which scripts/check-renovate-groups.mjs does not list`);
  }
}

// Each pin is extracted by a manager.
const globToRegExp = (glob) =>
  new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*\*\/?/g, '\u0000')
      .replace(/\*/g, '[^/]*')
      .replace(/\u0000/g, '.*')}$`,
  );
// Renovate's pattern strings: "/regex/" or a glob.
const patternMatches = (pattern, value) => {
  const regex = /^\/(.*)\/([a-z]*)$/.exec(pattern);
  return regex ? new RegExp(regex[1], regex[2]).test(value) : globToRegExp(pattern).test(value);
};
check(
  !config.ignorePaths?.length,
  'renovate.json sets ignorePaths: check they spare the pinned files, then extend this script',
);
for (const pin of Object.values(pins).flat()) {
  const where = `${pin.file} (${pin.depName})`;
  if (pin.manager === 'regex') {
    const managers = (config.customManagers ?? []).filter(
      (m) =>
        m.customType === 'regex' &&
        m.depNameTemplate === pin.depName &&
        (m.managerFilePatterns ?? []).some((p) => patternMatches(p, pin.file)),
    );
    check(managers.length === 1, `${where}: ${String(managers.length)} regex custom managers watch it, not one`);
    for (const manager of managers) {
      const text = read(pin.file);
      const found = manager.matchStrings.map((s) => new RegExp(s).exec(text)?.groups?.currentValue).filter(Boolean);
      check(found.length > 0, `${where}: the custom manager's matchStrings find no currentValue in the file`);
      if (pin.current !== undefined && found.length > 0) {
        check(found[0] === pin.current, `${where}: the custom manager reads ${found[0]}, the pin is ${pin.current}`);
      }
    }
  } else {
    check(builtIn[pin.manager].test(pin.file), `${where}: the ${pin.manager} manager does not read this file`);
    check(
      !config.enabledManagers || config.enabledManagers.includes(pin.manager),
      `${where}: enabledManagers leaves out ${pin.manager}`,
    );
    check(config[pin.manager]?.enabled !== false, `${where}: the ${pin.manager} manager is disabled`);
  }
}

// Renovate's packageRules, applied in order to one pin and one update type.
const managerName = (pin) => (pin.manager === 'regex' ? 'custom.regex' : pin.manager);
const matchers = {
  matchFileNames: (values, pin) => values.some((v) => patternMatches(v, pin.file)),
  matchDepNames: (values, pin) => values.some((v) => patternMatches(v, pin.depName)),
  matchPackageNames: (values, pin) => values.some((v) => patternMatches(v, pin.depName)),
  matchManagers: (values, pin) => values.includes(managerName(pin)),
  matchDepTypes: (values, pin) => pin.depType !== undefined && values.includes(pin.depType),
  matchDatasources: (values, pin) => pin.datasource !== undefined && values.includes(pin.datasource),
  matchUpdateTypes: (values, _pin, updateType) => values.includes(updateType),
};
function settle(pin, updateType) {
  const result = { enabled: true, groupName: undefined };
  for (const [index, rule] of (config.packageRules ?? []).entries()) {
    const keys = Object.keys(rule).filter((key) => key.startsWith('match') || key.startsWith('exclude'));
    const unknown = keys.filter((key) => !(key in matchers));
    if (unknown.length > 0) {
      failures.push(`packageRules[${String(index)}] uses ${unknown.join(', ')}, which this script does not evaluate`);
      continue;
    }
    if (!keys.every((key) => matchers[key](rule[key], pin, updateType))) continue;
    if ('enabled' in rule) result.enabled = rule.enabled;
    if ('groupName' in rule) result.groupName = rule.groupName;
  }
  return result;
}

const summary = [];
for (const [checkName, checkPins] of Object.entries(pins)) {
  for (const updateType of ['major', 'minor', 'patch']) {
    const settled = checkPins.map((pin) => ({ pin, ...settle(pin, updateType) })).filter(({ enabled }) => enabled);
    const groups = new Set(settled.map(({ groupName }) => groupName ?? '(no group)'));
    check(
      groups.size <= 1 && !groups.has('(no group)'),
      `${checkName}: its pins' ${updateType} updates fall in ${[...groups].join(' / ')}: ${settled
        .map(({ pin, groupName }) => `${pin.file} ${pin.depName} -> ${groupName ?? '(no group)'}`)
        .join('; ')}`,
    );
    if (groups.size === 1)
      summary.push(`${checkName} ${updateType}: "${[...groups][0]}" (${String(settled.length)} pins)`);
  }
}

if (failures.length > 0) {
  for (const f of failures) console.error(`check-renovate-groups: FAIL ${f}`);
  process.exit(1);
}
console.log(`check-renovate-groups: ok: ${summary.join('; ')}`);
