/**
 * Recovery from a chunk that no longer loads: after a deploy, a tab still running the previous
 * build asks for lazy route chunks the servers may no longer have. One full navigation to the
 * destination loads the new build's document and chunks. A `sessionStorage` record makes it
 * one: a second failure within RETRY_WINDOW_MS (from another page load, the one the reload
 * made) shows the error page instead, so a chunk that is really broken never loops and never
 * leaves a blank page. This is in the entry bundle (it cannot be a chunk itself), so it is small.
 */

/** The sessionStorage key of the last reload this recovery made: `<ms since epoch> <page load>`. */
export const RELOAD_KEY = 'chunk-reload';
/** A failure this soon after a recovery's reload is not recovered again. */
export const RETRY_WINDOW_MS = 10_000;

/**
 * What browsers and Vite say when a module or chunk did not load: Chromium's "Failed to fetch
 * dynamically imported module", Firefox's "error loading dynamically imported module",
 * Safari's "Importing a module script failed", a chunk answered with another type ("Failed to
 * load module script"), and Vite's preload helper ("Unable to preload CSS", the error it
 * reports through `vite:preloadError` and then rejects the route's import with).
 */
const CHUNK_ERROR =
  /dynamically imported module|module script failed|Failed to load module script|Unable to preload CSS/;

/** Whether `error` is a chunk or module that did not load (and not a bug of the page). */
export function isChunkLoadError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'ChunkLoadError' || CHUNK_ERROR.test(error.message));
}

/**
 * Whether to recover by a full navigation, recording the decision in `storage`. True when no
 * recovery happened within RETRY_WINDOW_MS, or when the one recorded is this page load's own (a
 * render asking again before the navigation starts). False (show the error page) when another
 * page load failed within the window, or when `storage` is unusable (no record, no loop guard).
 */
export function shouldReload(storage: Pick<Storage, 'getItem' | 'setItem'>, now: number, page: string): boolean {
  try {
    const [at, by] = (storage.getItem(RELOAD_KEY) ?? '').split(' ');
    const since = at ? now - Number(at) : Number.NaN;
    if (since >= 0 && since < RETRY_WINDOW_MS) return by === page;
    storage.setItem(RELOAD_KEY, `${String(now)} ${page}`);
    return true;
  } catch {
    return false;
  }
}
