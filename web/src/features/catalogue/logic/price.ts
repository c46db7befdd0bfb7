import { formatUsd } from '../../../lib/money';
import type { ProductSku } from '../types';

/** What a price line shows, from a sku's live figures (spec: shopping §2 and §3). */
export type PriceDisplay =
  /** The final price is 0 or less: 'Coming Soon' instead of a price. */
  | { kind: 'coming-soon' }
  | { kind: 'regular'; price: string }
  /** The final price is below the price: the original struck through and '(N% off)'. */
  | { kind: 'discounted'; price: string; original: string; percentOff: number };

export type PricedSku = Pick<ProductSku, 'price' | 'finalPrice' | 'discountPercentage'>;

export function priceDisplay(sku: PricedSku): PriceDisplay {
  const final = sku.finalPrice;
  if (!Number.isFinite(final) || final <= 0) return { kind: 'coming-soon' };
  if (final < sku.price) {
    return { kind: 'discounted', price: formatUsd(final), original: formatUsd(sku.price), percentOff: percentOff(sku) };
  }
  return { kind: 'regular', price: formatUsd(final) };
}

/**
 * The whole percentage shown in '(N% off)': the server's discount percentage when it gives one,
 * else computed from the two prices; never 0 for a price that is lower.
 */
export function percentOff({ price, finalPrice, discountPercentage }: PricedSku): number {
  const computed = discountPercentage > 0 ? discountPercentage : (1 - finalPrice / price) * 100;
  return Math.max(1, Math.round(computed));
}

/** The words a screen reader hears for a price line (one string, no struck-through ambiguity). */
export function priceText(display: PriceDisplay): string {
  switch (display.kind) {
    case 'coming-soon':
      return 'Coming Soon';
    case 'regular':
      return display.price;
    case 'discounted':
      return `${display.price}, was ${display.original} (${String(display.percentOff)}% off)`;
  }
}
