import type { QueryClient } from '@tanstack/react-query';
import { notify } from '../../components/notifications/store';
import { sessionQuery } from '../session';
import { forgetSignedInUser } from './hooks';

/** What the shopper reads when the BFF could not renew the session. */
export const SESSION_EXPIRED_MESSAGE = 'Your session has expired. Please sign in again.';

/**
 * Signs the shopper out cleanly after a call answered `session_expired` (the app watches every
 * query and mutation, see `app/query-client.ts`): once, since later failures of the same ended
 * session find the session anonymous already and change nothing (so nothing loops), with a
 * notification; the header follows the session, and the account area sends the visitor to
 * sign-in.
 */
export function endExpiredSession(queryClient: QueryClient): void {
  const session = queryClient.getQueryData(sessionQuery.queryKey);
  if (session && !session.signedIn) return;
  notify({ message: SESSION_EXPIRED_MESSAGE, type: 'warning' });
  void forgetSignedInUser(queryClient);
}
