import { queryOptions, useQuery } from '@tanstack/react-query';
import type { SessionView } from '../../api/types';
import { api, unwrap } from '../../lib/api';

/** What `useSession` gives before `GET /api/session` answers (or when it cannot be read). */
export const anonymousSession: SessionView = { signedIn: false, guest: false, user: null, expiresAt: null };

export const sessionKeys = {
  all: ['session'] as const,
  current: () => [...sessionKeys.all, 'current'] as const,
};

export const sessionQuery = queryOptions({
  queryKey: sessionKeys.current(),
  queryFn: ({ signal }) => unwrap(api.GET('/api/session', { signal })),
  staleTime: 60_000,
});

/** The session; anonymous while it loads or when it cannot be read. */
export function useSession(): SessionView {
  return useQuery(sessionQuery).data ?? anonymousSession;
}
