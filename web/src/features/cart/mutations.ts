import { useMutation, type QueryClient } from '@tanstack/react-query';
import type { Cart, NewCartItem } from '../../api/types';
import { isApiError } from '../../lib/api';
import * as cartApi from './api';
import { announce, announceCartError, announceInventoryWarnings } from './feedback';
import {
  addedMessage,
  applyChange,
  describeItem,
  existingLine,
  optionsOf,
  updatedMessage,
  type CartChange,
} from './lines';
import { cartDrawerStore, cartKeys, cartQuery } from './queries';

/*
 * Cart mutations: serialised, optimistic, reconciled by the server's answer.
 *
 * - Every cart mutation shares the scope `cart`, so TanStack Query sends them one after another
 *   in the order they were started: two rapid adds or +/- clicks reach the server in order, and
 *   each one is decided on the cart the previous one left (the existing-line rule included).
 * - Per query client we keep the last cart the server confirmed (`confirmed`) and the changes of
 *   the mutations still in flight (`changes`, in start order). What the cache shows is always
 *   `confirmed` with the pending changes applied: an answer replaces `confirmed` whole (the
 *   spec's rule) without undoing the changes still queued behind it, and a failed change simply
 *   drops out, so the displayed quantity reverts (the rollback) without clobbering the others.
 * - When the last cart mutation settles, the cart query is invalidated once.
 */

const CART_SCOPE = { id: 'cart' };

interface CartSync {
  confirmed: Cart | undefined;
  changes: Map<symbol, CartChange>;
}

const syncs = new WeakMap<QueryClient, CartSync>();

function syncOf(client: QueryClient): CartSync {
  let sync = syncs.get(client);
  if (!sync) {
    sync = { confirmed: undefined, changes: new Map() };
    syncs.set(client, sync);
  }
  return sync;
}

/** The token a mutation's change is kept under, from `onMutate` to `onSettled`. */
interface Pending {
  token: symbol;
}

function show(client: QueryClient): void {
  const { confirmed, changes } = syncOf(client);
  if (!confirmed) return;
  let cart = confirmed;
  for (const change of changes.values()) cart = applyChange(cart, change);
  client.setQueryData(cartQuery.queryKey, cart);
}

/** Records a change and shows it at once (in-flight cart reads are cancelled first). */
async function begin(client: QueryClient, change: CartChange): Promise<Pending> {
  const sync = syncOf(client);
  // with nothing in flight, the cache holds the server's cart: the base for what follows
  if (sync.changes.size === 0) sync.confirmed = client.getQueryData(cartQuery.queryKey);
  const token = Symbol('cart change');
  sync.changes.set(token, change);
  show(client);
  // a cancelled read puts back the data it started from: show the change again once it is gone
  await client.cancelQueries({ queryKey: cartKeys.all });
  show(client);
  return { token };
}

/** The cart as the server last confirmed it (read once if the page has not loaded it yet). */
async function confirmedCart(client: QueryClient): Promise<Cart> {
  const sync = syncOf(client);
  sync.confirmed ??= await client.query(cartQuery);
  return sync.confirmed;
}

/** A server answer: it becomes the confirmed cart, shown under the changes still pending. */
function confirm(client: QueryClient, cart: Cart): void {
  syncOf(client).confirmed = cart;
  show(client);
}

function settle(client: QueryClient, pending: Pending | undefined): void {
  const sync = syncOf(client);
  if (pending) sync.changes.delete(pending.token);
  show(client);
  if (sync.changes.size === 0) void client.invalidateQueries({ queryKey: cartKeys.all });
}

let pendingIds = 0;

/** What an add did: a new line, or one more of an existing line. */
export interface AddToCartResult {
  cart: Cart;
  action: 'added' | 'updated';
}

/**
 * Add to cart (product page Add to Cart, a collection's quick '+'). The variables are the spec's
 * cart line payload. The line shows at once (pending until the server answers) and the drawer
 * opens. A line with the same sku, options and name grows by one, as an update; otherwise the
 * line is added. Toasts 'You added … to your shopping cart' / 'You updated … in your shopping
 * cart', inventory warnings, and errors as 'Error: …'.
 */
export function useAddToCart() {
  return useMutation<AddToCartResult, Error, NewCartItem, Pending>({
    mutationKey: [...cartKeys.all, 'add'],
    scope: CART_SCOPE,
    onMutate: (item, { client }) => {
      cartDrawerStore.set(true);
      pendingIds -= 1;
      return begin(client, { kind: 'add', item, pendingId: pendingIds });
    },
    mutationFn: async (item, { client }) => {
      const line = existingLine(await confirmedCart(client), item);
      if (line) {
        const cart = await cartApi.updateCartItem(line.id, line.quantity + (item.quantity ?? 1));
        return { cart, action: 'updated' };
      }
      return { cart: await cartApi.addCartItem(item), action: 'added' };
    },
    onSuccess: ({ cart, action }, item, _pending, { client }) => {
      confirm(client, cart);
      const description = describeItem(item.productName ?? item.productId, optionsOf(item));
      announce(action === 'added' ? addedMessage(description) : updatedMessage(description), 'success');
      announceInventoryWarnings(cart);
    },
    onError: announceCartError,
    onSettled: (_result, _error, _item, pending, { client }) => {
      settle(client, pending);
    },
  });
}

export interface QuantityChange {
  /** The cart line's id. */
  id: number;
  /** The new quantity; 0 (or less) removes the line. */
  quantity: number;
}

/**
 * A line's new quantity (the drawer's field and its − / + buttons), shown at once; 0 removes the
 * line. On failure the displayed quantity reverts.
 */
export function useSetCartItemQuantity() {
  return useMutation<Cart, Error, QuantityChange, Pending>({
    mutationKey: [...cartKeys.all, 'quantity'],
    scope: CART_SCOPE,
    onMutate: ({ id, quantity }, { client }) => begin(client, { kind: 'quantity', id, quantity: Math.max(0, quantity) }),
    mutationFn: ({ id, quantity }) =>
      quantity <= 0 ? cartApi.removeCartItem(id) : cartApi.updateCartItem(id, quantity),
    onSuccess: (cart, _change, _pending, { client }) => {
      confirm(client, cart);
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
