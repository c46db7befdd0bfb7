import { describe, expect, it } from 'vitest';
import { HostAbortController, HostAbortSignal } from './abort';
import { HostHeaders } from './headers';
import { HostRequest } from './request';

describe('HostRequest: the render’s Request', () => {
  it('carries the URL, an upper-cased method, headers and a signal of its own', () => {
    const request = new HostRequest('https://shop.example/api/products/a%20b?sku=1', {
      method: 'post',
      headers: { Accept: 'application/json' },
      body: '{"a":1}',
    });
    expect(request.url).toBe('https://shop.example/api/products/a%20b?sku=1');
    expect(request.method).toBe('POST');
    expect(request.headers).toBeInstanceOf(HostHeaders);
    expect(request.headers.get('accept')).toBe('application/json');
    expect(request.signal).toBeInstanceOf(HostAbortSignal);
    expect(request.signal.aborted).toBe(false);
  });

  it('resolves a relative URL against location, as a browser does', () => {
    // (the test's location is jsdom's page)
    const request = new HostRequest('../api/pages/home?x=1');
    expect(request.url).toBe(new URL('../api/pages/home?x=1', globalThis.location.href).href);
    expect(request.url).toMatch(/^https?:\/\/[^/]+\/api\/pages\/home\?x=1$/);
    expect(request.method).toBe('GET');
  });

  it('keeps the signal it is given (the router aborts a render’s loaders through it)', () => {
    const controller = new HostAbortController();
    const request = new HostRequest('https://shop.example/p', { signal: controller.signal });
    const copy = new HostRequest(request);
    controller.abort('stop');
    expect(request.signal.aborted).toBe(true);
    expect(copy.signal).toBe(controller.signal);
    expect(copy.url).toBe('https://shop.example/p');
  });

  it('reads its body once, as text or JSON', async () => {
    const request = new HostRequest('https://shop.example/', { method: 'PUT', body: '{"n":2}' });
    expect(await request.clone().json()).toEqual({ n: 2 });
    expect(await request.text()).toBe('{"n":2}');
    await expect(request.text()).rejects.toThrow(TypeError);
  });

  it('refuses a GET with a body, and a URL that does not parse', () => {
    expect(() => new HostRequest('https://shop.example/', { body: 'x' })).toThrow(TypeError);
    expect(() => new HostRequest('http://exa mple.com/')).toThrow(TypeError);
  });
});
