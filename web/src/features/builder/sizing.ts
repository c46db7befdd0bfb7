/** The 3D area (spec 2.9): 16:9, as wide as the container, no taller than the window minus 140 px. */
export const WINDOW_HEIGHT_OFFSET = 140;
export const RESIZE_DEBOUNCE_MS = 250;

export interface FrameSize {
  width: number;
  height: number;
}

/** The largest 16:9 box that fits `containerWidth` and `windowHeight - 140` (whole pixels, never negative). */
export function fitSixteenByNine(containerWidth: number, windowHeight: number): FrameSize {
  const maxHeight = Math.max(0, windowHeight - WINDOW_HEIGHT_OFFSET);
  const width = Math.max(0, Math.min(containerWidth, (maxHeight * 16) / 9));
  return { width: Math.floor(width), height: Math.floor((width * 9) / 16) };
}

/** A trailing-edge debounce: `fn` runs `waitMs` after the last call. */
export function trailingDebounce<A extends unknown[]>(fn: (...args: A) => void, waitMs: number) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const debounced = (...args: A) => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      fn(...args);
    }, waitMs);
  };
  debounced.cancel = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  return debounced;
}
