import type { QueryClient } from '@tanstack/react-query';
import type { Cart } from '../../api/types';
import { api, unwrap } from '../../lib/api';
import { cartKeys, cartQuery, receiveCart } from '../cart';

/**
 * The two cart writes checkout needs, in one small module: removing a restricted line and
 * resetting the cart after an order. (The cart feature's `useRemoveCartItem` can replace
 * `removeCartLine` once both branches are merged.) Every cart call answers the whole cart, which
 * becomes the cached cart.
 */
export async function removeCartLine(queryClient: QueryClient, id: number): Promise<Cart> {
  const cart = await unwrap(api.DELETE('/api/cart/items/{id}', { params: { path: { id: String(id) } } }));
  queryClient.setQueryData(cartQuery.queryKey, cart);
  return cart;
}

/** After an order the upstream cart is gone: drop the cached one and read the new, empty cart. */
export function resetCart(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: cartKeys.all });
}

/**
 * Stores a cart an answer gave (compute). Its inventory warnings are toasted like any cart
 * answer's (each distinct one once) and then the cart is revalidated (spec §8).
 */
export function storeCart(queryClient: QueryClient, cart: Cart): void {
  receiveCart(queryClient, cart);
}
