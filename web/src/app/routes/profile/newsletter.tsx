import { NewsletterPage } from '../../../features/account';

export function Component() {
  return <NewsletterPage />;
}
