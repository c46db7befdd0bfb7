import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { safeImageSrc } from '../../lib/safe-url';
import { cartQuery } from '../cart';
import type { Cart, PromotionalPage, PromotionImage } from '../cart';
import { showPromotion, type Promotion } from './store';

const SEEN_KEY = 'promotionsShown';

/** The first promotion page attached to a discount applied to the cart, if any. */
export function promotionOf(cart: Pick<Cart, 'appliedDiscounts'> | undefined): Promotion | null {
  for (const discount of cart?.appliedDiscounts ?? []) {
    const page = firstPromotionalPage(discount.promotionalPageInfo);
    if (!page?.title) continue;
    const image = page.promoImage ?? page.promo_image;
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
 * `promotionalPageInfo.data[0]`, read defensively: the contract leaves `promotionalPageInfo`
 * opaque (it is the content service's document, passed through), so every field is checked.
 */
function firstPromotionalPage(info: unknown): PromotionalPage | null {
  if (!isRecord(info) || !Array.isArray(info.data)) return null;
  const page: unknown = info.data[0];
  if (!isRecord(page) || typeof page.title !== 'string') return null;
  return {
    title: page.title,
    subtitle: optionalText(page.subtitle),
    promoImage: promotionImage(page.promoImage),
    promo_image: promotionImage(page.promo_image),
  };
}

function promotionImage(value: unknown): PromotionImage | null {
  if (!isRecord(value) || typeof value.url !== 'string') return null;
  return { url: value.url, alternativeText: optionalText(value.alternativeText) };
}

function optionalText(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
