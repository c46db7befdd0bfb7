import { expect, type Page, type Response } from '@playwright/test';

/** What `<html>` carries once React has committed the app (`src/app/hydration-mark.tsx`). */
const HYDRATED = 'data-hydrated';

/**
 * Waits until React has taken the page over. A server-rendered document shows its buttons,
 * links and selects before the entry script has run: a click then lands on markup without its
 * handlers and is lost. Every test that interacts right after loading a document waits for this.
 */
export async function waitForHydration(page: Page): Promise<void> {
  await expect(page.locator('html'), 'the app hydrated').toHaveAttribute(HYDRATED, 'true');
}

/** `page.goto(url)`, then [`waitForHydration`]: the page is ready for a shopper's input. */
export async function gotoHydrated(page: Page, url: string): Promise<Response | null> {
  const response = await page.goto(url);
  await waitForHydration(page);
  return response;
}

/** `page.reload()`, then [`waitForHydration`]. */
export async function reloadHydrated(page: Page): Promise<Response | null> {
  const response = await page.reload();
  await waitForHydration(page);
  return response;
}
