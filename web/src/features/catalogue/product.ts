/**
 * The product page's public entry. The routes import a page's entry rather than `index.ts`, so
 * each route's chunk carries its own page only: a product document loads no collection filters
 * and no search results before it hydrates (the pre-hydration budget counts every byte).
 */
export { emptyProduct, ProductPage, productDisplayType } from './components/product-page';
export { useProduct } from './hooks';
export { productLoader, revalidateOnPathChange } from './queries';
