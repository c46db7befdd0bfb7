import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { fetchPage } from './api';
import type { PageName } from './types';

export const contentKeys = {
  all: ['content'] as const,
  pages: () => [...contentKeys.all, 'page'] as const,
  page: (name: PageName) => [...contentKeys.pages(), name] as const,
};

export function pageQuery<N extends PageName>(name: N) {
  return queryOptions({
    queryKey: contentKeys.page(name),
    queryFn: ({ signal }) => fetchPage(name, signal),
    staleTime: 5 * 60_000,
    // content page failures fall back to defaults silently (spec §8)
    meta: { errorToast: false },
  });
}

/**
 * A route loader that primes the cache with content pages before the page renders (cached data
 * is used as is; components refetch stale data in the background).
 */
export function pageLoader(...names: PageName[]) {
  return (queryClient: QueryClient) => async () => {
    await Promise.all(names.map((name) => queryClient.query({ ...pageQuery(name), staleTime: 'static' })));
    return null;
  };
}
