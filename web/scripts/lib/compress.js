// Build-time compression of the static assets: every compressible file under a directory gets a
// brotli (quality 11) and a gzip (level 9) sibling, `name.br` and `name.gz`, which the BFF serves
// as stored after negotiating Accept-Encoding. Nothing is compressed per request. Node's own zlib
// does both, so no dependency is needed.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** Text-like formats worth compressing (images other than SVG, fonts like woff2, are compressed already). */
export const COMPRESSIBLE_EXTENSIONS = new Set([
  '.js',
  '.mjs',
  '.css',
  '.html',
  '.svg',
  '.json',
  '.wasm',
  '.txt',
  '.xml',
]);

/** A variant is kept only when it is at most this share of the original: otherwise it does not help. */
export const MAX_RATIO = 0.95;

/** Build metadata (Vite's manifest) lives in dot-directories the BFF never serves. */
const skipDirectory = (name) => name.startsWith('.');

/** @param {Buffer} data */
export function brotli(data) {
  return brotliCompressSync(data, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
    },
  });
}

/** @param {Buffer} data */
export function gzip(data) {
  return gzipSync(data, { level: 9 });
}

const ENCODINGS = [
  { suffix: '.br', compress: brotli },
  { suffix: '.gz', compress: gzip },
];

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skipDirectory(entry.name)) yield* files(path);
    } else if (entry.isFile()) {
      yield path;
    }
  }
}

/**
 * Writes `.br` and `.gz` siblings for the compressible files under `dir` (recursively), where
 * they are smaller than MAX_RATIO of the original. Returns what it did, per file.
 * @param {string} dir
 * @returns {{ file: string, size: number, br: number | null, gz: number | null }[]}
 */
export function compressDirectory(dir) {
  const report = [];
  for (const path of files(dir)) {
    if (!COMPRESSIBLE_EXTENSIONS.has(extname(path).toLowerCase())) continue;
    const data = readFileSync(path);
    const row = { file: path, size: statSync(path).size, br: null, gz: null };
    for (const { suffix, compress } of ENCODINGS) {
      const compressed = compress(data);
      if (compressed.length > data.length * MAX_RATIO) continue;
      writeFileSync(path + suffix, compressed);
      row[suffix.slice(1)] = compressed.length;
    }
    report.push(row);
  }
  return report;
}
