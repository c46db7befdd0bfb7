import '../catalogue.css';
import type { SearchFailure } from '../../../lib/search-failure';
import { PageMeta } from '../../content';
import type { ProductCard } from '../types';
import { ProductGrid } from './product-card';

interface SearchResultsPageProps {
  query: string;
  results: readonly ProductCard[];
  /** Why the search could not be answered ('Search is unavailable'); then no count or cards. */
  failure?: SearchFailure | undefined;
}

/**
 * The search results page: 'Results for "{query}"', the results as cards, or the empty state; a
 * search that could not run keeps the title and says so (never "no products match").
 */
export function SearchResultsPage({ query, results, failure }: SearchResultsPageProps) {
  const title = `Results for "${query}"`;
  return (
    <div className="page search-results">
      <PageMeta title={title} />
      <h1>{title}</h1>
      {failure ? (
        <div className="search-results__failure" role="alert">
          <p className="search-results__failure-title">{failure.title}</p>
          <p>{failure.hint}</p>
        </div>
      ) : (
        <>
          <p className="search-results__count" role="status">
            {results.length === 1 ? '1 product' : `${String(results.length)} products`}
          </p>
          {results.length > 0 ? (
            <ProductGrid firstScreen products={results} label="Search results" />
          ) : (
            <p className="search-results__empty">
              No products match your search. Try another word, or browse the menu.
            </p>
          )}
        </>
      )}
    </div>
  );
}
