import type { Cart, NewCartItem } from '../../api/types';
import { api, isApiError, unwrap } from '../../lib/api';

/**
 * Every call to the BFF's cart API. Each answer is the whole cart, which replaces the cached one
 * (spec: "Every cart call replaces the whole cart with the server's response").
 */

/** The default empty cart: a guest cart with no items and all amounts 0 (spec §3). */
export const EMPTY_CART: Cart = {
  id: null,
  userId: null,
  isAbandoned: false,
  isGuest: true,
  items: [],
  inventoryWarnings: [],
  subTotal: 0,
  taxAmount: 0,
  shipping: 0,
  discountAmount: 0,
  totalAmount: 0,
  appliedDiscounts: [],
};

/** A 404 from the cart is silent (spec §8): the guest is unknown upstream, so a fresh empty cart. */
export function isCartGone(error: unknown): boolean {
  return isApiError(error) && error.status === 404;
}

export async function fetchCart(signal?: AbortSignal): Promise<Cart> {
  try {
    return await unwrap(api.GET('/api/cart', signal ? { signal } : {}));
  } catch (error) {
    if (isCartGone(error)) return EMPTY_CART;
    throw error;
  }
}

export function addCartItem(item: NewCartItem): Promise<Cart> {
  return unwrap(api.POST('/api/cart/items', { body: item }));
}

/** A new quantity for a line; 0 removes it. */
export function updateCartItem(id: number, quantity: number): Promise<Cart> {
  return unwrap(api.PUT('/api/cart/items/{id}', { params: { path: { id: String(id) } }, body: { quantity } }));
}

export function removeCartItem(id: number): Promise<Cart> {
  return unwrap(api.DELETE('/api/cart/items/{id}', { params: { path: { id: String(id) } } }));
}

export function applyPromoCode(promoCode: string): Promise<Cart> {
  return unwrap(api.POST('/api/cart/promo-code', { body: { promoCode } }));
}
