/** The collection page's public entry (see `product.ts` for why the pages have one each). */
export { CollectionPage, collectionDisplayType, emptyCollection } from './components/collection-page';
export { useCollection } from './hooks';
export { collectionLoader, revalidateOnPathChange } from './queries';
