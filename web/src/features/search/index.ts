/** Search: the header's toggle (the overlay loads with it) and the suggestions query. */
export { SearchToggle } from './components/search-toggle';
export { searchKeys, suggestionsQuery, type SearchResult } from './api';
