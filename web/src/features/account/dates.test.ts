import { describe, expect, it } from 'vitest';
import { formatOrderDate, parseDate } from './dates';

describe('order dates', () => {
  it('formats the BFF timestamps as MM/DD/YYYY', () => {
    expect(formatOrderDate('2025-01-09T12:00:00Z')).toBe('01/09/2025');
    expect(formatOrderDate('2026-11-22T05:48:00.123Z')).toMatch(/^11\/2[12]\/2026$/);
    expect(formatOrderDate('2024-12-31')).toBe('12/31/2024');
  });

  it('reads US dates, two-digit years above 68 as 19xx and the others as 20xx', () => {
    expect(formatOrderDate('07/04/1976')).toBe('07/04/1976');
    expect(formatOrderDate('07/04/69')).toBe('07/04/1969');
    expect(formatOrderDate('7/4/99')).toBe('07/04/1999');
    expect(formatOrderDate('07/04/68')).toBe('07/04/2068');
    expect(formatOrderDate('01/02/05')).toBe('01/02/2005');
    expect(parseDate('12/25/70')?.year()).toBe(1970);
  });

  it('leaves text that is no date as it is', () => {
    expect(parseDate('soon')).toBeNull();
    expect(parseDate('13/45/2020')).toBeNull();
    expect(formatOrderDate('soon')).toBe('soon');
  });
});
