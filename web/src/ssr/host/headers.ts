/**
 * `Headers` for the server render's engine, which has none: names are case-insensitive and kept
 * lower-cased, `append` joins values with ", ", iteration is in name order (as the standard's).
 *
 * Our own, as are `Request`, `Response` and `AbortController` beside it: the maintained fetch
 * polyfill (`whatwg-fetch`) installs its own XMLHttpRequest-based `fetch` and these classes onto
 * the globals as a side effect of being imported, and its `Request` keeps a relative URL as given.
 */

export type HeadersInit = HostHeaders | Record<string, string> | Iterable<readonly [string, string]> | undefined;

function isIterable(init: HeadersInit): init is Iterable<readonly [string, string]> {
  return typeof init === 'object' && Symbol.iterator in init;
}

export class HostHeaders {
  private map = new Map<string, string>();

  constructor(init?: HeadersInit) {
    if (init instanceof HostHeaders) init.forEach((value, key) => this.append(key, value));
    else if (isIterable(init)) for (const [k, v] of init) this.append(k, v);
    else if (init) for (const [k, v] of Object.entries(init)) this.append(k, v);
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
    for (const [k, v] of this.entries()) callback(v, k, this);
  }
  entries(): IterableIterator<[string, string]> {
    return [...this.map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))[Symbol.iterator]();
  }
  keys(): IterableIterator<string> {
    return [...this.entries()].map(([k]) => k)[Symbol.iterator]();
  }
  values(): IterableIterator<string> {
    return [...this.entries()].map(([, v]) => v)[Symbol.iterator]();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}
