import { QueryClient } from '@tanstack/react-query';
import { act, screen, within } from '@testing-library/react';
import { matchRoutes, type RouteObject } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { delay, http, HttpResponse } from 'msw';
import { order, profile, signedInHandlers } from '../test/fixtures/account';
import { checkoutHandlers } from '../test/fixtures/checkout';
import { renderRoute } from '../test/render';
import { server } from '../test/server';
import { resolveCopyId } from '../features/content/pages/copy';
import { FrameError, PageError } from './page-errors';
import { createPageTable, PAGES_ROUTE_ID } from './page-table';
import { RootLayout } from './root-layout';
import type { RouteHandle, RouteModule } from './route-module';

const pageTable = createPageTable(new QueryClient());

describe('page table', () => {
  beforeEach(() => {
    // the checkout page needs something in the cart (an empty cart goes home)
    server.use(...checkoutHandlers());
  });

  it('shows the not-found page, inside the layout, for an unknown path', async () => {
    renderRoute('/no/such/page');

    const main = await screen.findByRole('main');
    expect(await within(main).findByText('No route matches URL "/no/such/page"')).toBeInTheDocument();
    expect(within(main).getByRole('heading', { level: 1, name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('banner')).toBeInTheDocument();
  });

  it('redirects /home to the home page', async () => {
    const { router } = renderRoute('/home');

    expect(await screen.findByRole('heading', { name: 'Built for the Long Range' })).toBeInTheDocument();
    expect(router.location.pathname).toBe('/');
  });

  it.each([
    ['/checkout', 'Checkout'],
    ['/search/long%20range', 'Results for "long range"'],
    ['/copy/privacy', 'Privacy Policy'],
    ['/copy/anything-else', 'Terms of Service'],
  ])('lazily loads the page for %s', async (path, heading) => {
    renderRoute(path);
    expect(await screen.findByRole('heading', { level: 1, name: heading })).toBeInTheDocument();
  });

  it.each([
    ['/profile', 'My Account'],
    ['/profile/address-book/new', 'Add New Address'],
    ['/profile/orders/42', 'Order 42'],
    ['/Newsletter/verify/abc123', 'VERIFYING EMAIL...'],
  ])('lazily loads the page for %s (signed in)', async (path, heading) => {
    server.use(
      ...signedInHandlers(() => profile),
      http.get('/api/orders/:id', () => HttpResponse.json(order({ id: 42 }))),
      http.post('/api/newsletter/verify/:token', async () => {
        await delay(500);
        return HttpResponse.json({ message: null });
      }),
    );
    renderRoute(path);
    expect(await screen.findByRole('heading', { level: 1, name: heading })).toBeInTheDocument();
  });

  it('sets the document title from the page and the brand name', async () => {
    renderRoute('/checkout');
    await screen.findByRole('heading', { level: 1, name: 'Checkout' });
    await expect.poll(() => document.title).toBe('Checkout | Test Arms');
  });

  it('falls back to terms for unknown copy ids', () => {
    expect(resolveCopyId('privacy')).toBe('privacy');
    expect(resolveCopyId('PRIVACY')).toBe('privacy');
    expect(resolveCopyId('terms')).toBe('terms');
    expect(resolveCopyId('cookies')).toBe('terms');
    expect(resolveCopyId(undefined)).toBe('terms');
  });
});

describe('route manifest', () => {
  /** The handle of the innermost route `path` renders. */
  const handleOf = (path: string) => matchRoutes(pageTable, path)?.at(-1)?.route.handle as RouteHandle | undefined;

  it('knows the private paths', () => {
    for (const path of [
      '/checkout',
      '/confirm/42',
      '/profile',
      '/profile/orders/7',
      '/login',
      '/register',
      '/forgot-password',
      '/auth/reset-password',
      '/verify-email',
      '/Newsletter/verify/abc',
    ]) {
      expect(handleOf(path)?.noindex, path).toBe(true);
    }
    for (const path of ['/', '/product/summit%20lr', '/collection/rifles', '/search/summit', '/about-us']) {
      expect(handleOf(path)?.noindex, path).toBe(false);
    }
  });

  it('keeps paths it does not know, its not-found page, out of search results', () => {
    for (const path of ['/profiles', '/checkouts', '/profile/unknown']) {
      expect(handleOf(path), path).toMatchObject({ module: 'src/app/routes/not-found.tsx', noindex: true });
    }
  });

  it('gives a page the title of its route, and its own wins', async () => {
    renderRoute('/reviews');
    await screen.findByRole('heading', { level: 1, name: 'Customer Reviews' });
    await expect.poll(() => document.title).toBe('Customer Reviews | Test Arms');
    await expect.poll(() => document.head.querySelector('meta[name="robots"]')).toBeNull();
  });

  it('marks a private page noindex', async () => {
    server.use(...signedInHandlers(() => profile));
    renderRoute('/profile');
    await screen.findByRole('heading', { level: 1, name: 'My Account' });
    await expect
      .poll(() => document.head.querySelector('meta[name="robots"]')?.getAttribute('content'))
      .toBe('noindex');
  });
});

/** A route table of one page, `/`, whose module is `page`, under the page's error element. */
function onePage(page: RouteModule, other?: RouteModule): RouteObject[] {
  const queryClient = new QueryClient();
  const route = (path: string, module: RouteModule): RouteObject => ({
    path,
    lazy: () =>
      Promise.resolve({
        Component: module.Component,
        ...(module.loader ? { loader: module.loader(queryClient) } : {}),
      }),
  });
  return [
    {
      errorElement: <PageError />,
      children: [route('/', page), ...(other ? [route('/other', other)] : [])],
    },
  ];
}

describe('error page', () => {
  beforeEach(() => {
    // React logs the errors these tests provoke
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  });

  it('shows "Unexpected Application Error!" with the status of an error response', async () => {
    renderRoute('/', {
      routes: onePage({
        Component: () => <p>never</p>,
        loader: () => () => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- React Router's way to fail with a status
          throw new Response('Upstream unavailable', { status: 503, statusText: 'Service Unavailable' });
        },
      }),
    });

    expect(await screen.findByRole('heading', { name: 'Unexpected Application Error!' })).toBeInTheDocument();
    expect(screen.getByText('503 Service Unavailable: Upstream unavailable')).toBeInTheDocument();
    expect(screen.queryByText('never')).not.toBeInTheDocument();
  });

  it('shows the message of a thrown error, and the next page replaces it', async () => {
    function Broken(): never {
      throw new Error('Kaboom');
    }
    const { router } = renderRoute('/', {
      routes: onePage({ Component: Broken }, { Component: () => <h1>Another page</h1> }),
    });

    expect(await screen.findByRole('heading', { name: 'Unexpected Application Error!' })).toBeInTheDocument();
    expect(screen.getByText('Kaboom')).toBeInTheDocument();

    act(() => {
      router.navigate('/other');
    });
    expect(await screen.findByRole('heading', { name: 'Another page' })).toBeInTheDocument();
    expect(screen.queryByText('Kaboom')).not.toBeInTheDocument();
  });

  it('shows inside the frame for a page, alone for the frame', () => {
    const [root] = pageTable;
    expect(root?.Component).toBe(RootLayout);
    expect(root?.errorElement).toEqual(<FrameError />);
    expect(root?.children?.map((child) => [child.id, child.errorElement])).toEqual([[PAGES_ROUTE_ID, <PageError />]]);
  });
});
