/**
 * `Response` for the server render's engine, which has none: a status, headers and a text body
 * read once, with `Response.json` and `Response.redirect` (what the app's API client and its
 * router make and read). Our own: see `headers.ts`.
 */
import { HostHeaders, type HeadersInit } from './headers';

export interface HostResponseInit {
  status?: number;
  statusText?: string;
  headers?: HeadersInit;
}

export class HostResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HostHeaders;
  readonly body: string | null;
  readonly url = '';
  readonly redirected = false;
  readonly type = 'basic';
  bodyUsed = false;

  constructor(body?: string | null, init: HostResponseInit = {}) {
    this.body = body ?? null;
    this.status = init.status ?? 200;
    if (this.status < 200 || this.status > 599) throw new RangeError(`Invalid response status: ${String(this.status)}`);
    this.statusText = init.statusText ?? '';
    this.headers = new HostHeaders(init.headers);
  }
  static json(data: unknown, init: HostResponseInit = {}): HostResponse {
    const headers = new HostHeaders(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new HostResponse(JSON.stringify(data), { ...init, headers });
  }
  static redirect(url: string, status = 302): HostResponse {
    return new HostResponse(null, { status, headers: { location: url } });
  }
  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }
  clone(): HostResponse {
    if (this.bodyUsed) throw new TypeError('Response body has already been consumed.');
    return new HostResponse(this.body, { status: this.status, statusText: this.statusText, headers: this.headers });
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
