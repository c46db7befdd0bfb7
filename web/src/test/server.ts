import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import {
  aboutUsPage,
  anonymousSessionFixture,
  appPage,
  emptyCart,
  faqPage,
  footerPage,
  homePage,
  limitedEditionPage,
  mediaLibraryPage,
  privacyPage,
  runtimeConfig,
  termsPage,
} from './fixtures';
import { plainProduct } from './fixtures/catalogue';

/** Default handlers: the pages, config, session and cart every rendered page needs. Tests add or override. */
export const handlers = [
  http.get('/api/config', () => HttpResponse.json(runtimeConfig)),
  http.get('/api/session', () => HttpResponse.json(anonymousSessionFixture)),
  http.get('/api/cart', () => HttpResponse.json(emptyCart)),
  http.get('/api/pages/app', () => HttpResponse.json(appPage)),
  http.get('/api/pages/footer', () => HttpResponse.json(footerPage)),
  http.get('/api/pages/home', () => HttpResponse.json(homePage)),
  http.get('/api/pages/aboutus', () => HttpResponse.json(aboutUsPage)),
  http.get('/api/pages/faq', () => HttpResponse.json(faqPage)),
  http.get('/api/pages/medialibrary', () => HttpResponse.json(mediaLibraryPage)),
  http.get('/api/pages/limitededition', () => HttpResponse.json(limitedEditionPage)),
  http.get('/api/pages/terms', () => HttpResponse.json(termsPage)),
  http.get('/api/pages/privacy', () => HttpResponse.json(privacyPage)),
  // every other content page: the content service's 404 (the app shows the empty default)
  http.get('/api/pages/:name', () =>
    HttpResponse.json(
      { type: 'about:blank', title: 'Not Found', status: 404, detail: 'No such page', code: 'not_found' },
      { status: 404, headers: { 'Content-Type': 'application/problem+json' } },
    ),
  ),
  // catalogue: any product is a plain demo product (pages link to products everywhere); no
  // collection exists; searches find nothing. Catalogue tests override these.
  http.get('/api/products/:title', () => HttpResponse.json(plainProduct)),
  http.get('/api/collections/:title', () =>
    HttpResponse.json(
      { type: 'about:blank', title: 'Not Found', status: 404, detail: 'No such collection', code: 'not_found' },
      { status: 404, headers: { 'Content-Type': 'application/problem+json' } },
    ),
  ),
  http.get('/api/search', ({ request }) =>
    HttpResponse.json({ query: new URL(request.url).searchParams.get('q') ?? '', results: [] }),
  ),
  // media files the media library fetches into object URLs
  http.get('https://media.example.test/:file', ({ params }) =>
    HttpResponse.text(`file ${String(params.file)}`, { headers: { 'Content-Type': 'application/octet-stream' } }),
  ),
];

export const server = setupServer(...handlers);

export function problem(status: number, body: Record<string, unknown>) {
  return HttpResponse.json(
    { type: 'about:blank', status, ...body },
    { status, headers: { 'Content-Type': 'application/problem+json' } },
  );
}
