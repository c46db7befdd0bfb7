import { useQuery } from '@tanstack/react-query';
import { emptyPages } from './defaults';
import { pageQuery } from './queries';
import type { ContentPages, PageName } from './types';

/** A content page from the query cache; the empty default until (or unless) it loads. */
export function useContentPage<N extends PageName>(name: N): ContentPages[N] {
  const { data } = useQuery(pageQuery(name));
  return data ?? emptyPages[name];
}
