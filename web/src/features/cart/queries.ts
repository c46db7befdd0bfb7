import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';
import { createStore, useStore } from '../../lib/store';
import { fetchCart } from './api';
import { shownWarningsStore } from './shown-warnings';
import type { Cart } from './types';

export const cartKeys = {
  all: ['cart'] as const,
  current: () => [...cartKeys.all, 'current'] as const,
};

/** The one cache entry for the cart: the header badge, the drawer, add-to-cart and checkout read it. */
export const cartQuery = queryOptions({
  queryKey: cartKeys.current(),
  queryFn: async ({ signal }) => {
    const cart = await fetchCart(signal);
    // a read's inventory warnings are toasted too (each distinct one once: see feedback.ts);
    // the toast code loads only then, so the entry bundle does not carry it
    if (cart.inventoryWarnings.length > 0) {
      const { announceInventoryWarnings } = await import('./feedback');
      announceInventoryWarnings(cart);
    } else if (shownWarningsStore.get().size > 0) {
      // an answer without warnings forgets the ones shown, so a warning that comes back is new
      shownWarningsStore.set(new Set());
    }
    return cart;
  },
  staleTime: 30_000,
});

/**
 * A cart another feature's call answered (checkout's compute): it becomes the cached cart, its
 * inventory warnings are toasted like any cart answer's (each distinct one once) and then the
 * cart is revalidated (spec §8). The toast code loads only when there are warnings.
 */
export function receiveCart(client: QueryClient, cart: Cart): void {
  client.setQueryData(cartQuery.queryKey, cart);
  if (cart.inventoryWarnings.length === 0) return;
  void import('./feedback').then(({ announceInventoryWarnings }) => {
    if (announceInventoryWarnings(cart)) void client.invalidateQueries({ queryKey: cartKeys.all });
  });
}

/** The sum of the line quantities (the header's badge). */
export function cartItemCount(cart: Pick<Cart, 'items'> | undefined): number {
  return (cart?.items ?? []).reduce((sum, item) => sum + (Number.isFinite(item.quantity) ? item.quantity : 0), 0);
}

/** The number of items in the cart (sum of the line quantities); 0 until it loads. */
export function useCartItemCount(): number {
  return useQuery({ ...cartQuery, select: cartItemCount }).data ?? 0;
}

/** Whether the cart drawer is open. Page changes close it. */
export const cartDrawerStore = createStore(false);

export function useCartDrawerOpen(): boolean {
  return useStore(cartDrawerStore);
}

export function openCartDrawer(): void {
  cartDrawerStore.set(true);
}

export function closeCartDrawer(): void {
  cartDrawerStore.set(false);
}
