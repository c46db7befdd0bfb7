import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { problem, server } from '../test/server';
import { ApiError, apiGet, ApiProblem, apiSend, errorMessage, errorToastText } from './api';

describe('apiGet / apiSend', () => {
  it('returns the parsed JSON body', async () => {
    server.use(http.get('/api/things/1', () => HttpResponse.json({ id: 1, name: 'thing' })));
    await expect(apiGet<{ id: number; name: string }>('/api/things/1')).resolves.toEqual({ id: 1, name: 'thing' });
  });

  it('sends X-CSRF and a JSON body on unsafe methods, and no X-CSRF on GET', async () => {
    const seen: { method: string; csrf: string | null; contentType: string | null; body: unknown }[] = [];
    const record = async ({ request }: { request: Request }) => {
      seen.push({
        method: request.method,
        csrf: request.headers.get('X-CSRF'),
        contentType: request.headers.get('Content-Type'),
        body: request.method === 'GET' ? null : await request.json(),
      });
      return HttpResponse.json({ ok: true });
    };
    server.use(http.get('/api/cart', record), http.post('/api/cart/items', record), http.delete('/api/cart/items/7', record));

    await apiGet('/api/cart');
    await apiSend('POST', '/api/cart/items', { productId: 'SKU-1', quantity: 1 });
    await apiSend('DELETE', '/api/cart/items/7', {});

    expect(seen).toEqual([
      { method: 'GET', csrf: null, contentType: null, body: null },
      { method: 'POST', csrf: '1', contentType: 'application/json', body: { productId: 'SKU-1', quantity: 1 } },
      { method: 'DELETE', csrf: '1', contentType: 'application/json', body: {} },
    ]);
  });

  it('resolves to undefined on 204 No Content', async () => {
    server.use(http.delete('/api/cart/items/1', () => new HttpResponse(null, { status: 204 })));
    await expect(apiSend('DELETE', '/api/cart/items/1')).resolves.toBeUndefined();
  });

  it('turns a problem+json answer into a typed ApiProblem', async () => {
    server.use(
      http.post('/api/auth/register', () =>
        problem(422, {
          type: 'https://errors.example/validation',
          title: 'Invalid input',
          detail: 'Some fields are invalid',
          code: 'validation_failed',
          errors: { email: 'Email must be a valid email address' },
        }),
      ),
    );

    const error: unknown = await apiSend('POST', '/api/auth/register', { email: 'nope' }).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(ApiProblem);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      type: 'https://errors.example/validation',
      title: 'Invalid input',
      status: 422,
      detail: 'Some fields are invalid',
      code: 'validation_failed',
      errors: { email: 'Email must be a valid email address' },
    });
  });

  it('turns other failures into an ApiError with the status', async () => {
    server.use(http.get('/api/broken', () => new HttpResponse('<h1>Bad gateway</h1>', { status: 502, headers: { 'Content-Type': 'text/html' } })));

    const error: unknown = await apiGet('/api/broken').catch((err: unknown) => err);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).not.toBeInstanceOf(ApiProblem);
    expect(error).toMatchObject({ status: 502 });
    expect(errorMessage(error)).toMatch(/status 502/);
  });

  it('reports a network failure as status 0 with the underlying message', async () => {
    server.use(http.get('/api/offline', () => HttpResponse.error()));

    const error: unknown = await apiGet('/api/offline').catch((err: unknown) => err);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 0 });
    expect(errorMessage(error)).not.toBe('');
  });
});

describe('errorMessage', () => {
  const base = { type: 'about:blank', status: 400, code: 'bad_request' };

  it('prefers the server message (detail)', () => {
    expect(errorMessage(new ApiProblem({ ...base, title: 'Bad Request', detail: 'Promo code expired' }))).toBe(
      'Promo code expired',
    );
  });

  it('falls back to the title', () => {
    expect(errorMessage(new ApiProblem({ ...base, title: 'Bad Request', detail: '' }))).toBe('Bad Request');
  });

  it("falls back to the error's own message", () => {
    expect(errorMessage(new ApiProblem({ ...base, title: '', detail: '' }))).toBe('Request failed with status 400');
    expect(errorMessage(new TypeError('Failed to fetch'))).toBe('Failed to fetch');
  });

  it('formats the generic toast text', () => {
    expect(errorToastText(new ApiProblem({ ...base, title: 'Bad Request', detail: 'Out of stock' }))).toBe(
      'Error: Out of stock',
    );
  });
});
