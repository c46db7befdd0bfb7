import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { notificationStore } from '../components/notifications/store';
import { checkoutHandlers } from '../test/fixtures/checkout';
import { profile, signedInHandlers } from '../test/fixtures/account';
import { allDealers } from '../test/fixtures/dealers';
import { createTestQueryClient, renderRoute } from '../test/render';
import { problem, server } from '../test/server';
import { createQueryClient, mutationFailureToasts, queryFailureToasts } from './query-client';

// whole pages through the real route table: slow on a busy machine
vi.setConfig({ testTimeout: 20_000 });
configure({ asyncUtilTimeout: 5_000 });

vi.mock('../features/dealers/leaflet-map', () => ({
  createDealerMap: () => ({ show: () => undefined, select: () => undefined, destroy: () => undefined }),
}));

/** Every error toast raised during a test, in order (the banner shows only the latest). */
let errorToasts: string[];
let unsubscribe: () => void;

beforeEach(() => {
  errorToasts = [];
  unsubscribe = notificationStore.subscribe(() => {
    const shown = notificationStore.get();
    if (shown?.type === 'error') errorToasts.push(shown.message);
  });
});

afterEach(() => {
  unsubscribe();
});

const upstreamDown = () =>
  problem(503, { title: 'Service Unavailable', detail: 'The store is not answering', code: 'upstream_unavailable' });

/** Lets any late failure land before a test says none came (or no second one). */
async function settle() {
  await new Promise((resolve) => setTimeout(resolve, 300));
}

describe('the shared error handler: one `Error: …` toast per failed read', () => {
  it('a failed account read: the inline text and the toast, once', async () => {
    server.use(...signedInHandlers(() => profile));
    // (the later `use` wins)
    server.use(http.get('/api/account', upstreamDown));
    renderRoute('/profile');
    expect(await screen.findByText('We could not load your account. Please try again.')).toBeInTheDocument();
    await settle();
    expect(errorToasts).toEqual(['Error: The store is not answering']);
    // shown in the banner's alert region
    expect(screen.getByText('Error: The store is not answering').closest('[role="alert"]')).not.toBeNull();
  });

  it('a failed shipping-methods read in checkout: the inline text and the toast, once', async () => {
    server.use(...checkoutHandlers());
    server.use(http.get('/api/cart/shipping-methods', upstreamDown));
    renderRoute('/checkout');
    expect(await screen.findByText('The shipping methods could not be loaded.')).toBeInTheDocument();
    await settle();
    expect(errorToasts).toEqual(['Error: The store is not answering']);
  });

  it('a failed cart read on the checkout page: the inline text and the toast, once', async () => {
    server.use(http.get('/api/cart', upstreamDown));
    renderRoute('/checkout');
    expect(await screen.findByText('Your cart could not be loaded. Please try again.')).toBeInTheDocument();
    await settle();
    expect(errorToasts).toEqual(['Error: The store is not answering']);
  });

  it('a failed cart read in the drawer: the inline text and the toast, once', async () => {
    server.use(http.get('/api/cart', upstreamDown));
    const user = userEvent.setup();
    renderRoute('/');
    const banner = await screen.findByRole('banner');
    await user.click(await within(banner).findByRole('button', { name: /^Cart/ }));
    expect(await screen.findByText('Your cart could not be loaded.')).toBeInTheDocument();
    await settle();
    expect(errorToasts).toEqual(['Error: The store is not answering']);
  });

  it('a failed dealer search: the inline text and the toast, once', async () => {
    server.use(
      http.get('/api/dealers', ({ request }) =>
        new URL(request.url).searchParams.get('zip') ? upstreamDown() : HttpResponse.json(allDealers),
      ),
    );
    const user = userEvent.setup();
    renderRoute('/dealer-locator');
    const form = await screen.findByRole('search', { name: 'Find a dealer' });
    await user.type(within(form).getByRole('textbox'), '85004');
    await user.click(within(form).getByRole('button', { name: 'Search' }));
    expect(await screen.findByText('The store is not answering', { selector: '.dealer-locator__error' })).toBeVisible();
    await settle();
    expect(errorToasts).toEqual(['Error: The store is not answering']);
  });

  it('a dealer search that failed as the page loaded: the toast, once', async () => {
    server.use(http.get('/api/dealers', upstreamDown));
    renderRoute('/dealer-locator?zip=85004&radius=50');
    expect(await screen.findByText('The store is not answering', { selector: '.dealer-locator__error' })).toBeVisible();
    await settle();
    expect(errorToasts).toEqual(['Error: The store is not answering']);
  });
});

