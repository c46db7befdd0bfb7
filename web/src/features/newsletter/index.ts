/** The newsletter sign-up form (the footer loads it lazily) and its call. */
export { NewsletterForm } from './newsletter-form';
export { SUBSCRIBED_MESSAGE, subscribeToNewsletter } from './api';
