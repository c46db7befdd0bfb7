import type { QueryClient } from '@tanstack/react-query';
import { loadPage, type PageLoad } from './page-loads';
import { pageTable } from './page-table';

/**
 * The first page of a document, loaded before the first render: by the server renderer, from
 * the document's answers, and by the browser before it hydrates what the server rendered, from
 * the same answers (nothing is fetched), so both render the same tree.
 */
export function loadFirstScreen(queryClient: QueryClient, url: URL): Promise<PageLoad> {
  return loadPage({ routes: pageTable, location: url, origin: url.origin, queryClient });
}
