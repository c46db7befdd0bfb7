import { QueryClient } from '@tanstack/react-query';
import { isApiError, isApiProblem } from '../lib/api';

const MAX_RETRIES = 2;

/** Client errors (4xx) are answers, not glitches: they are not retried. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (isApiError(error) && error.status >= 400 && error.status < 500) return false;
  return failureCount < MAX_RETRIES;
}

export function createQueryClient(): QueryClient {
  const queryClient = new QueryClient({
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
