import { api, unwrap } from '../../lib/api';
import { emptyPages } from './defaults';
import type { ContentPages, PageName } from './types';

/**
 * Fetches a content page. A failure yields the empty default page, silently (spec: content page
 * failures return defaults). Missing or null top-level fields are filled from the default too, so
 * a page can always be rendered.
 */
export async function fetchPage<N extends PageName>(name: N, signal?: AbortSignal): Promise<ContentPages[N]> {
  const fallback = emptyPages[name];
  try {
    const page: unknown = await unwrap(api.GET('/api/pages/{name}', { params: { path: { name } }, signal }));
    return withDefaults(fallback, page);
  } catch (err) {
    if (signal?.aborted) throw err;
    return fallback;
  }
}

function withDefaults<T extends object>(fallback: T, page: unknown): T {
  if (typeof page !== 'object' || page === null || Array.isArray(page)) return fallback;
  const present = Object.entries(page).filter(([, value]) => value !== null && value !== undefined);
  return { ...fallback, ...(Object.fromEntries(present) as Partial<T>) };
}
