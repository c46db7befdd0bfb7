import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { appPage, footerPage, homePage, runtimeConfig } from './fixtures';

/** Default handlers: the pages and config every rendered page needs. Tests add or override. */
export const handlers = [
  http.get('/api/config', () => HttpResponse.json(runtimeConfig)),
  http.get('/api/pages/app', () => HttpResponse.json(appPage)),
  http.get('/api/pages/footer', () => HttpResponse.json(footerPage)),
  http.get('/api/pages/home', () => HttpResponse.json(homePage)),
];

export const server = setupServer(...handlers);

export function problem(status: number, body: Record<string, unknown>) {
  return HttpResponse.json(
    { type: 'about:blank', status, ...body },
    { status, headers: { 'Content-Type': 'application/problem+json' } },
  );
}
