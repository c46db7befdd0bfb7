/**
 * The little of a browser the server renderer needs, for an engine that has none of it (the
 * BFF's embedded QuickJS): `URL`, `URLSearchParams`, `Headers`, `Request`, `Response`,
 * `AbortController`, timers, `queueMicrotask`, `TextEncoder`, `crypto.getRandomValues`, a
 * `location` and a `fetch` that records what the render reads and has no answer to (the BFF
 * answers it in process and renders again: see `hostFetch`).
 *
 * Every definition is installed only where the engine lacks it, so under Node (Vitest) the real
 * ones stay. Timers run on a virtual clock the host advances when no promise job is left
 * (`__ssrHost.runNextTimer`): a render never waits for wall time.
 */

type Json = unknown;

interface Timer {
  id: number;
  at: number;
  run: () => void;
}

const g = globalThis as Record<string, unknown>;

function define(name: string, value: unknown): void {
  if (typeof g[name] === 'undefined') g[name] = value;
}

// ---------- URLSearchParams and URL (absolute http(s) URLs and paths against a base) ----------

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function encodeParam(text: string): string {
  return encodeURIComponent(text).replace(/%20/g, '+');
}

class HostURLSearchParams {
  private list: [string, string][] = [];
  private onChange: (() => void) | undefined;

  constructor(init?: string | Record<string, string> | [string, string][] | HostURLSearchParams) {
    if (typeof init === 'string') this.parse(init);
    else if (init instanceof HostURLSearchParams) this.list = init.list.map(([k, v]) => [k, v]);
    else if (Array.isArray(init)) this.list = init.map(([k, v]) => [k, v]);
    else if (init) this.list = Object.entries(init);
  }

  /** @internal */
  bind(onChange: () => void): this {
    this.onChange = onChange;
    return this;
  }

  /** @internal */
  parse(query: string): void {
    this.list = [];
    const text = query.startsWith('?') ? query.slice(1) : query;
    if (text === '') return;
    for (const pair of text.split('&')) {
      if (pair === '') continue;
      const at = pair.indexOf('=');
      const key = at < 0 ? pair : pair.slice(0, at);
      const value = at < 0 ? '' : pair.slice(at + 1);
      this.list.push([decode(key), decode(value)]);
    }
  }

