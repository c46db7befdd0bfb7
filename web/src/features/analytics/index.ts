/** Analytics: consent-gated events other features record. */
export { recordPurchase } from './purchase';
