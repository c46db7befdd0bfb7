import { apiSend } from '../../lib/api';

export interface NewsletterSubscription {
  email: string;
  firstName: string;
  lastName: string;
  captcha: string;
}

/** The spec's success message for a subscription. */
export const SUBSCRIBED_MESSAGE = 'You have been subscribed to the newsletter';

export function subscribeToNewsletter(subscription: NewsletterSubscription): Promise<{ message: string }> {
  return apiSend('POST', '/api/newsletter/subscribe', subscription);
}
