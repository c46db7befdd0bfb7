/**
 * The catalogue feature's public entry: collection, product and search-results pages. The app's
 * routes import each page's own entry (`product.ts`, `collection.ts`, `search.ts`) so that a
 * route's chunk holds its page only.
 */
export * from './collection';
export * from './product';
export * from './search';
export { ProductCard, ProductGrid } from './components/product-card';
export { cartLineFor } from './logic/cart-line';
export { catalogueKeys, collectionQuery, prefetchProduct, productQuery, searchQuery } from './queries';
export type { PageData, SearchData } from './hooks';
export type { Collection, ProductPage as ProductPageData, ProductCard as ProductCardData } from './types';
