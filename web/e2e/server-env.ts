import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** web/ (this file lives in web/e2e/). */
export const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = resolve(webDir, '..');
export const distDir = join(webDir, 'dist');

/** The server binary: $BFF_BIN (relative paths resolve from web/), by default ../target/debug/bff. */
export const bffBin = resolve(webDir, process.env.BFF_BIN ?? '../target/debug/bff');

/** Where global setup leaves what teardown needs (pid, temp dir, base URL). */
export const stateFile = join(tmpdir(), `storefront-e2e-${createHash(webDir)}.json`);

/** The environment variable through which the base URL reaches the config and the workers. */
export const BASE_URL_ENV = 'E2E_BASE_URL';

/** The embedded sandbox's origin (its fault injection), when global setup started the server. */
export const SANDBOX_URL_ENV = 'E2E_SANDBOX_URL';

export interface ServerState {
  pid: number;
  baseURL: string;
  tempDir: string;
  logFile: string;
}

function createHash(text: string): string {
  let hash = 0;
  for (const char of text) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash.toString(36);
}
