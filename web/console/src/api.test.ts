import { describe, expect, it } from 'vitest';
import { AdminError, adminClient, describeError } from './api';

/** A fetch that records what it was asked and answers `response`. */
function recording(response: Response) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetchImpl: typeof fetch = (url, init) => {
    calls.push({ url: url instanceof Request ? url.url : url.toString(), init: init ?? {} });
    return Promise.resolve(response.clone());
  };
  return { calls, fetchImpl };
}

const json = (status: number, body: unknown, type = 'application/json') =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': type } });

describe('the admin client', () => {
  it('sends the token as a bearer and never a cookie', async () => {
    const { calls, fetchImpl } = recording(json(200, { replicas: [] }));
    await adminClient('s3cret-token', fetchImpl).get('/admin/fleet');
    const headers = calls[0]?.init.headers as Record<string, string>;
    expect(headers.authorization).toBe('Bearer s3cret-token');
    expect(calls[0]?.init.credentials).toBe('omit');
  });

  it('keeps a 202 purge answer as an answer, with its status', async () => {
    const { calls, fetchImpl } = recording(json(202, { id: 'p1', fanOut: 'partial' }));
    const answer = await adminClient('t', fetchImpl).post('/admin/cache/purge', { tags: ['page:home'] });
    expect(answer).toEqual({ status: 202, body: { id: 'p1', fanOut: 'partial' } });
    expect(calls[0]?.init.body).toBe('{"tags":["page:home"]}');
  });

  it('turns a problem into an error naming the field or key it is about', async () => {
    const problem = {
      status: 422,
      detail: 'validation failed',
      code: 'validation_failed',
      errors: { 'cache.product.ttl': 'not a duration: "soon"' },
    };
    const { fetchImpl } = recording(json(422, problem, 'application/problem+json'));
    const error = await adminClient('t', fetchImpl)
      .post('/admin/config/overrides', {})
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdminError);
    expect((error as AdminError).fields).toEqual({ 'cache.product.ttl': 'not a duration: "soon"' });
    expect(describeError(error)).toBe('validation failed (422); cache.product.ttl: not a duration: "soon"');
  });

  it('says a refused token was refused', async () => {
    const { fetchImpl } = recording(new Response('', { status: 401 }));
    const error = await adminClient('wrong', fetchImpl)
      .get('/admin/fleet')
      .catch((caught: unknown) => caught);
    expect(describeError(error)).toBe('The token was refused. (401)');
  });
});
