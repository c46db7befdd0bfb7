import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { anonymousSessionFixture, emptyCart } from '../test/fixtures';
import { problem, server } from '../test/server';
import { api, ApiError, ApiProblem, errorMessage, errorToastText, requestsInFlight, unwrap } from './api';

const line = {
  productId: 'SKU-1',
  productName: 'Thing',
  quantity: 1,
  productPrice: 10,
  price: 10,
};

describe('api + unwrap', () => {
  it('returns the parsed JSON body, typed by the contract', async () => {
    server.use(http.get('/api/session', () => HttpResponse.json(anonymousSessionFixture)));
    const session = await unwrap(api.GET('/api/session'));
    expect(session).toEqual(anonymousSessionFixture);
    expect(session.signedIn).toBe(false);
  });

  it('sends X-CSRF and a JSON body on unsafe methods, and no X-CSRF on GET', async () => {
    const seen: { method: string; csrf: string | null; contentType: string | null; body: unknown }[] = [];
    const record = async ({ request }: { request: Request }) => {
      seen.push({
        method: request.method,
        csrf: request.headers.get('X-CSRF'),
        contentType: request.headers.get('Content-Type'),
        body: request.method === 'POST' ? await request.json() : null,
      });
      return HttpResponse.json(emptyCart);
    };
    server.use(
      http.get('/api/cart', record),
      http.post('/api/cart/items', record),
      http.delete('/api/cart/items/7', record),
    );

    await unwrap(api.GET('/api/cart'));
    await unwrap(api.POST('/api/cart/items', { body: line }));
    await unwrap(api.DELETE('/api/cart/items/{id}', { params: { path: { id: '7' } } }));

    expect(seen).toEqual([
      { method: 'GET', csrf: null, contentType: null, body: null },
      { method: 'POST', csrf: '1', contentType: 'application/json', body: line },
      { method: 'DELETE', csrf: '1', contentType: null, body: null },
    ]);
  });

  it('starts a new W3C trace on every call, safe or unsafe', async () => {
    const traceparents: (string | null)[] = [];
    const record = ({ request }: { request: Request }) => {
      traceparents.push(request.headers.get('traceparent'));
      return HttpResponse.json(emptyCart);
    };
    server.use(http.get('/api/cart', record), http.post('/api/cart/items', record));

    await unwrap(api.GET('/api/cart'));
    await unwrap(api.GET('/api/cart'));
    await unwrap(api.POST('/api/cart/items', { body: line }));

    expect(traceparents).toHaveLength(3);
    for (const value of traceparents) expect(value).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    const traceIds = new Set(traceparents.map((value) => value?.split('-')[1]));
    expect(traceIds.size).toBe(3);
  });

  it('encodes path parameters and query parameters', async () => {
    const urls: string[] = [];
    server.use(
      http.get('/api/products/:title', ({ request }) => {
        urls.push(new URL(request.url).pathname);
        return problem(404, { title: 'Not Found', detail: 'Product x not found', code: 'not_found' });
      }),
      http.get('/api/search', ({ request }) => {
        urls.push(new URL(request.url).search);
        return HttpResponse.json({ results: [] });
      }),
    );

    await unwrap(api.GET('/api/products/{title}', { params: { path: { title: 'summit lr/2' } } })).catch(
      () => undefined,
    );
    await unwrap(api.GET('/api/search', { params: { query: { q: 'a&b c' } } }));

    expect(urls).toEqual(['/api/products/summit%20lr%2F2', '?q=a%26b%20c']);
  });

  it('resolves to undefined on 204 No Content', async () => {
    server.use(http.delete('/api/account/addresses/1', () => new HttpResponse(null, { status: 204 })));
    await expect(
      unwrap(api.DELETE('/api/account/addresses/{id}', { params: { path: { id: '1' } } })),
    ).resolves.toBeUndefined();
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

    const error: unknown = await unwrap(
      api.POST('/api/auth/register', {
        body: { email: 'nope', password: 'x', confirmPassword: 'x', firstName: 'A', lastName: 'B', captcha: 'c' },
      }),
    ).catch((err: unknown) => err);

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
    server.use(
      http.get(
        '/api/cart',
        () => new HttpResponse('<h1>Bad gateway</h1>', { status: 502, headers: { 'Content-Type': 'text/html' } }),
      ),
    );

    const error: unknown = await unwrap(api.GET('/api/cart')).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).not.toBeInstanceOf(ApiProblem);
    expect(error).toMatchObject({ status: 502 });
    expect(errorMessage(error)).toMatch(/status 502/);
  });

  it('reports a network failure as status 0 with the underlying message', async () => {
    server.use(http.get('/api/session', () => HttpResponse.error()));

    const error: unknown = await unwrap(api.GET('/api/session')).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 0 });
    expect(errorMessage(error)).not.toBe('');
  });

  it('keeps a cancellation a cancellation', async () => {
    server.use(http.get('/api/session', () => new Promise<Response>(() => undefined)));
    const controller = new AbortController();
    const call = unwrap(api.GET('/api/session', { signal: controller.signal }));
    controller.abort();

    const error: unknown = await call.catch((err: unknown) => err);
    expect(error).not.toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ name: 'AbortError' });
  });

  it('counts requests in flight for the loading indicator, unless told not to', async () => {
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.use(
      http.get('/api/session', async () => {
        await gate;
        return HttpResponse.json(anonymousSessionFixture);
      }),
    );

    const tracked = unwrap(api.GET('/api/session'));
    const untracked = unwrap(api.GET('/api/session'), { trackLoading: false });
    expect(requestsInFlight.get()).toBe(1);

    release();
    await Promise.all([tracked, untracked]);
    expect(requestsInFlight.get()).toBe(0);

    server.use(http.get('/api/session', () => HttpResponse.error()));
    await unwrap(api.GET('/api/session')).catch(() => undefined);
    expect(requestsInFlight.get()).toBe(0);
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
