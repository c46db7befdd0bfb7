import { describe, expect, it } from 'vitest';
import { formatUsd } from '../../../lib/money';
import { percentOff, priceDisplay, priceText } from './price';

describe('priceDisplay', () => {
  it("reads 'Coming Soon' when the final price is 0 or less", () => {
    expect(priceDisplay({ price: 0, finalPrice: 0, discountPercentage: 0 })).toEqual({ kind: 'coming-soon' });
    expect(priceDisplay({ price: 10, finalPrice: -1, discountPercentage: 0 })).toEqual({ kind: 'coming-soon' });
  });

  it('shows the final price alone when there is no discount', () => {
    expect(priceDisplay({ price: 2199, finalPrice: 2199, discountPercentage: 0 })).toEqual({
      kind: 'regular',
      price: '$2,199.00',
    });
  });

  it("strikes the original through with '(N% off)' when the final price is lower", () => {
    const display = priceDisplay({ price: 1299.99, finalPrice: 1169.99, discountPercentage: 10 });
    expect(display).toEqual({ kind: 'discounted', price: '$1,169.99', original: '$1,299.99', percentOff: 10 });
    expect(priceText(display)).toBe('$1,169.99, was $1,299.99 (10% off)');
  });

  it('computes and rounds the percentage when the server gives none', () => {
    expect(percentOff({ price: 30, finalPrice: 25.5, discountPercentage: 0 })).toBe(15);
    expect(percentOff({ price: 3, finalPrice: 2, discountPercentage: 0 })).toBe(33);
    expect(percentOff({ price: 1000, finalPrice: 999.99, discountPercentage: 0 })).toBe(1);
    expect(percentOff({ price: 2799, finalPrice: 2463.12, discountPercentage: 12 })).toBe(12);
  });
});

describe('formatUsd: USD, en-US', () => {
  it('rounds to the cent with grouping', () => {
    expect(formatUsd(1979.1)).toBe('$1,979.10');
    expect(formatUsd(0.1 + 0.2)).toBe('$0.30');
    expect(formatUsd(29.245)).toBe('$29.25');
    expect(formatUsd(1234567.891)).toBe('$1,234,567.89');
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(Number.NaN)).toBe('$0.00');
  });
});

describe('formatUsd: the same text as Intl.NumberFormat', () => {
  it('matches Intl for every cent from 0 to $20 and large and negative amounts', () => {
    const intl = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
    const amounts = [1.005, 2.675, 1e12 + 0.5, 123456789.125, -29.245, -0.004, 999.995];
    for (let cent = 0; cent <= 2000; cent++) amounts.push(cent / 100, cent / 100 + 0.005);
    for (const amount of amounts) expect(formatUsd(amount), String(amount)).toBe(intl.format(amount));
  });
});
