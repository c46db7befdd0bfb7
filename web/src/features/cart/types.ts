/** The cart as `GET /api/cart` answers it: the generated contract types (see `src/api/types.ts`). */
export type { AppliedDiscount, Cart, CartItem, CartOption, InventoryWarning } from '../../api/types';

/*
 * Local narrow types, kept because the contract is less precise here: `AppliedDiscount.
 * promotionalPageInfo` is opaque (`unknown`), the content service's `{data: [{title, subtitle,
 * promo_image: {url}, …}]}` passed through. They describe what the promotion modal reads; the
 * value must be checked at run time before it is used as one (see `promotionOf`).
 */

export interface PromotionImage {
  url: string;
  alternativeText?: string | null;
}

/** A promotion page attached to an applied discount (`promotionalPageInfo.data[0]`). */
export interface PromotionalPage {
  title: string;
  subtitle?: string | null;
  promoImage?: PromotionImage | null;
  /** The upstream spelling, the one the contract documents (passed through unconverted). */
  promo_image?: PromotionImage | null;
}
