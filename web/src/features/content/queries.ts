import { queryOptions } from '@tanstack/react-query';
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
  });
}
