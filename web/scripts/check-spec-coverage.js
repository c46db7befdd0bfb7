// Checks web/e2e/SPEC-COVERAGE.md: every test it names exists, by file and title (issue 47).
// A reference is `path` › `title`, the path from the repository root: a Vitest or Playwright
// file and the exact title of one of its tests (`it(…)`, `test(…)`, `it.each(…)(…)`), or a Rust
// file and the name of one of its test functions. Prints how many rules the list maps and how
// many have a test; fails on a reference to a missing file or test, or a list with none.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const listPath = process.argv[2] ?? join(repo, 'web', 'e2e', 'SPEC-COVERAGE.md');
const list = readFileSync(listPath, 'utf8');

const REFERENCE = /`([\w./-]+\.(?:test\.tsx?|spec\.ts|rs))` › `([^`]+)`/g;
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `source` (a test file) has a test titled exactly `title`. */
function hasTest(file, source, title) {
  if (file.endsWith('.rs')) return new RegExp(`\\bfn ${escape(title)}\\s*\\(`).test(source);
  // the title as a string literal (quotes escaped inside it as the source writes them) opening a
  // test: `it(`, `test(`, or the second call of `it.each(…)(`
  const literals = ["'", '"', '`'].map((quote) => quote + escape(title.replaceAll(quote, `\\${quote}`)) + quote);
  return new RegExp(`(?:\\b(?:it|test)|\\))\\(\\s*(?:${literals.join('|')})\\s*,`).test(source);
}

const missing = [];
let references = 0;
const sources = new Map();
for (const [, file, title] of list.matchAll(REFERENCE)) {
  references += 1;
  const path = join(repo, file);
  if (!sources.has(file)) sources.set(file, existsSync(path) ? readFileSync(path, 'utf8') : null);
  const source = sources.get(file);
  if (source === null) missing.push(`${file}: no such file`);
  else if (!hasTest(file, source, title)) missing.push(`${file}: no test titled ${JSON.stringify(title)}`);
}

// the rules: table rows of the list (not headers or separators), and those naming a test
const rows = list.split('\n').filter((line) => /^\|(?!\s*-)/.test(line) && !/^\|\s*(?:Rule|§)\s*\|/.test(line));
const tested = rows.filter((row) => new RegExp(REFERENCE.source).test(row));

if (references === 0) missing.push('the list names no test');
if (missing.length > 0) {
  console.error(`${listPath}: ${String(missing.length)} reference(s) to tests that do not exist:`);
  for (const line of missing) console.error(`  ${line}`);
  process.exit(1);
}
console.log(
  `Spec coverage: ${String(rows.length)} rules listed, ${String(tested.length)} with a test, ${String(references)} test references, all found.`,
);
