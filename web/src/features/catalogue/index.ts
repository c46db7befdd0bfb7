/** The catalogue feature's public entry: collection, product and search-results pages. */
export { CollectionPage, collectionDisplayType, emptyCollection } from './components/collection-page';
export { emptyProduct, ProductPage, productDisplayType } from './components/product-page';
export { ProductCard, ProductGrid } from './components/product-card';
export { SearchResultsPage } from './components/search-results';
export { useCollection, useProduct, useSearchResults, type PageData, type SearchData } from './hooks';
export { cartLineFor } from './logic/cart-line';
export {
  catalogueKeys,
  collectionLoader,
  collectionQuery,
  prefetchProduct,
  productLoader,
  productQuery,
  revalidateOnPathChange,
  searchLoader,
  searchQuery,
} from './queries';
export type { Collection, ProductPage as ProductPageData, ProductCard as ProductCardData } from './types';
