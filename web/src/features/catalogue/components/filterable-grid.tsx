import { useId, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useHydrated } from '../../../lib/use-hydrated';
import {
  filterProducts,
  filterStateFromParams,
  paramsForFilterState,
  resetFilters,
  SORT_OPTIONS,
  toggleFilter,
  visibleCategories,
  type FilterState,
} from '../logic/collection-filters';
import type { Collection, FilterCategory } from '../types';
import { ProductGrid } from './product-card';

/** The grid's state before the app has taken the page over: no choices, as the server renders it. */
const NO_CHOICES = new URLSearchParams();

/**
 * The filterable grid: a sidebar with an accordion per filter category (Model only under a chosen
 * host manufacturer), 'Reset All', a search box, a sort, the result count and 'Product not found'.
 * Every choice lives in the URL, so a filtered view can be shared.
 *
 * The choices are not part of the server's document (one document per collection, whatever the
 * query): the server renders the unfiltered grid, hydration renders the same, and the choices in
 * the URL apply once the app has taken the page over.
 */
export function FilterableGrid({ collection }: { collection: Collection }) {
  const [params, setParams] = useSearchParams();
  const hydrated = useHydrated();
  const categories = collection.filterCategories;
  const state = filterStateFromParams(hydrated ? params : NO_CHOICES, categories);
  const products = filterProducts(collection.products, state);
  const headingId = useId();
  const searchId = useId();
  const sortId = useId();

  const update = (next: FilterState, replace = false) => {
    setParams(paramsForFilterState(next, categories, params), { replace, preventScrollReset: true });
  };

  return (
    <div className="filterable-grid">
      <section className="filterable-grid__sidebar" aria-labelledby={headingId}>
        <div className="filterable-grid__sidebar-header">
          <h2 id={headingId}>Filters</h2>
          <button
            type="button"
            className="button button--outline"
            onClick={() => {
              update(resetFilters());
            }}
          >
            Reset All
          </button>
        </div>
        {visibleCategories(categories, state.selected).map((category) => (
          <FilterAccordion
            key={category.id}
            category={category}
            chosen={state.selected[category.title] ?? []}
            onToggle={(value) => {
              update(toggleFilter(state, categories, category.title, value));
            }}
          />
        ))}
      </section>
      <div className="filterable-grid__results">
        <div className="filterable-grid__toolbar">
          <div className="field filterable-grid__search">
            <label htmlFor={searchId} className="visually-hidden">
              Search {collection.title}
            </label>
            <input
              id={searchId}
              type="search"
              className="field__control"
              placeholder="SEARCH"
              value={state.query}
              onChange={(event) => {
                update({ ...state, query: event.target.value }, true);
              }}
            />
          </div>
          <div className="field filterable-grid__sort">
            <label htmlFor={sortId} className="field__label">
              Sort by
            </label>
            <select
              id={sortId}
              className="field__control"
              value={state.sort ?? ''}
              onChange={(event) => {
                const value = SORT_OPTIONS.find((option) => option.value === event.target.value)?.value;
                update({ ...state, sort: value || null });
              }}
            >
              {SORT_OPTIONS.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </div>
        </div>
        <p className="filterable-grid__count" role="status">
          {products.length === 1 ? '1 Product' : `${String(products.length)} Products`}
        </p>
        {products.length > 0 ? (
          <ProductGrid firstScreen products={products} label={`${collection.title} products`} />
        ) : (
          <p className="collection-page__empty">Product not found</p>
        )}
      </div>
    </div>
  );
}

function FilterAccordion({
  category,
  chosen,
  onToggle,
}: {
  category: FilterCategory;
  chosen: readonly string[];
  onToggle: (value: string) => void;
}) {
  const [expanded, setExpanded] = useState(true);
  const panelId = useId();
  const name = useId();
  return (
    <div className="accordion__item filter-accordion">
      <h3 className="accordion__heading">
        <button
          type="button"
          className="accordion__button"
          aria-expanded={expanded}
          aria-controls={panelId}
          onClick={() => {
            setExpanded((open) => !open);
          }}
        >
          {category.title}
        </button>
      </h3>
      <fieldset id={panelId} className="accordion__panel filter-accordion__options" hidden={!expanded}>
        <legend className="visually-hidden">{category.title}</legend>
        {category.options.map((option) => (
          <label key={option.id} className="filter-accordion__option">
            <input
              type={category.multi ? 'checkbox' : 'radio'}
              name={category.multi ? undefined : name}
              checked={chosen.includes(option.value)}
              onChange={() => {
                onToggle(option.value);
              }}
              onClick={() => {
                // a chosen radio is un-chosen by clicking it again (single-choice categories)
                if (!category.multi && chosen.includes(option.value)) onToggle(option.value);
              }}
            />{' '}
            {option.value}
          </label>
        ))}
      </fieldset>
    </div>
  );
}
