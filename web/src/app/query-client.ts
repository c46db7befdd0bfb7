import {
  CancelledError,
  MutationCache,
  QueryCache,
  QueryClient,
  type Mutation,
  type Query,
} from '@tanstack/react-query';
import { notifyError } from '../components/notifications/store';
import { isApiError, isApiProblem } from '../lib/api';
import { HYDRATED_ATTRIBUTE } from '../lib/use-hydrated';

const MAX_RETRIES = 2;

/**
 * What a query or mutation tells the shared error handler (`meta`, typed for every call site
 * through TanStack Query's `Register`).
 */
export interface ErrorToastMeta extends Record<string, unknown> {
  /**
   * `false`: this call's failure raises no toast, because the screen already says it (a form's
   * inline errors, the stock alert's own line) or the specs keep it silent (content pages).
   */
  errorToast?: false;
  /**
   * Statuses whose failure raises no toast because the page answers them itself: a product's or
   * collection's 404 ("Page not found"), the search page's 503 and 429 ("Search is unavailable",
   * "Too many searches").
   */
  quietStatuses?: readonly number[];
  /**
   * A page load whose page shows the cached failure without fetching again (`retryOnMount:
   * false`): its failure is told although no component observes the read yet.
   */
  pageLoad?: true;
}

declare module '@tanstack/react-query' {
  interface Register {
    queryMeta: ErrorToastMeta;
    mutationMeta: ErrorToastMeta;
  }
}

/** Client errors (4xx) are answers, not glitches: they are not retried. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (isApiError(error) && error.status >= 400 && error.status < 500) return false;
  return failureCount < MAX_RETRIES;
}

interface QueryClientOptions {
  /**
   * Whether failures raise the `Error: …` toast (the shared handler). Off for the server render:
   * there is no shopper to tell, and a failed first-screen read is the page's to answer.
   */
  errorToasts?: boolean;
}

export function createQueryClient({ errorToasts = true }: QueryClientOptions = {}): QueryClient {
  const queryClient = new QueryClient({
    ...(errorToasts ? sharedErrorHandler() : {}),
    defaultOptions: {
      queries: {
        staleTime: 60_000,
        retry: shouldRetry,
      },
      mutations: {
        retry: false,
      },
    },
  });
  // a 401 `session_expired` from any call signs the shopper out
  installSessionExpiry(queryClient);
  return queryClient;
}

/**
 * The one shared network-error handler (spec §8, companion §7): the query and mutation caches
 * raise `Error: <server message, else title, else the error's own message>` once per failure,
 * save where `queryFailureToasts` and `mutationFailureToasts` say the screen or the session
 * handling answers it. (Also the test client's, so tests see what the shopper sees.)
 */
export function sharedErrorHandler(): { queryCache: QueryCache; mutationCache: MutationCache } {
  // When each read's failure was last told: a read that fails again before it has succeeded
  // (a second component mounting it, the page load and then the page) is the same failure.
  const told = new WeakMap<Query<unknown, unknown>, number>();
  return {
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (!queryFailureToasts(error, query)) return;
        const toldAt = told.get(query);
        if (toldAt !== undefined && query.state.dataUpdatedAt < toldAt) return;
        told.set(query, Date.now());
        notifyError(error);
      },
    }),
    mutationCache: new MutationCache({
      onError: (error, _variables, _context, mutation) => {
        if (mutationFailureToasts(error, mutation)) notifyError(error);
      },
    }),
  };
}

/**
 * The exclusions common to reads and writes (spec §8 "Network errors", with the issue-47 list):
 * a cancellation is no failure, a 401 is the session handling's (it signs the shopper out, or
 * the sign-in form says it), a status the caller's page answers itself is its own, and nothing
 * is said during a server render or while the server's markup is being hydrated.
 */
function failureToasts(error: unknown, meta: ErrorToastMeta | undefined): boolean {
  if (meta?.errorToast === false) return false;
  if (error instanceof CancelledError) return false;
  if (error instanceof DOMException && error.name === 'AbortError') return false;
  if (isApiError(error)) {
    if (error.status === 401) return false;
    if (meta?.quietStatuses?.includes(error.status)) return false;
  }
  return !hydrating();
}

/** No document (a server render), or server markup not yet taken over by the app. */
function hydrating(): boolean {
  if (typeof document === 'undefined') return true;
  const serverMarkup = Boolean(document.getElementById('root')?.firstElementChild);
  return serverMarkup && !document.documentElement.hasAttribute(HYDRATED_ATTRIBUTE);
}

/**
 * A failed read is told once (the query cache calls this once per failed fetch, after its
 * retries), unless nobody is looking at it: a prefetch or a page load ahead of its page has no
 * observer (the page's own read, once mounted, fetches again and tells; `meta.pageLoad` marks
 * the loads whose page does not), and a background refetch whose data is still on screen leaves
 * the shopper with what they had.
 */
export function queryFailureToasts(
  error: unknown,
  query: Pick<Query<unknown, unknown>, 'meta' | 'getObserversCount' | 'state'>,
): boolean {
  if (query.getObserversCount() === 0 && query.meta?.pageLoad !== true) return false;
  if (query.state.data !== undefined) return false;
  return failureToasts(error, query.meta);
}

/** A failed write is told once, unless the form shows it inline (`meta.errorToast: false`). */
export function mutationFailureToasts(error: unknown, mutation: Pick<Mutation, 'meta'>): boolean {
  return failureToasts(error, mutation.meta);
}

/**
 * A 401 `session_expired` from any query or mutation signs the shopper out. Only the check lives
 * in the entry bundle; the sign-out (auth feature) loads when first needed. Returns the
 * unsubscriber.
 */
export function installSessionExpiry(queryClient: QueryClient): () => void {
  const onError = (error: unknown) => {
    if (!isApiProblem(error) || error.status !== 401 || error.code !== 'session_expired') return;
    void import('../features/auth').then(({ endExpiredSession }) => {
      endExpiredSession(queryClient);
    });
  };
  const unsubscribeQueries = queryClient.getQueryCache().subscribe((event) => {
    if (event.type === 'updated' && event.action.type === 'error') onError(event.action.error);
  });
  const unsubscribeMutations = queryClient.getMutationCache().subscribe((event) => {
    if (event.type === 'updated' && event.action.type === 'error') onError(event.action.error);
  });
  return () => {
    unsubscribeQueries();
    unsubscribeMutations();
  };
}
