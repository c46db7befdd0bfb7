/** The cart as `GET /api/cart` answers it (the fields the frame reads; the cart feature extends this). */

export interface CartItemOption {
  label: string;
  value: string;
}

export interface CartItem {
  id: number;
  productId: string;
  productName: string;
  options: CartItemOption[];
  price: number;
  productPrice: number;
  quantity: number;
  imageUrl: string | null;
  productUrl: string | null;
}

export interface PromotionImage {
  url: string;
  alternativeText?: string | null;
}

/** A promotion page attached to an applied discount (`promotionalPageInfo.data[0]`). */
export interface PromotionalPage {
  title: string;
  subtitle?: string | null;
  promoImage?: PromotionImage | null;
  /** The upstream spelling, in case the BFF passes it through unconverted. */
  promo_image?: PromotionImage | null;
}

export interface AppliedDiscount {
  promoCode?: string | null;
  appliedToCartItemIds?: number[];
  promotionalPageInfo?: { data?: PromotionalPage[] | null } | null;
}

export interface Cart {
  id: number | null;
  isGuest: boolean;
  items: CartItem[];
  subTotal: number;
  taxAmount: number;
  shipping: number;
  discountAmount: number;
  totalAmount: number;
  appliedDiscounts: AppliedDiscount[];
}
