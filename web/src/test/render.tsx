import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { StrictMode, type ReactElement } from 'react';
import {
  UNSAFE_createMemoryHistory,
  unstable_HistoryRouter as HistoryRouter,
  type Location,
  type NavigateOptions,
  type RouteObject,
  type To,
} from 'react-router';
import { App } from '../app/app';
import { sharedErrorHandler } from '../app/query-client';
import { PageRoutes } from '../app/page-routes';

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
 * The app's history in a test: where it is, and navigations (as a click or the back button would
 * start them; the test waits for the page it expects, as a user would).
 */
export interface TestRouter {
  readonly location: Location;
  /** Every path and search the history has been at, in order (the first included). */
  readonly visited: readonly string[];
  navigate: (to: To | number, options?: NavigateOptions) => void;
}

interface RenderRouteOptions {
  /** A route table of the test's own, in place of the app's. */
  routes?: RouteObject[];
  queryClient?: QueryClient;
  /** Under `<StrictMode>` (effects run twice), as in the browser's development build. */
  strict?: boolean;
}

/** Renders the app (or `options.routes`) at `path`, in a memory history. */
export function renderRoute(path: string, options: RenderRouteOptions = {}) {
  const queryClient = options.queryClient ?? createTestQueryClient();
  const history = UNSAFE_createMemoryHistory({ initialEntries: [path], v5Compat: true });
  const visited = [`${history.location.pathname}${history.location.search}`];
  history.listen(({ location }) => {
    visited.push(`${location.pathname}${location.search}`);
  });
  const pages = options.routes ? (
    <QueryClientProvider client={queryClient}>
      <PageRoutes routes={options.routes} queryClient={queryClient} first={null} />
    </QueryClientProvider>
  ) : (
    <App queryClient={queryClient} first={null} />
  );
  const ui = <HistoryRouter history={history}>{pages}</HistoryRouter>;
  const router: TestRouter = {
    get location() {
      return history.location;
    },
    visited,
    navigate: (to, navigateOptions) => {
      if (typeof to === 'number') history.go(to);
      else if (navigateOptions?.replace) history.replace(to, navigateOptions.state);
      else history.push(to, navigateOptions?.state);
    },
  };
  return { router, queryClient, ...render(options.strict ? <StrictMode>{ui}</StrictMode> : ui) };
}
