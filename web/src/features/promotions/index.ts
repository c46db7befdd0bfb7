/** The promotions feature's public entry. It reads no other feature: the cart reads it. */
export { closePromotion, promotionStore, showPromotion, type Promotion } from './store';
export { promotionOf } from './promotion-of';
