import type { Cart } from '../../api/types';
import { errorToastText } from '../../lib/api';
import { createStore } from '../../lib/store';
import { notify, type NotificationType } from '../../components/notifications/store';
import { isCartGone } from './api';
import { inventoryWarningText, warningKey } from './lines';
import { shownWarningsStore } from './shown-warnings';

export interface CartAnnouncement {
  message: string;
  type: NotificationType;
}

/**
 * The last cart message, repeated inside the drawer's own live region: while the drawer (a modal
 * dialog) is open, the page behind it, banner included, is inert and not announced.
 */
export const cartAnnouncementStore = createStore<CartAnnouncement | null>(null);

/** A cart toast: the page's notification banner, and the drawer's live region. */
export function announce(message: string, type: NotificationType): void {
  notify({ message, type });
  cartAnnouncementStore.set({ message, type });
}

/**
 * Inventory warnings in any cart answer (a read, a change, a checkout compute): one warning toast,
 * a line per warning (spec §8), for the warnings not shown yet. A warning is remembered until an
 * answer comes without it, so the revalidation that follows (the same warnings again) raises
 * nothing and nothing loops. Returns whether it raised a toast.
 */
export function announceInventoryWarnings(cart: Pick<Cart, 'inventoryWarnings'>): boolean {
  const shown = shownWarningsStore.get();
  const fresh = cart.inventoryWarnings.filter((warning) => !shown.has(warningKey(warning)));
  shownWarningsStore.set(new Set(cart.inventoryWarnings.map(warningKey)));
  if (fresh.length === 0) return false;
  announce(inventoryWarningText(fresh), 'warning');
  return true;
}

/** 'Error: {server message, else title, else the error's own message}'; a 404 of the cart is silent. */
export function announceCartError(error: unknown): void {
  if (isCartGone(error)) return;
  announce(errorToastText(error), 'error');
}
