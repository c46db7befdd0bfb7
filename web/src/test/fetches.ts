import { vi } from 'vitest';

/**
 * The URLs of the requests the app hands to `fetch`, recorded at the call, in the order the app
 * makes them. A list that an MSW handler fills says neither: under Node, MSW 3 lets the fetch
 * reach Undici and intercepts it at the socket, so a handler runs an unknown while after the
 * fetch, and concurrent requests reach their handlers in any order. Call it once MSW is listening
 * (in a test or `beforeEach`): it wraps MSW's `fetch`, which still answers every call.
 */
export function recordFetches(): URL[] {
  const urls: URL[] = [];
  const fetch = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    urls.push(new URL(input instanceof Request ? input.url : String(input), globalThis.location.href));
    return fetch(input, init);
  });
  return urls;
}
