import { describe, expect, it } from 'vitest';
import { HostHeaders } from './headers';
import { HostResponse } from './response';

describe('HostResponse: the render’s Response', () => {
  it('has a status, ok, headers and a body read once', async () => {
    const response = new HostResponse('hello', { status: 201, statusText: 'Created', headers: { 'X-A': '1' } });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.statusText).toBe('Created');
    expect(response.headers).toBeInstanceOf(HostHeaders);
    expect(response.headers.get('x-a')).toBe('1');
    expect(response.bodyUsed).toBe(false);
    expect(await response.clone().text()).toBe('hello');
    expect(await response.text()).toBe('hello');
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
    expect(() => response.clone()).toThrow(TypeError);
  });

  it('makes JSON answers with their content type unless one is given', async () => {
    const problem = HostResponse.json(
      { title: 'Not found', status: 404 },
      { status: 404, headers: { 'content-type': 'application/problem+json' } },
    );
    expect(problem.ok).toBe(false);
    expect(problem.headers.get('content-type')).toBe('application/problem+json');
    expect(await problem.json()).toEqual({ title: 'Not found', status: 404 });
    expect(HostResponse.json([1]).headers.get('content-type')).toBe('application/json');
  });

  it('makes redirects, and refuses a status outside 200–599', async () => {
    const redirect = HostResponse.redirect('/sign-in', 303);
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get('location')).toBe('/sign-in');
    expect(await new HostResponse().text()).toBe('');
    expect(() => new HostResponse(null, { status: 99 })).toThrow(RangeError);
  });
});
