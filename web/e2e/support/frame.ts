import AxeBuilder from '@axe-core/playwright';
import { expect, test as base, type Page } from '@playwright/test';

/** The WCAG 2.2 A and AA rules (axe tags each version's additions apart; 2.2 added AA rules only). */
export const WCAG_22_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

interface FrameFixtures {
  /** Whether the visitor has decided about analytics before the first page loads (default true). */
  consentDecided: boolean;
  /** Uncaught errors in the page; every test expects none (automatic). */
  pageErrors: string[];
}

/**
 * The tests' `test`: a visitor who has already answered the analytics question (so the consent
 * modal does not cover the page), and a check that no page threw.
 */
export const test = base.extend<FrameFixtures>({
  consentDecided: [true, { option: true }],
  pageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await use(errors);
      expect(errors, 'uncaught errors in the page').toEqual([]);
    },
    { auto: true },
  ],
  page: async ({ page, consentDecided }, use) => {
    if (consentDecided) {
      await page.addInitScript(() => {
        if (localStorage.getItem('analyticsConsent') === null) {
          localStorage.setItem('analyticsConsent', 'false');
          localStorage.setItem('analyticsConsentTimestamp', String(Date.now()));
        }
      });
    }
    await use(page);
  },
});

export { expect };

/** Runs axe with the WCAG 2.2 AA rules and expects no violations (listed by rule and element). */
export async function expectNoAxeViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(WCAG_22_AA).analyze();
  const violations = results.violations.map(
    (violation) =>
      `${violation.id} (${violation.impact ?? 'n/a'}): ${violation.help} -> ${violation.nodes
        .map((node) => node.target.join(' '))
        .join(' | ')}`,
  );
  expect(violations, 'axe WCAG 2.2 AA violations').toEqual([]);
}

export const MENUS = ['Rifles', 'Pistols', 'Apparel & Gear', 'Support'] as const;

/** Opens each desktop menu (pointer), checks its panel, and closes it with Escape. */
export async function openEachMenu(page: Page): Promise<void> {
  const nav = page.getByRole('banner').getByRole('navigation', { name: 'Main' });
  for (const title of MENUS) {
    const button = nav.getByRole('button', { name: title, exact: true });
    await button.click();
    await expect(button).toHaveAttribute('aria-expanded', 'true');
    await expect(nav.getByRole('link', { name: `Shop all ${title}` })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(button).toHaveAttribute('aria-expanded', 'false');
    await expect(button).toBeFocused();
  }
}

/** Opens the mobile menu, expands two sections independently, and closes it with Escape. */
export async function openMobileMenu(page: Page): Promise<void> {
  const banner = page.getByRole('banner');
  const hamburger = banner.getByRole('button', { name: 'Menu' });
  await hamburger.click();
  await expect(hamburger).toHaveAttribute('aria-expanded', 'true');
  const mobile = banner.getByRole('navigation', { name: 'Mobile' });
  const first = mobile.getByRole('button', { name: MENUS[0], exact: true });
  const second = mobile.getByRole('button', { name: MENUS[1], exact: true });
  await first.click();
  await second.click();
  await expect(first).toHaveAttribute('aria-expanded', 'true');
  await expect(second).toHaveAttribute('aria-expanded', 'true');
  await expect(mobile.getByRole('link', { name: `Shop all ${MENUS[0]}` })).toBeVisible();
  await first.click();
  await expect(first).toHaveAttribute('aria-expanded', 'false');
  await expect(second).toHaveAttribute('aria-expanded', 'true');
  await expect(mobile.getByRole('link', { name: 'Dealer Locator' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(hamburger).toHaveAttribute('aria-expanded', 'false');
  await expect(hamburger).toBeFocused();
}

/**
 * Uses the search overlay with the keyboard only: focus the search icon, Enter opens the overlay
 * with the focus in the box, type, move with the arrow keys, Escape closes it and gives the focus
 * back to the icon. (Works with or without suggestions from the server.)
 */
export async function useSearchWithKeyboard(page: Page): Promise<void> {
  const toggle = page.getByRole('banner').getByRole('button', { name: 'Search' });
  await toggle.focus();
  await page.keyboard.press('Enter');
  const box = page.getByRole('combobox', { name: 'Search products' });
  await expect(box).toBeFocused();
  await page.keyboard.type('summit');
  await expect(box).toHaveValue('summit');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  await expect(box).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(box).toBeHidden();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(toggle).toBeFocused();
}
