/** The promotions feature's public entry. */
export { closePromotion, promotionStore, showPromotion, type Promotion } from './store';
export { promotionOf, useCartPromotion } from './use-cart-promotion';
