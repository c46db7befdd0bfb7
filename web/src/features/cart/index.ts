/** The cart's public API: one cart in the query cache, read by the header, the drawer, add-to-cart and checkout. */
export {
  cartDrawerStore,
  cartItemCount,
  cartKeys,
  cartQuery,
  closeCartDrawer,
  openCartDrawer,
  receiveCart,
  useCartDrawerOpen,
  useCartItemCount,
} from './queries';
export { AddToCartButton } from './add-to-cart';
export type { AddToCartResult } from './use-add-to-cart';
export type {
  AppliedDiscount,
  Cart,
  CartItem,
  CartOption,
  InventoryWarning,
  PromotionalPage,
  PromotionImage,
} from './types';
export type { NewCartItem } from '../../api/types';
export { CartButton, cartButtonLabel } from './components/cart-button';
