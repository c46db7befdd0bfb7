// Writes the stand-in 3D build (web/stand-in-build) into public/Build as the real build ships:
// the loader as is, the framework, data and wasm brotli-compressed (`.br`), which the BFF serves
// with `Content-Encoding: br`. The wasm is a tiny valid module exporting `add(i32, i32) -> i32`.
// Run `node scripts/stand-in-build.mjs` after changing web/stand-in-build; the output is committed.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync } from 'node:zlib';

const web = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(web, 'stand-in-build');
const out = join(web, 'public', 'Build');

// (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))
const WASM = Uint8Array.from([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00, // magic, version 1
  0x01,
  0x07,
  0x01,
  0x60,
  0x02,
  0x7f,
  0x7f,
  0x01,
  0x7f, // types: (i32, i32) -> i32
  0x03,
  0x02,
  0x01,
  0x00, // functions: one of type 0
  0x07,
  0x07,
  0x01,
  0x03,
  0x61,
  0x64,
  0x64,
  0x00,
  0x00, // exports: "add" = function 0
  0x0a,
  0x09,
  0x01,
  0x07,
  0x00,
  0x20,
  0x00,
  0x20,
  0x01,
  0x6a,
  0x0b, // code: local.get 0, 1; i32.add
]);

mkdirSync(out, { recursive: true });
copyFileSync(join(source, 'builder.loader.js'), join(out, 'builder.loader.js'));
const compressed = {
  'builder.framework.js.br': readFileSync(join(source, 'builder.framework.js')),
  'builder.data.br': readFileSync(join(source, 'builder.data.json')),
  'builder.wasm.br': Buffer.from(WASM),
};
for (const [name, bytes] of Object.entries(compressed)) writeFileSync(join(out, name), brotliCompressSync(bytes));
console.log(`stand-in build written to ${out}`);
