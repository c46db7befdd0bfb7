import { useQuery } from '@tanstack/react-query';
import { collectionQuery, productQuery, searchQuery } from './queries';
import type { Collection, ProductPage, SearchResults } from './types';

/**
 * A catalogue page's data: `found`, `not-found` (the API answered 404: the page shows the
 * not-found page), `failed` (the page shows its empty default) or `loading`.
 */
export type PageData<T> =
  | { status: 'found'; data: T }
  | { status: 'not-found' }
  | { status: 'failed' }
  | { status: 'loading' };

function pageData<T>(query: { data: T | null | undefined; isError: boolean }): PageData<T> {
  if (query.data) return { status: 'found', data: query.data };
  if (query.data === null) return { status: 'not-found' };
  return query.isError ? { status: 'failed' } : { status: 'loading' };
}

export function useProduct(title: string): PageData<ProductPage> {
  return pageData(useQuery(productQuery(title)));
}

export function useCollection(title: string): PageData<Collection> {
  return pageData(useQuery(collectionQuery(title)));
}

/** Search results; a failed search is an empty result (spec: shopping §8). */
export function useSearchResults(query: string): SearchResults | undefined {
  return useQuery(searchQuery(query)).data;
}
