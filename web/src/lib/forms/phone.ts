/**
 * US phone numbers as the user types: `(208) 555-0142`, or `1 (208) 555-0142` when the number
 * starts with the country code 1. Anything but digits is dropped and at most ten digits follow
 * the country code. Partial input is formatted as far as it goes, so the field can be edited
 * (and emptied) naturally. The one formatter of every phone field (spec: auto-formatted US style).
 */
export function formatUsPhone(input: string): string {
  let digits = input.replace(/\D/g, '');
  let prefix = '';
  if (digits.length > 10 && digits.startsWith('1')) {
    prefix = '1 ';
    digits = digits.slice(1);
  }
  digits = digits.slice(0, 10);
  if (digits.length === 0) return prefix.trim();
  if (digits.length < 4) return `${prefix}(${digits}`;
  if (digits.length < 7) return `${prefix}(${digits.slice(0, 3)}) ${digits.slice(3)}`;
  return `${prefix}(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`;
}
