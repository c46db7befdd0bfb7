/**
 * The cart as `GET /api/cart` answers it: the generated contract types (see `src/api/types.ts`).
 * The promotion page of an applied discount is typed too: the bff answers it in one spelling
 * (`promoImage`, whatever the content service calls it).
 */
export type {
  AppliedDiscount,
  Cart,
  CartItem,
  CartOption,
  InventoryWarning,
  PromotionalPage,
  PromotionImage,
} from '../../api/types';
