import { useQuery } from '@tanstack/react-query';
import { searchFailure, type SearchFailure } from '../../lib/search-failure';
import { collectionQuery, productQuery, searchQuery } from './queries';
import type { Collection, ProductPage, SearchResults } from './types';

/**
 * A catalogue page's data: `found`, `not-found` (the API answered 404: the page shows the
 * not-found page), `failed` (the page shows its empty default) or `loading`.
 */
export type PageData<T> =
  { status: 'found'; data: T } | { status: 'not-found' } | { status: 'failed' } | { status: 'loading' };

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

/** Search results, or why there are none to show: `failed` says what to tell the shopper. */
export type SearchData =
  { status: 'found'; data: SearchResults } | { status: 'failed'; failure: SearchFailure } | { status: 'loading' };

export function useSearchResults(query: string): SearchData {
  const search = useQuery(searchQuery(query));
  if (search.data) return { status: 'found', data: search.data };
  if (search.isError) return { status: 'failed', failure: searchFailure(search.error) };
  return { status: 'loading' };
}
