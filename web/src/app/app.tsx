import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import type { LoadedPage } from './page-loads';
import { PageRoutes } from './page-routes';
import { pageTable } from './page-table';

interface AppProps {
  queryClient: QueryClient;
  /** The first page, loaded before the first render (server render, hydration); else null. */
  first: LoadedPage | null;
}

/** The storefront inside a router of the caller's (browser, server, tests). */
export function App({ queryClient, first }: AppProps) {
  return (
    <QueryClientProvider client={queryClient}>
      <PageRoutes routes={pageTable} queryClient={queryClient} first={first} />
    </QueryClientProvider>
  );
}
