import { act, screen, within } from '@testing-library/react';
import type { RouteObject } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { delay, http, HttpResponse } from 'msw';
import { order, profile, signedInHandlers } from '../test/fixtures/account';
import { checkoutHandlers } from '../test/fixtures/checkout';
import { renderRoute } from '../test/render';
import { server } from '../test/server';
import { resolveCopyId } from './routes/copy';
import { FrameSlot, LoadedPage, PageSlot } from './page-slots';
import { pageTable } from './page-table';
import { RootLayout } from './root-layout';
import type { RouteModule } from './route-module';

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

/** A route table of one page, `/`, whose module is `page`, inside the page slot. */
function onePage(page: RouteModule, other?: RouteModule): RouteObject[] {
  const route = (path: string, module: RouteModule) => ({
    path,
    handle: { module: path, load: () => Promise.resolve(module) },
    element: <LoadedPage module={path} />,
  });
  return [
    {
      element: <PageSlot />,
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
    expect(root?.element).toEqual(
      <FrameSlot>
        <RootLayout />
      </FrameSlot>,
    );
    expect(root?.children?.map((child) => child.element)).toEqual([<PageSlot />]);
  });
});
