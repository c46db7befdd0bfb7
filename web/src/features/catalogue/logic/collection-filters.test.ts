import { describe, expect, it } from 'vitest';
import { actionFilter, riflesCollection, upgradesFilters, upgradesProducts } from '../../../test/fixtures/catalogue';
import {
  activeTab,
  filterProducts,
  filterStateFromParams,
  paramsForFilterState,
  paramsForTab,
  productsForTab,
  resetFilters,
  tabsOf,
  toggleFilter,
  visibleCategories,
  type FilterState,
} from './collection-filters';

const titles = (products: { title: string }[]) => products.map((product) => product.title);
const none: FilterState = resetFilters();

describe('filterable grid: the Model filter rule', () => {
  it('hides Model until a host manufacturer is chosen', () => {
    expect(visibleCategories(upgradesFilters, {}).map((category) => category.title)).toEqual([
      'Host Manufacturer',
      'Category',
    ]);
  });

  it('offers the models of the chosen manufacturers only', () => {
    const state = toggleFilter(none, upgradesFilters, 'Host Manufacturer', 'Northway Arms');
    const model = visibleCategories(upgradesFilters, state.selected).find((category) => category.title === 'Model');
    expect(model?.options.map((option) => option.value)).toEqual(['NW-15', 'NW-308']);

    const both = toggleFilter(state, upgradesFilters, 'Host Manufacturer', 'Cobalt Defense');
    const models = visibleCategories(upgradesFilters, both.selected).find((category) => category.title === 'Model');
    expect(models?.options.map((option) => option.value)).toEqual(['NW-15', 'NW-308', 'CD-47']);
  });

  it('drops the chosen models of a manufacturer that is turned off', () => {
    let state = toggleFilter(none, upgradesFilters, 'Host Manufacturer', 'Talonforge Arms');
    state = toggleFilter(state, upgradesFilters, 'Host Manufacturer', 'Northway Arms');
    state = toggleFilter(state, upgradesFilters, 'Model', 'Summit LR');
    state = toggleFilter(state, upgradesFilters, 'Model', 'NW-15');
    state = toggleFilter(state, upgradesFilters, 'Host Manufacturer', 'Talonforge Arms');
    expect(state.selected).toEqual({ 'Host Manufacturer': ['Northway Arms'], Model: ['NW-15'] });
    state = toggleFilter(state, upgradesFilters, 'Host Manufacturer', 'Northway Arms');
    expect(state.selected).toEqual({});
  });

  it('ignores a model in the URL whose manufacturer is not chosen', () => {
    const state = filterStateFromParams(
      new URLSearchParams('model=CD-47&host-manufacturer=Northway+Arms'),
      upgradesFilters,
    );
    expect(state.selected).toEqual({ 'Host Manufacturer': ['Northway Arms'] });
  });
});

