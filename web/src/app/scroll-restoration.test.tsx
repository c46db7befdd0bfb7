import { act, render, screen } from '@testing-library/react';
import { createMemoryRouter, Outlet, RouterProvider, ScrollRestoration, type RouteObject } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * The app's scroll restoration is React Router's `<ScrollRestoration>`, in the root layout, over
 * the data router: what it does for the app's navigations.
 */
const routes: RouteObject[] = [
  {
    path: '/',
    Component: () => (
      <>
        <Outlet />
        <ScrollRestoration />
      </>
    ),
    children: [
      { index: true, Component: () => <h1>Home</h1> },
      { path: 'faq', Component: () => <h1>FAQ</h1> },
    ],
  },
];

function scrolledTo(y: number) {
  Object.defineProperty(window, 'scrollY', { configurable: true, value: y });
}

beforeEach(() => {
  scrollTo = vi.spyOn(window, 'scrollTo').mockImplementation(() => undefined);
});

afterEach(() => {
  scrolledTo(0);
});

// (the config restores spies before each test: one of its own for each)
let scrollTo = vi.spyOn(window, 'scrollTo');

/** The router at `path`, shown; `scrollTo` then counts what the navigations after it do. */
async function at(path: string, hydrated = false) {
  const router = createMemoryRouter(routes, {
    initialEntries: [path],
    ...(hydrated ? { hydrationData: { loaderData: {} } } : {}),
  });
  render(<RouterProvider router={router} />);
  await screen.findByRole('heading', { level: 1 });
  await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
  if (!hydrated) scrollTo.mockClear();
  return router;
}

describe('scroll restoration', () => {
  it('starts a new page at the top', async () => {
    const router = await at('/');
    scrolledTo(500);
    await act(() => router.navigate('/faq'));
    expect(scrollTo).toHaveBeenCalledWith(0, 0);
  });

  it('stays where it is when the navigation asked to (preventScrollReset)', async () => {
    const router = await at('/');
    await act(() => router.navigate('/faq', { preventScrollReset: true }));
    expect(scrollTo).not.toHaveBeenCalled();
  });

  it('returns to where the page was left on back', async () => {
    const router = await at('/');
    scrolledTo(840);
    await act(() => router.navigate('/faq'));
    scrolledTo(0);
    await act(() => router.navigate(-1));
    expect(scrollTo).toHaveBeenLastCalledWith(0, 840);
  });

  it('leaves a server-rendered first screen where the shopper has scrolled it', async () => {
    await at('/faq', true);
    expect(scrollTo).not.toHaveBeenCalled();
  });
});
