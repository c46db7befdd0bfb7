import { useMutation } from '@tanstack/react-query';
import type { Cart, NewCartItem } from '../../api/types';
import * as cartApi from './api';
import { announce, announceCartError, announceInventoryWarnings } from './feedback';
import { addedMessage, answeredLine, describeItem, existingLine, optionsOf, updatedMessage } from './lines';
import { cartDrawerStore, cartKeys } from './queries';
import { begin, CART_SCOPE, confirm, confirmedCart, settle, type Pending } from './sync';

let pendingIds = 0;

/** What an add did: a new line, or one more of an existing line. */
export interface AddToCartResult {
  cart: Cart;
  action: 'added' | 'updated';
  /** The line grown, for an update. */
  lineId?: number;
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
    // announced in the banner and the drawer's own live region (feedback.ts)
    meta: { errorToast: false },
    onMutate: (item, { client }) => {
      cartDrawerStore.set(true);
      pendingIds -= 1;
      return begin(client, { kind: 'add', item, pendingId: pendingIds });
    },
    mutationFn: async (item, { client }) => {
      const line = existingLine(await confirmedCart(client), item);
      if (line) {
        const cart = await cartApi.updateCartItem(line.id, line.quantity + (item.quantity ?? 1));
        return { cart, action: 'updated', lineId: line.id };
      }
      return { cart: await cartApi.addCartItem(item), action: 'added' };
    },
    onSuccess: ({ cart, action, lineId }, item, _pending, { client }) => {
      confirm(client, cart);
      // the line as the cart's answer has it: what was added, not what the page asked for
      const line = answeredLine(cart, item, lineId);
      const description = line
        ? describeItem(line.productName, line.options)
        : describeItem(item.productName ?? item.productId, optionsOf(item));
      announce(action === 'added' ? addedMessage(description) : updatedMessage(description), 'success');
      announceInventoryWarnings(cart);
    },
    onError: announceCartError,
    onSettled: (_result, _error, _item, pending, { client }) => {
      settle(client, pending);
    },
  });
}
