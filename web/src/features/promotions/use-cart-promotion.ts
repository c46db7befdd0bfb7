import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { safeImageSrc } from '../../lib/safe-url';
import { cartQuery } from '../cart';
import type { Cart } from '../cart';
import { showPromotion, type Promotion } from './store';

const SEEN_KEY = 'promotionsShown';

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

/**
 * Opens the promotion modal when a discount with a promotion page is applied to the cart: once per
 * promotion and browser session.
 */
export function useCartPromotion(): void {
  const { data: promotion } = useQuery({ ...cartQuery, select: promotionOf });
  useEffect(() => {
    // `select` results are structurally shared: this runs when the promotion changes, not per answer
    if (!promotion) return;
    const seen = readSeen();
    if (seen.includes(promotion.title)) return;
    writeSeen([...seen, promotion.title]);
    showPromotion(promotion);
  }, [promotion]);
}

function readSeen(): string[] {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(SEEN_KEY) ?? '[]');
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

function writeSeen(titles: string[]): void {
  try {
    sessionStorage.setItem(SEEN_KEY, JSON.stringify(titles));
  } catch {
    // storage unavailable (private mode): the promotion may show again, which is harmless
  }
}
