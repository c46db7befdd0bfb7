import { QueryClient } from '@tanstack/react-query';
import { redirect, type RouteObject } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { loadPage, type PageLoad, type PreviousPage } from './page-loads';
import { PageStatusError } from './page-status-error';
import type { RouteModule } from './route-module';

const origin = 'http://shop.test';
const Component = () => null;

function route(path: string, module: RouteModule, children?: RouteObject[]): RouteObject {
  return { path, handle: { module: path, load: () => Promise.resolve(module) }, ...(children ? { children } : {}) };
}

function at(routes: RouteObject[], href: string, previous?: PreviousPage | null) {
  const url = new URL(href, origin);
  return loadPage({ routes, location: url, origin, queryClient: new QueryClient(), previous: previous ?? null });
}

function page(load: PageLoad) {
  if (load.kind !== 'page') throw new Error(`expected a page, got ${load.kind}`);
  return load;
}

describe('page loads', () => {
  it("runs a nested page's loader without waiting for its parent's", async () => {
    let releaseParent: () => void = () => undefined;
    const parentDone = new Promise<void>((resolve) => {
      releaseParent = resolve;
    });
    const child = vi.fn(() => null);
    const routes = [
      route('/profile', { Component, loader: () => () => parentDone.then(() => null) }, [
        route('orders', { Component, loader: () => child }),
      ]),
    ];

    const loading = at(routes, '/profile/orders?page=2');
    await vi.waitFor(() => {
      expect(child).toHaveBeenCalled();
    });
    const [args] = child.mock.calls[0] as unknown as [{ request: Request; params: object; pattern: string }];
    expect(args.request.url).toBe(`${origin}/profile/orders?page=2`);
    expect(args.pattern).toBe('/profile/orders');
    releaseParent();

    const loaded = page(await loading);
    expect([...loaded.modules.keys()]).toEqual(['/profile', 'orders']);
    expect(loaded.status).toBe(200);
    expect(loaded.error).toBeUndefined();
  });

  it("gives a loader's redirect, and a route's own redirect without loading anything", async () => {
    const guarded = [route('/profile', { Component, loader: () => () => redirect('/login?returnUrl=%2Fprofile') })];
    expect(await at(guarded, '/profile')).toEqual({
      kind: 'redirect',
      status: 302,
      location: '/login?returnUrl=%2Fprofile',
    });

    const load = vi.fn();
    const moved: RouteObject[] = [
      { path: '/home', handle: { redirectTo: '/', module: 'home', load } },
      route('/', { Component }),
    ];
    expect(await at(moved, '/home')).toEqual({ kind: 'redirect', status: 302, location: '/' });
    expect(load).not.toHaveBeenCalled();
  });

  it('turns a thrown response into a status error, and any other error into a 500', async () => {
    const unavailable = [
      route('/', {
        Component,
        loader: () => () => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- React Router's way to fail with a status
          throw new Response('Upstream unavailable', { status: 503, statusText: 'Service Unavailable' });
        },
      }),
    ];
    const failed = page(await at(unavailable, '/'));
    expect(failed.status).toBe(503);
    expect(failed.error).toBeInstanceOf(PageStatusError);
    expect(failed.error).toMatchObject({
      status: 503,
      statusText: 'Service Unavailable',
      body: 'Upstream unavailable',
    });

    const broken = [
      route('/', {
        Component,
        loader: () => () => {
          throw new Error('Kaboom');
        },
      }),
    ];
    const crashed = page(await at(broken, '/'));
    expect(crashed.status).toBe(500);
    expect(crashed.error).toEqual(new Error('Kaboom'));
  });

  it("keeps a page's load when its shouldRevalidate says so, and runs it for a page that was not on screen", async () => {
    const loader = vi.fn(() => null);
    const routes = [
      route('/product/:title', {
        Component,
        loader: () => loader,
        shouldRevalidate: ({ currentUrl, nextUrl }) => currentUrl.pathname !== nextUrl.pathname,
      }),
    ];
    const first = page(await at(routes, '/product/summit'));
    expect(loader).toHaveBeenCalledTimes(1);

    const previous = { url: new URL('/product/summit', origin), matches: first.matches };
    page(await at(routes, '/product/summit?color=black', previous));
    expect(loader).toHaveBeenCalledTimes(1);

    page(await at(routes, '/product/other', previous));
    expect(loader).toHaveBeenCalledTimes(2);
  });
});
