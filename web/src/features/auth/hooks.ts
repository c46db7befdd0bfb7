import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { SessionView } from '../../api/types';
import { api, unwrap } from '../../lib/api';
import { cartKeys } from '../cart';
import { anonymousSession, sessionKeys } from '../session';
import { login, register } from './api';

/**
 * The auth mutations own what a sign-in or sign-out changes in the cache, so no component repeats
 * it: the session becomes the BFF's answer, and the cart is read again (the BFF merges the guest
 * cart into the user's at sign-in; at sign-out the visitor is a guest again).
 */

export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: login,
    meta: { errorToast: false },
    onSuccess: (session) => signedIn(queryClient, session),
  });
}

export function useRegister() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: register,
    meta: { errorToast: false },
    onSuccess: (session) => signedIn(queryClient, session),
  });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.POST('/api/auth/logout')),
    // nothing to tell: the session is gone either way
    meta: { errorToast: false },
    // the BFF has dropped the session even when the upstream logout failed: forget it either way
    onSettled: () => forgetSignedInUser(queryClient),
  });
}

async function signedIn(queryClient: QueryClient, session: SessionView): Promise<void> {
  queryClient.setQueryData(sessionKeys.current(), session);
  await queryClient.invalidateQueries({ queryKey: cartKeys.all });
}

/** Cache entries anyone may see; everything else belonged to the signed-in user. */
const PUBLIC_QUERY_ROOTS = new Set<unknown>(['content', 'runtime-config', 'catalogue', 'search', 'session']);

/**
 * The visitor is signed out (by choice, or because the BFF answered 401 `session_expired`): the
 * session is anonymous again, and the user's data leaves the cache (active queries, such as the
 * cart, are fetched again as the guest).
 */
export async function forgetSignedInUser(queryClient: QueryClient): Promise<void> {
  queryClient.setQueryData(sessionKeys.current(), anonymousSession);
  await queryClient.resetQueries({ predicate: (query) => !PUBLIC_QUERY_ROOTS.has(query.queryKey[0]) });
}
