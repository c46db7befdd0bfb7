import { act, waitFor } from '@testing-library/react';
import { StrictMode } from 'react';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { hydrateRoot } from 'react-dom/client';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../app/app';
import { createQueryClient } from '../app/query-client';
import { loadFirstScreen } from '../app/first-screen';
import { createPageTable } from '../app/page-table';
import { appPage, footerPage, homePage, runtimeConfig } from '../test/fixtures';
import { collection, productPage, riflesCollection } from '../test/fixtures/catalogue';
import { setDocumentAnswers, type DocumentAnswers } from '../lib/document-data';
import { server } from '../test/server';
import { renderPage } from './render';
import { HYDRATED_ATTRIBUTE } from '../lib/use-hydrated';

const product = productPage();

const pages: [string, string, DocumentAnswers, string][] = [
  ['home', '/', { '/api/pages/home': { status: 200, body: homePage } }, '.carousel__title'],
  [
    'product',
    `/product/${encodeURIComponent(product.title)}`,
    { [`/api/products/${product.title}`]: { status: 200, body: product } },
    'h1',
  ],
  [
    'collection',
    `/collection/${encodeURIComponent(riflesCollection.title)}`,
    { [`/api/collections/${riflesCollection.title}`]: { status: 200, body: riflesCollection } },
    'h1',
  ],
];

const frame: DocumentAnswers = {
  '/api/pages/app': { status: 200, body: appPage },
  '/api/pages/footer': { status: 200, body: footerPage },
};

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
  window.history.replaceState(null, '', '/');
});

/**
 * Hydrates `container` as the browser does it (`main.tsx`): the first screen's modules and
 * loaders, from the document's answers, then React Router's browser router with the hydration
 * data they give.
 */
async function hydrateAsTheBrowser(container: HTMLElement, onRecoverableError: (error: unknown) => void) {
  const queryClient = createQueryClient();
  const routes = createPageTable(queryClient);
  const hydrationData = await loadFirstScreen(routes, new URL(window.location.href));
  if (!hydrationData) throw new Error('the first screen did not load from the answers');
  const router = createBrowserRouter(routes, { hydrationData });
  hydrateRoot(
    container,
    <StrictMode>
      <App queryClient={queryClient}>
        <RouterProvider router={router} />
      </App>
    </StrictMode>,
    { onRecoverableError },
  );
}

/**
 * The server renderer's output, hydrated as the browser does it (`main.tsx`): the development
 * builds of React and React Router report any difference between the two renders.
 */
/** A browser whose every media query matches (reduced motion among them): the server knows none. */
function matchEveryMediaQuery(): void {
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: true,
    media: query,
    onchange: null,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    addListener: () => undefined,
    removeListener: () => undefined,
    dispatchEvent: () => false,
  }));
}

const cases: [string, string, DocumentAnswers, string, boolean][] = [
  ...pages.map(([name, path, own, selector]): [string, string, DocumentAnswers, string, boolean] => [
    name,
    path,
    own,
    selector,
    false,
  ]),
  // the carousel's rotation button reads the motion preference: a browser that asks for reduced
  // motion must not make React throw the server's markup away
  ['home, reduced motion', '/', { '/api/pages/home': { status: 200, body: homePage } }, '.carousel__title', true],
];

describe('server render, then hydration', () => {
  it.each(cases)(
    '%s hydrates the server markup without an error',
    async (_name, path, own, selector, everyMediaQuery) => {
      const answers = { ...frame, ...own };
      const rendered = await renderPage({ url: `${window.location.origin}${path}`, config: runtimeConfig, answers });
      expect(rendered.kind).toBe('html');
      if (rendered.kind !== 'html') return;
      expect(rendered.html).not.toContain('<!--$!-->');

      window.history.replaceState(null, '', path);
      const container = document.createElement('div');
      container.id = 'root';
      container.innerHTML = rendered.html;
      document.body.append(container);
      const serverElement = container.querySelector(selector);
      expect(serverElement).not.toBeNull();

      if (everyMediaQuery) matchEveryMediaQuery();
      const errors = vi.spyOn(console, 'error');
      const recoverable = vi.fn();
      setDocumentAnswers(answers);
      await act(async () => {
        await hydrateAsTheBrowser(container, recoverable);
        await new Promise((resolve) => setTimeout(resolve, 50));
      });

      expect(errors).not.toHaveBeenCalled();
      expect(recoverable).not.toHaveBeenCalled();
      // hydrated in place: the server's element is the one on the page
      expect(container.querySelector(selector)).toBe(serverElement);
    },
  );
});

