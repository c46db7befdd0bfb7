/** Money as the storefront shows it: the one USD formatter (`src/lib/money.ts`). */
export { formatUsd as formatMoney } from '../../lib/money';

/** A `tel:` href for a phone number as typed ('(208) 555-0142' → 'tel:2085550142'). */
export function telHref(phone: string): string {
  return `tel:${phone.replace(/[^\d+]/g, '')}`;
}
