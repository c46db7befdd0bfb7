import { queryOptions, type QueryClient } from '@tanstack/react-query';
import type { LoaderFunctionArgs } from 'react-router';
import { fetchDealers } from './api';
import { searchFromParams, type DealerSearch } from './locator-search';

export const dealerKeys = {
  all: ['dealers'] as const,
  search: (search: DealerSearch) => [...dealerKeys.all, search.zip, search.zip ? search.radius : null] as const,
};

export function dealersQuery(search: DealerSearch) {
  return queryOptions({
    queryKey: dealerKeys.search(search),
    queryFn: ({ signal }) => fetchDealers(search, signal),
    staleTime: 5 * 60_000,
    // an unknown zip's 404 is the page's own 'Geocoding request failed'
    meta: { quietStatuses: [404] },
  });
}

/**
 * Primes the dealers of the URL's search before the page renders. A failed search (an unknown
 * zip) is left to the page, which shows its message.
 */
export function dealersLoader(queryClient: QueryClient) {
  return async ({ request }: LoaderFunctionArgs) => {
    const search = searchFromParams(new URL(request.url).searchParams);
    // the page shows this load's failure as it is (no second fetch on mount), so it is told now
    const query = dealersQuery(search);
    await queryClient
      .query({ ...query, staleTime: 'static', meta: { ...query.meta, pageLoad: true } })
      .catch(() => undefined);
    return null;
  };
}
