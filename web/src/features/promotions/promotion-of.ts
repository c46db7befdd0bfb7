import type { Cart } from '../../api/types';
import { safeImageSrc } from '../../lib/safe-url';
import type { Promotion } from './store';

/** The first promotion page attached to a discount applied to the cart, if any. */
export function promotionOf(cart: Pick<Cart, 'appliedDiscounts'> | undefined): Promotion | null {
  for (const discount of cart?.appliedDiscounts ?? []) {
    const page = discount.promotionalPageInfo?.data[0];
    if (!page?.title) continue;
    const image = page.promoImage;
    const src = safeImageSrc(image?.url);
    return {
      title: page.title,
      subtitle: page.subtitle ?? '',
      image: src ? { src, alt: image?.alternativeText ?? '' } : null,
    };
  }
  return null;
}
