import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createMemoryRouter, type RouteObject } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { createRoutes } from '../app/router';

/** A fresh client per test, without retries (TkDodo's testing advice). */
export function createTestQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, gcTime: Infinity },
      mutations: { retry: false },
    },
  });
}

export function renderWithClient(ui: ReactElement, queryClient = createTestQueryClient()) {
  return { queryClient, ...render(<QueryClientProvider client={queryClient}>{ui}</QueryClientProvider>) };
}

/** Renders the real route table at `path` in a memory router. */
export function renderRoute(path: string, options: { routes?: RouteObject[]; queryClient?: QueryClient } = {}) {
  const queryClient = options.queryClient ?? createTestQueryClient();
  const router = createMemoryRouter(options.routes ?? createRoutes(queryClient), { initialEntries: [path] });
  return { router, ...renderWithClient(<RouterProvider router={router} />, queryClient) };
}
