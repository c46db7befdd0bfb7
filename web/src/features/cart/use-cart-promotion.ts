import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { promotionOf, showPromotion } from '../promotions';
import { cartQuery } from './queries';

const SEEN_KEY = 'promotionsShown';

/**
 * Opens the promotion modal when a discount with a promotion page is applied to the cart: once per
 * promotion and browser session. It lives in the cart, which reads the promotions feature, so that
 * promotions never imports the cart (no import cycle).
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
