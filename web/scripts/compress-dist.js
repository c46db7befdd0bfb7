// Runs after `vite build` (see package.json's build script): stores a brotli-11 and a gzip-9 copy
// next to every compressible file in dist/ (scripts/lib/compress.js), for the BFF to serve.
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compressDirectory } from './lib/compress.js';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const report = compressDirectory(dist);
const compressed = report.filter((row) => row.br !== null || row.gz !== null);
const total = (key) => compressed.reduce((sum, row) => sum + (row[key] ?? 0), 0);
const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;
const skipped = report.filter((row) => row.br === null && row.gz === null).map((row) => relative(dist, row.file));
console.log(
  `Compressed ${String(compressed.length)} files in dist: ${kB(total('size'))} → brotli ${kB(total('br'))}, gzip ${kB(total('gz'))}` +
    (skipped.length > 0 ? `; left as is (no gain): ${skipped.join(', ')}` : ''),
);
