import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { afterFirstPaint, FIRST_PAINT_CAP_MS } from './after-first-paint';

/** A server-rendered document whose largest image has not loaded yet. */
function documentWithImage(complete: boolean): HTMLImageElement {
  document.body.innerHTML = '<div id="root"><main><img src="/hero.svg" alt="" fetchpriority="high"></main></div>';
  const image = document.querySelector('img');
  if (!image) throw new Error('no image');
  Object.defineProperty(image, 'complete', { value: complete });
  return image;
}

function settled(promise: Promise<void>): () => boolean {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  return () => done;
}

describe('afterFirstPaint', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    // a frame every 16 ms, as the fake clock advances
    vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) =>
      window.setTimeout(() => callback(performance.now()), 16),
    );
  });
  afterEach(() => {
    vi.useRealTimers();
    document.body.innerHTML = '';
  });

  it('waits for the high-priority image, then for a frame drawn after it', async () => {
    const image = documentWithImage(false);
    const done = settled(afterFirstPaint());
    await vi.advanceTimersByTimeAsync(1000);
    expect(done()).toBe(false);
    image.dispatchEvent(new Event('load'));
    await vi.advanceTimersByTimeAsync(1);
    expect(done(), 'the frame after the image has not been drawn yet').toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    expect(done()).toBe(true);
  });

  it('starts after the next frame when the image is already there, or when there is none', async () => {
    documentWithImage(true);
    const done = settled(afterFirstPaint());
    await vi.advanceTimersByTimeAsync(20);
    expect(done()).toBe(true);

    document.body.innerHTML = '<div id="root"><h1>Search</h1></div>';
    const noImage = settled(afterFirstPaint());
    await vi.advanceTimersByTimeAsync(20);
    expect(noImage()).toBe(true);
  });

  it("does not hold a shopper's first tap or key press", async () => {
    documentWithImage(false);
    const tapped = settled(afterFirstPaint());
    window.dispatchEvent(new Event('pointerdown'));
    await vi.advanceTimersByTimeAsync(0);
    expect(tapped()).toBe(true);

    documentWithImage(false);
    const typed = settled(afterFirstPaint());
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Tab' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(typed()).toBe(true);
  });

  it('starts anyway when the image never arrives', async () => {
    documentWithImage(false);
    const done = settled(afterFirstPaint());
    await vi.advanceTimersByTimeAsync(FIRST_PAINT_CAP_MS - 1);
    expect(done()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done()).toBe(true);
  });

  it('a failed image counts as settled', async () => {
    const image = documentWithImage(false);
    const done = settled(afterFirstPaint());
    image.dispatchEvent(new Event('error'));
    await vi.advanceTimersByTimeAsync(20);
    expect(done()).toBe(true);
  });
});
