import type { QueryClient } from '@tanstack/react-query';
import { redirect, type RouteObject } from 'react-router';
import type { RouteMeta } from '../lib/route-meta';
import { loadFrame } from './frame-data';
import { HydrateFallback } from './hydrate-fallback';
import { FrameError, PageError } from './page-errors';
import { withMeta } from './page-meta';
import { RootLayout } from './root-layout';
import type { RouteHandle, RouteModule } from './route-module';
import manifest from './routes.json';

/**
 * One route of the manifest (`routes.json`), the app's route table shared with the BFF (which
 * compiles it in for its heads, 404s and server renders: `bff/src/seo/routes.rs`).
 */
export interface ManifestRoute {
  /** The full path without its leading `/` (`product/:title`), also for nested routes. */
  path: string;
  /** The page's module under `routes/`, without `.tsx` (`profile/orders`). */
  module?: string;
  /** A layout module around the page (its index) and its children. */
  layout?: string;
  /** Where the head comes from on the server: `page:<content page>`, `product`, `collection`, `search`, `fixed` or `redirect`. */
  head: string;
  /** The page's title (the brand name is appended); empty for the site's default. */
  title: string;
  noindex: boolean;
  /** What the BFF answers with: the app `shell`, or the first screen rendered on the `server` (`shared`: across replicas too). */
  render: string;
  /** Where a redirect goes. */
  redirect?: string;
  children?: ManifestRoute[];
}

export interface RouteManifest {
  routes: ManifestRoute[];
  /** The page of any path no route matches. */
  notFound: { module: string; title: string; noindex: boolean };
}

export const routeManifest: RouteManifest = manifest;

/**
 * The page modules, each its own lazily loaded chunk. The keys are their paths from here
 * (`./routes/product.tsx`).
 */
const pageModules = import.meta.glob<RouteModule>(['./routes/**/*.tsx', '!./routes/**/*.test.tsx']);

/** The source path of a page module, as Vite's manifest names it (`src/app/routes/product.tsx`). */
export function modulePath(module: string): string {
  return `src/app/routes/${module}.tsx`;
}

/**
 * A page route: its module is loaded by the router (`lazy`), which then runs its loader, built
 * over the app's query client, and renders its component under the route's title and noindex.
 */
function page(module: string, meta: RouteMeta, queryClient: QueryClient): Pick<RouteObject, 'id' | 'handle' | 'lazy'> {
  // `module` is the page's source path, as Vite's manifest names it: the server render lists
  // that route's chunks for the boot script (`src/ssr/route-chunks.ts`)
  const path = modulePath(module);
  const load = pageModules[`./routes/${module}.tsx`];
  if (!load) throw new Error(`routes.json names a page module that is not there: ${path}`);
  const handle: RouteHandle = { module: path, load, ...meta };
  return {
    handle,
    lazy: async () => {
      const loaded = await load();
      return {
        Component: withMeta(loaded.Component, meta),
        ...(loaded.loader ? { loader: loaded.loader(queryClient) } : {}),
        ...(loaded.shouldRevalidate ? { shouldRevalidate: loaded.shouldRevalidate } : {}),
      };
    },
  };
}

/** A manifest route as React Router's, its path relative to its parent's (`parent`). */
function routeObject(route: ManifestRoute, parent: string, queryClient: QueryClient): RouteObject {
  const path = parent === '' ? route.path : route.path.slice(parent.length + 1);
  const meta = { title: route.title, noindex: route.noindex };
  const at = path === '' ? { index: true as const } : { path };
  // ids are the full paths (unique: `home` is both a page's module and a redirect's path)
  const id = `/${route.path}`;
  const target = route.redirect;
  if (target !== undefined) {
    return { ...at, id, handle: { redirectTo: target }, loader: () => redirect(target) };
  }
  if (route.module === undefined) throw new Error(`routes.json: ${route.path} has no module`);
  if (route.layout === undefined) return { ...at, id, ...page(route.module, meta, queryClient) };
  // a layout: its own page is the index of its children
  const children = (route.children ?? []).map((child) => routeObject(child, route.path, queryClient));
  return {
    path,
    id: `${id} (layout)`,
    ...page(route.layout, meta, queryClient),
    children: [{ index: true, id, ...page(route.module, meta, queryClient) }, ...children],
  };
}

/** The id of the route around every page, whose error element shows a failed page inside the frame. */
export const PAGES_ROUTE_ID = 'pages';

/**
 * Every screen of the specs, as the route table of React Router's data router, built from the
 * route manifest over the app's query client (the loaders prime it). Each page is its own lazily
 * loaded module (code-split chunk) that the router loads with its data before it shows; the
 * frame (header, footer) is in the entry bundle and loads its data once, with the first page.
 * A page that fails shows the error page inside the frame; a frame that fails, alone.
 */
export function createPageTable(queryClient: QueryClient): RouteObject[] {
  return [
    {
      id: 'root',
      path: '/',
      handle: { frame: true },
      loader: async () => {
        await loadFrame(queryClient);
        return null;
      },
      // the frame's data does not depend on the URL: later pages find it in the query cache
      shouldRevalidate: () => false,
      Component: RootLayout,
      HydrateFallback,
      errorElement: <FrameError />,
      children: [
        {
          id: PAGES_ROUTE_ID,
          errorElement: <PageError />,
          children: [
            ...routeManifest.routes.map((route) => routeObject(route, '', queryClient)),
            {
              path: '*',
              id: '*',
              ...page(
                routeManifest.notFound.module,
                { title: routeManifest.notFound.title, noindex: routeManifest.notFound.noindex },
                queryClient,
              ),
            },
          ],
        },
      ],
    },
  ];
}