describe('add to cart before its code is there', () => {
  it('the server renders the button disabled, hydration keeps it so, and it works once its chunk has loaded', async () => {
    const path = `/product/${encodeURIComponent(product.title)}`;
    const answers = { ...frame, [`/api/products/${product.title}`]: { status: 200, body: product } };
    const rendered = await renderPage({ url: `${window.location.origin}${path}`, config: runtimeConfig, answers });
    if (rendered.kind !== 'html') throw new Error(`rendered ${rendered.kind}`);

    window.history.replaceState(null, '', path);
    const container = document.createElement('div');
    container.id = 'root';
    container.innerHTML = rendered.html;
    document.body.append(container);
    const addButton = () =>
      [...container.querySelectorAll('button')].find((button) => button.textContent === 'Add to Cart');
    // inert markup would look usable: a tap on it before hydration's lazy chunk arrived was lost
    expect(addButton()).toBeDisabled();

    setDocumentAnswers(answers);
    const recoverable = vi.fn();
    await act(async () => {
      await hydrateAsTheBrowser(container, recoverable);
      await Promise.resolve();
    });
    await waitFor(() => {
      expect(addButton()).toBeEnabled();
    });
    expect(recoverable).not.toHaveBeenCalled();
  });
});

/**
 * Issue 43: a link's parameters. The BFF renders a document's variant (`sku`, `activeFilter`)
 * with the value spelled as the page's data spells it, while the browser's URL keeps the link's
 * spelling; and it renders a filterable grid unfiltered whatever its query (`q`, `sort`, one per
 * filter category), which the browser applies once hydrated. Neither may cost a hydration error.
 */
describe('a link with parameters', () => {
  const upgrades = collection();
  // the app's refetches once hydrated find the same data
  beforeEach(() => {
    server.use(
      http.get('/api/products/:title', () => HttpResponse.json(product)),
      http.get('/api/collections/rifles', () => HttpResponse.json(riflesCollection)),
      http.get('/api/collections/upgrades', () => HttpResponse.json(upgrades)),
    );
  });
  const links: [string, string, string, DocumentAnswers, (root: HTMLElement) => void][] = [
    [
      'a product sku, spelled otherwise',
      `/product/${encodeURIComponent(product.title)}?sku=TF-SLR-308-20-FDE`,
      `/product/${encodeURIComponent(product.title)}?sku=tf-slr-308-20-fde&utm_source=x`,
      { [`/api/products/${product.title}`]: { status: 200, body: product } },
      (root) => {
        const linked = product.skus.find((candidate) => candidate.sku === 'TF-SLR-308-20-FDE');
        const price = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
        expect(root.querySelector('[aria-label="Price"] .price__final')?.textContent).toBe(
          price.format(linked?.finalPrice ?? NaN),
        );
      },
    ],
    [
      'a tab of a tabbed collection',
      `/collection/rifles?activeFilter=Semi-Auto`,
      `/collection/rifles?activeFilter=semi-auto&gclid=y`,
      { '/api/collections/rifles': { status: 200, body: riflesCollection } },
      (root) => {
        expect(root.querySelector('[aria-selected="true"]')?.textContent).toBe('Semi-Auto');
      },
    ],
    [
      "the filterable grid's choices",
      `/collection/upgrades`,
      `/collection/upgrades?q=a&sort=title-desc&category=Triggers`,
      { '/api/collections/upgrades': { status: 200, body: upgrades } },
      (root) => {
        expect(root.querySelector('.filterable-grid__count')?.textContent).toBe('1 Product');
      },
    ],
  ];

  it.each(links)('%s hydrates without an error', async (_name, rendered, shown, own, expectShown) => {
    const answers = { ...frame, ...own };
    const output = await renderPage({ url: `${window.location.origin}${rendered}`, config: runtimeConfig, answers });
    if (output.kind !== 'html') throw new Error(`rendered ${output.kind}`);
    window.history.replaceState(null, '', shown);
    // a fresh page: not yet taken over by an earlier test's app
    document.documentElement.removeAttribute(HYDRATED_ATTRIBUTE);
    const container = document.createElement('div');
    container.id = 'root';
    container.innerHTML = output.html;
    document.body.append(container);

    const errors = vi.spyOn(console, 'error');
    const recoverable = vi.fn();
    setDocumentAnswers(answers);
    await act(async () => {
      await hydrateAsTheBrowser(container, recoverable);
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    expect(errors).not.toHaveBeenCalled();
    expect(recoverable).not.toHaveBeenCalled();
    await waitFor(() => {
      expectShown(container);
    });
  });
});
