import { describe, expect, it } from 'vitest';
import { isChunkLoadError, RELOAD_KEY, RETRY_WINDOW_MS, shouldReload } from './chunk-reload';

function memoryStorage(): Pick<Storage, 'getItem' | 'setItem'> & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (key) => data.get(key) ?? null,
    setItem: (key, value) => {
      data.set(key, value);
    },
  };
}

describe('isChunkLoadError', () => {
  it.each([
    'Failed to fetch dynamically imported module: http://shop.test/assets/dealer-locator-Ab12.js',
    'error loading dynamically imported module: http://shop.test/assets/x.js',
    'Importing a module script failed.',
    'Unable to preload CSS for /assets/dealer-locator-Ab12.css',
  ])('recognises %s', (message) => {
    expect(isChunkLoadError(new TypeError(message))).toBe(true);
  });

  it('does not take a page bug or a non-error for a chunk failure', () => {
    expect(isChunkLoadError(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isChunkLoadError('Failed to fetch dynamically imported module')).toBe(false);
    expect(isChunkLoadError(null)).toBe(false);
  });

  it('recognises a chunk error by its name', () => {
    expect(isChunkLoadError(Object.assign(new Error('Loading chunk 7 failed'), { name: 'ChunkLoadError' }))).toBe(true);
  });
});

describe('shouldReload', () => {
  it('reloads once, then a failure of the reloaded page within 10 s shows the error', () => {
    const storage = memoryStorage();
    expect(shouldReload(storage, 1_000, 'first-load')).toBe(true);
    expect(storage.data.has(RELOAD_KEY)).toBe(true);
    // the reloaded page fails again: no second reload, no loop
    expect(shouldReload(storage, 3_000, 'second-load')).toBe(false);
    expect(shouldReload(storage, 1_000 + RETRY_WINDOW_MS - 1, 'second-load')).toBe(false);
  });

  it('lets the same page load ask again before its navigation starts', () => {
    const storage = memoryStorage();
    expect(shouldReload(storage, 1_000, 'first-load')).toBe(true);
    expect(shouldReload(storage, 1_005, 'first-load')).toBe(true);
  });

  it('recovers again once the window has passed (a later deploy)', () => {
    const storage = memoryStorage();
    expect(shouldReload(storage, 1_000, 'first-load')).toBe(true);
    expect(shouldReload(storage, 1_000 + RETRY_WINDOW_MS, 'later-load')).toBe(true);
  });

  it('ignores a record it cannot read, and gives up when storage throws', () => {
    const storage = memoryStorage();
    storage.data.set(RELOAD_KEY, 'garbage');
    expect(shouldReload(storage, 1_000, 'page')).toBe(true);

    const broken = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => undefined,
    };
    expect(shouldReload(broken, 1_000, 'page')).toBe(false);
  });
});
