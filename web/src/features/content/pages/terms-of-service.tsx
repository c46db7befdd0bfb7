import { CopyPageView } from '../components/copy-page-view';
import { useContentPage } from '../hooks';
import { pageLoader } from '../queries';

export const termsOfServiceLoader = pageLoader('terms');

export function TermsOfServicePage() {
  const page = useContentPage('terms');
  return <CopyPageView page={page} fallbackTitle="Terms of Service" />;
}
