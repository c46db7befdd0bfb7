import { useParams } from 'react-router';
import { searchLoader, SearchResultsPage, useSearchResults, revalidateOnPathChange } from '../../features/catalogue';

export const loader = searchLoader;
export const shouldRevalidate = revalidateOnPathChange;

/** `/search/:query`: 'Results for "{query}"'; a failed search shows the same title with no results. */
export function Component() {
  const query = useParams().query ?? '';
  const results = useSearchResults(query);
  return <SearchResultsPage query={query} results={results?.results ?? []} />;
}
