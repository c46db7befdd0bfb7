import type { RouteObject } from 'react-router';
import { Navigate } from 'react-router';
import type { RouteMeta } from '../lib/route-meta';
import { RootLayout } from './root-layout';
import type { RouteHandle, RouteModule } from './route-module';
import { FrameSlot, LoadedPage, PageSlot } from './page-slots';
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

function page(module: string, meta: RouteMeta): Pick<RouteObject, 'handle' | 'element'> {
  // `module` is the page's source path, as Vite's manifest names it: the server render lists
  // that route's chunks for the boot script (`src/ssr/route-chunks.ts`)
  const path = modulePath(module);
  const load = pageModules[`./routes/${module}.tsx`];
  if (!load) throw new Error(`routes.json names a page module that is not there: ${path}`);
  const handle: RouteHandle = { module: path, load, ...meta };
  return { handle, element: <LoadedPage module={path} meta={meta} /> };
}

/** A manifest route as React Router's, its path relative to its parent's (`parent`). */
function routeObject(route: ManifestRoute, parent: string): RouteObject {
  const path = parent === '' ? route.path : route.path.slice(parent.length + 1);
  const meta = { title: route.title, noindex: route.noindex };
  const at = path === '' ? { index: true as const } : { path };
  if (route.redirect !== undefined) {
    return { ...at, handle: { redirectTo: route.redirect }, element: <Navigate to={route.redirect} replace /> };
  }
  if (route.module === undefined) throw new Error(`routes.json: ${route.path} has no module`);
  if (route.layout === undefined) return { ...at, ...page(route.module, meta) };
  // a layout: its own page is the index of its children
  const children = (route.children ?? []).map((child) => routeObject(child, route.path));
  return {
    path,
    ...page(route.layout, meta),
    children: [{ index: true, ...page(route.module, meta) }, ...children],
  };
}

/**
 * Every screen of the specs, as a route table of React Router's declarative router
 * (`useRoutes`, `matchRoutes`), built from the route manifest. Each page is its own lazily
 * loaded module (code-split chunk), loaded with its data before it shows (`page-loads.ts`,
 * `page-routes.tsx`); the frame (header, footer) is in the entry bundle.
 */
export const pageTable: RouteObject[] = [
  {
    path: '/',
    handle: { frame: true },
    // frame errors render the error page alone; page errors render inside the frame
    element: (
      <FrameSlot>
        <RootLayout />
      </FrameSlot>
    ),
    children: [
      {
        element: <PageSlot />,
        children: [
          ...routeManifest.routes.map((route) => routeObject(route, '')),
          {
            path: '*',
            ...page(routeManifest.notFound.module, {
              title: routeManifest.notFound.title,
              noindex: routeManifest.notFound.noindex,
            }),
          },
        ],
      },
    ],
  },
];