describe('filterable grid: filters, search and sort', () => {
  it('matches any chosen value within a category and every chosen category', () => {
    let state = toggleFilter(none, upgradesFilters, 'Category', 'Optics Mounts');
    expect(titles(filterProducts(upgradesProducts, state))).toEqual(['Ironclad Scope Rings', 'R9 Optic Plate']);
    state = toggleFilter(state, upgradesFilters, 'Category', 'Controls');
    expect(titles(filterProducts(upgradesProducts, state))).toEqual([
      'Ironclad Scope Rings',
      'R9 Optic Plate',
      'Cobalt Dust Cover',
    ]);
    state = toggleFilter(state, upgradesFilters, 'Host Manufacturer', 'Ridgeback Firearms');
    expect(titles(filterProducts(upgradesProducts, state))).toEqual(['R9 Optic Plate']);
  });

  it('narrows by model under a manufacturer', () => {
    let state = toggleFilter(none, upgradesFilters, 'Host Manufacturer', 'Talonforge Arms');
    expect(titles(filterProducts(upgradesProducts, state))).toEqual([
      'Apex Muzzle Brake',
      'Flatline Trigger',
      'Ironclad Scope Rings',
    ]);
    state = toggleFilter(state, upgradesFilters, 'Model', 'Summit LR');
    expect(titles(filterProducts(upgradesProducts, state))).toEqual(['Apex Muzzle Brake', 'Ironclad Scope Rings']);
  });

  it('searches title or subtitle, ignoring case', () => {
    expect(titles(filterProducts(upgradesProducts, { ...none, query: 'TRIGGER' }))).toEqual(['Flatline Trigger']);
    expect(titles(filterProducts(upgradesProducts, { ...none, query: ' cd-47 ' }))).toEqual(['Cobalt Dust Cover']);
    expect(filterProducts(upgradesProducts, { ...none, query: 'no such thing' })).toEqual([]);
  });

  it('sorts by title ascending or descending; without a sort the collection order stays', () => {
    expect(titles(filterProducts(upgradesProducts, { ...none, sort: 'title-asc' }))).toEqual([
      'Apex Muzzle Brake',
      'Cobalt Dust Cover',
      'Flatline Trigger',
      'Ironclad Scope Rings',
      'R9 Optic Plate',
    ]);
    expect(titles(filterProducts(upgradesProducts, { ...none, sort: 'title-desc' }))[0]).toBe('R9 Optic Plate');
    expect(titles(filterProducts(upgradesProducts, none))).toEqual(titles(upgradesProducts));
  });

  it('a single-choice category keeps one value', () => {
    let state = toggleFilter(none, [actionFilter], 'Action', 'Bolt Action');
    state = toggleFilter(state, [actionFilter], 'Action', 'Rimfire');
    expect(state.selected).toEqual({ Action: ['Rimfire'] });
  });

  it('round-trips the state through the URL, keeping other parameters', () => {
    let state = toggleFilter(none, upgradesFilters, 'Host Manufacturer', 'Talonforge Arms');
    state = toggleFilter(state, upgradesFilters, 'Model', 'Vanguard 15');
    state = { ...state, query: 'brake', sort: 'title-desc' };
    const params = paramsForFilterState(state, upgradesFilters, new URLSearchParams('utm=x'));
    expect(params.toString()).toBe('utm=x&host-manufacturer=Talonforge+Arms&model=Vanguard+15&q=brake&sort=title-desc');
    expect(filterStateFromParams(params, upgradesFilters)).toEqual(state);
    expect(paramsForFilterState(resetFilters(), upgradesFilters, params).toString()).toBe('utm=x');
  });

  it('ignores unknown values and sorts in the URL', () => {
    expect(filterStateFromParams(new URLSearchParams('category=Nope&sort=price'), upgradesFilters)).toEqual(none);
  });
});

describe('tabbed grid: tab <-> activeFilter', () => {
  const categories = riflesCollection.filterCategories;

  it("has 'All' plus the first category's values", () => {
    expect(tabsOf(categories)).toEqual(['All', 'Bolt Action', 'Semi-Auto', 'Rimfire', 'Lever Action']);
    expect(tabsOf([])).toEqual(['All']);
  });

  it('reads the tab from activeFilter, ignoring case; unknown or absent is All', () => {
    expect(activeTab(new URLSearchParams('activeFilter=semi-auto'), categories)).toBe('Semi-Auto');
    expect(activeTab(new URLSearchParams('activeFilter=Nope'), categories)).toBe('All');
    expect(activeTab(new URLSearchParams(''), categories)).toBe('All');
  });

  it("writes the tab to activeFilter; 'All' removes it", () => {
    const params = paramsForTab(new URLSearchParams('x=1'), 'Rimfire');
    expect(params.toString()).toBe('x=1&activeFilter=Rimfire');
    expect(activeTab(params, categories)).toBe('Rimfire');
    expect(paramsForTab(params, 'All').toString()).toBe('x=1');
  });

  it('shows the products of the tab; an empty tab has none', () => {
    expect(titles(productsForTab(riflesCollection.products, categories, 'All'))).toEqual([
      'Summit LR',
      'Vanguard 15',
      'Ridgeline 22',
    ]);
    expect(titles(productsForTab(riflesCollection.products, categories, 'Semi-Auto'))).toEqual(['Vanguard 15']);
    expect(productsForTab(riflesCollection.products, categories, 'Lever Action')).toEqual([]);
  });
});
