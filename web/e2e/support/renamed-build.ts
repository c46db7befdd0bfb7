import { cp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A Vite output name: `<name>-<8-character hash>.<ext>`. */
const HASHED = /^(.+-)([A-Za-z0-9_-]{8})(\.[a-z0-9]+)$/;
const TEXT_FILES = /\.(html|js|css|json|webmanifest|svg|txt|xml)$/;

/**
 * "Build B" without a second web build: `from` copied to `to` with every hashed asset renamed
 * (its hash changed) and every reference to it rewritten, so B's chunks have names A's pages
 * never asked for and B's `index.html` (so its build id) differs. Precompressed siblings are
 * dropped (their bytes would name A's chunks); B serves the files themselves. Returns the
 * renaming, A's asset name to B's.
 */
export async function renamedBuild(from: string, to: string): Promise<Map<string, string>> {
  await cp(from, to, { recursive: true });
  const assets = join(to, 'assets');
  const renames = new Map<string, string>();
  for (const name of await readdir(assets)) {
    if (name.endsWith('.br') || name.endsWith('.gz')) {
      await rm(join(assets, name));
      continue;
    }
    const match = HASHED.exec(name);
    if (!match) continue;
    const [, stem = '', hash = '', extension = ''] = match;
    renames.set(name, `${stem}${hash.split('').reverse().join('')}b${extension}`);
  }
  for (const [old, renamed] of renames) await rename(join(assets, old), join(assets, renamed));
  const pattern = new RegExp(
    [...renames.keys()].map((name) => name.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')).join('|'),
    'g',
  );
  for (const file of await textFiles(to)) {
    const text = await readFile(file, 'utf8');
    const rewritten = text.replace(pattern, (name) => renames.get(name) ?? name);
    if (rewritten !== text) await writeFile(file, rewritten);
  }
  return renames;
}

async function textFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await textFiles(path)));
    else if (TEXT_FILES.test(entry.name)) files.push(path);
  }
  return files;
}
