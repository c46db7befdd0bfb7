/**
 * `Request` for the server render's engine, which has none: what the app and its router read of
 * one (URL, method, headers, signal, a text body). A relative URL resolves against `location`,
 * as in a browser. Our own: see `headers.ts`.
 */
import { HostAbortController, type HostAbortSignal } from './abort';
import { HostHeaders, type HeadersInit } from './headers';

export interface HostRequestInit {
  method?: string;
  headers?: HeadersInit;
  body?: string | null;
  signal?: HostAbortSignal | null;
  [other: string]: unknown;
}

/** What a relative URL resolves against: the render's `location` (the page's URL). */
function base(): string | undefined {
  const location = (globalThis as { location?: { href?: unknown } }).location;
  return typeof location?.href === 'string' ? location.href : undefined;
}

export class HostRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: HostHeaders;
  readonly signal: HostAbortSignal;
  readonly body: string | null;
  bodyUsed = false;

  constructor(input: string | { href: string } | HostRequest, init: HostRequestInit = {}) {
    const from = input instanceof HostRequest ? input : undefined;
    this.url = from
      ? from.url
      : new URL(typeof input === 'string' ? input : (input as { href: string }).href, base()).href;
    this.method = (init.method ?? from?.method ?? 'GET').toUpperCase();
    this.headers = new HostHeaders(init.headers ?? from?.headers);
    this.signal = init.signal ?? from?.signal ?? new HostAbortController().signal;
    this.body = init.body ?? from?.body ?? null;
    if ((this.method === 'GET' || this.method === 'HEAD') && this.body !== null) {
      throw new TypeError('Request with GET/HEAD method cannot have body.');
    }
  }
  clone(): HostRequest {
    return new HostRequest(this);
  }
  text(): Promise<string> {
    if (this.bodyUsed) return Promise.reject(new TypeError('Body has already been consumed.'));
    this.bodyUsed = true;
    return Promise.resolve(this.body ?? '');
  }
  json(): Promise<unknown> {
    return this.text().then((text) => JSON.parse(text) as unknown);
  }
}
