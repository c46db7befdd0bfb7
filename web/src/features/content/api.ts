import { apiGet } from '../../lib/api';
import { emptyPages } from './defaults';
import type { ContentPages, PageName } from './types';

/**
 * Fetches a content page. A failure yields the empty default page, silently (spec: content page
 * failures return defaults). Missing top-level fields are filled from the default too.
 */
export async function fetchPage<N extends PageName>(name: N, signal?: AbortSignal): Promise<ContentPages[N]> {
  const fallback = emptyPages[name];
  try {
    const page = await apiGet<Partial<ContentPages[N]> | null>(
      `/api/pages/${encodeURIComponent(name)}`,
      signal ? { signal } : {},
    );
    return { ...fallback, ...(page ?? {}) };
  } catch (err) {
    if (signal?.aborted) throw err;
    return fallback;
  }
}
