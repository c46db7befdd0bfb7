import { queryOptions, type QueryClient } from '@tanstack/react-query';
import type { ShouldRevalidateFunction } from 'react-router';
import { fetchCollection, fetchProduct, fetchSearch } from './api';

/** Titles and queries match ignoring case (the bff normalises them the same way). */
function normalise(value: string): string {
  return value.trim().toLowerCase();
}

export const catalogueKeys = {
  all: ['catalogue'] as const,
  products: () => [...catalogueKeys.all, 'product'] as const,
  product: (title: string) => [...catalogueKeys.products(), normalise(title)] as const,
  collections: () => [...catalogueKeys.all, 'collection'] as const,
  collection: (title: string) => [...catalogueKeys.collections(), normalise(title)] as const,
  searches: () => [...catalogueKeys.all, 'search'] as const,
  search: (query: string) => [...catalogueKeys.searches(), normalise(query)] as const,
};

const FIVE_MINUTES = 5 * 60_000;

export function productQuery(title: string) {
  return queryOptions({
    queryKey: catalogueKeys.product(title),
    queryFn: ({ signal }) => fetchProduct(normalise(title), signal),
    staleTime: FIVE_MINUTES,
    // the page shows its 404 as "Page not found"
    meta: { quietStatuses: [404] },
  });
}

export function collectionQuery(title: string) {
  return queryOptions({
    queryKey: catalogueKeys.collection(title),
    queryFn: ({ signal }) => fetchCollection(normalise(title), signal),
    staleTime: FIVE_MINUTES,
    // the page shows its 404 as "Page not found"
    meta: { quietStatuses: [404] },
  });
}

export function searchQuery(query: string) {
  return queryOptions({
    queryKey: catalogueKeys.search(query),
    queryFn: ({ signal }) => fetchSearch(query.trim(), signal),
    staleTime: FIVE_MINUTES,
    // the BFF already retried, coalesced and served what it had: its 503 or 429 is an answer
    retry: false,
    // the page says "Search is unavailable" or "Too many searches" itself (lib/search-failure.ts)
    meta: { errorToast: false },
  });
}

/**
 * Route loaders: they prime the cache before the page renders (cached data is used as is), so a
 * client-side navigation renders without a spinner. A failed load does not block the page: it
 * renders the empty default (spec: product load failure), or for a search, says the search is
 * unavailable.
 */
export function productLoader(queryClient: QueryClient) {
  return async ({ params }: { params: Record<string, string | undefined> }) => {
    await queryClient.query({ ...productQuery(params.title ?? ''), staleTime: 'static' }).catch(() => undefined);
    return null;
  };
}

export function collectionLoader(queryClient: QueryClient) {
  return async ({ params }: { params: Record<string, string | undefined> }) => {
    await queryClient.query({ ...collectionQuery(params.title ?? ''), staleTime: 'static' }).catch(() => undefined);
    return null;
  };
}

export function searchLoader(queryClient: QueryClient) {
  return async ({ params }: { params: Record<string, string | undefined> }) => {
    await queryClient.query({ ...searchQuery(params.query ?? ''), staleTime: 'static' }).catch(() => undefined);
    return null;
  };
}

/** Prefetches a product on hover or focus of its card: one request, deduplicated by the cache. */
export function prefetchProduct(queryClient: QueryClient, title: string): void {
  queryClient.query(productQuery(title)).catch(() => undefined);
}

/**
 * A catalogue page's data depends on its path only: the query (filters, tab, selected sku) is view
 * state, so changing it does not run the loader again (no loading state on every filter click).
 */
export const revalidateOnPathChange: ShouldRevalidateFunction = ({ currentUrl, nextUrl, defaultShouldRevalidate }) =>
  currentUrl.pathname !== nextUrl.pathname && defaultShouldRevalidate;
