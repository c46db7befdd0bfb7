import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compressDirectory } from './compress.js';

describe('compressDirectory', () => {
  let dir;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'compress-test-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const text = 'export const storefront = "storefront";\n'.repeat(200);

  it('writes .br and .gz siblings that decompress to the original, for every compressible type, in subdirectories too', () => {
    mkdirSync(join(dir, 'assets'));
    const names = [
      'index.html',
      'assets/app.js',
      'assets/app.css',
      'logo.svg',
      'data.json',
      'robots.txt',
      'feed.xml',
      'module.wasm',
    ];
    for (const name of names) writeFileSync(join(dir, name), text);

    const report = compressDirectory(dir);

    expect(report.map((row) => row.file).sort()).toEqual(names.map((name) => join(dir, name)).sort());
    for (const name of names) {
      const original = readFileSync(join(dir, name));
      const br = readFileSync(join(dir, `${name}.br`));
      const gz = readFileSync(join(dir, `${name}.gz`));
      expect(brotliDecompressSync(br).equals(original), name).toBe(true);
      expect(gunzipSync(gz).equals(original), name).toBe(true);
      expect(br.length).toBeLessThan(original.length / 10);
      expect(gz[0]).toBe(0x1f); // the gzip magic number
    }
  });

  it('leaves alone what is not compressible, what does not shrink, build metadata and earlier variants', () => {
    mkdirSync(join(dir, '.vite'));
    writeFileSync(join(dir, '.vite', 'manifest.json'), text);
    writeFileSync(join(dir, 'photo.png'), text);
    // random bytes do not compress: no variant would help
    const noise = randomBytes(4096);
    writeFileSync(join(dir, 'noise.js'), noise);
    writeFileSync(join(dir, 'app.js'), text);

    compressDirectory(dir);
    // a second run (an earlier build's variants in place) compresses no variant again
    const report = compressDirectory(dir);

    expect(readdirSync(dir).sort()).toEqual(['.vite', 'app.js', 'app.js.br', 'app.js.gz', 'noise.js', 'photo.png']);
    expect(readdirSync(join(dir, '.vite'))).toEqual(['manifest.json']);
    expect(report.find((row) => row.file.endsWith('noise.js'))).toMatchObject({ br: null, gz: null });
  });
});
