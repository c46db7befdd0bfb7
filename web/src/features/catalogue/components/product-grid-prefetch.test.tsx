import { fireEvent, screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { createMemoryRouter } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { plainProduct, productCard } from '../../../test/fixtures/catalogue';
import { renderWithClient } from '../../../test/render';
import { recordFetches } from '../../../test/fetches';
import { server } from '../../../test/server';
import { IN_VIEW_PREFETCH_LIMIT } from '../logic/prefetch-policy';
import { cardImageLoading, FIRST_SCREEN_CARDS, FIRST_SCREEN_LCP_CARDS, ProductGrid } from './product-card';

/** jsdom has no IntersectionObserver: this one lets the test say which cards entered the viewport. */
class FakeIntersectionObserver {
  static instances: FakeIntersectionObserver[] = [];
  readonly observed = new Set<Element>();
  disconnected = false;
  private readonly callback: IntersectionObserverCallback;
  constructor(callback: IntersectionObserverCallback) {
    this.callback = callback;
    FakeIntersectionObserver.instances.push(this);
  }
  observe(target: Element) {
    this.observed.add(target);
  }
  unobserve(target: Element) {
    this.observed.delete(target);
  }
  disconnect() {
    this.disconnected = true;
    this.observed.clear();
  }
  enter(targets: Element[]) {
    const entries = targets.map((target) => ({ target, isIntersecting: true }) as IntersectionObserverEntry);
    this.callback(entries, this as unknown as IntersectionObserver);
  }
}

function stubDevice({ touch, saveData }: { touch: boolean; saveData: boolean }) {
  vi.stubGlobal(
    'matchMedia',
    vi.fn((query: string) => ({ matches: touch && (query === '(hover: none)' || query === '(pointer: coarse)') })),
  );
  Object.defineProperty(navigator, 'connection', { value: { saveData }, configurable: true });
}

const products = Array.from({ length: 12 }, (_, index) => productCard(`Card ${String(index)}`));

/** Renders the grid; `requested()` lists the products it has fetched so far, in the order it fetched them. */
function renderGrid() {
  const fetched = recordFetches();
  const requested = () =>
    fetched
      .map((url) => /^\/api\/products\/([^/]+)$/.exec(url.pathname)?.[1])
      .filter((title) => title !== undefined)
      .map((title) => decodeURIComponent(title));
  server.use(http.get('/api/products/:title', () => HttpResponse.json(plainProduct)));
  const router = createMemoryRouter([
    { path: '/', element: <ProductGrid products={products} label="Cards" firstScreen /> },
  ]);
  renderWithClient(<RouterProvider router={router} />);
  return { requested };
}

const links = () => screen.getAllByRole('link');

describe('product cards prefetch on intent', () => {
  beforeEach(() => {
    FakeIntersectionObserver.instances = [];
    vi.stubGlobal('IntersectionObserver', FakeIntersectionObserver);
  });
  afterEach(() => {
    delete (navigator as { connection?: unknown }).connection;
  });

  it('prefetches on touchstart, as on hover and focus', async () => {
    stubDevice({ touch: false, saveData: false });
    const { requested } = renderGrid();
    fireEvent.touchStart(links()[3] as Element);
    await vi.waitFor(() => {
      expect(requested()).toEqual(['card 3']); // the API's path is the lower-cased title
    });
  });

  it('on a touch device, prefetches the first eight cards that enter the viewport, then stops watching', async () => {
    stubDevice({ touch: true, saveData: false });
    const { requested } = renderGrid();
    const [observer] = FakeIntersectionObserver.instances;
    expect(observer?.observed.size).toBe(products.length);

    // cards 4..9 scroll in first, then 0..11 (repeats and cards past the limit are not fetched)
    observer?.enter(links().slice(4, 10));
    observer?.enter(links());
    await vi.waitFor(() => {
      expect(requested()).toHaveLength(IN_VIEW_PREFETCH_LIMIT);
    });
    expect(requested()).toEqual(['card 4', 'card 5', 'card 6', 'card 7', 'card 8', 'card 9', 'card 0', 'card 1']);
    expect(observer?.disconnected).toBe(true);
  });

  it('does not watch the viewport when the browser asks to save data', () => {
    stubDevice({ touch: true, saveData: true });
    renderGrid();
    expect(FakeIntersectionObserver.instances).toHaveLength(0);
  });

  it('does not watch the viewport on a device that can hover', () => {
    stubDevice({ touch: false, saveData: false });
    renderGrid();
    expect(FakeIntersectionObserver.instances).toHaveLength(0);
  });
});

describe('card images', () => {
  it('load the first cards of a listing at once (the first ones first) and the rest lazily', () => {
    expect(Array.from({ length: 6 }, (_, index) => cardImageLoading(index, true))).toEqual([
      'lcp',
      'lcp',
      'eager',
      'eager',
      'lazy',
      'lazy',
    ]);
    expect(cardImageLoading(0, false)).toBe('lazy');

    stubDevice({ touch: false, saveData: false });
    renderGrid();
    const images = [...document.querySelectorAll('.product-card__image img')];
    expect(images).toHaveLength(products.length);
    images.forEach((image, index) => {
      expect(image.getAttribute('fetchpriority'), `card ${String(index)}`).toBe(
        index < FIRST_SCREEN_LCP_CARDS ? 'high' : null,
      );
      expect(image.getAttribute('loading'), `card ${String(index)}`).toBe(index < FIRST_SCREEN_CARDS ? null : 'lazy');
      expect(image.getAttribute('decoding'), `card ${String(index)}`).toBe(index < FIRST_SCREEN_CARDS ? null : 'async');
    });
  });
});
