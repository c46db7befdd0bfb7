import type { QueryClient } from '@tanstack/react-query';
import { notify } from '../../components/notifications/store';
import { isApiProblem } from '../../lib/api';
import { sessionQuery } from '../session';
import { forgetSignedInUser } from './hooks';

/** What the shopper reads when the BFF could not renew the session. */
export const SESSION_EXPIRED_MESSAGE = 'Your session has expired. Please sign in again.';

/** The BFF's answer when the session could not be renewed: 401 with code `session_expired`. */
export function isSessionExpired(error: unknown): boolean {
  return isApiProblem(error) && error.status === 401 && error.code === 'session_expired';
}

/**
 * Signs the shopper out cleanly when any call (query or mutation) answers `session_expired`:
 * once (later failures of the same ended session change nothing, so nothing loops), with a
 * notification; the header follows the session, and the account area sends the visitor to
 * sign-in. Returns the unsubscriber.
 */
export function installSessionExpiry(queryClient: QueryClient): () => void {
  const onError = (error: unknown) => {
    if (!isSessionExpired(error)) return;
    const session = queryClient.getQueryData(sessionQuery.queryKey);
    if (session && !session.signedIn) return;
    notify({ message: SESSION_EXPIRED_MESSAGE, type: 'warning' });
    void forgetSignedInUser(queryClient);
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
