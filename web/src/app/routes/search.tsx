import { useParams } from 'react-router';
import {
  searchLoader,
  SearchResultsPage,
  useSearchResults,
  revalidateOnPathChange,
} from '../../features/catalogue/search';

export const loader = searchLoader;
export const shouldRevalidate = revalidateOnPathChange;

/**
 * `/search/:query`: 'Results for "{query}"'; a search that could not run keeps the title and says
 * 'Search is unavailable' (or that there were too many searches).
 */
export function Component() {
  const query = useParams().query ?? '';
  const search = useSearchResults(query);
  return (
    <SearchResultsPage
      query={query}
      results={search.status === 'found' ? search.data.results : []}
      failure={search.status === 'failed' ? search.failure : undefined}
    />
  );
}
