/**
 * The little of a browser the server renderer needs, for an engine that has none of it (the
 * BFF's embedded QuickJS): `URL` and `URLSearchParams` (core-js's), and our own `Headers`,
 * `Request`, `Response`, `AbortController`, timers on a virtual clock and a stand-in
 * `crypto.getRandomValues` (one file each under `host/`), a `location`, and a `fetch` that
 * answers nothing (see `hostFetch`). QuickJS has `queueMicrotask` and `performance` itself.
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
 * The render's `fetch`: it answers every request with a 503 problem, "Not rendered on the
 * server". The app reads a document's data from the answers the BFF hands to the render
 * (`document-data.ts`, through `lib/api.ts`) before it would fetch; what is not among them (the
 * session, the cart) is not part of a shared document, and the browser asks for it.
 */
function hostFetch(input: string | HostRequest, init?: HostRequestInit): Promise<HostResponse> {
  // a request the browser's fetch would refuse (a URL that does not parse) is refused here too
  if (!(input instanceof HostRequest)) new HostRequest(input, init);
  return Promise.resolve(
    HostResponse.json(
      { type: 'about:blank', title: 'Not rendered on the server', status: 503 },
      { status: 503, headers: { 'content-type': 'application/problem+json' } },
    ),
  );
}

export interface SsrHost {
  runNextTimer: () => boolean;
  resetTimers: () => void;
  setLocation: (href: string) => void;
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
  let location = new HostURL('http://localhost/');
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
  };
}
