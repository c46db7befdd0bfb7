import { createStore } from './store';

/**
 * Whether the next page is loading (its module and its data), set by the page routes
 * (`app/page-routes.tsx`): the frame marks the page busy and shows the global loading indicator
 * meanwhile.
 */
export const pageLoadingStore = createStore(false);
