import type { QueryClient } from '@tanstack/react-query';
import type { Cart } from '../../api/types';
import { applyChange, type CartChange } from './lines';
import { cartKeys, cartQuery } from './queries';

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

export const CART_SCOPE = { id: 'cart' };

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
export interface Pending {
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
export async function begin(client: QueryClient, change: CartChange): Promise<Pending> {
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
export async function confirmedCart(client: QueryClient): Promise<Cart> {
  const sync = syncOf(client);
  if (!sync.confirmed) {
    sync.confirmed = await client.query(cartQuery);
    show(client); // the changes waiting on it appear now
  }
  return sync.confirmed;
}

/** A server answer: it becomes the confirmed cart, shown under the changes still pending. */
export function confirm(client: QueryClient, cart: Cart): void {
  syncOf(client).confirmed = cart;
  show(client);
}

/** A mutation is done (either way): its change leaves; after the last one, the cart is read again. */
export function settle(client: QueryClient, pending: Pending | undefined): void {
  const sync = syncOf(client);
  if (pending) sync.changes.delete(pending.token);
  show(client);
  if (sync.changes.size === 0) void client.invalidateQueries({ queryKey: cartKeys.all });
}