  get size(): number {
    return this.list.length;
  }
  append(key: string, value: string): void {
    this.list.push([key, value]);
    this.onChange?.();
  }
  delete(key: string): void {
    this.list = this.list.filter(([k]) => k !== key);
    this.onChange?.();
  }
  get(key: string): string | null {
    return this.list.find(([k]) => k === key)?.[1] ?? null;
  }
  getAll(key: string): string[] {
    return this.list.filter(([k]) => k === key).map(([, v]) => v);
  }
  has(key: string): boolean {
    return this.list.some(([k]) => k === key);
  }
  set(key: string, value: string): void {
    const at = this.list.findIndex(([k]) => k === key);
    if (at < 0) this.list.push([key, value]);
    else {
      this.list[at] = [key, value];
      this.list = this.list.filter(([k], index) => k !== key || index === at);
    }
    this.onChange?.();
  }
  sort(): void {
    this.list.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.onChange?.();
  }
  forEach(callback: (value: string, key: string, parent: this) => void): void {
    for (const [k, v] of this.list) callback(v, k, this);
  }
  keys(): IterableIterator<string> {
    return this.list.map(([k]) => k)[Symbol.iterator]();
  }
  values(): IterableIterator<string> {
    return this.list.map(([, v]) => v)[Symbol.iterator]();
  }
  entries(): IterableIterator<[string, string]> {
    return this.list.map(([k, v]): [string, string] => [k, v])[Symbol.iterator]();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  toString(): string {
    return this.list.map(([k, v]) => `${encodeParam(k)}=${encodeParam(v)}`).join('&');
  }
}

const ABSOLUTE = /^([a-zA-Z][a-zA-Z0-9+.-]*:)\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/;
/** A URL without an authority (`mailto:a@b.example`, `tel:+1…`, `javascript:…`): its scheme is its protocol. */
const OPAQUE = /^([a-zA-Z][a-zA-Z0-9+.-]*:)(?!\/\/)([^?#]*)(\?[^#]*)?(#.*)?$/;

/** What the URL parser drops before parsing: leading and trailing C0 controls and spaces, and every tab or newline. */
function preprocess(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  return text.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
}

/** The schemes whose URLs the WHATWG parser reads `\` in as `/` (before the query). */
const SPECIAL_SCHEMES: ReadonlySet<string> = new Set(['http', 'https', 'ws', 'wss', 'ftp', 'file']);

/**
 * `\` as `/` before the query, as a browser reads a special scheme's URL or a relative
 * reference: `/\evil.example/x` is `//evil.example/x`, another host, and read as a path it
 * passed for a same-origin link.
 */
function slashes(text: string): string {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(text)?.[1]?.toLowerCase();
  if (scheme !== undefined && !SPECIAL_SCHEMES.has(scheme)) return text;
  const end = text.search(/[?#]/);
  const head = end < 0 ? text : text.slice(0, end);
  return head.replace(/\\/g, '/') + (end < 0 ? '' : text.slice(end));
}

export class HostURL {
  protocol = '';
  host = '';
  pathname = '/';
  private query = '';
  hash = '';
  readonly searchParams: HostURLSearchParams;

  /** Whether the URL has no authority (`mailto:`, `tel:`, `javascript:`): its origin is "null". */
  private opaque = false;

  constructor(input: string | HostURL, base?: string | HostURL) {
    const text = slashes(preprocess(input.toString()));
    let match: ArrayLike<string | undefined> | null = ABSOLUTE.exec(text);
    // As a browser's parser does: a scheme makes the URL absolute, whatever the base.
    const opaque = match ? null : OPAQUE.exec(text);
    if (opaque) match = [opaque[0], opaque[1] ?? '', '', opaque[2] ?? '', opaque[3] ?? '', opaque[4] ?? ''];
    if (!match && base !== undefined) match = ABSOLUTE.exec(HostURL.resolve(text, base.toString()));
    if (!match) throw new TypeError(`Invalid URL: ${text}`);
    this.opaque = opaque !== null;
    this.protocol = (match[1] ?? '').toLowerCase();
    this.host = (match[2] ?? '').toLowerCase();
    this.pathname = this.opaque ? (match[3] ?? '') : HostURL.normalisePath(match[3] || '/');
    this.query = match[4] && match[4] !== '?' ? match[4] : '';
    this.hash = match[5] && match[5] !== '#' ? match[5] : '';
    this.searchParams = new HostURLSearchParams(this.query).bind(() => {
      const text = this.searchParams.toString();
      this.query = text ? `?${text}` : '';
    });
  }

  static canParse(input: string, base?: string): boolean {
    try {
      new HostURL(input, base);
      return true;
    } catch {
      return false;
    }
  }

  private static resolve(reference: string, base: string): string {
    const parsed = new HostURL(base);
    if (reference.startsWith('//')) return `${parsed.protocol}${reference}`;
    if (reference.startsWith('/')) return `${parsed.origin}${reference}`;
    if (reference.startsWith('?')) return `${parsed.origin}${parsed.pathname}${reference}`;
    if (reference.startsWith('#')) return `${parsed.origin}${parsed.pathname}${parsed.search}${reference}`;
    const directory = parsed.pathname.slice(0, parsed.pathname.lastIndexOf('/') + 1);
    return `${parsed.origin}${directory}${reference}`;
  }

  private static normalisePath(path: string): string {
    const out: string[] = [];
    const segments = path.split('/');
    segments.forEach((segment, index) => {
      if (segment === '..') {
        if (out.length > 1) out.pop();
        if (index === segments.length - 1) out.push('');
      } else if (segment === '.') {
        if (index === segments.length - 1) out.push('');
      } else out.push(segment);
    });
    const joined = out.join('/');
    return (joined.startsWith('/') ? joined : `/${joined}`).replace(/[ "<>`{}]/g, (c) => encodeURIComponent(c));
  }

  get search(): string {
    return this.query;
  }
  set search(value: string) {
    this.query = value && value !== '?' ? (value.startsWith('?') ? value : `?${value}`) : '';
    this.searchParams.parse(this.query);
  }
  get hostname(): string {
    return this.host.replace(/:\d+$/, '');
  }
  get port(): string {
    return /:(\d+)$/.exec(this.host)?.[1] ?? '';
  }
  get origin(): string {
    return this.opaque ? 'null' : `${this.protocol}//${this.host}`;
  }
  get href(): string {
    const start = this.opaque ? this.protocol : this.origin;
    return `${start}${this.pathname}${this.query}${this.hash}`;
  }
  toString(): string {
    return this.href;
  }
  toJSON(): string {
    return this.href;
  }
}

// ---------- Headers, AbortController, Request, Response ----------

type HeadersInit = HostHeaders | Record<string, string> | [string, string][] | undefined;

class HostHeaders {
  private map = new Map<string, string>();
  constructor(init?: HeadersInit) {
    if (init instanceof HostHeaders) init.forEach((value, key) => this.set(key, value));
    else if (Array.isArray(init)) for (const [k, v] of init) this.append(k, v);
    else if (init) for (const [k, v] of Object.entries(init)) this.set(k, v);
  }
  append(key: string, value: string): void {
    const name = key.toLowerCase();
    const old = this.map.get(name);
    this.map.set(name, old === undefined ? value : `${old}, ${value}`);
  }
  set(key: string, value: string): void {
    this.map.set(key.toLowerCase(), value);
  }
  get(key: string): string | null {
    return this.map.get(key.toLowerCase()) ?? null;
  }
  has(key: string): boolean {
    return this.map.has(key.toLowerCase());
  }
  delete(key: string): void {
    this.map.delete(key.toLowerCase());
  }
  forEach(callback: (value: string, key: string, parent: this) => void): void {
    for (const [k, v] of this.map) callback(v, k, this);
  }
  entries(): IterableIterator<[string, string]> {
    return this.map.entries();
  }
  keys(): IterableIterator<string> {
    return this.map.keys();
  }
  values(): IterableIterator<string> {
    return this.map.values();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.map.entries();
  }
}

class HostAbortSignal {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((event: unknown) => void) | null = null;
  private listeners: ((event: unknown) => void)[] = [];
  addEventListener(type: string, listener: (event: unknown) => void): void {
    if (type === 'abort') this.listeners.push(listener);
  }
  removeEventListener(type: string, listener: (event: unknown) => void): void {
    if (type === 'abort') this.listeners = this.listeners.filter((l) => l !== listener);
  }
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }
  /** @internal */
  fire(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new Error('The operation was aborted.');
    const event = { type: 'abort', target: this };
    this.onabort?.(event);
    for (const listener of this.listeners) listener(event);
  }
}

class HostAbortController {
  readonly signal = new HostAbortSignal();
  abort(reason?: unknown): void {
    this.signal.fire(reason);
  }
}

interface RequestInit {
  method?: string;
  headers?: HeadersInit;
  body?: string | null;
  signal?: HostAbortSignal | null;
  [other: string]: unknown;
}

class HostRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: HostHeaders;
  readonly signal: HostAbortSignal;
  readonly body: string | null;
  constructor(input: string | HostURL | HostRequest, init: RequestInit = {}) {
    const from = input instanceof HostRequest ? input : undefined;
    if (input instanceof HostRequest) this.url = input.url;
    else this.url = new HostURL(input instanceof HostURL ? input.href : input).href;
    this.method = (init.method ?? from?.method ?? 'GET').toUpperCase();
    this.headers = new HostHeaders(init.headers ?? from?.headers);
    this.signal = init.signal ?? from?.signal ?? new HostAbortController().signal;
    this.body = init.body ?? from?.body ?? null;
  }
  clone(): HostRequest {
    return new HostRequest(this);
  }
  text(): Promise<string> {
    return Promise.resolve(this.body ?? '');
  }
  json(): Promise<Json> {
    return this.text().then((text) => JSON.parse(text) as Json);
  }
}

class HostResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HostHeaders;
  readonly body: string | null;
  readonly url = '';
  readonly redirected = false;
  readonly type = 'basic';
  bodyUsed = false;
  constructor(body?: string | null, init: { status?: number; statusText?: string; headers?: HeadersInit } = {}) {
    this.body = body ?? null;
    this.status = init.status ?? 200;
    this.statusText = init.statusText ?? '';
    this.headers = new HostHeaders(init.headers);
  }
  static json(data: unknown, init: { status?: number; headers?: HeadersInit } = {}): HostResponse {
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
    return new HostResponse(this.body, { status: this.status, statusText: this.statusText, headers: this.headers });
  }
  text(): Promise<string> {
    this.bodyUsed = true;
    return Promise.resolve(this.body ?? '');
  }
  json(): Promise<Json> {
    return this.text().then((text) => JSON.parse(text) as Json);
  }
}

// ---------- timers on a virtual clock, microtasks ----------

let clock = 0;
let nextTimerId = 1;
let timers: Timer[] = [];

function setHostTimeout(callback: (...args: unknown[]) => void, delay = 0, ...args: unknown[]): number {
  const id = nextTimerId++;
  timers.push({
    id,
    at: clock + Math.max(0, delay || 0),
    run: () => {
      callback(...args);
    },
  });
  return id;
}

function clearHostTimeout(id: number | undefined): void {
  timers = timers.filter((timer) => timer.id !== id);
}

function setHostInterval(callback: (...args: unknown[]) => void, delay = 0): number {
  const id = nextTimerId++;
  const schedule = () => {
    timers.push({
      id,
      at: clock + Math.max(1, delay || 0),
      run: () => {
        schedule();
        callback();
      },
    });
  };
  schedule();
  return id;
}

/** Runs the earliest timer, advancing the virtual clock to it: false when none is left. */
function runNextTimer(): boolean {
  if (timers.length === 0) return false;
  let earliest = 0;
  let at = Infinity;
  timers.forEach((timer, index) => {
    if (timer.at < at) {
      earliest = index;
      at = timer.at;
    }
  });
  const [timer] = timers.splice(earliest, 1);
  if (!timer) return false;
  clock = Math.max(clock, timer.at);
  timer.run();
  return true;
}

/** Drops every timer (between renders: what one render scheduled never runs in the next). */
function resetTimers(): void {
  timers = [];
}

class HostTextEncoder {
  readonly encoding = 'utf-8';
  encode(text = ''): Uint8Array {
    // every byte of the UTF-8 form: a %XX escape, or an ASCII character as is
    const escaped = encodeURIComponent(text);
    const bytes: number[] = [];
    for (let i = 0; i < escaped.length; i++) {
      if (escaped[i] === '%') {
        bytes.push(parseInt(escaped.slice(i + 1, i + 3), 16));
        i += 2;
      } else bytes.push(escaped.charCodeAt(i));
    }
    return Uint8Array.from(bytes);
  }
}

// ---------- fetch: what the render's loaders read ----------

/** The API answers a render may read, by path and query (`/api/products/summit%20lr`). */
let answers: Record<string, { status: number; body: Json }> = {};

/**
 * A read the render had no answer to (`url`: the path and query on the page's own origin, else
 * the whole URL). The BFF reads it from its own API router in process (or refuses it: nothing
 * personal may enter a shared document) and renders again with the answer.
 */
export interface HostNeed {
  method: string;
  url: string;
}

/** The reads of the current render that had no answer, in the order asked, each once. */
let needs: HostNeed[] = [];

function hostFetch(input: string | HostRequest, init?: RequestInit): Promise<HostResponse> {
  const request = input instanceof HostRequest ? input : new HostRequest(input, init);
  const url = new HostURL(request.url);
  const answer = request.method === 'GET' ? answers[`${url.pathname}${url.search}`] : undefined;
  if (answer) {
    const headers = { 'content-type': answer.status >= 400 ? 'application/problem+json' : 'application/json' };
    return Promise.resolve(new HostResponse(JSON.stringify(answer.body), { status: answer.status, headers }));
  }
  const page = (g.location as HostURL | undefined)?.origin;
  const wanted = url.origin === page ? `${url.pathname}${url.search}` : url.href;
  if (!needs.some((need) => need.method === request.method && need.url === wanted)) {
    needs.push({ method: request.method, url: wanted });
  }
  // never settles: the loader waits, nothing renders from the answer's absence, and the render
  // ends once no job is left (see `entry-server.tsx`), reporting what it needs
  return new Promise<HostResponse>(() => undefined);
}

export interface SsrHost {
  runNextTimer: () => boolean;
  resetTimers: () => void;
  setAnswers: (next: Record<string, { status: number; body: Json }>) => void;
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
  define('TextEncoder', HostTextEncoder);
  define('setTimeout', setHostTimeout);
  define('clearTimeout', clearHostTimeout);
  define('setInterval', setHostInterval);
  define('clearInterval', clearHostTimeout);
  define('queueMicrotask', (callback: () => void) => {
    void Promise.resolve().then(callback);
  });
  define('crypto', {
    getRandomValues<T extends ArrayBufferView>(array: T): T {
      const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
      return array;
    },
  });
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
    runNextTimer,
    resetTimers,
    setAnswers: (next) => {
      answers = next;
    },
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
