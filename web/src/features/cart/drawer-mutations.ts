import { useMutation, type QueryClient } from '@tanstack/react-query';
import type { Cart } from '../../api/types';
import { isApiError } from '../../lib/api';
import * as cartApi from './api';
import { announce, announceCartError, announceInventoryWarnings } from './feedback';
import { describeItem, updatedMessage } from './lines';
import { cartKeys, cartQuery } from './queries';
import { begin, CART_SCOPE, confirm, settle, type Pending } from './sync';

/*
 * The drawer's cart mutations (quantity, remove, promo code): the same serialised, optimistic
 * machinery as add-to-cart (see sync.ts). Only the drawer uses them, so they load with its code.
 */

/**
 * A line's new quantity (`quantity`, typed in the field) or a step from the quantity shown when
 * the change starts (`by`, the − / + buttons: rapid clicks each count, even before a re-render).
 * 0 or less removes the line.
 */
export type QuantityChange = { id: number; quantity: number } | { id: number; by: number };

/** The quantity each change resolved to when it started (read by its request). */
const targets = new WeakMap<QuantityChange, number>();

/** '{product and options}' of each change's line, read when it started (for the update message). */
const descriptions = new WeakMap<QuantityChange, string>();

function shownQuantity(client: QueryClient, id: number): number {
  return client.getQueryData(cartQuery.queryKey)?.items.find((line) => line.id === id)?.quantity ?? 0;
}

/**
 * A line's new quantity (the drawer's field and its − / + buttons), shown at once; 0 removes the
 * line. On failure the displayed quantity reverts.
 */
export function useSetCartItemQuantity() {
  return useMutation<Cart, Error, QuantityChange, Pending>({
    mutationKey: [...cartKeys.all, 'quantity'],
    scope: CART_SCOPE,
    // announced in the banner and the drawer's own live region (feedback.ts)
    meta: { errorToast: false },
    onMutate: (change, { client }) => {
      const quantity = Math.max(0, 'by' in change ? shownQuantity(client, change.id) + change.by : change.quantity);
      targets.set(change, quantity);
      const line = client.getQueryData(cartQuery.queryKey)?.items.find((item) => item.id === change.id);
      if (line) descriptions.set(change, describeItem(line.productName, line.options));
      return begin(client, { kind: 'quantity', id: change.id, quantity });
    },
    mutationFn: (change) => {
      const quantity = targets.get(change) ?? 0;
      return quantity === 0 ? cartApi.removeCartItem(change.id) : cartApi.updateCartItem(change.id, quantity);
    },
    onSuccess: (cart, change, _pending, { client }) => {
      confirm(client, cart);
      // 'You updated … in your shopping cart' (spec §8) when the line is still there (0 removes it)
      const description = descriptions.get(change);
      if (description !== undefined && cart.items.some((item) => item.id === change.id)) {
        announce(updatedMessage(description), 'success');
      }
      announceInventoryWarnings(cart);
    },
    onError: announceCartError,
    onSettled: (_cart, _error, _change, pending, { client }) => {
      settle(client, pending);
    },
  });
}

/** Removes a line (the drawer's Remove), at once; it comes back if the server refuses. */
export function useRemoveCartItem() {
  return useMutation<Cart, Error, { id: number }, Pending>({
    mutationKey: [...cartKeys.all, 'remove'],
    scope: CART_SCOPE,
    // announced in the banner and the drawer's own live region (feedback.ts)
    meta: { errorToast: false },
    onMutate: ({ id }, { client }) => begin(client, { kind: 'remove', id }),
    mutationFn: ({ id }) => cartApi.removeCartItem(id),
    onSuccess: (cart, _line, _pending, { client }) => {
      confirm(client, cart);
      announceInventoryWarnings(cart);
    },
    onError: announceCartError,
    onSettled: (_cart, _error, _line, pending, { client }) => {
      settle(client, pending);
    },
  });
}

export const PROMO_APPLIED = 'Discount code applied successfully';
export const PROMO_INVALID = 'Discount code is invalid';

/** Applies a promo code: 'Discount code applied successfully' or 'Discount code is invalid'. */
export function useApplyPromoCode() {
  return useMutation<Cart, Error, string, Pending>({
    mutationKey: [...cartKeys.all, 'promo-code'],
    scope: CART_SCOPE,
    // announced in the banner and the drawer's own live region (feedback.ts)
    meta: { errorToast: false },
    onMutate: (_code, { client }) => begin(client, { kind: 'none' }),
    mutationFn: (code) => cartApi.applyPromoCode(code.trim()),
    onSuccess: (cart, _code, _pending, { client }) => {
      confirm(client, cart);
      announce(PROMO_APPLIED, 'success');
      announceInventoryWarnings(cart);
    },
    onError: (error) => {
      // the server refuses an unknown or expired code as a validation error on `promoCode`
      if (isPromoRefused(error)) announce(PROMO_INVALID, 'error');
      else announceCartError(error);
    },
    onSettled: (_cart, _error, _code, pending, { client }) => {
      settle(client, pending);
    },
  });
}

function isPromoRefused(error: unknown): boolean {
  return isApiError(error) && (error.status === 422 || error.status === 400);
}
