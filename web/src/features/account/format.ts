/** Money as the storefront shows it: US dollars. */
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

export function formatMoney(amount: number): string {
  return usd.format(amount);
}

/** A `tel:` href for a phone number as typed ('(208) 555-0142' → 'tel:2085550142'). */
export function telHref(phone: string): string {
  return `tel:${phone.replace(/[^\d+]/g, '')}`;
}
