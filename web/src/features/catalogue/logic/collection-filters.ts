import type { FilterCategory, ProductCard } from '../types';

/**
 * The collection pages' pure logic: the filterable grid's filters, search box and sort, and the
 * tabbed grid's tabs, each kept in the URL's query so a view can be shared and survives reload
 * and back/forward (spec: shopping §2).
 */

export type SortOrder = 'title-asc' | 'title-desc';

export const SORT_OPTIONS: readonly { value: SortOrder | ''; label: string }[] = [
  { value: '', label: 'Featured' },
  { value: 'title-asc', label: 'Title: A to Z' },
  { value: 'title-desc', label: 'Title: Z to A' },
];

export interface FilterState {
  /** The search box: matches title or subtitle, ignoring case. */
  query: string;
  /** null: the collection's own order. */
  sort: SortOrder | null;
  /** Chosen values per category title. */
  selected: Readonly<Record<string, readonly string[]>>;
}

export const QUERY_PARAM = 'q';
export const SORT_PARAM = 'sort';

/** A category's URL parameter: its title as a slug (`Host Manufacturer` → `host-manufacturer`). */
export function filterParam(category: Pick<FilterCategory, 'title'>): string {
  return category.title
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function isSortOrder(value: string | null): value is SortOrder {
  return value === 'title-asc' || value === 'title-desc';
}

/** Reads the state from the URL; unknown categories and values are ignored. */
export function filterStateFromParams(params: URLSearchParams, categories: readonly FilterCategory[]): FilterState {
  const selected: Record<string, string[]> = {};
  for (const category of categories) {
    const known = new Set(category.options.map((option) => option.value));
    const values = params.getAll(filterParam(category)).filter((value) => known.has(value));
    const unique = [...new Set(values)];
    if (unique.length > 0) selected[category.title] = category.multi ? unique : unique.slice(0, 1);
  }
  const sort = params.get(SORT_PARAM);
  return {
    query: params.get(QUERY_PARAM) ?? '',
    sort: isSortOrder(sort) ? sort : null,
    selected: pruneDependents(selected, categories),
  };
}

/** Writes the state into the URL (other parameters are kept). */
export function paramsForFilterState(
  state: FilterState,
  categories: readonly FilterCategory[],
  base: URLSearchParams = new URLSearchParams(),
): URLSearchParams {
  const params = new URLSearchParams(base);
  for (const category of categories) {
    const key = filterParam(category);
    params.delete(key);
    for (const value of state.selected[category.title] ?? []) params.append(key, value);
  }
  if (state.query.trim()) params.set(QUERY_PARAM, state.query);
  else params.delete(QUERY_PARAM);
  if (state.sort) params.set(SORT_PARAM, state.sort);
  else params.delete(SORT_PARAM);
  return params;
}

/**
 * The categories the sidebar shows, each with the options it offers. A category that depends on
 * another (Model on Host Manufacturer) appears only when a value of that one is chosen, and then
 * offers only the options under the chosen values.
 */
export function visibleCategories(
  categories: readonly FilterCategory[],
  selected: FilterState['selected'],
): FilterCategory[] {
  return categories.flatMap((category) => {
    if (!category.dependsOn) return [category];
    const parents = selected[category.dependsOn] ?? [];
    if (parents.length === 0) return [];
    const options = category.options.filter(
      (option) => option.parentValue !== null && parents.includes(option.parentValue),
    );
    return options.length > 0 ? [{ ...category, options }] : [];
  });
}

/** Drops the choices of dependent categories whose parent value is no longer chosen. */
function pruneDependents(
  selected: Record<string, readonly string[]>,
  categories: readonly FilterCategory[],
): Record<string, readonly string[]> {
  const next: Record<string, readonly string[]> = { ...selected };
  for (const category of categories) {
    if (!category.dependsOn) continue;
    const offered = new Set(
      visibleCategories([category], next).flatMap((visible) => visible.options.map((o) => o.value)),
    );
    next[category.title] = (next[category.title] ?? []).filter((value) => offered.has(value));
  }
  return withoutEmpty(next);
}

function withoutEmpty(selected: Record<string, readonly string[]>): Record<string, readonly string[]> {
  return Object.fromEntries(Object.entries(selected).filter(([, values]) => values.length > 0));
}

/**
 * Turns a value on or off. A single-choice category holds at most one value (choosing another
 * replaces it); turning a parent value off also drops the dependent values under it.
 */
export function toggleFilter(
  state: FilterState,
  categories: readonly FilterCategory[],
  categoryTitle: string,
  value: string,
): FilterState {
  const category = categories.find((candidate) => candidate.title === categoryTitle);
  if (!category) return state;
  const current = state.selected[categoryTitle] ?? [];
  const chosen = current.includes(value)
    ? current.filter((existing) => existing !== value)
    : category.multi
      ? [...current, value]
      : [value];
  return { ...state, selected: pruneDependents({ ...state.selected, [categoryTitle]: chosen }, categories) };
}

/** 'Reset All': no filters, no search, the collection's order. */
export function resetFilters(): FilterState {
  return { query: '', sort: null, selected: {} };
}

function hasTag(product: ProductCard, category: string, values: readonly string[]): boolean {
  return product.filterOptions.some((tag) => tag.filterCategory === category && values.includes(tag.filterValue));
}

/**
 * The products the filterable grid shows: every chosen category must match (any of its chosen
 * values), the search text must be in the title or subtitle, then the chosen sort.
 */
export function filterProducts(products: readonly ProductCard[], state: FilterState): ProductCard[] {
  const needle = state.query.trim().toLowerCase();
  const shown = products.filter(
    (product) =>
      Object.entries(state.selected).every(
        ([category, values]) => values.length === 0 || hasTag(product, category, values),
      ) &&
      (needle === '' ||
        product.title.toLowerCase().includes(needle) ||
        product.subtitle.toLowerCase().includes(needle)),
  );
  if (!state.sort) return shown;
  const direction = state.sort === 'title-asc' ? 1 : -1;
  return shown.sort((a, b) => direction * a.title.localeCompare(b.title, 'en-US', { sensitivity: 'base' }));
}

// tabbed grid --------------------------------------------------------------------------------

export const ACTIVE_FILTER_PARAM = 'activeFilter';
export const ALL_TAB = 'All';

/** The tabs: 'All' plus the values of the collection's first filter category. */
export function tabsOf(categories: readonly FilterCategory[]): string[] {
  return [ALL_TAB, ...(categories[0]?.options.map((option) => option.value) ?? [])];
}

/** The selected tab from `?activeFilter=` (ignoring case); 'All' when absent or unknown. */
export function activeTab(params: URLSearchParams, categories: readonly FilterCategory[]): string {
  const wanted = params.get(ACTIVE_FILTER_PARAM)?.trim().toLowerCase();
  if (!wanted) return ALL_TAB;
  return tabsOf(categories).find((tab) => tab.toLowerCase() === wanted) ?? ALL_TAB;
}

/** The URL for a tab: 'All' drops the parameter (other parameters are kept). */
export function paramsForTab(params: URLSearchParams, tab: string): URLSearchParams {
  const next = new URLSearchParams(params);
  if (tab === ALL_TAB) next.delete(ACTIVE_FILTER_PARAM);
  else next.set(ACTIVE_FILTER_PARAM, tab);
  return next;
}

/** The products of a tab: all, or those tagged with the tab's value in the first category. */
export function productsForTab(
  products: readonly ProductCard[],
  categories: readonly FilterCategory[],
  tab: string,
): ProductCard[] {
  const first = categories[0];
  if (tab === ALL_TAB || !first) return [...products];
  return products.filter((product) => hasTag(product, first.title, [tab]));
}
