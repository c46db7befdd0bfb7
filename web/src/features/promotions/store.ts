import { createStore } from '../../lib/store';

export interface Promotion {
  title: string;
  subtitle: string;
  image: { src: string; alt: string } | null;
}

/** The promotion shown in the promotion modal, or null. */
export const promotionStore = createStore<Promotion | null>(null);

export function showPromotion(promotion: Promotion): void {
  promotionStore.set(promotion);
}

export function closePromotion(): void {
  promotionStore.set(null);
}
