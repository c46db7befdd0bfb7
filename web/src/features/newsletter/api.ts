import type { MessageAnswer, Subscribe } from '../../api/types';
import { api, unwrap } from '../../lib/api';

/** The spec's success message for a subscription. */
export const SUBSCRIBED_MESSAGE = 'You have been subscribed to the newsletter';

export function subscribeToNewsletter(subscription: Subscribe): Promise<MessageAnswer> {
  return unwrap(api.POST('/api/newsletter/subscribe', { body: subscription }));
}
