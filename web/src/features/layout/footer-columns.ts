export const FOOTER_COLUMNS = 3;

/**
 * Splits items into `columns` consecutive runs as evenly as possible, keeping order; the first
 * columns take the remainder (7 items → 3, 2, 2). Always returns `columns` arrays.
 */
export function splitIntoColumns<T>(items: readonly T[], columns: number = FOOTER_COLUMNS): T[][] {
  const count = Math.max(1, Math.floor(columns));
  const base = Math.floor(items.length / count);
  const remainder = items.length % count;
  const result: T[][] = [];
  let start = 0;
  for (let column = 0; column < count; column += 1) {
    const size = base + (column < remainder ? 1 : 0);
    result.push(items.slice(start, start + size));
    start += size;
  }
  return result;
}
