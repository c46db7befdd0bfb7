import { QueryClient } from '@tanstack/react-query';
import { installSessionExpiry } from '../features/auth';
import { isApiError } from '../lib/api';

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
