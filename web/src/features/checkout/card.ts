/**
 * The card form's formatting rules (spec section 5): the number grouped in fours, or 4-6-5 for
 * American Express (numbers starting 34 or 37, at most 15 digits; others at most 16); the brand
 * from the number's prefix; expiry months 01–12 and years from this one plus nine more.
 */

export type CardBrand = 'Visa' | 'Mastercard' | 'American Express' | 'Discover';

export const CARD_BRANDS: readonly CardBrand[] = ['Visa', 'Mastercard', 'American Express', 'Discover'];

export function digitsOf(value: string): string {
  return value.replace(/\D/g, '');
}

function isAmex(digits: string): boolean {
  return /^3[47]/.test(digits);
}

/** The most digits a card number may have: 15 for American Express, else 16. */
export function maxCardDigits(value: string): number {
  return isAmex(digitsOf(value)) ? 15 : 16;
}

/** Mastercard's 2-series: 2221 to 2720. */
function isMastercard2Series(digits: string): boolean {
  if (digits.length < 4 || !digits.startsWith('2')) return false;
  const prefix = Number(digits.slice(0, 4));
  return prefix >= 2221 && prefix <= 2720;
}

/** The brand the number's prefix shows, or null while it shows none. */
export function cardBrand(value: string): CardBrand | null {
  const digits = digitsOf(value);
  if (digits.startsWith('4')) return 'Visa';
  if (/^5[1-5]/.test(digits) || isMastercard2Series(digits)) return 'Mastercard';
  if (isAmex(digits)) return 'American Express';
  if (/^(6011|64[4-9]|65)/.test(digits)) return 'Discover';
  return null;
}

/** The number as the field shows it: `4111 1111 1111 1111`, or `3782 822463 10005` for Amex. */
export function formatCardNumber(value: string): string {
  const digits = digitsOf(value).slice(0, maxCardDigits(value));
  const groups = isAmex(digits)
    ? [digits.slice(0, 4), digits.slice(4, 10), digits.slice(10, 15)]
    : (digits.match(/.{1,4}/g) ?? []);
  return groups.filter(Boolean).join(' ');
}

/** Expiry months, `01` to `12`. */
export const EXPIRY_MONTHS: readonly string[] = Array.from({ length: 12 }, (_, index) =>
  String(index + 1).padStart(2, '0'),
);

/** Expiry years: the current year and the nine after it (10 options). */
export function expiryYears(now: Date = new Date()): string[] {
  const first = now.getFullYear();
  return Array.from({ length: 10 }, (_, index) => String(first + index));
}