describe('the shared error handler: no toast where the screen or the session answers', () => {
  it("the guest cart's 404 is silent", async () => {
    server.use(
      http.get('/api/cart', () => problem(404, { title: 'Not Found', detail: 'Guest not found', code: 'not_found' })),
    );
    renderRoute('/');
    const banner = await screen.findByRole('banner');
    expect(await within(banner).findByRole('button', { name: 'Cart, 0 items' })).toBeInTheDocument();
    await settle();
    expect(errorToasts).toEqual([]);
  });

  it("an unknown product's page shows 'Page not found' and no toast", async () => {
    server.use(
      http.get('/api/products/:title', () =>
        problem(404, { title: 'Not Found', detail: 'No such product', code: 'not_found' }),
      ),
    );
    renderRoute('/product/no%20such%20rifle');
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeInTheDocument();
    await settle();
    expect(errorToasts).toEqual([]);
  });

  it("an unknown zip shows 'Geocoding request failed' and no toast", async () => {
    server.use(
      http.get('/api/dealers', () =>
        problem(404, { title: 'Not Found', detail: 'Geocoding request failed', code: 'not_found' }),
      ),
    );
    renderRoute('/dealer-locator?zip=00000&radius=50');
    expect(await screen.findByText('Geocoding request failed')).toBeInTheDocument();
    await settle();
    expect(errorToasts).toEqual([]);
  });

  it("a failed search shows the page's own 'Search is unavailable' and no toast", async () => {
    server.use(http.get('/api/search', upstreamDown));
    renderRoute('/search/summit');
    expect(await screen.findByText('Search is unavailable')).toBeInTheDocument();
    await settle();
    expect(errorToasts).toEqual([]);
  });

  it('a 401 is the session handling’s, not a toast', async () => {
    server.use(...signedInHandlers(() => profile));
    server.use(
      http.get('/api/account', () =>
        problem(401, { title: 'Unauthorized', detail: 'Your session has expired', code: 'session_expired' }),
      ),
    );
    renderRoute('/profile');
    await settle();
    await settle();
    expect(errorToasts.filter((message) => message.startsWith('Error:'))).toEqual([]);
  });
});

describe('the shared error handler: its rules', () => {
  const error = new Error('Network down');

  function query(overrides: { observers?: number; data?: unknown; meta?: Record<string, unknown> } = {}) {
    return {
      meta: overrides.meta,
      getObserversCount: () => overrides.observers ?? 1,
      state: { data: overrides.data } as never,
    };
  }

  it('tells a failed read someone is waiting for', () => {
    expect(queryFailureToasts(error, query())).toBe(true);
  });

  it('says nothing for a prefetch (no observer) unless it is a page load its page will not repeat', () => {
    expect(queryFailureToasts(error, query({ observers: 0 }))).toBe(false);
    expect(queryFailureToasts(error, query({ observers: 0, meta: { pageLoad: true } }))).toBe(true);
  });

  it('says nothing for a background refetch whose data is still on screen', () => {
    expect(queryFailureToasts(error, query({ data: { items: [] } }))).toBe(false);
  });

  it('says nothing where the screen says it (meta) or for the statuses a page answers', async () => {
    expect(queryFailureToasts(error, query({ meta: { errorToast: false } }))).toBe(false);
    const { ApiError } = await import('../lib/api');
    expect(queryFailureToasts(new ApiError(404, 'Not Found'), query({ meta: { quietStatuses: [404] } }))).toBe(false);
    expect(queryFailureToasts(new ApiError(500, 'Boom'), query({ meta: { quietStatuses: [404] } }))).toBe(true);
    expect(queryFailureToasts(new ApiError(401, 'Unauthorized'), query())).toBe(false);
  });

  it('tells a failed write once, unless its form shows the error inline', async () => {
    expect(mutationFailureToasts(error, { meta: undefined })).toBe(true);
    expect(mutationFailureToasts(error, { meta: { errorToast: false } })).toBe(false);

    const client = createTestQueryClient();
    await client
      .getMutationCache()
      .build(client, { mutationFn: () => Promise.reject(error) })
      .execute(undefined)
      .catch(() => undefined);
    await client
      .getMutationCache()
      .build(client, { mutationFn: () => Promise.reject(error), meta: { errorToast: false } })
      .execute(undefined)
      .catch(() => undefined);
    expect(errorToasts).toEqual(['Error: Network down']);
  });

  it('says nothing while server markup is being hydrated, nor from the server render’s client', async () => {
    const root = document.createElement('div');
    root.id = 'root';
    root.innerHTML = '<main>server markup</main>';
    document.body.append(root);
    try {
      expect(queryFailureToasts(error, query())).toBe(false);
      document.documentElement.setAttribute('data-hydrated', 'true');
      expect(queryFailureToasts(error, query())).toBe(true);
    } finally {
      root.remove();
      document.documentElement.removeAttribute('data-hydrated');
    }

    const server = createQueryClient({ errorToasts: false });
    await server
      .getMutationCache()
      .build(server, { mutationFn: () => Promise.reject(error) })
      .execute(undefined)
      .catch(() => undefined);
    await waitFor(() => {
      expect(errorToasts).toEqual([]);
    });
  });
});
