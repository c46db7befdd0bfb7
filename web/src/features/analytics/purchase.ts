import type { AnalyticsEvent } from './analytics';
import { getConsent } from './consent';

/** The pre-tax total (spec §9: total minus tax), in whole cents. */
export function preTaxTotal(amounts: { totalAmount: number; taxAmount: number }): number {
  return Math.round((amounts.totalAmount - amounts.taxAmount) * 100) / 100;
}

/**
 * Records a purchase, only when the visitor accepted analytics (spec: analytics run only after
 * consent). The event goes to `window.dataLayer`, where the analytics client records its events;
 * its `value` is the pre-tax total, in USD.
 */
export function recordPurchase(purchase: { orderId: string; totalAmount: number; taxAmount: number }): boolean {
  if (getConsent() !== 'accepted') return false;
  const event: AnalyticsEvent = {
    event: 'purchase',
    transactionId: purchase.orderId,
    value: preTaxTotal(purchase),
    currency: 'USD',
    at: Date.now(),
  };
  (window.dataLayer ??= []).push(event);
  return true;
}
