import type { QueryClient } from '@tanstack/react-query';
import { pageQuery } from '../features/content/queries';
import { runtimeConfigQuery } from '../lib/runtime-config';

/**
 * The frame's data (the header's and footer's content, the runtime config), loaded with the
 * first page. Cached data is used as is (components refetch stale data in the background), so
 * later pages find it at once. Content failures resolve to empty pages, and the frame renders
 * without the runtime config.
 */
export async function loadFrame(queryClient: QueryClient): Promise<void> {
  await Promise.all([
    queryClient.query({ ...pageQuery('app'), staleTime: 'static' }),
    queryClient.query({ ...pageQuery('footer'), staleTime: 'static' }),
    queryClient.query(runtimeConfigQuery).catch(() => undefined),
  ]);
}
