// Measures the JavaScript a first page view loads before any route chunk: the entry script of
// dist/index.html plus the chunks it preloads (its static imports), gzipped. Fails when that is
// over the budget, and lists the largest lazily loaded chunks. Run after `vite build`.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUDGET_BYTES = 130 * 1000; // 130 kB gzipped (spec of the storefront's frame)
const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

const html = readFileSync(join(dist, 'index.html'), 'utf8');
const initial = [
  ...html.matchAll(/<script[^>]+type="module"[^>]+src="\/([^"]+\.js)"/g),
  ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/([^"]+\.js)"/g),
].map((match) => match[1]);

const gzipped = (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
const kB = (bytes) => `${(bytes / 1000).toFixed(2)} kB`;

let total = 0;
console.log('Entry JavaScript (gzip -9):');
for (const file of initial) {
  const size = gzipped(file);
  total += size;
  console.log(`  ${file.padEnd(44)} ${kB(size).padStart(10)}`);
}
console.log(`  ${'total'.padEnd(44)} ${kB(total).padStart(10)}   (budget ${kB(BUDGET_BYTES)})`);

const lazy = readdirSync(join(dist, 'assets'))
  .filter((name) => name.endsWith('.js') && !initial.includes(`assets/${name}`))
  .map((name) => ({ name, size: gzipped(`assets/${name}`) }))
  .sort((a, b) => b.size - a.size)
  .slice(0, 8);
console.log('Largest lazily loaded chunks (gzip -9):');
for (const { name, size } of lazy) console.log(`  ${name.padEnd(44)} ${kB(size).padStart(10)}`);

if (initial.length === 0) {
  console.error('No entry script found in dist/index.html');
  process.exit(1);
}
if (total > BUDGET_BYTES) {
  console.error(`The entry JavaScript is ${kB(total)} gzipped, over the ${kB(BUDGET_BYTES)} budget.`);
  process.exit(1);
}
