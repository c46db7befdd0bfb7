import { describe, expect, it } from 'vitest';
import { decideConsent } from './consent';
import { preTaxTotal, recordPurchase } from './purchase';

const amounts = { totalAmount: 2288.37, taxAmount: 169.47 };

describe('purchase event', () => {
  it('is not recorded without analytics consent', () => {
    // the test setup has the visitor decline analytics
    expect(recordPurchase({ orderId: '100001', ...amounts })).toBe(false);
    expect(window.dataLayer).toBeUndefined();
  });

  it('is recorded once the visitor accepted analytics', () => {
    decideConsent(true);
    expect(recordPurchase({ orderId: '100001', ...amounts })).toBe(true);
    expect(window.dataLayer).toEqual([
      expect.objectContaining({ event: 'purchase', transactionId: '100001', value: 2118.9, currency: 'USD' }),
    ]);
  });

  it('values the purchase at the pre-tax total: total minus tax, in cents', () => {
    expect(preTaxTotal({ totalAmount: 2288.37, taxAmount: 169.47 })).toBe(2118.9);
    expect(preTaxTotal({ totalAmount: 0.3, taxAmount: 0.1 })).toBe(0.2);
    expect(preTaxTotal({ totalAmount: 49.99, taxAmount: 0 })).toBe(49.99);
  });
});
