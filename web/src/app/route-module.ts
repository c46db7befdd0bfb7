import type { QueryClient } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import type { LoaderFunction, ShouldRevalidateFunction } from 'react-router';

/**
 * What a lazily loaded page module exports. Loaders are factories over the query client so
 * they can prime the cache with the same `queryOptions` the components read
 * (`queryClient.query({ ...options, staleTime: 'static' })`). They keep React Router's loader
 * signature (`{ params, request }`; `redirect()` or a thrown `Response`): the page table
 * (`page-table.tsx`) makes them the routes' `loader`s when the router loads the module (`lazy`).
 */
export interface RouteModule {
  Component: ComponentType;
  loader?: (queryClient: QueryClient) => LoaderFunction;
  /** When the loader runs again (default: every navigation, search-parameter changes included). */
  shouldRevalidate?: ShouldRevalidateFunction;
}

/** What a route of the page table carries in its `handle`. */
export interface RouteHandle {
  /** The page module's source path (`src/app/routes/product.tsx`), the key of Vite's manifest. */
  module?: string;
  /** Loads the page module (a code-split chunk). */
  load?: () => Promise<RouteModule>;
  /** Where the route redirects to (a 302 from the server, a replace in the browser). */
  redirectTo?: string;
  /** The page's title from the route manifest (`routes.json`). */
  title?: string;
  /** The page is kept out of search results (the route manifest's `noindex`). */
  noindex?: boolean;
  /** The frame's data loads with this route (the root). */
  frame?: boolean;
}
