import { act, waitFor } from '@testing-library/react';
import { StrictMode } from 'react';
import { unstable_HistoryRouter as HistoryRouter } from 'react-router';
import { hydrateRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../app/app';
import { createQueryClient } from '../app/query-client';
import { loadFirstScreen } from '../app/first-screen';
import { createAppHistory } from '../app/browser-history';
import { appPage, footerPage, homePage, runtimeConfig } from '../test/fixtures';
import { productPage, riflesCollection } from '../test/fixtures/catalogue';
import { setDocumentAnswers, type DocumentAnswers } from './document-data';
import { renderPage } from './render';

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
      const queryClient = createQueryClient();
      const first = await loadFirstScreen(queryClient, new URL(window.location.href));
      if (first.kind !== 'page') throw new Error(`loaded ${first.kind}`);
      await act(async () => {
        hydrateRoot(
          container,
          <StrictMode>
            <HistoryRouter history={createAppHistory()}>
              <App queryClient={queryClient} first={first} />
            </HistoryRouter>
          </StrictMode>,
          { onRecoverableError: recoverable },
        );
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
    const queryClient = createQueryClient();
    const first = await loadFirstScreen(queryClient, new URL(window.location.href));
    if (first.kind !== 'page') throw new Error(`loaded ${first.kind}`);
    const recoverable = vi.fn();
    await act(async () => {
      hydrateRoot(
        container,
        <StrictMode>
          <HistoryRouter history={createAppHistory()}>
            <App queryClient={queryClient} first={first} />
          </HistoryRouter>
        </StrictMode>,
        { onRecoverableError: recoverable },
      );
      await Promise.resolve();
    });
    await waitFor(() => {
      expect(addButton()).toBeEnabled();
    });
    expect(recoverable).not.toHaveBeenCalled();
  });
});
