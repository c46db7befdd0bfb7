/**
 * When product cards prefetch their product before the shopper taps (the pure rules; the
 * browser wiring is `use-in-view-prefetch.ts`). Hover, focus and touchstart are intent and always
 * prefetch. On touch devices there is no hover to announce intent, so the first cards that scroll
 * into view are prefetched instead, unless the browser asks to save data.
 */

/** How many cards of a grid prefetch when they enter the viewport (touch devices only). */
export const IN_VIEW_PREFETCH_LIMIT = 8;

/** What the browser says about the device and the connection. */
export interface PrefetchEnvironment {
  /** `(hover: none)`: the primary input cannot hover (phones, tablets). */
  hoverNone: boolean;
  /** `(pointer: coarse)`: the primary pointer is a finger. */
  coarsePointer: boolean;
  /** `navigator.connection.saveData`: the shopper asked for less data. */
  saveData: boolean;
}

/** True when cards should prefetch as they enter the viewport. */
export function prefetchesInView(environment: PrefetchEnvironment): boolean {
  return (environment.hoverNone || environment.coarsePointer) && !environment.saveData;
}

/** The environment as the browser reports it (anything it does not support counts as false). */
export function readPrefetchEnvironment(win: Window = window): PrefetchEnvironment {
  const matches = (query: string) => typeof win.matchMedia === 'function' && win.matchMedia(query).matches;
  const connection = (win.navigator as Navigator & { connection?: { saveData?: boolean } }).connection;
  return {
    hoverNone: matches('(hover: none)'),
    coarsePointer: matches('(pointer: coarse)'),
    saveData: connection?.saveData === true,
  };
}

/**
 * The first `limit` distinct products to enter the viewport: `admit(title)` is true for each of
 * them once, false for repeats and for everything after the limit.
 */
export function createInViewBudget(limit: number = IN_VIEW_PREFETCH_LIMIT) {
  const admitted = new Set<string>();
  return {
    admit(title: string): boolean {
      if (admitted.has(title) || admitted.size >= limit) return false;
      admitted.add(title);
      return true;
    },
    /** True once the limit is reached: the observer can stop. */
    get exhausted(): boolean {
      return admitted.size >= limit;
    },
  };
}
