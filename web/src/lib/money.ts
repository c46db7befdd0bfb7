/** The one currency formatter of the storefront (spec: currency USD, en-US format). */
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** `1169.99` → `$1,169.99`; `2199` → `$2,199.00`; zero is `$0.00` (rounded to the cent). */
export function formatUsd(amount: number): string {
  return usd.format(Number.isFinite(amount) ? amount : 0);
}
