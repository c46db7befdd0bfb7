import type { QueryClient } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import type { LoaderFunction, ShouldRevalidateFunction } from 'react-router';

/**
 * What a lazily loaded route module exports. Loaders are factories over the query client so
 * they can prime the cache with the same `queryOptions` the components read
 * (`queryClient.query({ ...options, staleTime: 'static' })`).
 */
export interface RouteModule {
  Component: ComponentType;
  loader?: (queryClient: QueryClient) => LoaderFunction;
  /** When the loader runs again (default: every navigation, search-parameter changes included). */
  shouldRevalidate?: ShouldRevalidateFunction;
}

/** What every lazily loaded route carries in its `handle`. */
export interface RouteHandle {
  /** The route module's source path (`src/app/routes/product.tsx`), the key of Vite's manifest. */
  module: string;
}
