/**
 * When a server-rendered first screen has painted: its high-priority images (the page's largest
 * image, which the document preloads at `fetchpriority="high"`) have loaded and a frame has been
 * drawn since. The boot script starts the app then, so the app's scripts do not share a phone's
 * link with those images, nor its main thread with their first paint.
 *
 * A shopper's first tap or key press does not wait: it starts the app at once. Nor does a slow
 * image: after `capMs` the app starts anyway.
 */
export function afterFirstPaint(capMs = FIRST_PAINT_CAP_MS): Promise<void> {
  return new Promise((resolve) => {
    const start = () => {
      clearTimeout(cap);
      for (const type of INTERACTIONS) removeEventListener(type, start, true);
      resolve();
    };
    const cap = setTimeout(start, capMs);
    for (const type of INTERACTIONS) addEventListener(type, start, { capture: true, passive: true });

    const pending = [...document.querySelectorAll<HTMLImageElement>('#root img[fetchpriority="high"]')].filter(
      (image) => !image.complete,
    );
    const loaded = pending.map(
      (image) =>
        new Promise((settled) => {
          image.addEventListener('load', settled, { once: true });
          image.addEventListener('error', settled, { once: true });
        }),
    );
    // then a frame drawn after them: requestAnimationFrame runs before the frame's paint, the task
    // it queues after it
    void Promise.all(loaded).then(() => requestAnimationFrame(() => setTimeout(start, 0)));
  });
}

/** The longest a first screen's images hold the app back (a slow or lost image). */
export const FIRST_PAINT_CAP_MS = 3000;

const INTERACTIONS = ['pointerdown', 'keydown', 'touchstart'] as const;
