import { describe, expect, it, vi } from 'vitest';
import {
  createInViewBudget,
  IN_VIEW_PREFETCH_LIMIT,
  prefetchesInView,
  readPrefetchEnvironment,
} from './prefetch-policy';

describe('prefetchesInView', () => {
  it.each([
    [{ hoverNone: true, coarsePointer: true, saveData: false }, true],
    [{ hoverNone: true, coarsePointer: false, saveData: false }, true],
    [{ hoverNone: false, coarsePointer: true, saveData: false }, true],
    [{ hoverNone: false, coarsePointer: false, saveData: false }, false],
    [{ hoverNone: true, coarsePointer: true, saveData: true }, false],
    [{ hoverNone: false, coarsePointer: false, saveData: true }, false],
  ])('%o → %s', (environment, expected) => {
    expect(prefetchesInView(environment)).toBe(expected);
  });
});

describe('readPrefetchEnvironment', () => {
  function fakeWindow(media: Record<string, boolean>, connection?: { saveData?: boolean }) {
    return {
      matchMedia: vi.fn((query: string) => ({ matches: media[query] ?? false })),
      navigator: connection ? { connection } : {},
    } as unknown as Window;
  }

  it('reads the media queries and Save-Data', () => {
    expect(
      readPrefetchEnvironment(fakeWindow({ '(hover: none)': true, '(pointer: coarse)': true }, { saveData: true })),
    ).toEqual({
      hoverNone: true,
      coarsePointer: true,
      saveData: true,
    });
    expect(readPrefetchEnvironment(fakeWindow({ '(pointer: coarse)': true }, { saveData: false }))).toEqual({
      hoverNone: false,
      coarsePointer: true,
      saveData: false,
    });
  });

  it('counts what the browser does not support as false', () => {
    expect(readPrefetchEnvironment({ navigator: {} } as unknown as Window)).toEqual({
      hoverNone: false,
      coarsePointer: false,
      saveData: false,
    });
  });
});

describe('createInViewBudget', () => {
  it('admits the first eight distinct products once each, then nothing', () => {
    expect(IN_VIEW_PREFETCH_LIMIT).toBe(8);
    const budget = createInViewBudget();
    const titles = Array.from({ length: 10 }, (_, index) => `Product ${String(index)}`);

    expect(budget.admit('Product 0')).toBe(true);
    expect(budget.admit('Product 0')).toBe(false);
    const admitted = titles.slice(1).filter((title) => budget.admit(title));
    expect(admitted).toEqual(titles.slice(1, 8));
    expect(budget.exhausted).toBe(true);
    expect(budget.admit('Product 99')).toBe(false);
  });
});
