/** The cart's public API: one cart in the query cache, read by the header, the drawer and checkout. */
export { cartDrawerStore, cartItemCount, cartKeys, cartQuery, useCartDrawerOpen, useCartItemCount } from './queries';
export type { AppliedDiscount, Cart, CartItem, CartOption, InventoryWarning, PromotionalPage, PromotionImage } from './types';
