import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';

interface AppProps {
  queryClient: QueryClient;
  /** The router's provider of the caller's: `RouterProvider` (browser, tests), `StaticRouterProvider` (server). */
  children: ReactNode;
}

/** The storefront: the query cache its loaders prime and its pages read, around the router. */
export function App({ queryClient, children }: AppProps) {
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
