/**
 * The little of a browser the server renderer needs, for an engine that has none of it (the
 * BFF's embedded QuickJS): `URL` and `URLSearchParams` (core-js's), and our own `Headers`,
 * `Request`, `Response`, `AbortController`, timers on a virtual clock and a stand-in
 * `crypto.getRandomValues` (one file each under `host/`), a `location`, and a `fetch` that
 * records what the render reads and has no answer to (the BFF answers it in process and renders
 * again: see `hostFetch`). QuickJS has `queueMicrotask` and `performance` itself.
 *
 * Every definition is installed only where the engine lacks it, so under Node (Vitest) the real
 * ones stay. Timers run on a virtual clock the host advances when no promise job is left
 * (`__ssrHost.runNextTimer`): a render never waits for wall time.
 */
import { HostAbortController, HostAbortSignal } from './host/abort';
import { HostHeaders } from './host/headers';
import { getRandomValuesStandIn } from './host/random';
import { HostRequest, type HostRequestInit } from './host/request';
import { HostResponse } from './host/response';
import { VirtualTimers } from './host/timers';
import { HostURL, HostURLSearchParams } from './host/url';

const g = globalThis as Record<string, unknown>;

function define(name: string, value: unknown): void {
  if (typeof g[name] === 'undefined') g[name] = value;
}

const timers = new VirtualTimers();

/**
 * A read the render had no answer to (`url`: the path and query on the page's own origin, else
 * the whole URL). The BFF reads it from its own API router in process (or refuses it: nothing
 * personal may enter a shared document) and renders again with the answer.
 */
export interface HostNeed {
  method: string;
  url: string;
}

/**
 * `location`'s origin while the bundle loads, before any render has set the page's: what module
 * code captures then (the API client's `baseUrl`) names the page's own origin, as the page's
 * data is keyed by path and query alone (`lib/document-data.ts`).
 */
const LOADING_ORIGIN = 'http://localhost';

/** The reads of the current render that had no answer, in the order asked, each once. */
let needs: HostNeed[] = [];

/**
 * The render's `fetch`. The app answers a document's reads from the answers the BFF handed to
 * the render (`lib/document-data.ts`, through `lib/api.ts`) before it would fetch, so a read that
 * gets here had none: it is recorded, and never settles. The loader waits, nothing renders from
 * the answer's absence, and the render ends once no job is left (see `entry-server.tsx`),
 * reporting what it needs.
 */
function hostFetch(input: string | HostRequest, init?: HostRequestInit): Promise<HostResponse> {
  // a request the browser's fetch would refuse (a URL that does not parse) is refused here too
  const request = input instanceof HostRequest ? input : new HostRequest(input, init);
  const url = new HostURL(request.url);
  const page = (g.location as URL | undefined)?.origin;
  const own = url.origin === page || url.origin === LOADING_ORIGIN;
  const wanted = own ? `${url.pathname}${url.search}` : url.href;
  if (!needs.some((need) => need.method === request.method && need.url === wanted)) {
    needs.push({ method: request.method, url: wanted });
  }
  return new Promise<HostResponse>(() => undefined);
}

export interface SsrHost {
  runNextTimer: () => boolean;
  resetTimers: () => void;
  setLocation: (href: string) => void;
  /** The reads the render had no answer to since the last call (see `hostFetch`); clears them. */
  takeNeeds: () => HostNeed[];
}

/** Installs what the engine lacks; returns the host's controls. Idempotent. */
export function installHost(): SsrHost {
  define('URL', HostURL);
  define('URLSearchParams', HostURLSearchParams);
  define('Headers', HostHeaders);
  define('Request', HostRequest);
  define('Response', HostResponse);
  define('AbortController', HostAbortController);
  define('AbortSignal', HostAbortSignal);
  define('setTimeout', timers.setTimeout);
  define('clearTimeout', timers.clearTimeout);
  define('setInterval', timers.setInterval);
  define('clearInterval', timers.clearTimeout);
  define('crypto', { getRandomValues: getRandomValuesStandIn });
  define('window', globalThis);
  define('self', globalThis);
  // the engine prints nothing: a render's console output goes nowhere
  const silent = () => undefined;
  define('console', { log: silent, info: silent, warn: silent, error: silent, debug: silent });
  let location = new HostURL(`${LOADING_ORIGIN}/`);
  if (typeof g.location === 'undefined') {
    Object.defineProperty(g, 'location', { get: () => location, configurable: true });
  }
  if (typeof g.fetch === 'undefined') g.fetch = hostFetch;
  return {
    runNextTimer: () => timers.runNext(),
    resetTimers: () => timers.reset(),
    setLocation: (href) => {
      location = new HostURL(href);
    },
    takeNeeds: () => {
      const taken = needs;
      needs = [];
      return taken;
    },
  };
}
