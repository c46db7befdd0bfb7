import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { StrictMode, type ReactElement } from 'react';
import {
  createMemoryRouter,
  RouterProvider,
  type Location,
  type NavigateOptions,
  type RouteObject,
  type To,
} from 'react-router';
import { App } from '../app/app';
import { createPageTable } from '../app/page-table';
import { sharedErrorHandler } from '../app/query-client';

/** A fresh client per test, without retries (TkDodo's testing advice). */
export function createTestQueryClient(): QueryClient {
  return new QueryClient({
    // the app's shared error handler (the `Error: …` toast), as the shopper sees it
    ...sharedErrorHandler(),
    defaultOptions: {
      queries: { retry: false, gcTime: Infinity },
      mutations: { retry: false },
    },
  });
}

export function renderWithClient(ui: ReactElement, queryClient = createTestQueryClient()) {
  return { queryClient, ...render(<QueryClientProvider client={queryClient}>{ui}</QueryClientProvider>) };
}

/**
 * The app's router in a test: where it is, and navigations (as a click or the back button would
 * start them; the test waits for the page it expects, as a user would).
 */
export interface TestRouter {
  /** Where the router is: the location of the page on screen, once a navigation has completed. */
  readonly location: Location;
  /** Every path and search the router has been at, in order (the first included). */
  readonly visited: readonly string[];
  navigate: (to: To | number, options?: NavigateOptions) => void;
}

interface RenderRouteOptions {
  /** A route table of the test's own (React Router's data routes), in place of the app's. */
  routes?: RouteObject[];
  queryClient?: QueryClient;
  /** Under `<StrictMode>` (effects run twice), as in the browser's development build. */
  strict?: boolean;
}

/** Renders the app (or `options.routes`) at `path`, in React Router's memory data router. */
export function renderRoute(path: string, options: RenderRouteOptions = {}) {
  const queryClient = options.queryClient ?? createTestQueryClient();
  const memoryRouter = createMemoryRouter(options.routes ?? createPageTable(queryClient), { initialEntries: [path] });
  const where = (location: Location) => `${location.pathname}${location.search}`;
  const visited = [where(memoryRouter.state.location)];
  let arrived = memoryRouter.state.location;
  memoryRouter.subscribe((state) => {
    // one entry per location the router arrived at (its state also changes while it loads)
    if (state.location === arrived) return;
    arrived = state.location;
    visited.push(where(arrived));
  });
  const ui = (
    <App queryClient={queryClient}>
      <RouterProvider router={memoryRouter} />
    </App>
  );
  const router: TestRouter = {
    get location() {
      return memoryRouter.state.location;
    },
    visited,
    navigate: (to, navigateOptions) => {
      if (typeof to === 'number') void memoryRouter.navigate(to);
      else void memoryRouter.navigate(to, navigateOptions);
    },
  };
  return { router, queryClient, ...render(options.strict ? <StrictMode>{ui}</StrictMode> : ui) };
}
