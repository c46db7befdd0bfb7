import type { QueryClient } from '@tanstack/react-query';
import { isApiProblem } from '../../lib/api';
import { cartKeys } from '../cart/queries';
import { notify } from '../notifications/store';
import { anonymousSession, sessionKeys, sessionQuery } from './queries';

/** What the shopper reads when the BFF could not renew the session. */
export const SESSION_EXPIRED_MESSAGE = 'Your session has expired. Please sign in again.';

/** The BFF's answer when the session could not be renewed: 401 with code `session_expired`. */
export function isSessionExpired(error: unknown): boolean {
  return isApiProblem(error) && error.status === 401 && error.code === 'session_expired';
}

/**
 * Forgets the signed-in user in the browser: the session reads anonymous, the user's own data
 * (queries marked `meta.signedInOnly`) is dropped, and the cart is read again (now the guest's).
 */
export function forgetSignedInUser(queryClient: QueryClient): Promise<void> {
  queryClient.setQueryData(sessionKeys.current(), anonymousSession);
  queryClient.removeQueries({ predicate: (query) => query.meta?.signedInOnly === true });
  return queryClient.invalidateQueries({ queryKey: cartKeys.all });
}

/**
 * Signs the shopper out cleanly when any call (query or mutation) answers `session_expired`:
 * once (later failures of the same ended session change nothing), with a notification; the header
 * follows the session, and the account area sends the visitor to sign-in. Returns the unsubscriber.
 */
export function installSessionExpiry(queryClient: QueryClient): () => void {
  const onError = (error: unknown) => {
    if (!isSessionExpired(error)) return;
    const session = queryClient.getQueryData(sessionQuery.queryKey);
    if (session && !session.signedIn) return; // already signed out: no second notice, no loop
    void forgetSignedInUser(queryClient);
    notify({ message: SESSION_EXPIRED_MESSAGE, type: 'warning' });
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
