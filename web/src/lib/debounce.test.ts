import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { leadingDebounce } from './debounce';

describe('leadingDebounce', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs the first call at once and drops calls within the wait', () => {
    const fn = vi.fn();
    const debounced = leadingDebounce(fn, 1000);

    debounced('a');
    expect(fn).toHaveBeenCalledExactlyOnceWith('a');

    vi.advanceTimersByTime(999);
    debounced('b');
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('restarts the quiet period on every call (lodash leading-only semantics)', () => {
    const fn = vi.fn();
    const debounced = leadingDebounce(fn, 1000);

    debounced();
    vi.advanceTimersByTime(600);
    debounced(); // dropped, and the quiet period starts again
    vi.advanceTimersByTime(600);
    debounced(); // 1200 ms after the first, but only 600 ms of quiet: dropped
    expect(fn).toHaveBeenCalledTimes(1);

    vi.advanceTimersByTime(1000);
    debounced();
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('can be cancelled, so the next call runs at once', () => {
    const fn = vi.fn();
    const debounced = leadingDebounce(fn, 1000);
    debounced();
    debounced.cancel();
    debounced();
    expect(fn).toHaveBeenCalledTimes(2);
  });
});
