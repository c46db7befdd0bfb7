import type { QueryClient } from '@tanstack/react-query';
import { useParams, type LoaderFunctionArgs } from 'react-router';
import { CopyPageView } from '../components/copy-page-view';
import { useContentPage } from '../hooks';
import { pageQuery } from '../queries';

export type CopyId = 'terms' | 'privacy';

/** `/copy/<copyId>`: terms or privacy; any other value falls back to terms (spec). */
export function resolveCopyId(value: string | undefined): CopyId {
  return value?.toLowerCase() === 'privacy' ? 'privacy' : 'terms';
}

const titles: Record<CopyId, string> = { terms: 'Terms of Service', privacy: 'Privacy Policy' };

export const copyLoader =
  (queryClient: QueryClient) =>
  async ({ params }: LoaderFunctionArgs) => {
    await queryClient.query({ ...pageQuery(resolveCopyId(params.copyId)), staleTime: 'static' });
    return null;
  };

export function CopyPage() {
  const copyId = resolveCopyId(useParams().copyId);
  return <CopyContent copyId={copyId} />;
}

function CopyContent({ copyId }: { copyId: CopyId }) {
  const page = useContentPage(copyId);
  return <CopyPageView page={page} fallbackTitle={titles[copyId]} />;
}
