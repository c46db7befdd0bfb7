import '../catalogue.css';
import { PageMeta } from '../../content';
import type { ProductCard } from '../types';
import { ProductGrid } from './product-card';

/** The search results page: 'Results for "{query}"', the results as cards, or the empty state. */
export function SearchResultsPage({ query, results }: { query: string; results: readonly ProductCard[] }) {
  const title = `Results for "${query}"`;
  return (
    <div className="page search-results">
      <PageMeta title={title} />
      <h1>{title}</h1>
      <p className="search-results__count" role="status">
        {results.length === 1 ? '1 product' : `${String(results.length)} products`}
      </p>
      {results.length > 0 ? (
        <ProductGrid products={results} label="Search results" />
      ) : (
        <p className="search-results__empty">No products match your search. Try another word, or browse the menu.</p>
      )}
    </div>
  );
}
