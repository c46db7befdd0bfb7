import { requestsInFlight } from '../../lib/api';
import { pageLoadingStore } from '../../lib/page-loading';
import { createStore, useStore } from '../../lib/store';

/** A flag code can raise to show the global loading indicator (e.g. while a payment script works). */
export const loadingFlagStore = createStore(false);

export function setGlobalLoading(loading: boolean): void {
  loadingFlagStore.set(loading);
}

/**
 * Whether the global loading indicator shows: while the next page loads, while any API
 * request is in flight (counted), or while the store flag is set (spec).
 */
export function useGlobalLoading(): boolean {
  const pageLoading = useStore(pageLoadingStore);
  const inFlight = useStore(requestsInFlight);
  const flag = useStore(loadingFlagStore);
  return pageLoading || inFlight > 0 || flag;
}
