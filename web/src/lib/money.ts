/**
 * The one currency formatter of the storefront (spec: currency USD, en-US format), written out
 * rather than `Intl.NumberFormat`: the server renderer's engine (QuickJS) has no `Intl`, and the
 * browser and the server must print the same price for hydration to match.
 */

/**
 * `amount` in whole cents, rounded half away from zero on its shortest decimal form, as `Intl`
 * does: `29.245` (29.2449999… in binary) is 2925 cents, `1.4649999999999999` is 146.
 */
function cents(amount: number): number {
  const magnitude = Math.abs(amount);
  const text = String(magnitude);
  if (text.includes('e')) return Math.sign(amount) * Math.round(magnitude * 100);
  const [whole = '0', fraction = ''] = text.split('.');
  const digits = fraction.padEnd(3, '0');
  const rounded = Number(whole) * 100 + Number(digits.slice(0, 2)) + ((digits[2] ?? '0') >= '5' ? 1 : 0);
  return Math.sign(amount) * rounded;
}

/** `1169.99` → `$1,169.99`; `2199` → `$2,199.00`; zero is `$0.00` (rounded to the cent). */
export function formatUsd(amount: number): string {
  const value = Number.isFinite(amount) ? amount : 0;
  const total = cents(value);
  // as Intl: the sign of the amount, even when it rounds to zero cents
  const negative = value < 0 || Object.is(value, -0);
  const whole = Math.floor(Math.abs(total) / 100);
  const fraction = String(Math.abs(total) % 100).padStart(2, '0');
  const grouped = String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}$${grouped}.${fraction}`;
}
