import type { AnalyticsEvent } from './analytics';
import { getConsent } from './consent';

/**
 * Records a purchase, only when the visitor accepted analytics (spec: analytics run only after
 * consent). The event goes to `window.dataLayer`, where the analytics client records its events.
 */
export function recordPurchase(purchase: { orderId: string }): boolean {
  if (getConsent() !== 'accepted') return false;
  const event: AnalyticsEvent = { event: 'purchase', transactionId: purchase.orderId, at: Date.now() };
  (window.dataLayer ??= []).push(event);
  return true;
}
