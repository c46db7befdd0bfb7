import { describe, expect, it } from 'vitest';
import { splitIntoColumns } from './footer-columns';

const items = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('splitIntoColumns', () => {
  it.each([
    [0, [[], [], []]],
    [1, [[1], [], []]],
    [2, [[1], [2], []]],
    [3, [[1], [2], [3]]],
    [4, [[1, 2], [3], [4]]],
    [5, [[1, 2], [3, 4], [5]]],
    [
      6,
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
    ],
    [
      7,
      [
        [1, 2, 3],
        [4, 5],
        [6, 7],
      ],
    ],
    [
      10,
      [
        [1, 2, 3, 4],
        [5, 6, 7],
        [8, 9, 10],
      ],
    ],
  ])('splits %i links into 3 columns as evenly as possible, in order', (n, expected) => {
    expect(splitIntoColumns(items(n))).toEqual(expected);
  });

  it('keeps column sizes within one of each other', () => {
    for (let n = 0; n < 40; n += 1) {
      const sizes = splitIntoColumns(items(n), 3).map((column) => column.length);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(n);
    }
  });

  it('supports other column counts', () => {
    expect(splitIntoColumns(items(5), 2)).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });
});
