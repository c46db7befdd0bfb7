import { afterEach, describe, expect, it, vi } from 'vitest';
import { fitSixteenByNine, trailingDebounce } from './sizing';

describe('fitSixteenByNine', () => {
  it('takes the container width when the window is tall enough', () => {
    // 1280 wide: 720 high fits under 1000 - 140
    expect(fitSixteenByNine(1280, 1000)).toEqual({ width: 1280, height: 720 });
  });

  it('is limited by the window height minus 140 px', () => {
    // 900 - 140 = 760 high at most: 760 * 16 / 9 = 1351.1 wide
    expect(fitSixteenByNine(1600, 900)).toEqual({ width: 1351, height: 760 });
    expect(fitSixteenByNine(2000, 500)).toEqual({ width: 640, height: 360 });
  });

  it('keeps 16:9 within a pixel', () => {
    for (const [width, height] of [
      [375, 667],
      [1024, 768],
      [1920, 1080],
      [333, 2000],
    ] as const) {
      const size = fitSixteenByNine(width, height);
      expect(size.width).toBeLessThanOrEqual(width);
      expect(size.height).toBeLessThanOrEqual(height - 140);
      expect(Math.abs(size.height - (size.width * 9) / 16)).toBeLessThan(1);
    }
  });

  it('never goes negative in a tiny window', () => {
    expect(fitSixteenByNine(800, 100)).toEqual({ width: 0, height: 0 });
  });
});

describe('trailingDebounce', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs once, 250 ms after the last call', () => {
    vi.useFakeTimers();
    const fn = vi.fn();
    const debounced = trailingDebounce(fn, 250);
    debounced();
    vi.advanceTimersByTime(200);
    debounced();
    vi.advanceTimersByTime(249);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
  });
});
