/**
 * US phone numbers as the user types: `(208) 555-0142`. Anything but digits is dropped, a leading
 * country code 1 on an 11-digit number too, and at most ten digits are kept. Partial input is
 * formatted as far as it goes, so the field can be edited (and emptied) naturally.
 */
export function formatUsPhone(input: string): string {
  let digits = input.replace(/\D/g, '');
  if (digits.length > 10 && digits.startsWith('1')) digits = digits.slice(1);
  digits = digits.slice(0, 10);
  if (digits.length === 0) return '';
  if (digits.length <= 3) return `(${digits}`;
  if (digits.length <= 6) return `(${digits.slice(0, 3)}) ${digits.slice(3)}`;
  return `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`;
}
