/** The cart feature's public entry: other features and routes import the cart only from here. */
export { cartDrawerStore, cartItemCount, cartKeys, cartQuery, closeCartDrawer, openCartDrawer, useCartDrawerOpen, useCartItemCount } from './queries';
export {
  useAddToCart,
  useApplyPromoCode,
  useRemoveCartItem,
  useSetCartItemQuantity,
  type AddToCartResult,
  type QuantityChange,
} from './mutations';
export type { AppliedDiscount, Cart, CartItem, CartOption, InventoryWarning, PromotionalPage, PromotionImage } from './types';
export type { NewCartItem } from '../../api/types';
export { CartButton, cartButtonLabel } from './components/cart-button';
