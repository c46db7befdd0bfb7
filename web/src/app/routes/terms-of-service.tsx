import { CopyPageView } from '../../features/content/components/copy-page-view';
import { useContentPage } from '../../features/content/hooks';
import { pageLoader } from '../../features/content/queries';

export const loader = pageLoader('terms');

export function Component() {
  const page = useContentPage('terms');
  return <CopyPageView page={page} fallbackTitle="Terms of Service" />;
}
