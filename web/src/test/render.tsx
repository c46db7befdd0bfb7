import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { StrictMode, useLayoutEffect, type ReactElement } from 'react';
import {
  createMemoryRouter,
  Outlet,
  RouterProvider,
  useLocation,
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
  /** Where the app is: the location of the page on screen (committed), as the shopper sees it. */
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
  const where = (location: Location) => `${location.pathname}${location.search}`;
  const start = new URL(path, 'http://localhost');
  const visited = [`${start.pathname}${start.search}`];
  let shown: Location | null = null;
  // Around the routes, a pathless route that notes the location of the page on screen once React
  // has committed it: the router's own state moves on a little earlier (its update is a
  // transition), and a test, like a shopper, acts on what is on screen.
  function ShownLocation() {
    const location = useLocation();
    useLayoutEffect(() => {
      // (the first page may be another than the one asked for: a redirect)
      if (shown === null ? where(location) !== visited[0] : shown !== location) visited.push(where(location));
      shown = location;
    }, [location]);
    return <Outlet />;
  }
  const routes = [{ Component: ShownLocation, children: options.routes ?? createPageTable(queryClient) }];
  const memoryRouter = createMemoryRouter(routes, { initialEntries: [path] });
  const ui = (
    <App queryClient={queryClient}>
      <RouterProvider router={memoryRouter} />
    </App>
  );
  const router: TestRouter = {
    get location() {
      return shown ?? memoryRouter.state.location;
    },
    visited,
    navigate: (to, navigateOptions) => {
      if (typeof to === 'number') void memoryRouter.navigate(to);
      else void memoryRouter.navigate(to, navigateOptions);
    },
  };
  return { router, queryClient, ...render(options.strict ? <StrictMode>{ui}</StrictMode> : ui) };
}
