import dayjs, { type Dayjs } from 'dayjs';
import customParseFormat from 'dayjs/plugin/customParseFormat';

dayjs.extend(customParseFormat);

/** Order dates are shown MM/DD/YYYY (spec). */
export const ORDER_DATE_FORMAT = 'MM/DD/YYYY';

/** The US forms a date may come in besides ISO 8601; two-digit years above 68 are 19xx (dayjs, spec). */
const US_FORMATS = ['MM/DD/YYYY', 'M/D/YYYY', 'MM/DD/YY', 'M/D/YY'];
const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;

/** Parses an ISO 8601 timestamp (the BFF's) or a US date; null when it is neither. */
export function parseDate(value: string): Dayjs | null {
  const text = value.trim();
  const parsed = ISO_DATE.test(text) ? dayjs(text) : dayjs(text, US_FORMATS, true);
  return parsed.isValid() ? parsed : null;
}

/** MM/DD/YYYY in the shopper's time zone; the text as it came when it is not a date. */
export function formatOrderDate(value: string): string {
  return parseDate(value)?.format(ORDER_DATE_FORMAT) ?? value;
}
