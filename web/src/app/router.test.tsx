import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { delay, http, HttpResponse } from 'msw';
import { order, profile, signedInHandlers } from '../test/fixtures/account';
import { checkoutHandlers } from '../test/fixtures/checkout';
import { renderRoute } from '../test/render';
import { server } from '../test/server';
import { resolveCopyId } from './routes/copy';
import { RouteErrorPage } from './route-error-page';

describe('router', () => {
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
    expect(router.state.location.pathname).toBe('/');
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

describe('error element', () => {
  beforeEach(() => {
    // React and React Router log the errors these tests provoke
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  });

  it('shows "Unexpected Application Error!" with the status of an error response', async () => {
    renderRoute('/', {
      routes: [
        {
          path: '/',
          errorElement: <RouteErrorPage />,
          loader: () => {
            // eslint-disable-next-line @typescript-eslint/only-throw-error -- React Router's way to fail with a status
            throw new Response('Upstream unavailable', { status: 503, statusText: 'Service Unavailable' });
          },
          Component: () => <p>never</p>,
          HydrateFallback: () => null,
        },
      ],
    });

    expect(await screen.findByRole('heading', { name: 'Unexpected Application Error!' })).toBeInTheDocument();
    expect(screen.getByText('503 Service Unavailable: Upstream unavailable')).toBeInTheDocument();
  });

  it('shows the message of a thrown error', async () => {
    function Broken(): never {
      throw new Error('Kaboom');
    }
    renderRoute('/', { routes: [{ path: '/', errorElement: <RouteErrorPage />, Component: Broken }] });

    expect(await screen.findByRole('heading', { name: 'Unexpected Application Error!' })).toBeInTheDocument();
    expect(screen.getByText('Kaboom')).toBeInTheDocument();
  });

  it('is the root error element of the app routes', async () => {
    const { createRoutes } = await import('./router');
    const { createTestQueryClient } = await import('../test/render');
    const [root] = createRoutes(createTestQueryClient());
    expect(root?.errorElement).toEqual(<RouteErrorPage />);
  });
});
