import { describe, expect, it } from 'vitest';
import { decideConsent } from './consent';
import { recordPurchase } from './purchase';

describe('purchase event', () => {
  it('is not recorded without analytics consent', () => {
    // the test setup has the visitor decline analytics
    expect(recordPurchase({ orderId: '100001' })).toBe(false);
    expect(window.dataLayer).toBeUndefined();
  });

  it('is recorded once the visitor accepted analytics', () => {
    decideConsent(true);
    expect(recordPurchase({ orderId: '100001' })).toBe(true);
    expect(window.dataLayer).toEqual([expect.objectContaining({ event: 'purchase', transactionId: '100001' })]);
  });
});
