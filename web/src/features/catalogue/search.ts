/** The search results page's public entry (see `product.ts` for why the pages have one each). */
export { SearchResultsPage } from './components/search-results';
export { useSearchResults } from './hooks';
export { revalidateOnPathChange, searchLoader } from './queries';
