// Types of prehydration.js (plain JavaScript, run by Node in the build), for the TypeScript that
// imports it: vite.ssr.config.ts and the route chunks' tests.

/** One chunk of Vite's build manifest (dist/.vite/manifest.json), as far as it is read here. */
export interface ManifestChunk {
  file: string;
  imports?: string[];
  css?: string[];
  isEntry?: boolean;
  isDynamicEntry?: boolean;
}

export type Manifest = Record<string, ManifestChunk>;

export function appKeys(manifest: Manifest): string[];
export function staticClosure(manifest: Manifest, keys: string[]): string[];
export function prehydrationFiles(manifest: Manifest, routeModule: string): string[];
export function stylesheetsOutsideEntry(manifest: Manifest, routeModule: string): string[];
export function routeChunks(manifest: Manifest): Record<string, string[]>;
