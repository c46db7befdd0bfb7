/** A function that runs on the leading edge; calls within `waitMs` of the previous call are dropped. */
export interface LeadingDebounced<A extends unknown[]> {
  (...args: A): void;
  cancel: () => void;
}

/**
 * Leading-edge debounce (lodash's `debounce(fn, wait, {leading: true, trailing: false})`): the
 * first call runs at once; every call restarts the quiet period, and only a call made after
 * `waitMs` of quiet runs again.
 */
export function leadingDebounce<A extends unknown[]>(fn: (...args: A) => void, waitMs: number): LeadingDebounced<A> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const debounced = (...args: A) => {
    const quiet = timer === undefined;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
    }, waitMs);
    if (quiet) fn(...args);
  };
  debounced.cancel = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  return debounced;
}
