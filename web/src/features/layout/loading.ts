import { useNavigation } from 'react-router';
import { requestsInFlight } from '../../lib/api';
import { createStore, useStore } from '../../lib/store';

/** A flag code can raise to show the global loading indicator (e.g. while a payment script works). */
export const loadingFlagStore = createStore(false);

export function setGlobalLoading(loading: boolean): void {
  loadingFlagStore.set(loading);
}

/**
 * Whether the global loading indicator shows: while the next page loads (the router's
 * navigation state), while any API
 * request is in flight (counted), or while the store flag is set (spec).
 */
export function useGlobalLoading(): boolean {
  const pageLoading = useNavigation().state !== 'idle';
  const inFlight = useStore(requestsInFlight);
  const flag = useStore(loadingFlagStore);
  return pageLoading || inFlight > 0 || flag;
}
