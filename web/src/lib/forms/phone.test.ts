import { describe, expect, it } from 'vitest';
import { formatUsPhone } from './phone';

describe('formatUsPhone', () => {
  it.each([
    ['', ''],
    ['2', '(2'],
    ['208', '(208'],
    ['2085', '(208) 5'],
    ['208555', '(208) 555'],
    ['2085550', '(208) 555-0'],
    ['2085550142', '(208) 555-0142'],
    ['208-555-0142', '(208) 555-0142'],
    ['+1 (208) 555 0142', '1 (208) 555-0142'],
    ['20855501429999', '(208) 555-0142'],
    ['12085550100', '1 (208) 555-0100'],
    ['(512) 555-01999', '(512) 555-0199'],
    ['(20', '(20'],
    ['abc', ''],
  ])('formats %j as %j', (input, expected) => {
    expect(formatUsPhone(input)).toBe(expected);
  });

  it('is stable: formatting a formatted number changes nothing', () => {
    expect(formatUsPhone(formatUsPhone('2085550142'))).toBe('(208) 555-0142');
  });
});
