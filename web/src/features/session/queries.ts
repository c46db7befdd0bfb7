import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../lib/api';

/** `GET /api/session`: what the browser may know about its session (never a token). */
export interface SessionUser {
  firstName: string;
  lastName: string;
  email: string;
}

export interface Session {
  signedIn: boolean;
  guest: boolean;
  user: SessionUser | null;
  /** Epoch milliseconds, for a signed-in session. */
  expiresAt: number | null;
}

export const anonymousSession: Session = { signedIn: false, guest: false, user: null, expiresAt: null };

export const sessionKeys = {
  all: ['session'] as const,
  current: () => [...sessionKeys.all, 'current'] as const,
};

export const sessionQuery = queryOptions({
  queryKey: sessionKeys.current(),
  queryFn: ({ signal }) => apiGet<Session>('/api/session', { signal }),
  staleTime: 60_000,
});

/** The session; anonymous while it loads or when it cannot be read. */
export function useSession(): Session {
  return useQuery(sessionQuery).data ?? anonymousSession;
}
