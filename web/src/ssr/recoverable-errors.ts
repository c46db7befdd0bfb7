/**
 * Hydration errors React recovered from (a server/browser mismatch: React threw the server's
 * markup away and rendered again). Kept on `window.__recoverableErrors` so end-to-end tests can
 * assert there are none, and logged: each is a first screen painted twice.
 */
declare global {
  interface Window {
    __recoverableErrors?: string[];
  }
}

export function reportRecoverableError(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  (window.__recoverableErrors ??= []).push(message);
  console.error('hydration: recovered from', error);
}
